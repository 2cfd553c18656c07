/**
 * What the four spreadsheet functions do, written once as generators that yield effects — the answers
 * they need (effects.ts; ORG.FETCH's rows: fetch-rows.ts) — and never perform I/O themselves, so hosts
 * with and without an event loop share them. Two
 * drivers run them: `SheetFunctions` (async: Excel and the task pane; cache in OfficeRuntime.storage, batching across
 * cells) and `SyncSheetFunctions` (Apps Script: UrlFetchApp, CacheService). So argument parsing, request
 * planning, table shaping, payload caps and error cells are the same in both hosts.
 */
import { advancePagination, nextPageRequest, startPagination } from '../client/paginate.js';
import type { SelectableColumn } from '../contract/common.js';
import { SEARCH_LIMITS, type SearchRequestInput, type SearchResponse } from '../contract/v2/search.js';
import type { FilterValueWarning } from '../contract/v2/filters.js';
import { parseFieldList, parseOptions, type Argument } from './arguments.js';
import { ArgumentError, errorCell, errorCellOf, isErrorCell, type CellValue, type ErrorCell, type Remedies, type Table } from './cells.js';
import { fetchTable, planFetch } from './fetch-plan.js';
import { rowsFor, type FetchRowsEffect } from './fetch-rows.js';
import { backendCall, cached, type CachedEffect, type CallEffect, type Steps } from './effects.js';
import { ASK_OPTIONS, FETCH_OPTIONS, fetchCall, FORMULA_COLUMNS, scalarText, searchCall, statsCall } from './formula-grammar.js';
import { cardColumns, cardOf, isOrgCard, type CardCell, type CardTable, type OrgCard } from './org-card.js';
import { sourceLinksOf, type SourceLinks } from './source-links.js';
import { flattenMarkdown } from './markdown.js';
import { searchTable, statsTable } from './tables.js';

/** What a step asks its driver for (not the client's HTTP effects: those are src/client/http.ts's `Effect`). */
export type SheetEffect = CallEffect | CachedEffect | FetchRowsEffect;

export type SheetSteps<T> = Steps<SheetEffect, T>;

/** Excel refuses results above about 5 MB; stay at half of it (the estimate counts JSON characters). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 2_500_000;

export interface StepLimits {
  maxPayloadBytes: number;
  now: () => number;
  /** What error cells tell their reader to do (default: the panes' words). */
  remedies?: Remedies | undefined;
}

/** A search body answered through the cache (the task pane's preview and "Insert values" use it too). */
export function searchResponseSteps(body: SearchRequestInput): Steps<CallEffect<'search'>, SearchResponse> {
  return backendCall('search', body, 'search');
}

/** Any failure as one error cell: bad arguments `#VALUE!`, the rest `#N/A` with a message. Never throws. */
export function* guarded<C>(steps: SheetSteps<(C | ErrorCell)[][]>, limits: StepLimits): SheetSteps<(C | ErrorCell)[][]> {
  try {
    return yield* steps;
  } catch (error) {
    return [[errorCellOf(error, limits.now(), limits.remedies)]];
  }
}

/**
 * What a card costs in Excel's payload beyond its values (the entity's property types, layout and
 * provider, addin/entity.ts); with the name once more and the domain twice more (the cell's text, the
 * domain's link), this estimate was at or above the JSON of 500 sample cards (about 1.7 KB each), so a
 * formula of cards ends at about 1,400 rows.
 */
const CARD_OVERHEAD_BYTES = 1_350;

/** A cell's share of the result Excel receives, as the payload cap counts it (JSON characters). */
export function cellBytes(cell: CellValue | OrgCard): number {
  if (cell === null) return 4;
  if (typeof cell === 'string') return cell.length + 3;
  if (isErrorCell(cell)) return cell.message.length + 40;
  if (isOrgCard(cell)) return Object.values(cell.fields).reduce<number>((sum, value) => sum + String(value).length + 3, CARD_OVERHEAD_BYTES + String(cell.fields.name ?? '').length + 2 * cell.domain.length);
  return String(cell).length + 1;
}

const rowBytes = (row: readonly (CellValue | OrgCard)[]): number => row.reduce<number>((sum, cell) => sum + cellBytes(cell), 2);

/** The first row (after the header rows) that takes the table past the payload budget, or -1. */
function firstRowPastBudget(table: readonly (readonly (CellValue | OrgCard)[])[], headerRows: number, maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < table.length; i++) {
    bytes += rowBytes(table[i] ?? []);
    if (bytes > maxBytes && i >= headerRows) return i;
  }
  return -1;
}

