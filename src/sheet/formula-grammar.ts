/**
 * Formula arguments → contract request bodies, for every host. The grammar (documented with examples in
 * src/sheet/README.md and in the functions' help):
 * - keywords as a search box reads them: `solar "heat pump" +battery -coal` — bare words and "phrases"
 *   are must_any (ranked by BM25), `+term` must_all, `-term` must_not;
 * - filters as `"country=Germany; organization_size=small, medium; register_date_from=2020-01-01"` text
 *   or a two-column range (key | value; a date cell is read as a date);
 * - options typed per function; ORG.SEARCH's `similar_to` entries take the boost / penalize / repel /
 *   weight options written after them;
 * - a query starting with `{` is a whole v2 search body in JSON (the escape hatch that keeps every
 *   current and future input reachable); the other arguments then override its fields.
 * Bodies are checked by the contract where they are answered (the local engine or the server), so a bad
 * value comes back as a 422 pointing at the field: `#VALUE!` with that field's name.
 */
import { FILTER_KEYS, type FilterKey } from '../contract/v2/filters.js';
import { SEARCH_LIMITS, type SearchRequestInput } from '../contract/v2/search.js';
import { STATS_GROUP_BY, DATE_TRUNC_UNITS, DATE_RANGE_FIELDS, type StatsRequestInput } from '../contract/v2/stats.js';
import { SELECTABLE_COLUMNS, DEFAULT_COLUMNS, EXTENSION_COLUMNS, type SelectableColumn } from '../contract/common.js';
import { ArgumentError } from './cells.js';
import { cellText, isRange, parseFieldList, parseOptionPairs, parseOptions, type Argument, type OptionSpec, type OptionValue } from './arguments.js';
import { messageOf } from '../contract/errors.js';

export interface KeywordTerms {
  must_all: string[];
  must_any: string[];
  must_not: string[];
}

/** `solar "heat pump" +battery -coal` → must_any [solar, heat pump], must_all [battery], must_not [coal]. */
export function parseKeywordSyntax(argument: string, text: string): KeywordTerms | null {
  const terms: KeywordTerms = { must_all: [], must_any: [], must_not: [] };
  const token = /([+-]?)(?:"([^"]*)"?|(\S+))/g;
  for (const match of text.matchAll(token)) {
    const sign = match[1] ?? '';
    const term = (match[2] ?? match[3] ?? '').trim();
    if (term === '' || /^[+-]+$/.test(term)) {
      if (term !== '' || sign !== '' || match[2] !== undefined) throw new ArgumentError(argument, `"${match[0]}" has no word after it`);
      continue;
    }
    const list = sign === '+' ? terms.must_all : sign === '-' ? terms.must_not : terms.must_any;
    if (!list.includes(term)) list.push(term);
  }
  if (terms.must_all.length + terms.must_any.length + terms.must_not.length === 0) return null;
  if (terms.must_all.length + terms.must_any.length === 0) {
    throw new ArgumentError(argument, `"-word" excludes, so it needs at least one word to search for (e.g. "solar -coal")`);
  }
  return terms;
}

const LIST: OptionSpec[string] = { kind: 'list' };
const DATE: OptionSpec[string] = { kind: 'date' };

/** Every v2 filter key, typed: lists comma-separated, dates as date cells or ISO text, text_keywords in the keyword syntax. */
const FILTER_SPEC: OptionSpec = Object.fromEntries(
  FILTER_KEYS.map((key): [FilterKey, OptionSpec[string]] => [
    key,
    key === 'register_date_from' || key === 'register_date_to' ? DATE : key === 'text_keywords' ? { kind: 'text' } : LIST,
  ]),
);

/** The filters argument → a v2 filters object (null when blank). */
export function parseFilters(value: Argument): Record<string, unknown> | null {
  const filters: Record<string, unknown> = {};
  for (const [key, raw] of parseOptionPairs('filters', value, FILTER_SPEC)) {
    if (key === 'text_keywords') {
      const terms = parseKeywordSyntax('filters', String(raw));
      if (terms) filters[key] = terms;
    } else if (Array.isArray(raw)) {
      const previous = (filters[key] as string[] | undefined) ?? [];
      filters[key] = [...previous, ...raw];
    } else {
      filters[key] = raw;
    }
  }
  return Object.keys(filters).length > 0 ? filters : null;
}

/** The options of ORG.SEARCH beyond the query, filters and columns. */
/** A formula may ask for more rows than one request gives (500): it then walks search_after pages, up to the scored-mode depth cap. */
export const MAX_FORMULA_ROWS = SEARCH_LIMITS.scoredDepthCap;

