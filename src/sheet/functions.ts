/**
 * The four spreadsheet functions, host-neutral: ORG.SEARCH / ORG.FETCH / ORG.STATS / ORG.ASK in Excel,
 * ORGSEARCH … in Sheets. Each takes the formula's arguments as the host hands them over and returns a
 * table whose cells may be error cells; it never throws, so no host is left with a cell stuck busy.
 *
 * - Answers are cached by normalised request (ORG.FETCH per domain, so inserted rows and a grown range
 *   re-use what is known); recalculation spends no quota.
 * - ORG.FETCH calls — one whole range or many single cells within a short window — share one batcher per
 *   backend and column set: distinct domains, at most 5,000 per request.
 * - Results stay well under Excel's 5 MB payload limit; what does not fit says so.
 */
import type { FetchResponse } from '../contract/v2/fetch.js';
import { SEARCH_LIMITS, type SearchRequestInput, type SearchResponse } from '../contract/v2/search.js';
import { advancePagination, nextPageRequest, startPagination } from '../client/paginate.js';
import type { StatsResponse } from '../contract/v2/stats.js';
import type { QnaResult } from '../contract/language.js';
import type { SelectableColumn } from '../contract/common.js';
import type { SheetBackend } from './backend.js';
import { FetchBatcher, type Row } from './batcher.js';
import type { CacheKey, ResultCache } from './cache.js';
import { ArgumentError, errorCell, errorCellOf, isErrorCell, type CellValue, type Table } from './cells.js';
import { fetchTable, planFetch } from './fetch-plan.js';
import { flattenMarkdown } from './markdown.js';
import { ASK_OPTIONS, fetchCall, scalarText, searchCall, statsCall } from './requests.js';
import { parseOptions, type Argument } from './arguments.js';
import { searchTable, statsTable } from './tables.js';

/** Excel refuses results above about 5 MB; stay at half of it (the estimate counts JSON characters). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 2_500_000;

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

function cellBytes(cell: CellValue): number {
  if (cell === null) return 4;
  if (typeof cell === 'string') return cell.length + 3;
  if (isErrorCell(cell)) return cell.message.length + 40;
  return String(cell).length + 1;
}

const rowBytes = (row: readonly CellValue[]): number => row.reduce<number>((sum, cell) => sum + cellBytes(cell), 2);

/** Table values as text for the error cells of an input that spans a range. */
function inputCells(value: Argument): unknown[] {
  return Array.isArray(value) ? (value as readonly (readonly unknown[])[]).flat() : [value];
}

export class SheetFunctions {
  private readonly batchers = new Map<string, FetchBatcher>();
  /** Requests on their way, by cache key text (whole answers) or by domain key text (ORG.FETCH rows). */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly now: () => number;
  private readonly maxPayloadBytes: number;
  /** Backend requests made so far (tests, and the task pane's activity line). */
  requests = 0;

  constructor(private readonly options: SheetFunctionsOptions) {
    this.now = options.now ?? (() => Date.now());
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  }

  /** Any failure as one error cell: bad arguments `#VALUE!`, the rest `#N/A` with a message. */
  private async guarded(run: () => Promise<Table>): Promise<Table> {
    try {
      return await run();
    } catch (error) {
      return [[errorCellOf(error, this.now())]];
    }
  }

  /**
   * A cached answer for `request` under the current backend, or one fresh call — shared by every cell
   * that asks the same while it is in flight (twenty equal formulas, or a recalculation mid-request).
   */
  private async cached<T>(kind: string, request: unknown, call: (backend: SheetBackend) => Promise<T>): Promise<T> {
    const backend = this.options.backend();
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
    const answer = (async () => {
      this.requests++;
      const value = await call(backend);
      cache.set(key, value, generation);
      return value;
    })();
    this.inFlight.set(flyingKey, answer);
    try {
      return await answer;
    } finally {
      this.inFlight.delete(flyingKey);
    }
  }

  /**
   * Up to `rows` rows: one request, or a walk of search_after pages of 500. A walk is cached as one answer
   * (pages cached apart could mix two states of the data: duplicates and gaps) and stops once its rows
   * pass the payload budget (they could not be shown).
   */
  private async searchRows(body: SearchRequestInput, rows: number): Promise<SearchResponse['data']> {
    if (rows <= SEARCH_LIMITS.sizeMax) return (await this.searchResponse({ ...body, size: rows })).data;
    return this.cached('search-walk', { body, rows }, async (backend) => {
      const found: SearchResponse['data'] = [];
      let bytes = 0;
      let state = startPagination({ ...body, size: SEARCH_LIMITS.sizeMax }, { maxRows: rows });
      for (let page = nextPageRequest(state); page !== null && bytes <= this.maxPayloadBytes; page = nextPageRequest(state)) {
        if (found.length > 0) this.requests++;
        const response = await backend.search(page);
        found.push(...response.data);
        for (const row of response.data) bytes += JSON.stringify(row).length;
        state = advancePagination(state, response);
      }
      return found;
    });
  }

  /** A search body answered through the cache (the task pane's preview and "Insert values"). Throws on failure. */
  searchResponse(body: SearchRequestInput): Promise<SearchResponse> {
    return this.cached<SearchResponse>('search', body, (backend) => backend.search(body));
  }

  /** The first row (after the header rows) that takes the table past the payload budget, or -1. */
  private firstRowPastBudget(table: Table, headerRows: number): number {
    let bytes = 0;
    for (let i = 0; i < table.length; i++) {
      bytes += rowBytes(table[i] ?? []);
      if (bytes > this.maxPayloadBytes && i >= headerRows) return i;
    }
    return -1;
  }

