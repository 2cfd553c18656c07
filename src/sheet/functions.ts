/**
 * The asynchronous driver of the spreadsheet functions (src/sheet/steps.ts): Excel's custom functions and
 * the task pane. ORG.SEARCH / ORG.FETCH / ORG.STATS / ORG.ASK take the formula's arguments as the host
 * hands them over and resolve to a table whose cells may be error cells; they never reject, so no host
 * is left with a cell stuck busy.
 *
 * - Answers are cached by normalised request (ORG.FETCH per domain, so inserted rows and a grown range
 *   re-use what is known); recalculation spends no quota; equal requests in flight are shared.
 * - ORG.FETCH calls — one whole range or many single cells within a short window — share one batcher per
 *   backend and column set: distinct domains, at most 5,000 per request.
 */
import type { FetchResponse } from '../contract/v2/fetch.js';
import type { SearchRequestInput, SearchResponse } from '../contract/v2/search.js';
import type { SelectableColumn } from '../contract/common.js';
import { callBackend, type SheetBackend } from './backend.js';
import { FetchBatcher, type Row } from './batcher.js';
import type { CacheKey, ResultCache } from './cache.js';
import type { Table } from './cells.js';
import type { Argument } from './arguments.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { savedQuerySteps } from './saved-query.js';
import { askSteps, DEFAULT_MAX_PAYLOAD_BYTES, fetchSteps, guarded, searchResponseSteps, searchSteps, statsSteps, type Effect, type RowsAnswer, type SheetSteps, type StepLimits } from './steps.js';

export { DEFAULT_MAX_PAYLOAD_BYTES } from './steps.js';

export interface SheetFunctionsOptions {
  /** The backend in use now (the task pane may switch it between calls). */
  backend: () => SheetBackend;
  cache: ResultCache;
  /** The host's timer (setTimeout in Excel and Node). */
  schedule: (run: () => void, ms: number) => void;
  now?: () => number;
  batchWindowMs?: number;
  maxPayloadBytes?: number;
}

export class SheetFunctions {
  private readonly batchers = new Map<string, FetchBatcher>();
  /** Requests on their way, by generation and cache key text (whole answers, ORG.FETCH rows). */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly limits: StepLimits;
  /** Backend requests made so far (tests and benchmarks). */
  requests = 0;

  constructor(private readonly options: SheetFunctionsOptions) {
    this.limits = { now: options.now ?? (() => Date.now()), maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES };
  }

