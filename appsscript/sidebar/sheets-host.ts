/**
 * The sidebar's Host: everything goes to the script through google.script.run (one entry point,
 * `orgindexSidebarCall`, JSON both ways), wrapped in promises. Errors come back as data and are rebuilt
 * as the client's typed errors, so the sidebar words them as the cells do.
 */
import { AuthError, OrgIndexError, RateLimitError, ValidationError } from '../../src/contract/errors.js';
import type { Quota } from '../../src/contract/errors.js';
import type { ValidationErrorItem } from '../../src/contract/validation.js';
import type { SheetBackend } from '../../src/sheet/backend.js';
import { ArgumentError } from '../../src/sheet/cells.js';
import { readConnection, type Connection } from '../../src/sheet/connection.js';
import type { RefreshReport } from '../../src/contract/saved-query.js';
import type { SavedQuerySummary, ScheduleView } from '../../src/sheet/saved-query.js';
import type { Host, SavedQueriesHost } from '../../src/ui/host.js';
import type { Coordinates, MapLevel } from '../../src/contract/common.js';
import type { SidebarAnswer, SidebarError } from '../src/sidebar-api.js';

interface ScriptRunner {
  withSuccessHandler(handler: (value: string) => void): ScriptRunner;
  withFailureHandler(handler: (error: Error) => void): ScriptRunner;
  orgindexSidebarCall(op: string, payloadJson: string): void;
}

declare const google: { script: { run: ScriptRunner } };

function rebuild(error: SidebarError): Error {
  switch (error.kind) {
    case 'argument':
      return new ArgumentError(error.argument ?? 'argument', error.message);
    case 'validation':
      return new ValidationError((error.detail ?? []) as ValidationErrorItem[], error.status);
    case 'rate_limit':
      return new RateLimitError(error.message, error.resetAt, null, error.limit ?? 'rate');
    case 'auth':
      return new AuthError(error.message, error.status === 403 ? 403 : 401);
    case 'unexpected':
      return new Error(error.message);
    default:
      return new OrgIndexError(error.kind as OrgIndexError['kind'], error.message, error.status);
  }
}

export class SheetsHost implements Host {
  readonly label = 'Google Sheets';
  readonly canWrite = true;
  readonly keyStorage = 'Stored in your user properties for this script, never in the spreadsheet. Custom functions in a shared spreadsheet use its owner’s key.';
  private current: Connection = readConnection(null);
  private quota: Quota | null = null;
  private readonly listeners = new Set<(quota: Quota) => void>();

  /** Runs one operation in the script. */
  call<T = unknown>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    return new Promise((resolve, reject) => {
      google.script.run
        .withSuccessHandler((text) => {
          const answer = JSON.parse(text) as SidebarAnswer;
          if (!answer.ok) {
            reject(rebuild(answer.error));
            return;
          }
          if (answer.quota) {
            this.quota = answer.quota;
            for (const listener of this.listeners) listener(answer.quota);
          }
          resolve(answer.value as T);
        })
        .withFailureHandler((error) => {
          reject(new OrgIndexError('network', `The spreadsheet's script did not answer: ${error.message}`));
        })
        .orgindexSidebarCall(op, JSON.stringify(payload));
    });
  }

  /** Reads the stored connection before the UI renders (Host.connection() is synchronous). */
  async load(): Promise<void> {
    this.current = readConnection(JSON.stringify(await this.call('connection')));
  }

  functionName(id: 'SEARCH' | 'FETCH' | 'STATS' | 'ASK'): string {
    return `ORG${id}`;
  }

  connection(): Connection {
    return this.current;
  }

  readonly canShareConnection = true;

  async saveConnection(connection: Connection, options: { shared?: boolean } = {}): Promise<void> {
    this.current = readConnection(JSON.stringify(await this.call('saveConnection', { value: connection, scope: options.shared ? 'document' : 'user' })));
    this.quota = null;
  }

  backend(): SheetBackend {
    return this.backendFor(null);
  }

  backendFor(connection: Connection | null): SheetBackend {
    const extra = connection ? { connection } : {};
    const scope = JSON.stringify(connection ?? this.current);
    return {
      scope: `sheets:${scope}`,
      kind: (connection ?? this.current).backend,
      search: (body) => this.call('search', { body, ...extra }),
      fetch: (body) => this.call('fetch', { body, ...extra }),
      stats: (body) => this.call('stats', { body, ...extra }),
      qna: (body) => this.call('qna', { body, ...extra }),
      nlpSearch: (body) => this.call('nlpSearch', { body, ...extra }),
      filterOptions: () => this.call('filterOptions', extra),
      locationSearch: (body) => this.call('locationSearch', { body, ...extra }),
      health: () => this.call('health', extra),
    };
  }

  lastQuota(): Quota | null {
    return this.quota;
  }

  onQuota(listener: (quota: Quota) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async insertFormula(formula: string): Promise<void> {
    await this.call('insertFormula', { formula });
  }

  async insertValues(table: unknown[][]): Promise<void> {
    await this.call('insertValues', { table });
  }

  readSelectedColumn(): Promise<{ address: string; values: unknown[] }> {
    return this.call('readSelectedColumn');
  }

  async writeBeside(address: string, offset: number, table: unknown[][]): Promise<void> {
    await this.call('writeBeside', { address, offset, table });
  }

  async insertChart(table: unknown[][], title: string): Promise<void> {
    await this.call('insertChart', { table, title });
  }

  async refresh(): Promise<void> {
    await this.call('refresh');
  }

  async pinSelection(): Promise<void> {
    await this.call('pinSelection');
  }

  /** Google Sheets has no data types for add-ons: ORGFETCH(…, "as=card") gives the columns as values. */
  readonly cards = null;

  /**
   * Sheets' geo chart draws the regions of one country at a time from ISO codes, not the index's place
   * names across countries: the sidebar's own map shows the counts instead.
   */
  readonly mapChart = null;

  placeCoordinates(level: MapLevel, names: readonly string[]): Promise<Record<string, Coordinates>> {
    return this.call('placeCoordinates', { level, names });
  }

  readonly savedQueries: SavedQueriesHost = {
    insert: (request, output) => this.call<SavedQuerySummary>('insertRefreshable', { request, output }),
    list: () => this.call<SavedQuerySummary[]>('savedQueries'),
    remove: async (id) => {
      await this.call('removeSavedQuery', { id });
    },
    refreshAll: () => this.call<RefreshReport>('refreshSavedQueries'),
    schedule: {
      get: () => this.call<ScheduleView>('schedule'),
      set: (schedule) => this.call<ScheduleView>('setSchedule', { schedule }),
    },
  };
}