/** Rows past the payload budget give way to a last row that says how many were left out. */
function capRows(table: Table, headerRows: number, maxBytes: number): Table {
  const cut = firstRowPastBudget(table, headerRows, maxBytes);
  if (cut < 0) return table;
  const left = table.length - cut;
  const note = `… ${left} more row${left === 1 ? '' : 's'} not shown: results are capped at ${(maxBytes / 1e6).toFixed(1)} MB (Excel refuses 5 MB); choose fewer columns or a smaller size`;
  return [...table.slice(0, cut), [note, ...Array.from({ length: Math.max(0, (table[cut]?.length ?? 1) - 1) }, () => '')]];
}

/**
 * Rows stay beside their inputs: the first row past the budget says from where rows are not shown and
 * why; the spill ends there (each further row would only repeat it).
 */
function capAligned<C extends CellValue | OrgCard>(table: C[][], headerRows: number, maxBytes: number): (C | ErrorCell)[][] {
  const cut = firstRowPastBudget(table, headerRows, maxBytes);
  if (cut < 0) return table;
  const message = `Rows from here on (${table.length - cut} of ${table.length - headerRows}) not shown: the result would pass Excel's payload limit; split the range or choose fewer columns`;
  return [...table.slice(0, cut), [errorCell('#N/A', message), ...(table[cut] ?? []).slice(1).map((): C | ErrorCell => '' as C)]];
}

/**
 * Up to `rows` rows: one request, or a walk of search_after pages of 500. A walk is cached as one answer
 * (pages cached apart could mix two states of the data: duplicates and gaps) and stops once its rows
 * pass the payload budget (they could not be shown).
 */
export function* searchRows(body: SearchRequestInput, rows: number, maxBytes: number): SheetSteps<SearchResponse['data']> {
  if (rows <= SEARCH_LIMITS.sizeMax) return (yield* searchResponseSteps({ ...body, size: rows })).data;
  return yield* cached('search-walk', { body, rows }, function* () {
    const found: SearchResponse['data'] = [];
    let bytes = 0;
    let state = startPagination({ ...body, size: SEARCH_LIMITS.sizeMax }, { maxRows: rows });
    for (let page = nextPageRequest(state); page !== null && bytes <= maxBytes; page = nextPageRequest(state)) {
      const response = yield* backendCall('search', page);
      found.push(...response.data);
      for (const row of response.data) bytes += JSON.stringify(row).length;
      state = advancePagination(state, response);
    }
    return found;
  });
}

/** An answer without rows because filter values match nothing: one `#N/A` cell naming them, not a blank. */
function unknownValuesCell(warnings: readonly FilterValueWarning[]): Table {
  return [[errorCell('#N/A', warnings.map((warning) => warning.message).join(' '))]];
}

/** ORG.SEARCH(query, [filters], [columns], [options]) → header row, then one row per organization. */
export function* searchSteps(query: Argument, filters: Argument, columns: Argument, options: Argument, limits: StepLimits): SheetSteps<Table> {
  const call = searchCall(query, filters, columns, options);
  const rows = yield* searchRows(call.body, call.rows, limits.maxPayloadBytes);
  // No row: the first page's warnings say whether a filter value matched nothing (one page: a cache hit).
  if (rows.length === 0) {
    const { warnings } = (yield* searchResponseSteps({ ...call.body, size: Math.min(call.rows, SEARCH_LIMITS.sizeMax) })).metadata;
    if (warnings && warnings.length > 0) return unknownValuesCell(warnings);
  }
  const table = searchTable(rows, call.columns, call.headers);
  if (table.length === 0) return [['']];
  return capRows(table, call.headers ? 1 : 0, limits.maxPayloadBytes);
}

/** Cells of an argument that may be a range. */
function inputCells(value: Argument): unknown[] {
  return Array.isArray(value) ? (value as readonly (readonly unknown[])[]).flat() : [value];
}

/** One row of `columns` per input cell, in input order (no header row, no payload cap). */
function* fetchedTable(domains: Argument, columns: readonly SelectableColumn[], limits: StepLimits): SheetSteps<Table> {
  const cells = inputCells(domains);
  // A whole-column argument (A:A) is a million cells: rows after the last non-blank input are not needed.
  let end = cells.length;
  while (end > 0 && (cells[end - 1] === null || cells[end - 1] === undefined || cells[end - 1] === '')) end--;
  const plan = planFetch(cells.slice(0, Math.max(1, end)));
  const { found, failed } = yield* rowsFor(plan.domains, columns);
  const now = limits.now();
  const errors = new Map([...failed].map(([domain, error]) => [domain, errorCellOf(error, now, limits.remedies)]));
  return fetchTable(plan, found, columns, false, errors);
}

/**
 * ORG.FETCH(domains, [columns], [options]) → one row per input cell, in input order. Throws when the
 * whole call fails (wrap in `guarded` for a cell; the task pane's enrichment stops on it). With
 * "as=card" on a host that shows no cards, these are the columns asked for, as values.
 */
