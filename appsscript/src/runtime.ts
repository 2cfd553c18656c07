/// <reference types="google-apps-script" />
/**
 * The Sheets host's state for one execution (Apps Script keeps nothing between calls): the connection
 * from user properties — or the team connection a spreadsheet owner set in document properties — the
 * backend (the embedded sample, or a remote service over UrlFetchApp), and the functions with the
 * document cache (CacheService).
 */
import { resolveConfig } from '../../src/client/config.js';
import { DEFAULT_DATASET, generateDataset } from '../../src/engine/dataset/generate.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { localSyncBackend, remoteSyncBackend, type SyncSheetBackend } from '../../src/sheet/backend.js';
import { clientOptionsOf, readConnection, type Connection } from '../../src/sheet/connection.js';
import { executionStore, SyncResultCache } from '../../src/sheet/sync-cache.js';
import { SyncSheetFunctions } from '../../src/sheet/sync-functions.js';
import { askSite, scriptSiteSettings } from './site-qna.js';
import { CUSTOM_FUNCTION_BUDGET_MS, Deadline, fetchAllChunks, urlFetchTransport } from './transport.js';

export const CONNECTION_PROPERTY = 'orgindex.connection';

/**
 * The user's own connection, else the spreadsheet's team connection. Custom functions read the
 * *spreadsheet owner's* user properties, so a shared spreadsheet computes with the owner's key; a team
 * connection in document properties is the explicit way to share one.
 */
export function currentConnection(): Connection {
  const own = PropertiesService.getUserProperties().getProperty(CONNECTION_PROPERTY);
  if (own) return readConnection(own);
  return readConnection(PropertiesService.getDocumentProperties().getProperty(CONNECTION_PROPERTY));
}

/**
 * The embedded sample of the Sheets project: the default dataset's generator and seed, 10,000
 * organizations instead of 50,000. Apps Script keeps nothing between executions, so every custom
 * function call that runs locally generates and indexes it again; 10,000 keeps that well inside the
 * 30 s limit (README: "The Sheets bundle").
 */
export const SHEETS_SAMPLE = { ...DEFAULT_DATASET, count: 10_000 } as const;

let engine: Engine | null = null;
let local: SyncSheetBackend | null = null;

/** The embedded sample, indexed on first use in this execution; =ORGASK reads the website itself (site-qna.ts). */
export function localBackend(): SyncSheetBackend {
  local ??= localSyncBackend(
    () => (engine ??= createEngine(generateDataset(SHEETS_SAMPLE))),
    (body) => askSite(body, scriptSiteSettings()),
  );
  return local;
}

/** The document's answer cache (shared by every user of the spreadsheet, as the formulas are). */
export function documentCache(): SyncResultCache {
  return new SyncResultCache(CacheService.getDocumentCache() ?? CacheService.getScriptCache());
}

/**
 * The functions for one execution, within `budgetMs`. `fresh` (a refresh of saved queries): the service
 * is asked again, not the document cache, and the answers do not go into it.
 */
export function createFunctions(budgetMs = CUSTOM_FUNCTION_BUDGET_MS, options: { fresh?: boolean } = {}): SyncSheetFunctions {
  const connection = currentConnection();
  const deadline = new Deadline(budgetMs);
  const cache = options.fresh ? new SyncResultCache(executionStore()) : documentCache();
  if (!options.fresh) cache.setTtlSeconds(connection.cacheHours * 3600);
  if (connection.backend === 'remote' && connection.serviceUrl.trim() !== '') {
    const config = resolveConfig(clientOptionsOf(connection));
    const backend: SyncSheetBackend = remoteSyncBackend(config, urlFetchTransport(deadline));
    return new SyncSheetFunctions({ backend: () => backend, cache, fetchMany: fetchAllChunks(config, deadline) });
  }
  return new SyncSheetFunctions({ backend: localBackend, cache });
}
