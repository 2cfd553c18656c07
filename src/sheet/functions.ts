/**
 * The asynchronous driver of the spreadsheet functions (src/sheet/formula-steps.ts): Excel's custom functions and
 * the task pane. ORG.SEARCH / ORG.FETCH / ORG.STATS / ORG.ASK take the formula's arguments as the host
 * hands them over and resolve to a table whose cells may be error cells; they never reject, so no host
 * is left with a cell stuck busy.
 *
 * - Answers are cached by normalised request (ORG.FETCH per domain, so inserted rows and a grown range
 *   re-use what is known); recalculation spends no quota; equal requests in flight are shared.
 * - ORG.FETCH calls — one whole range or many single cells within a short window — share one batcher per
 *   backend and column set: distinct domains, at most 5,000 per request.
 */
import type { SearchRequestInput, SearchResponse } from '../contract/v2/search.js';
import type { SelectableColumn } from '../contract/common.js';
import { driveAsync } from '../client/drive.js';
import { callBackend, type BackendOp, type CallResult, type SheetBackend } from './backend.js';
import type { CachedEffect, CachedNamespace, CallEffect } from './effects.js';
import { FetchBatcher } from './batcher.js';
import type { CacheKey, ResultCache } from './cache.js';
import type { CellValue, Remedies, Table } from './cells.js';
import type { Argument } from './arguments.js';
import type { CardTable } from './org-card.js';
import type { SourceLinks } from './source-links.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { savedQuerySteps } from './saved-query.js';
import { cachedByDomain, fetchBody, rowKeys, rowsByDomain, type FetchedRows, type Row } from './fetch-rows.js';
import { askLinkedSteps, askSteps, cardSteps, DEFAULT_MAX_PAYLOAD_BYTES, fetchSteps, guarded, searchResponseSteps, searchSteps, statsSteps, type SheetEffect, type SheetSteps, type StepLimits } from './formula-steps.js';

export { DEFAULT_MAX_PAYLOAD_BYTES } from './formula-steps.js';

export interface SheetFunctionsOptions {
  /** The backend in use now (the task pane may switch it between calls). */
  backend: () => SheetBackend;
  cache: ResultCache;
  /** The host's timer (setTimeout in Excel and Node). */
  schedule: (run: () => void, ms: number) => void;
  now?: () => number;
  batchWindowMs?: number;
  maxPayloadBytes?: number;
  /** What error cells tell their reader to do, where that is not a pane (`orgindex refresh`). */
  remedies?: Remedies;
}

export class SheetFunctions {
  private readonly batchers = new Map<string, FetchBatcher>();
  /** Requests on their way, by generation and cache key text (whole answers, ORG.FETCH rows). */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly limits: StepLimits;
  /** Backend requests made so far (tests and benchmarks). */
  requests = 0;

  constructor(private readonly options: SheetFunctionsOptions) {
    this.limits = { now: options.now ?? (() => Date.now()), maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES, remedies: options.remedies };
  }

  /** Runs steps, performing their effects; every call of one run goes to the backend current at its start. */
  private runSteps<T>(steps: SheetSteps<T>, backend: SheetBackend = this.options.backend()): Promise<T> {
    return driveAsync(steps, (effect) => this.perform(effect, backend));
  }

  private perform(effect: SheetEffect, backend: SheetBackend): Promise<void> {
    switch (effect.type) {
      case 'call':
        return this.call(effect, backend);
      case 'cached':
        return this.cachedSteps(effect, backend);
      case 'cached-rows':
        return this.cachedRows(effect.domains, effect.columns, backend).then(effect.answer);
      case 'request-rows':
        return this.requestRows(effect.domains, effect.columns, backend).then(effect.answer);
    }
  }

  /** A backend call, through the cache when it names a namespace. */
  private async call<Op extends BackendOp>(effect: CallEffect<Op>, backend: SheetBackend): Promise<void> {
    const send = (): Promise<CallResult<Op>> => {
      this.requests++;
      return callBackend(backend, effect.op, effect.body);
    };
    effect.answer(effect.namespace === null ? await send() : await this.cached(effect.namespace, effect.body, backend, send));
  }

  private async cachedSteps<N extends CachedNamespace>(effect: CachedEffect<N>, backend: SheetBackend): Promise<void> {
    effect.answer(await this.cached(effect.namespace, effect.request, backend, () => this.runSteps(effect.steps(), backend)));
  }

  /**
   * A cached result for `request` under `backend`, or one fresh computation — shared by every cell that
   * asks the same while it is in flight (twenty equal formulas, or a recalculation mid-request).
   */
  private async cached<T>(namespace: string, request: unknown, backend: SheetBackend, compute: () => Promise<T>): Promise<T> {
    const cache = this.options.cache;
    const key = cache.key(namespace, { scope: backend.scope, request });
    // Taken before anything is awaited: a Refresh from here on makes this call "before the Refresh".
    const generation = cache.generation;
    const hit = await cache.get<T>(key);
    if (hit !== undefined) return hit;
    // Keyed by generation too: after a Refresh, a cell does not join a request sent before it.
    const flyingKey = `${generation}|${key.text}`;
    const flying = this.inFlight.get(flyingKey) as Promise<T> | undefined;
    if (flying) return flying;
    const computed = compute().then((value) => {
      cache.set(key, value, generation);
      return value;
    });
    this.inFlight.set(flyingKey, computed);
    try {
      return await computed;
    } finally {
      this.inFlight.delete(flyingKey);
    }
  }

