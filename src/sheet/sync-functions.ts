/**
 * The synchronous driver of the spreadsheet functions (src/sheet/formula-steps.ts): the Apps Script host, where
 * a custom function must return its table before it ends (no promises run after it) and I/O is
 * UrlFetchApp. Same steps as Excel's SheetFunctions, so the same tables, messages and caps; what differs
 * is only how effects are performed: a synchronous backend and cache, and ORG.FETCH's requests sent
 * together when the backend can (UrlFetchApp.fetchAll).
 */
import type { FetchResponse } from '../contract/v2/fetch.js';
import type { SelectableColumn } from '../contract/common.js';
import type { Argument } from './arguments.js';
import { driveSync } from '../client/drive.js';
import { callBackend, type BackendOp, type CallResult, type SyncSheetBackend } from './backend.js';
import type { CachedEffect, CachedNamespace, CallEffect } from './effects.js';
import type { CacheKey } from './cache.js';
import type { Table } from './cells.js';
import { cachedByDomain, fetchBody, fetchChunks, rowKeys, rowsByDomain, type FetchBody, type FetchedRows, type Row } from './fetch-rows.js';
import { askSteps, DEFAULT_MAX_PAYLOAD_BYTES, fetchSteps, guarded, searchSteps, statsSteps, type SheetEffect, type SheetSteps, type StepLimits } from './formula-steps.js';
import type { SyncResultCache } from './sync-cache.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { savedQuerySteps } from './saved-query.js';

/** /fetch requests of one ORG.FETCH, answered together where the host can (each a response or the error it failed with). */
export type FetchMany = (bodies: FetchBody[]) => (FetchResponse | Error)[];

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

  private runSteps<T>(steps: SheetSteps<T>, backend: SyncSheetBackend = this.options.backend()): T {
    return driveSync(steps, (effect) => {
      this.perform(effect, backend);
    });
  }

  private perform(effect: SheetEffect, backend: SyncSheetBackend): void {
    switch (effect.type) {
      case 'call':
        this.call(effect, backend);
        break;
      case 'cached':
        this.cachedSteps(effect, backend);
        break;
      case 'cached-rows': {
        const keys = rowKeys(this.options.cache, backend.scope, effect.domains, effect.columns);
        effect.answer(cachedByDomain(keys, this.options.cache.getMany<Row | null>([...keys.values()])));
        break;
      }
      case 'request-rows':
        effect.answer(this.requestRows(effect.domains, effect.columns, backend));
    }
  }

  /** A backend call, through the cache when it names a namespace. */
  private call<Op extends BackendOp>(effect: CallEffect<Op>, backend: SyncSheetBackend): void {
    const send = (): CallResult<Op> => {
      this.requests++;
      return callBackend(backend, effect.op, effect.body);
    };
    effect.answer(effect.namespace === null ? send() : this.cached(effect.namespace, effect.body, backend, send));
  }

  private cachedSteps<N extends CachedNamespace>(effect: CachedEffect<N>, backend: SyncSheetBackend): void {
    effect.answer(this.cached(effect.namespace, effect.request, backend, () => this.runSteps(effect.steps(), backend)));
  }

  /** The cached value for `request` under `backend`, or `compute`'s, then cached. */
  private cached<T>(namespace: string, request: unknown, backend: SyncSheetBackend, compute: () => T): T {
    const key = this.options.cache.key(namespace, { scope: backend.scope, request });
    const hit = this.options.cache.getMany<T>([key]).get(key.id);
    if (hit !== undefined) return hit;
    const value = compute();
    this.options.cache.setMany([[key, value]]);
    return value;
  }

  /** Rows of domains the cache lacks, in requests of at most 5,000 domains sent together when the host can; what they find is cached. */
  private requestRows(domains: readonly string[], columns: readonly SelectableColumn[], backend: SyncSheetBackend): FetchedRows {
    const cache = this.options.cache;
    // Keys before requests: they carry the Refresh token, so rows asked for before a Refresh are not read after it.
    const chunks = fetchChunks([...rowKeys(cache, backend.scope, domains, columns)]);
    const bodies = chunks.map((chunk) => fetchBody(chunk.map(([domain]) => domain), columns));
    this.requests += bodies.length;
    const responses = this.options.fetchMany
      ? this.options.fetchMany(bodies)
      : bodies.map((body) => {
          try {
            return backend.fetch(body);
          } catch (error) {
            return error instanceof Error ? error : new Error(String(error));
          }
        });
    const rows: FetchedRows = { found: new Map(), failed: new Map() };
    const fresh: [CacheKey, Row | null][] = [];
    chunks.forEach((chunk, i) => {
      const response = responses[i];
      if (!response || response instanceof Error) {
        for (const [domain] of chunk) rows.failed.set(domain, response ?? new Error('no answer'));
        return;
      }
      const byDomain = rowsByDomain(response);
      for (const [domain, key] of chunk) {
        const row = byDomain.get(domain) ?? null;
        if (row) rows.found.set(domain, row);
        fresh.push([key, row]);
      }
    });
    cache.setMany(fresh);
    return rows;
  }

  search(query: Argument, filters: Argument, columns: Argument, options: Argument): Table {
    return this.runSteps(guarded(searchSteps(query, filters, columns, options, this.limits), this.limits));
  }

  fetch(domains: Argument, columns: Argument, options: Argument): Table {
    return this.runSteps(guarded(fetchSteps(domains, columns, options, this.limits), this.limits));
  }

  stats(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): Table {
    return this.runSteps(guarded(statsSteps(groupBy, secondary, filters, options, this.limits), this.limits));
  }

  ask(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Table {
    return this.runSteps(guarded(askSteps(domain, question, maxPages, options), this.limits));
  }

  /** A saved query's table (throws when it fails: the refresher reports it for that query). */
  savedQuery(query: SavedQuery): Table {
    return this.runSteps(savedQuerySteps(query));
  }

  /** Refresh: every cached answer is forgotten. */
  clearCache(): void {
    this.options.cache.clear(this.limits.now());
  }
}
