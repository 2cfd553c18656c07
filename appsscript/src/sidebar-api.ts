/// <reference types="google-apps-script" />
/**
 * What the sidebar (the src/ui app in an HtmlService page) asks of the script, through one entry point
 * `sidebarCall(op, payloadJson)` that google.script.run can reach. Answers and errors travel as JSON: the
 * sidebar rebuilds typed errors from them, so it shows the same messages as the cells. Backend calls
 * run on the current connection (or, for "Test and save", on the one being tested) and report the quota
 * of the response; saved queries and their schedule are in saved-queries.ts.
 */
import { resolveConfig } from '../../src/client/config.js';
import { messageOf, OrgIndexError, RateLimitError, ValidationError } from '../../src/contract/errors.js';
import type { Quota, ReachedLimit } from '../../src/contract/errors.js';
import { remoteSyncBackend, type SyncSheetBackend } from '../../src/sheet/backend.js';
import { clientOptionsOf, readConnection, type Connection } from '../../src/sheet/connection.js';
import { ArgumentError } from '../../src/sheet/cells.js';
import { MAP_LEVELS, type MapLevel } from '../../src/contract/common.js';
import { placeCoordinates } from '../../src/engine/dataset/place-coordinates.js';
import { CONNECTION_PROPERTY, currentConnection, localBackend } from './runtime.js';
import * as saved from './saved-queries.js';
import * as sheet from './sheet-actions.js';
import { Deadline, urlFetchTransport } from './transport.js';

/** Sidebar work is not a custom function: it has Apps Script's 6-minute execution limit, not 30 s. */
const SIDEBAR_BUDGET_MS = 5 * 60_000;

export interface SidebarError {
  name: string;
  kind: string;
  message: string;
  status: number | null;
  resetAt: string | null;
  /** A rate limit's: the request rate or a monthly quota. */
  limit: ReachedLimit | null;
  detail: unknown;
  argument: string | null;
}

export type SidebarAnswer = { ok: true; value: unknown; quota: Quota | null } | { ok: false; error: SidebarError };

function backendOf(connection: Connection, onQuota: (quota: Quota) => void): SyncSheetBackend {
  if (connection.backend !== 'remote' || connection.serviceUrl.trim() === '') return localBackend();
  return remoteSyncBackend(resolveConfig(clientOptionsOf(connection)), urlFetchTransport(new Deadline(SIDEBAR_BUDGET_MS)), onQuota);
}

function errorOf(error: unknown): SidebarError {
  return {
    name: error instanceof Error ? error.name : 'Error',
    kind: error instanceof OrgIndexError ? error.kind : error instanceof ArgumentError ? 'argument' : 'unexpected',
    message: error instanceof ArgumentError ? error.reason : messageOf(error),
    status: error instanceof OrgIndexError ? error.status : null,
    resetAt: error instanceof RateLimitError ? error.resetAt : null,
    limit: error instanceof RateLimitError ? error.limit : null,
    detail: error instanceof ValidationError ? error.detail : null,
    argument: error instanceof ArgumentError ? error.argument : null,
  };
}

type Payload = Record<string, unknown>;

function mapLevelOf(value: unknown): MapLevel {
  const level = MAP_LEVELS.find((known) => known === value);
  if (!level) throw new ArgumentError('level', `must be one of ${MAP_LEVELS.join(', ')}`);
  return level;
}

/** The operations, by name: backend calls, the connection, and what the sidebar does to the sheet. */
function operate(op: string, payload: Payload, onQuota: (quota: Quota) => void): unknown {
  const connection = payload.connection ? readConnection(JSON.stringify(payload.connection)) : currentConnection();
  const backend = (): SyncSheetBackend => backendOf(connection, onQuota);
  switch (op) {
    case 'connection':
      return currentConnection();
    case 'saveConnection': {
      const scope = payload.scope === 'document' ? PropertiesService.getDocumentProperties() : PropertiesService.getUserProperties();
      scope.setProperty(CONNECTION_PROPERTY, JSON.stringify(readConnection(JSON.stringify(payload.value))));
      return currentConnection();
    }
    case 'search':
      return backend().search(payload.body as Parameters<SyncSheetBackend['search']>[0]);
    case 'fetch':
      return backend().fetch(payload.body as Parameters<SyncSheetBackend['fetch']>[0]);
    case 'stats':
      return backend().stats(payload.body as Parameters<SyncSheetBackend['stats']>[0]);
    case 'qna':
      return backend().qna(payload.body as Parameters<SyncSheetBackend['qna']>[0]);
    case 'nlpSearch':
      return backend().nlpSearch(payload.body as Parameters<SyncSheetBackend['nlpSearch']>[0]);
    case 'filterOptions':
      return backend().filterOptions();
    case 'placeCoordinates':
      return placeCoordinates(mapLevelOf(payload.level), Array.isArray(payload.names) ? payload.names.filter((name): name is string => typeof name === 'string') : []);
    case 'locationSearch':
      return backend().locationSearch(payload.body as Parameters<SyncSheetBackend['locationSearch']>[0]);
    case 'health':
      return backend().health();
    case 'savedQueries':
      return saved.listSavedQueries();
    case 'insertRefreshable':
      return saved.insertRefreshable({ request: payload.request, output: payload.output } as Parameters<typeof saved.insertRefreshable>[0]);
    case 'removeSavedQuery':
      saved.removeSavedQuery(String(payload.id));
      return null;
    case 'refreshSavedQueries':
      return saved.refreshSavedQueries('sidebar');
    case 'schedule':
      return saved.readSchedule();
    case 'setSchedule':
      return saved.setSchedule(payload.schedule);
    default:
      return sheet.perform(op, payload);
  }
}

/** The one entry point of the sidebar: an answer or an error, as JSON (google.script.run carries plain values). */
export function sidebarCall(op: string, payloadJson: string): string {
  let quota: Quota | null = null;
  let answer: SidebarAnswer;
  try {
    const value = operate(op, JSON.parse(payloadJson || '{}') as Payload, (seen) => {
      quota = seen;
    });
    answer = { ok: true, value, quota };
  } catch (error) {
    answer = { ok: false, error: errorOf(error) };
  }
  return JSON.stringify(answer);
}