  /** ORG.SEARCH(query, [filters], [columns], [options]) → header row, then one row per organization. */
  search(query: Argument, filters: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.runSteps(guarded(searchSteps(query, filters, columns, options, this.limits), this.limits));
  }

  /** A search body answered through the cache (the task pane's preview and "Insert values"). Throws on failure. */
  searchResponse(body: SearchRequestInput): Promise<SearchResponse> {
    return this.runSteps(searchResponseSteps(body));
  }

  /** ORG.FETCH(domains, [columns], [options]) → one row per input cell, in input order. */
  fetch(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.runSteps(guarded(fetchSteps(domains, columns, options, this.limits), this.limits));
  }

  /** ORG.FETCH that throws when the whole call fails (the task pane's enrichment stops on it instead of writing an error row). */
  fetchStrict(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.runSteps(fetchSteps(domains, columns, options, this.limits));
  }

  /** ORG.FETCH(domains, [columns], "as=card") on a host that shows cards → one organization card per input cell. */
  cards(domains: Argument, columns: Argument, options: Argument): Promise<CardTable> {
    return this.runSteps(guarded(cardSteps(domains, columns, options, this.limits), this.limits));
  }

  /** Cards of every card column that throw when the whole call fails (the task pane's conversion stops on it). */
  cardsStrict(domains: Argument): Promise<CardTable> {
    return this.runSteps(cardSteps(domains, null, 'as=card', this.limits));
  }

  /** ORG.STATS(group_by, [group_by_secondary], [filters], [options]) → value/count, crosstab or long table. */
  stats(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): Promise<Table> {
    return this.runSteps(guarded(statsSteps(groupBy, secondary, filters, options, this.limits), this.limits));
  }

  /** ORG.ASK(domain, question, [max_pages], [options]) → the answer in one cell, or answer | confidence | sources. */
  ask(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Promise<Table> {
    return this.runSteps(guarded(askSteps(domain, question, maxPages, options), this.limits));
  }

  /** ORG.ASK on a host that shows links in a cell: with detail=1 the sources as links. */
  askLinked(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Promise<(CellValue | SourceLinks)[][]> {
    return this.runSteps(guarded(askLinkedSteps(domain, question, maxPages, options), this.limits));
  }

  private async cachedRows(domains: readonly string[], columns: readonly SelectableColumn[], backend: SheetBackend): Promise<Map<string, Row | null>> {
    const keys = rowKeys(this.options.cache, backend.scope, domains, columns);
    return cachedByDomain(keys, await this.options.cache.getMany<Row | null>([...keys.values()]));
  }

  /**
   * Rows of domains the cache lacks, through the batcher of the backend and columns: each domain asked once
   * at a time (a cell needing a row another cell's request is fetching waits for that request), and what
   * this call's own requests find is cached.
   */
  private async requestRows(domains: readonly string[], columns: readonly SelectableColumn[], backend: SheetBackend): Promise<FetchedRows> {
    const cache = this.options.cache;
    // Taken before anything is sent: rows requested before a Refresh are not stored after it.
    const generation = cache.generation;
    const rows: FetchedRows = { found: new Map(), failed: new Map() };
    const fresh: [CacheKey, Row | null][] = [];
    let batcher: FetchBatcher | null = null;
    const waiting = [...rowKeys(cache, backend.scope, domains, columns)].map(([domain, key]) => {
      const flyingKey = `${generation}|${key.text}`;
      let flying = this.inFlight.get(flyingKey) as Promise<Row | null> | undefined;
      if (!flying) {
        batcher ??= this.batcherFor(backend, columns);
        const request = batcher.request(domain);
        flying = request;
        this.inFlight.set(flyingKey, request);
        const forget = () => this.inFlight.delete(flyingKey);
        request.then((row) => {
          fresh.push([key, row]);
          forget();
        }, forget);
      }
      return flying.then(
        (row) => {
          if (row) rows.found.set(domain, row);
        },
        (error: unknown) => {
          rows.failed.set(domain, error);
        },
      );
    });
    await Promise.all(waiting);
    // What arrived is kept even when another chunk failed: asking again costs only the failed part.
    cache.setMany(fresh, generation);
    return rows;
  }

  private batcherFor(backend: SheetBackend, columns: readonly SelectableColumn[]): FetchBatcher {
    const id = `${backend.scope}|${columns.join(',')}`;
    let batcher = this.batchers.get(id);
    if (!batcher) {
      batcher = new FetchBatcher({
        schedule: this.options.schedule,
        windowMs: this.options.batchWindowMs,
        fetch: async (chunk) => {
          this.requests++;
          return rowsByDomain(await backend.fetch(fetchBody(chunk, columns)));
        },
      });
      this.batchers.set(id, batcher);
    }
    return batcher;
  }

  /** A saved query's table (rejects when it fails: the refresher reports it for that query). */
  savedQuery(query: SavedQuery): Promise<Table> {
    return this.runSteps(savedQuerySteps(query));
  }

  /** Forgets cached answers (the task pane's Refresh, before it recalculates). */
  async clearCache(): Promise<void> {
    this.inFlight.clear();
    await this.options.cache.clear();
  }
}
