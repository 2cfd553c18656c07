/**
 * The search builder's state, and what it becomes: a v2 search body (for the preview and "Insert
 * values") and the formula that asks the same thing (for "Insert formula"), written in the grammar of
 * src/sheet/formula-grammar.ts — a test parses the formula back and compares the bodies.
 */
import type { SearchRequestInput } from '../contract/v2/search.js';
import type { QueryResponse } from '../contract/language.js';
import { GEO_LEVELS, type SelectableColumn } from '../contract/common.js';
import { FILTER_KEYS } from '../contract/v2/filters.js';

export interface SearchForm {
  mustAll: string[];
  mustAny: string[];
  mustNot: string[];
  describe: string;
  similarTo: string[];
  boost: string[];
  penalize: string[];
  /** Domains left out of the results. */
  excludes: string[];
  /** Filter key → chosen values (country, organization_type, …). */
  filters: Record<string, string[]>;
  registerDateFrom: string;
  registerDateTo: string;
  columns: SelectableColumn[];
  size: number;
  minScore: number;
  balance: number;
  dedup: boolean;
}

export const EMPTY_FORM: SearchForm = {
  mustAll: [],
  mustAny: [],
  mustNot: [],
  describe: '',
  similarTo: [],
  boost: [],
  penalize: [],
  excludes: [],
  filters: {},
  registerDateFrom: '',
  registerDateTo: '',
  columns: ['domain', 'name', 'country'],
  size: 100,
  minScore: 0.35,
  balance: 0.5,
  dedup: false,
};

function filtersOf(form: SearchForm): Record<string, unknown> | null {
  const filters: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(form.filters)) if (values.length > 0) filters[key] = values;
  if (form.registerDateFrom) filters.register_date_from = form.registerDateFrom;
  if (form.registerDateTo) filters.register_date_to = form.registerDateTo;
  return Object.keys(filters).length > 0 ? filters : null;
}

/** True when the form asks for something (the service's rule 1: filters, keywords, describe or similar_to). */
export function isSearchable(form: SearchForm): boolean {
  return form.mustAll.length + form.mustAny.length > 0 || form.describe.trim() !== '' || form.similarTo.length > 0 || filtersOf(form) !== null;
}

/** The columns asked for; none chosen means the defaults, in the preview and the formula alike. */
const columnsOf = (form: SearchForm): SelectableColumn[] => (form.columns.length > 0 ? form.columns : EMPTY_FORM.columns);

export function requestOf(form: SearchForm): SearchRequestInput {
  const body: SearchRequestInput = { columns: columnsOf(form), size: form.size, min_score: form.minScore, search_balance: form.balance, dedup: form.dedup };
  if (form.mustAll.length + form.mustAny.length > 0) body.keywords = { must_all: form.mustAll, must_any: form.mustAny, must_not: form.mustNot };
  if (form.describe.trim() !== '') body.describe = form.describe.trim();
  if (form.similarTo.length > 0) {
    body.similar_to = form.similarTo.map((domain) => ({ domain, boost: form.boost, penalize: form.penalize, repel_domains: [] }));
  }
  if (form.excludes.length > 0) body.excludes = form.excludes;
  const filters = filtersOf(form);
  if (filters) body.filters = filters;
  return body;
}

/** Excel refuses a text constant longer than 255 characters inside a formula: longer text is joined with &. */
const MAX_LITERAL = 255;

/** A formula string literal ("" doubles a quote), split into "…"&"…" pieces when long. */
function literal(text: string): string {
  const pieces: string[] = [];
  for (let i = 0; i < text.length || pieces.length === 0; i += MAX_LITERAL) pieces.push(`"${text.slice(i, i + MAX_LITERAL).replace(/"/g, '""')}"`);
  return pieces.join('&');
}

/** A term the search-box syntax writes back as itself: no quote, no leading + or -. */
const plainTerm = (term: string): boolean => term.trim() === term && term !== '' && !term.includes('"') && !/^[+-]/.test(term);
/** A value that survives "key=value; …" (no ";") and, in a list, the "," between items. */
const plainValue = (value: string, inList: boolean): boolean => value.trim() === value && value !== '' && !value.includes(';') && !(inList && value.includes(','));