  /** Runs steps, answering their effects; every call of one run goes to the backend current at its start. */
  private async run<T>(steps: SheetSteps<T>, backend: SheetBackend = this.options.backend()): Promise<T> {
    let next = steps.next();
    while (!next.done) {
      let value: unknown;
      try {
        value = await this.answer(next.value, backend);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(value);
    }
    return next.value;
  }

  private answer(effect: Effect, backend: SheetBackend): Promise<unknown> {
    switch (effect.type) {
      case 'call':
        this.requests++;
        return callBackend(backend, effect.op, effect.body);
      case 'cached':
        return this.cached(effect.kind, effect.request, backend, () => this.run(effect.steps(), backend));
      case 'rows':
        return this.rowsFor(effect.domains, effect.columns, backend);
    }
  }

  /**
   * A cached answer for `request` under `backend`, or one fresh computation — shared by every cell that
   * asks the same while it is in flight (twenty equal formulas, or a recalculation mid-request).
   */
  private async cached<T>(kind: string, request: unknown, backend: SheetBackend, compute: () => Promise<T>): Promise<T> {
    const cache = this.options.cache;
    const key = cache.key(kind, { scope: backend.scope, request });
    // Taken before anything is awaited: a Refresh from here on makes this call "before the Refresh".
    const generation = cache.generation;
    const hit = await cache.get<T>(key);
    if (hit !== undefined) return hit;
    // Keyed by generation too: after a Refresh, a cell does not join a request sent before it.
    const flyingKey = `${generation}|${key.text}`;
    const flying = this.inFlight.get(flyingKey) as Promise<T> | undefined;
    if (flying) return flying;
    const answer = compute().then((value) => {
      cache.set(key, value, generation);
      return value;
    });
    this.inFlight.set(flyingKey, answer);
    try {
      return await answer;
    } finally {
      this.inFlight.delete(flyingKey);
    }
  }

  /** ORG.SEARCH(query, [filters], [columns], [options]) → header row, then one row per organization. */
  search(query: Argument, filters: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.run(guarded(searchSteps(query, filters, columns, options, this.limits), this.limits));
  }

  /** A search body answered through the cache (the task pane's preview and "Insert values"). Throws on failure. */
  searchResponse(body: SearchRequestInput): Promise<SearchResponse> {
    return this.run(searchResponseSteps(body));
  }

  /** ORG.FETCH(domains, [columns], [options]) → one row per input cell, in input order. */
  fetch(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.run(guarded(fetchSteps(domains, columns, options, this.limits), this.limits));
  }

  /** ORG.FETCH that throws when the whole call fails (the task pane's enrichment stops on it instead of writing an error row). */
  fetchStrict(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.run(fetchSteps(domains, columns, options, this.limits));
  }

  /** ORG.STATS(group_by, [group_by_secondary], [filters], [options]) → value/count, crosstab or long table. */
  stats(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): Promise<Table> {
    return this.run(guarded(statsSteps(groupBy, secondary, filters, options, this.limits), this.limits));
  }

  /** ORG.ASK(domain, question, [max_pages], [options]) → the answer in one cell, or answer | confidence | sources. */
  ask(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Promise<Table> {
    return this.run(guarded(askSteps(domain, question, maxPages, options), this.limits));
  }

  /** Rows of `domains` (normalised, distinct): cached ones at once, the rest through the batcher (each domain asked once at a time). */
  private async rowsFor(domains: readonly string[], columns: readonly SelectableColumn[], backend: SheetBackend): Promise<RowsAnswer> {
    const cache = this.options.cache;
    const sorted = [...columns].sort();
    const keys = domains.map((domain) => cache.key('fetch', { scope: backend.scope, columns: sorted, domain }));
    const generation = cache.generation;
    const cached = await cache.getMany<Row | null>(keys);
    const found = new Map<string, Row>();
    const failed = new Map<string, unknown>();
    const waiting: Promise<void>[] = [];
    const fresh: [CacheKey, Row | null][] = [];
    let batcher: FetchBatcher | null = null;
    domains.forEach((domain, i) => {
      const key = keys[i];
      if (!key) return;
      if (cached.has(key.id)) {
        const row = cached.get(key.id);
        if (row) found.set(domain, row);
        return;
      }
      const flyingKey = `${generation}|${key.text}`;
      let flying = this.inFlight.get(flyingKey) as Promise<Row | null> | undefined;
      if (!flying) {
        batcher ??= this.batcherFor(backend, sorted);
        const request = batcher.request(domain);
        flying = request;
        this.inFlight.set(flyingKey, request);
        const forget = () => this.inFlight.delete(flyingKey);
        request.then((row) => {
          fresh.push([key, row]);
          forget();
        }, forget);
      }
      waiting.push(
        flying.then(
          (row) => {
            if (row) found.set(domain, row);
          },
          (error: unknown) => {
            failed.set(domain, error);
          },
        ),
      );
    });
    await Promise.all(waiting);
    // What arrived is kept even when another chunk failed: asking again costs only the failed part.
    cache.setMany(fresh, generation);
    if (failed.size > 0 && failed.size === waiting.length && found.size === 0) throw failed.values().next().value;
    return { found, failed };
  }

  private batcherFor(backend: SheetBackend, columns: readonly SelectableColumn[]): FetchBatcher {
    const id = `${backend.scope}|${columns.join(',')}`;
    let batcher = this.batchers.get(id);
    if (!batcher) {
      const withDomain: SelectableColumn[] = columns.includes('domain') ? [...columns] : ['domain', ...columns];
      batcher = new FetchBatcher({
        schedule: this.options.schedule,
        windowMs: this.options.batchWindowMs,
        fetch: async (chunk) => {
          this.requests++;
          const response: FetchResponse = await backend.fetch({ domains: chunk, columns: withDomain });
          return new Map(response.data.map((row) => [row.domain, row]));
        },
      });
      this.batchers.set(id, batcher);
    }
    return batcher;
  }

  /** A saved query's table (rejects when it fails: the refresher reports it for that query). */
  savedQuery(query: SavedQuery): Promise<Table> {
    return this.run(savedQuerySteps(query));
  }

  /** Forgets cached answers (the task pane's Refresh, before it recalculates). */
  async clearCache(): Promise<void> {
    this.inFlight.clear();
    await this.options.cache.clear();
  }
}
