/**
 * The search builder's state, and what it becomes: a v2 search body (for the preview and "Insert
 * values") and the formula that asks the same thing (for "Insert formula"), written in the grammar of
 * src/sheet/requests.ts — a test parses the formula back and compares the bodies.
 */
import type { SearchRequestInput } from '../contract/v2/search.js';
import type { SelectableColumn } from '../contract/common.js';

export interface SearchForm {
  mustAll: string[];
  mustAny: string[];
  mustNot: string[];
  describe: string;
  similarTo: string[];
  boost: string[];
  penalize: string[];
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

export function requestOf(form: SearchForm): SearchRequestInput {
  const body: SearchRequestInput = { columns: form.columns, size: form.size, min_score: form.minScore, search_balance: form.balance, dedup: form.dedup };
  if (form.mustAll.length + form.mustAny.length > 0) body.keywords = { must_all: form.mustAll, must_any: form.mustAny, must_not: form.mustNot };
  if (form.describe.trim() !== '') body.describe = form.describe.trim();
  if (form.similarTo.length > 0) {
    body.similar_to = form.similarTo.map((domain) => ({ domain, boost: form.boost, penalize: form.penalize, repel_domains: [] }));
  }
  const filters = filtersOf(form);
  if (filters) body.filters = filters;
  return body;
}

/** A formula string literal ("" doubles a quote). */
const literal = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/** Terms in the search-box syntax: "phrases" quoted, + for required, - for excluded. */
function keywordText(form: SearchForm): string {
  const term = (word: string): string => (/\s/.test(word) ? `"${word}"` : word);
  return [...form.mustAny.map(term), ...form.mustAll.map((w) => `+${term(w)}`), ...form.mustNot.map((w) => `-${term(w)}`)].join(' ');
}

/** Option and filter values are separated by ";" and lists by ",": those characters inside a value become spaces. */
const plain = (text: string): string => text.replace(/[;=]/g, ' ').trim();
const list = (values: readonly string[]): string => values.map((value) => plain(value).replace(/,/g, ' ')).join(', ');

/** The ORG.SEARCH formula for the form (trailing blank arguments left out). */
export function formulaOf(form: SearchForm, functionName: string): string {
  const filters: string[] = Object.entries(form.filters)
    .filter(([, values]) => values.length > 0)
    .map(([key, values]) => `${key}=${list(values)}`);
  if (form.registerDateFrom) filters.push(`register_date_from=${form.registerDateFrom}`);
  if (form.registerDateTo) filters.push(`register_date_to=${form.registerDateTo}`);
  const options: string[] = [`size=${form.size}`];
  if (form.minScore !== EMPTY_FORM.minScore) options.push(`min_score=${form.minScore}`);
  if (form.balance !== EMPTY_FORM.balance) options.push(`balance=${form.balance}`);
  if (form.dedup) options.push('dedup=1');
  if (form.describe.trim() !== '') options.push(`describe=${plain(form.describe)}`);
  if (form.similarTo.length > 0) {
    options.push(`similar_to=${list(form.similarTo)}`);
    if (form.boost.length > 0) options.push(`boost=${list(form.boost)}`);
    if (form.penalize.length > 0) options.push(`penalize=${list(form.penalize)}`);
  }
  const args = [keywordText(form), filters.join('; '), form.columns.join(', '), options.join('; ')];
  while (args.length > 1 && args[args.length - 1] === '') args.pop();
  return `=${functionName}(${args.map(literal).join(', ')})`;
}