export const SEARCH_OPTIONS: OptionSpec = {
  size: { kind: 'int', min: 1, max: MAX_FORMULA_ROWS },
  min_score: { kind: 'number', min: 0, max: 1 },
  search_balance: { kind: 'number', min: 0, max: 1 },
  balance: { kind: 'number', min: 0, max: 1 },
  dedup: { kind: 'bool' },
  headers: { kind: 'bool' },
  describe: { kind: 'text' },
  similar_to: LIST,
  boost: LIST,
  penalize: LIST,
  repel: LIST,
  repel_domains: LIST,
  weight: { kind: 'text' },
  excludes: LIST,
};

/** An argument as one text: a single cell's value (Excel hands ranges over, even for one cell). */
export function scalarText(argument: string, value: Argument): string {
  if (!isRange(value)) return cellText(value);
  const cells = value.flat().map(cellText).filter((text) => text !== '');
  if (cells.length > 1) throw new ArgumentError(argument, 'expects one cell or text, not a range of several values');
  return cells[0] ?? '';
}

function parseJsonBody(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ArgumentError('query', `is not valid JSON (${messageOf(error)})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ArgumentError('query', 'JSON must be an object: a v2 search body');
  return parsed as Record<string, unknown>;
}

/** A similar-to weight as the contract accepts it: a number 0–2 or weak / normal / strong. */
function weightOf(text: string): number | string {
  const number = Number(text.replace(',', '.'));
  return text !== '' && Number.isFinite(number) ? number : text.toLowerCase();
}

interface SimilarEntry {
  domain: string;
  boost?: string[];
  penalize?: string[];
  repel_domains?: string[];
  weight?: number | string;
}

/** Options in order: each similar_to domain opens an entry; boost / penalize / repel / weight apply to the entries just opened. */
function similarEntries(pairs: readonly [string, OptionValue][]): SimilarEntry[] {
  const entries: SimilarEntry[] = [];
  let current: SimilarEntry[] = [];
  for (const [key, value] of pairs) {
    if (key === 'similar_to') {
      current = (value as string[]).map((domain) => ({ domain }));
      entries.push(...current);
      continue;
    }
    if (!['boost', 'penalize', 'repel', 'repel_domains', 'weight'].includes(key)) continue;
    if (current.length === 0) throw new ArgumentError('options', `${key} belongs to a similar_to entry: write it after similar_to=…`);
    for (const entry of current) {
      if (key === 'weight') entry.weight = weightOf(String(value));
      else if (key === 'boost') entry.boost = value as string[];
      else if (key === 'penalize') entry.penalize = value as string[];
      else entry.repel_domains = value as string[];
    }
  }
  return entries;
}

export interface SearchCall {
  /** The body of the first page (its size at most 500; more rows come in further pages). */
  body: SearchRequestInput;
  /** How many rows the formula asked for (its `size` option; else the body's size). */
  rows: number;
  columns: SelectableColumn[];
  headers: boolean;
}

/**
 * ORG.SEARCH(query, [filters], [columns], [options]). The query is keywords in the search-box syntax,
 * `describe: …` (a description, semantic search), `like: a.com, b.com` (similar to these domains), or a
 * JSON body; describe / similar_to may also come as options, together with keywords (hybrid).
 */
export function searchCall(query: Argument, filters: Argument, columns: Argument, options: Argument): SearchCall {
  const text = scalarText('query', query);
  const body: Record<string, unknown> = text.startsWith('{') ? parseJsonBody(text) : {};
  const prefix = /^(describe|like)\s*:\s*(.*)$/is.exec(text);
  if (prefix) {
    const rest = (prefix[2] ?? '').trim();
    if ((prefix[1] ?? '').toLowerCase() === 'describe') body.describe = rest;
    else body.similar_to = rest.split(/[\s,;]+/).filter(Boolean);
  } else if (!text.startsWith('{')) {
    const keywords = parseKeywordSyntax('query', text);
    if (keywords) body.keywords = keywords;
  }
  const parsedFilters = parseFilters(filters);
  if (parsedFilters) body.filters = { ...((body.filters) ?? {}), ...parsedFilters };

  const pairs = parseOptionPairs('options', options, SEARCH_OPTIONS);
  const option = Object.fromEntries(pairs);
  const entries = similarEntries(pairs);
  if (entries.length > 0) {
    if (body.similar_to) throw new ArgumentError('options', 'similar_to is given twice (in the query with "like:" and as an option): keep one');
    body.similar_to = entries;
  }
  if (option.describe !== undefined) {
    if (body.describe) throw new ArgumentError('options', 'describe is given twice (in the query and as an option): keep one');
    body.describe = option.describe;
  }
  let rows: number = SEARCH_LIMITS.sizeDefault;
  if (body.size !== undefined && body.size !== null) {
    // A JSON body's size gets the size option's bounds: one cell must not walk the whole index.
    const size = body.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_FORMULA_ROWS) {
      throw new ArgumentError('query', `size must be a whole number from 1 to ${MAX_FORMULA_ROWS} (got ${JSON.stringify(size)})`);
    }
    rows = size;
    body.size = Math.min(size, SEARCH_LIMITS.sizeMax);
  }
  if (option.size !== undefined) {
    rows = option.size as number;
    body.size = Math.min(rows, SEARCH_LIMITS.sizeMax);
  }
  if (option.min_score !== undefined) body.min_score = option.min_score;
  const balance = option.search_balance ?? option.balance;
  if (balance !== undefined) body.search_balance = balance;
  if (option.dedup !== undefined) body.dedup = option.dedup;
  if (option.excludes !== undefined) body.excludes = option.excludes;

  const fallback = Array.isArray(body.columns) ? (body.columns as SelectableColumn[]) : DEFAULT_COLUMNS;
  const chosen = parseFieldList('columns', columns, FORMULA_COLUMNS, fallback);
  body.columns = chosen;
  return { body, rows, columns: chosen, headers: option.headers !== false };
}

/** What a formula's columns argument may name: the interface's columns and OrgIndex's extensions. */
export const FORMULA_COLUMNS: readonly SelectableColumn[] = [...SELECTABLE_COLUMNS, ...EXTENSION_COLUMNS];

export const FETCH_OPTIONS: OptionSpec = { headers: { kind: 'bool' }, as: { kind: 'choice', values: ['values', 'card'] } };

export interface FetchCall {
  columns: SelectableColumn[];
  /** A header row first (default no: rows stay beside their inputs). */
  headers: boolean;
  /** "card": one organization card per input cell, where the host can show one (else the columns as values). */
  as: 'values' | 'card';
}

/** ORG.FETCH's columns (domain, name, country by default), header row and form of the answer. */
export function fetchCall(columns: Argument, options: Argument): FetchCall {
  const option = parseOptions('options', options, FETCH_OPTIONS);
  return {
    columns: parseFieldList('columns', columns, FORMULA_COLUMNS, DEFAULT_COLUMNS),
    headers: option.headers === true,
    as: option.as === 'card' ? 'card' : 'values',
  };
}

/** Whether ORG.FETCH's options ask for cards (false for options that do not parse: the call itself reports them). */
export function asksForCards(options: Argument): boolean {
  try {
    return parseOptions('options', options, FETCH_OPTIONS).as === 'card';
  } catch {
    return false;
  }
}

export const STATS_OPTIONS: OptionSpec = {
  date_trunc: { kind: 'choice', values: DATE_TRUNC_UNITS },
  limit: { kind: 'int', min: 1, max: 500 },
  layout: { kind: 'choice', values: ['crosstab', 'long'] },
  headers: { kind: 'bool' },
  date_field: { kind: 'choice', values: DATE_RANGE_FIELDS },
  from: DATE,
  to: DATE,
};

export interface StatsCall {
  body: StatsRequestInput;
  layout: 'crosstab' | 'long';
  headers: boolean;
}

function groupByOf(argument: string, value: Argument): string | null {
  const text = scalarText(argument, value);
  if (text === '') return null;
  const [known] = parseFieldList(argument, text, STATS_GROUP_BY, []);
  return known ?? null;
}

/** ORG.STATS(group_by, [group_by_secondary], [filters], [options]). */
export function statsCall(groupBy: Argument, secondary: Argument, filters: Argument, options: Argument): StatsCall {
  const body: Record<string, unknown> = {};
  const primary = groupByOf('group_by', groupBy);
  if (primary === null) throw new ArgumentError('group_by', `is required: one of ${STATS_GROUP_BY.join(', ')}`);
  body.group_by = primary;
  const second = groupByOf('group_by_secondary', secondary);
  if (second !== null) body.group_by_secondary = second;
  const parsedFilters = parseFilters(filters);
  if (parsedFilters) body.filters = parsedFilters;
  const option = parseOptions('options', options, STATS_OPTIONS);
  if (option.date_trunc !== undefined) body.date_trunc = option.date_trunc;
  if (option.limit !== undefined) body.limit = option.limit;
  if (option.from !== undefined || option.to !== undefined || option.date_field !== undefined) {
    body.date_range = { field: option.date_field ?? null, from_date: option.from ?? null, to_date: option.to ?? null };
  }
  return { body: body, layout: option.layout === 'long' ? 'long' : 'crosstab', headers: option.headers !== false };
}

export const ASK_OPTIONS: OptionSpec = { detail: { kind: 'bool' }, headers: { kind: 'bool' }, links: { kind: 'bool' } };
