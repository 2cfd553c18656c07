/**
 * The synchronous driver of the spreadsheet functions (src/sheet/steps.ts): the Apps Script host, where
 * a custom function must return its table before it ends (no promises run after it) and I/O is
 * UrlFetchApp. Same steps as Excel's SheetFunctions, so the same tables, messages and caps; what differs
 * is only how effects are answered: a synchronous backend and cache, and ORG.FETCH's chunks sent
 * together when the backend can (UrlFetchApp.fetchAll).
 */
import type { FetchResponse } from '../contract/v2/fetch.js';
import type { SelectableColumn } from '../contract/common.js';
import type { Argument } from './arguments.js';
import { callBackend, type SyncSheetBackend } from './backend.js';
import type { Row } from './batcher.js';
import type { CacheKey } from './cache.js';
import type { Table } from './cells.js';
import { FETCH_CHUNK } from './fetch-plan.js';
import { askSteps, DEFAULT_MAX_PAYLOAD_BYTES, fetchSteps, guarded, searchSteps, statsSteps, type Effect, type RowsAnswer, type SheetSteps, type StepLimits } from './steps.js';
import type { SyncResultCache } from './sync-cache.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { savedQuerySteps } from './saved-query.js';

/** /fetch requests of one ORG.FETCH, answered together where the host can (each a response or the error it failed with). */
export type FetchMany = (bodies: { domains: string[]; columns: SelectableColumn[] }[]) => (FetchResponse | Error)[];

export interface SyncSheetFunctionsOptions {
  backend: () => SyncSheetBackend;
  cache: SyncResultCache;
  now?: () => number;
  maxPayloadBytes?: number;
  /** Sends several /fetch bodies at once (UrlFetchApp.fetchAll); without it they go one after another. */
  fetchMany?: FetchMany;
}

export class SyncSheetFunctions {
  private readonly limits: StepLimits;
  /** Backend requests made so far (tests and benchmarks). */
  requests = 0;

  constructor(private readonly options: SyncSheetFunctionsOptions) {
    this.limits = { now: options.now ?? (() => Date.now()), maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES };
  }

  private run<T>(steps: SheetSteps<T>, backend: SyncSheetBackend = this.options.backend()): T {
    let next = steps.next();
    while (!next.done) {
      let value: unknown;
      try {
        value = this.answer(next.value, backend);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(value);
    }
    return next.value;
  }

  private answer(effect: Effect, backend: SyncSheetBackend): unknown {
    switch (effect.type) {
      case 'call':
        this.requests++;
        return callBackend(backend, effect.op, effect.body);
      case 'cached': {
        const key = this.options.cache.key(effect.kind, { scope: backend.scope, request: effect.request });
        const hit = this.options.cache.get(key);
        if (hit !== undefined) return hit;
        const value = this.run(effect.steps(), backend);
        this.options.cache.setMany([[key, value]]);
        return value;
      }
      case 'rows':
        return this.rowsFor(effect.domains, effect.columns, backend);
    }
  }

  /** Rows per domain from the cache; the rest in chunks of ≤ 5,000, sent together when the host can. */
  private rowsFor(domains: readonly string[], columns: readonly SelectableColumn[], backend: SyncSheetBackend): RowsAnswer {
    const cache = this.options.cache;
    const sorted = [...columns].sort();
    const keys = domains.map((domain) => cache.key('fetch', { scope: backend.scope, columns: sorted, domain }));
    const cached = cache.getMany<Row | null>(keys);
    const found = new Map<string, Row>();
    const failed = new Map<string, unknown>();
    const missing: [string, CacheKey][] = [];
    domains.forEach((domain, i) => {
      const key = keys[i];
      if (!key) return;
      if (!cached.has(key.id)) missing.push([domain, key]);
      else {
        const row = cached.get(key.id);
        if (row) found.set(domain, row);
      }
    });
    const withDomain: SelectableColumn[] = sorted.includes('domain') ? sorted : ['domain', ...sorted];
    const chunks: [string, CacheKey][][] = [];
    for (let i = 0; i < missing.length; i += FETCH_CHUNK) chunks.push(missing.slice(i, i + FETCH_CHUNK));
    const bodies = chunks.map((chunk) => ({ domains: chunk.map(([domain]) => domain), columns: withDomain }));
    this.requests += bodies.length;
    const answers = this.options.fetchMany
      ? this.options.fetchMany(bodies)
      : bodies.map((body) => {
          try {
            return backend.fetch(body);
          } catch (error) {
            return error instanceof Error ? error : new Error(String(error));
          }
        });
    const fresh: [CacheKey, Row | null][] = [];
    chunks.forEach((chunk, i) => {
      const response = answers[i];
      if (!response || response instanceof Error) {
        for (const [domain] of chunk) failed.set(domain, response ?? new Error('no answer'));
        return;
      }
      const rows = new Map(response.data.map((row) => [row.domain, row]));
      for (const [domain, key] of chunk) {
        const row = rows.get(domain) ?? null;
        if (row) found.set(domain, row);
        fresh.push([key, row]);
      }
    });
    cache.setMany(fresh);
    if (failed.size > 0 && found.size === 0 && failed.size === missing.length) throw failed.values().next().value;
    return { found, failed };
  }

  search(query: Argument, filters: Argument, columns: Argument, options: Argument): Table {
    return this.run(guarded(searchSteps(query, filters, columns, options, this.limits), this.limits));
  }

  fetch(domains: Argument, columns: Argument, options: Argument): Table {
    return this.run(guarded(fetchSteps(domains, columns, options, this.limits), this.limits));
  }

  stats(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): Table {
    return this.run(guarded(statsSteps(groupBy, secondary, filters, options, this.limits), this.limits));
  }

  ask(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Table {
    return this.run(guarded(askSteps(domain, question, maxPages, options), this.limits));
  }

  /** A saved query's table (throws when it fails: the refresher reports it for that query). */
  savedQuery(query: SavedQuery): Table {
    return this.run(savedQuerySteps(query));
  }

  /** Refresh: every cached answer is forgotten. */
  clearCache(): void {
    this.options.cache.clear(this.limits.now());
  }
}