function keywordText(form: SearchForm): string {
  // must_not alone is no search (rule 3): the form's request leaves it out, so does the formula.
  if (form.mustAll.length + form.mustAny.length === 0) return '';
  const term = (word: string): string => (/\s/.test(word) ? `"${word}"` : word);
  return [...form.mustAny.map(term), ...form.mustAll.map((w) => `+${term(w)}`), ...form.mustNot.map((w) => `-${term(w)}`)].join(' ');
}

/** True when the short grammar says exactly what the form asks; otherwise the formula carries the body as JSON. */
function expressibleInShortForm(form: SearchForm): boolean {
  const terms = [...form.mustAll, ...form.mustAny, ...form.mustNot];
  const query = keywordText(form);
  if (!terms.every(plainTerm) || /^\s*(describe|like)\s*:/i.test(query) || query.startsWith('{')) return false;
  const lists = [form.similarTo, form.boost, form.penalize, form.excludes, ...Object.values(form.filters)];
  if (!lists.every((values) => values.every((value) => plainValue(value, true)))) return false;
  const describe = form.describe.trim();
  return describe === '' || plainValue(describe, false);
}

/**
 * The ORG.SEARCH formula that asks what the form asks (trailing blank arguments left out): the readable
 * grammar when it can say it exactly, else the whole body as JSON in the query argument.
 */
/** A filter key's place in the contract's order (an unknown key last). */
function filterOrder(key: string): number {
  const at = (FILTER_KEYS as readonly string[]).indexOf(key);
  return at < 0 ? FILTER_KEYS.length : at;
}

export function formulaOf(form: SearchForm, functionName: string): string {
  const columns = columnsOf(form).join(', ');
  if (!expressibleInShortForm(form)) {
    const { columns: _columns, ...body } = requestOf(form);
    return `=${functionName}(${literal(JSON.stringify(body))}, "", ${literal(columns)})`;
  }
  // In the contract's key order, so that a form reads the same however its filters were added.
  const filters: string[] = Object.entries(form.filters)
    .filter(([, values]) => values.length > 0)
    .sort(([a], [b]) => filterOrder(a) - filterOrder(b))
    .map(([key, values]) => `${key}=${values.join(', ')}`);
  if (form.registerDateFrom) filters.push(`register_date_from=${form.registerDateFrom}`);
  if (form.registerDateTo) filters.push(`register_date_to=${form.registerDateTo}`);
  const options: string[] = [`size=${form.size}`];
  if (form.minScore !== EMPTY_FORM.minScore) options.push(`min_score=${form.minScore}`);
  if (form.balance !== EMPTY_FORM.balance) options.push(`balance=${form.balance}`);
  if (form.dedup) options.push('dedup=1');
  if (form.describe.trim() !== '') options.push(`describe=${form.describe.trim()}`);
  if (form.similarTo.length > 0) {
    options.push(`similar_to=${form.similarTo.join(', ')}`);
    if (form.boost.length > 0) options.push(`boost=${form.boost.join(', ')}`);
    if (form.penalize.length > 0) options.push(`penalize=${form.penalize.join(', ')}`);
  }
  if (form.excludes.length > 0) options.push(`excludes=${form.excludes.join(', ')}`);
  const args = [keywordText(form), filters.join('; '), columns, options.join('; ')];
  while (args.length > 1 && args[args.length - 1] === '') args.pop();
  return `=${functionName}(${args.map(literal).join(', ')})`;
}

/** A place chosen as a filter: its level (country … municipality) and its name as the index spells it. */
export interface PlaceChoice {
  level: string;
  name: string;
}

const PLACE_LEVELS: ReadonlySet<string> = new Set(GEO_LEVELS);

/** The form's place filters as places, and the form without them (the search panel keeps places apart). */
export function splitPlaces(form: SearchForm): { form: SearchForm; places: PlaceChoice[] } {
  const filters: Record<string, string[]> = {};
  const places: PlaceChoice[] = [];
  for (const [key, values] of Object.entries(form.filters)) {
    if (PLACE_LEVELS.has(key)) places.push(...values.map((name) => ({ level: key, name })));
    else filters[key] = values;
  }
  return { form: { ...form, filters }, places };
}