  /** Rows past the payload budget give way to a last row that says how many were left out. */
  private capRows(table: Table, headerRows: number): Table {
    const cut = this.firstRowPastBudget(table, headerRows);
    if (cut < 0) return table;
    const left = table.length - cut;
    const note = `… ${left} more row${left === 1 ? '' : 's'} not shown: results are capped at ${(this.maxPayloadBytes / 1e6).toFixed(1)} MB (Excel refuses 5 MB); choose fewer columns or a smaller size`;
    return [...table.slice(0, cut), [note, ...Array.from({ length: Math.max(0, (table[cut]?.length ?? 1) - 1) }, () => '')]];
  }

  /** ORG.SEARCH(query, [filters], [columns], [options]) → header row, then one row per organization. */
  search(query: Argument, filters: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.guarded(async () => {
      const call = searchCall(query, filters, columns, options);
      const table = searchTable(await this.searchRows(call.body, call.rows), call.columns, call.headers);
      if (table.length === 0) return [['']];
      return this.capRows(table, call.headers ? 1 : 0);
    });
  }

  /** ORG.FETCH(domains, [columns], [options]) → one row per input cell, in input order. */
  fetch(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    return this.guarded(() => this.fetchStrict(domains, columns, options));
  }

  /** ORG.FETCH that throws when the whole call fails (the task pane's enrichment stops on it instead of writing an error row). */
  async fetchStrict(domains: Argument, columns: Argument, options: Argument): Promise<Table> {
    const call = fetchCall(columns, options);
    const cells = inputCells(domains);
    // A whole-column argument (A:A) is a million cells: rows after the last non-blank input are not needed.
    let end = cells.length;
    while (end > 0 && (cells[end - 1] === null || cells[end - 1] === undefined || cells[end - 1] === '')) end--;
    const plan = planFetch(cells.slice(0, Math.max(1, end)));
    const { found, failed } = await this.rowsFor(plan.chunks.flat(), call.columns);
    const now = this.now();
    const errors = new Map([...failed].map(([domain, error]) => [domain, errorCellOf(error, now)]));
    return this.capAligned(fetchTable(plan, found, call.columns, call.headers, errors), call.headers ? 1 : 0);
  }

  /**
   * Rows stay beside their inputs: the first row past the budget says from where rows are not shown and
   * why; the spill ends there (each further row would only repeat it).
   */
  private capAligned(table: Table, headerRows: number): Table {
    const cut = this.firstRowPastBudget(table, headerRows);
    if (cut < 0) return table;
    const message = `Rows from here on (${table.length - cut} of ${table.length - headerRows}) not shown: the result would pass Excel's payload limit; split the range or choose fewer columns`;
    return [...table.slice(0, cut), [errorCell('#N/A', message), ...(table[cut] ?? []).slice(1).map(() => '')]];
  }

  /** Rows of `domains` (normalised, distinct): cached ones at once, the rest through the batcher (each domain asked once at a time). */
  private async rowsFor(domains: readonly string[], columns: readonly SelectableColumn[]): Promise<{ found: Map<string, Row>; failed: Map<string, unknown> }> {
    const backend = this.options.backend();
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

  /** ORG.STATS(group_by, [group_by_secondary], [filters], [options]) → value/count, crosstab or long table. */
  stats(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): Promise<Table> {
    return this.guarded(async () => {
      const call = statsCall(groupBy, secondary, filters, options);
      const response = await this.cached<StatsResponse>('stats', call.body, (backend) => backend.stats(call.body));
      const table = statsTable(response, call.layout, call.headers);
      return table.length === 0 ? [['']] : this.capRows(table, call.headers ? 1 : 0);
    });
  }

  /**
   * ORG.ASK(domain, question, [max_pages], [options]) → the answer in one cell (Markdown flattened), or
   * with `detail=1` a row: answer | confidence | sources. No answer → `#N/A` with the service's message.
   */
  ask(domain: Argument, question: Argument, maxPages: Argument, options: Argument): Promise<Table> {
    return this.guarded(async () => {
      const site = scalarText('domain', domain);
      if (site === '') throw new ArgumentError('domain', 'is required: the organization’s domain, e.g. example.com');
      const asked = scalarText('question', question);
      if (asked === '') throw new ArgumentError('question', 'is required');
      const pagesText = scalarText('max_pages', maxPages);
      const pages = pagesText === '' ? 1 : Number(pagesText);
      if (!Number.isInteger(pages) || pages < 1) throw new ArgumentError('max_pages', `must be a whole number from 1 (got "${pagesText}")`);
      const option = parseOptions('options', options, ASK_OPTIONS);
      const body = { domain: site, question: asked, max_pages: pages };
      const result = await this.cached<QnaResult>('ask', body, (backend) => backend.qna(body));
      if (!result.can_answer) return [[errorCell('#N/A', result.message || 'No answer found on the site')]];
      const answer = flattenMarkdown(result.data.answer);
      if (option.detail !== true) return [[answer]];
      const row: CellValue[] = [answer, result.data.confidence, result.data.sources.join('\n')];
      return option.headers === true ? [['answer', 'confidence', 'sources'], row] : [row];
    });
  }

  /** Forgets cached answers (the task pane's Refresh, before it recalculates). */
  async clearCache(): Promise<void> {
    this.inFlight.clear();
    await this.options.cache.clear();
  }
}