export function* fetchSteps(domains: Argument, columns: Argument, options: Argument, limits: StepLimits): SheetSteps<Table> {
  const call = fetchCall(columns, options);
  const rows = yield* fetchedTable(domains, call.columns, limits);
  const table = call.headers ? [[...call.columns], ...rows] : rows;
  return capAligned(table, call.headers ? 1 : 0, limits.maxPayloadBytes);
}

/**
 * ORG.FETCH(domains, [columns], "as=card") where the host shows cards → one organization card per input
 * cell, carrying the columns named (every card column when none is). "headers=1" puts the header
 * "organization" first.
 */
export function* cardSteps(domains: Argument, columns: Argument, options: Argument, limits: StepLimits): SheetSteps<CardTable> {
  const headers = parseOptions('options', options, FETCH_OPTIONS).headers === true;
  const chosen = cardColumns(parseFieldList('columns', columns, FORMULA_COLUMNS, []));
  const rows = yield* fetchedTable(domains, chosen, limits);
  const cards: CardTable = rows.map((row) => [cardOf(row, chosen)]);
  const table: CardTable = headers ? [['organization' as CardCell], ...cards] : cards;
  return capAligned(table, headers ? 1 : 0, limits.maxPayloadBytes);
}

/** ORG.STATS(group_by, [group_by_secondary], [filters], [options]) → value/count, crosstab or long table. */
export function* statsSteps(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument, limits: StepLimits): SheetSteps<Table> {
  const call = statsCall(groupBy, secondary, filters, options);
  const response = yield* backendCall('stats', call.body, 'stats');
  const { warnings } = response.metadata;
  if (response.data.length === 0 && warnings && warnings.length > 0) return unknownValuesCell(warnings);
  const table = statsTable(response, call.layout, call.headers);
  return table.length === 0 ? [['']] : capRows(table, call.headers ? 1 : 0, limits.maxPayloadBytes);
}

/**
 * Pages ORG.ASK reads when the formula does not say (the HTTP interface's default is 1, the home page):
 * the answers to everyday questions sit on the Impressum, About and Contact pages, which the answerer
 * reads first for the question's kind, so three pages answer what ten do on the question set.
 */
const ASK_DEFAULT_PAGES = 3;

/**
 * ORG.ASK(domain, question, [max_pages], [options]) → the answer in one cell (Markdown flattened), or
 * with `detail=1` a row: answer | confidence | sources (the page labels, one per line), and with
 * `links=1` their addresses after them. No answer → `#N/A` with the service's message.
 */
export function askSteps(domain: Argument, question: Argument, maxPages: Argument, options: Argument): SheetSteps<Table> {
  return answerSteps(domain, question, maxPages, options, false) as SheetSteps<Table>;
}

/** ORG.ASK where the host shows links in a cell (Excel's data types): with `detail=1` the sources cell is the sources as links. */
export function askLinkedSteps(domain: Argument, question: Argument, maxPages: Argument, options: Argument): SheetSteps<(CellValue | SourceLinks)[][]> {
  return answerSteps(domain, question, maxPages, options, true);
}

function* answerSteps(domain: Argument, question: Argument, maxPages: Argument, options: Argument, linkCells: boolean): SheetSteps<(CellValue | SourceLinks)[][]> {
  const site = scalarText('domain', domain);
  if (site === '') throw new ArgumentError('domain', 'is required: the organization’s domain, e.g. example.com');
  const asked = scalarText('question', question);
  if (asked === '') throw new ArgumentError('question', 'is required');
  const pagesText = scalarText('max_pages', maxPages);
  const pages = pagesText === '' ? ASK_DEFAULT_PAGES : Number(pagesText);
  if (!Number.isInteger(pages) || pages < 1) throw new ArgumentError('max_pages', `must be a whole number from 1 (got "${pagesText}")`);
  const option = parseOptions('options', options, ASK_OPTIONS);
  const result = yield* backendCall('qna', { domain: site, question: asked, max_pages: pages }, 'ask');
  if (!result.can_answer) return [[errorCell('#N/A', result.message || 'No answer found on the site')]];
  const text = flattenMarkdown(result.data.answer);
  if (option.detail !== true) return [[text]];
  const sources = sourceLinksOf(result.data);
  const row: (CellValue | SourceLinks)[] = [text, result.data.confidence, linkCells ? sources : sources.links.map((link) => link.label).join('\n')];
  const header = ['answer', 'confidence', 'sources'];
  if (option.links === true) {
    row.push(sources.links.map((link) => link.url).join('\n'));
    header.push('links');
  }
  return option.headers === true ? [header, row] : [row];
}