export type ParsedQuery = QueryResponse['payload'];

/**
 * A plain-language query as the language interface's nlp_search understood it, as a search form: its
 * words, places, categories, register dates, similar and excluded domains and description; what the
 * form cannot hold is named in `ignored`. Columns, size and the sliders stay those of `base`.
 */
export function formOfQuery(parsed: ParsedQuery, base: SearchForm): { form: SearchForm; ignored: string[] } {
  const filters: Record<string, string[]> = {};
  const ignored: string[] = [];
  for (const level of GEO_LEVELS) if (parsed.locations[level].length > 0) filters[level] = [...parsed.locations[level]];
  let registerDateFrom = '';
  let registerDateTo = '';
  for (const [key, value] of Object.entries(parsed.custom_filters)) {
    if (key === 'register_date_from' && typeof value === 'string') registerDateFrom = value;
    else if (key === 'register_date_to' && typeof value === 'string') registerDateTo = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) filters[key] = [...value];
    else ignored.push(key);
  }
  const similarTo = [...parsed.domains];
  const mustAny = [...parsed.keywords.must_one];
  const mustAll = [...parsed.keywords.must_all];
  // A description is used when it says more than the keywords (a service's parser may write one); the
  // built-in parser's is the keywords again, which would only add a semantic pass that unknown words fail.
  const semantic = parsed.semantic_input.trim();
  const repeatsKeywords = semantic === [...mustAll, ...mustAny].join(' ');
  const form: SearchForm = {
    ...base,
    mustAny,
    mustAll,
    mustNot: [...parsed.keywords.must_not],
    // A description and similar domains do not go together (the form's rule): the domains say more.
    describe: similarTo.length > 0 || repeatsKeywords ? '' : semantic,
    similarTo,
    boost: [],
    penalize: [],
    excludes: [...parsed.excludes],
    filters,
    registerDateFrom,
    registerDateTo,
  };
  return { form, ignored };
}

/** One part of a search, shown as a removable chip: what it is, its value, and the form without it. */
export interface SearchChip {
  id: string;
  label: string;
  value: string;
  without: () => SearchForm;
}

const FILTER_LABELS: Record<string, string> = {
  country: 'Country',
  state: 'State',
  region: 'Region',
  district: 'District',
  municipality: 'Municipality',
  organization_type: 'Type',
  organization_size: 'Size',
  nace_code: 'Industry',
};

/** The parts of a form as chips, in reading order: words, places and categories, dates, description, domains. */
export function chipsOf(form: SearchForm): SearchChip[] {
  const chips: SearchChip[] = [];
  const list = (key: 'mustAny' | 'mustAll' | 'mustNot' | 'similarTo' | 'excludes', label: string) => {
    for (const value of form[key]) chips.push({ id: `${key}:${value}`, label, value, without: () => ({ ...form, [key]: form[key].filter((item) => item !== value) }) });
  };
  list('mustAny', 'Any word');
  list('mustAll', 'Every word');
  list('mustNot', 'Not');
  for (const [key, values] of Object.entries(form.filters)) {
    for (const value of values) {
      chips.push({ id: `${key}:${value}`, label: FILTER_LABELS[key] ?? key, value, without: () => ({ ...form, filters: { ...form.filters, [key]: values.filter((item) => item !== value) } }) });
    }
  }
  if (form.registerDateFrom) chips.push({ id: 'from', label: 'Registered from', value: form.registerDateFrom, without: () => ({ ...form, registerDateFrom: '' }) });
  if (form.registerDateTo) chips.push({ id: 'to', label: 'Registered until', value: form.registerDateTo, without: () => ({ ...form, registerDateTo: '' }) });
  if (form.describe.trim()) chips.push({ id: 'describe', label: 'Described as', value: form.describe.trim(), without: () => ({ ...form, describe: '' }) });
  list('similarTo', 'Similar to');
  list('excludes', 'Leave out');
  return chips;
}
