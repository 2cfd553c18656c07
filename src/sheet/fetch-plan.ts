/**
 * ORG.FETCH's request planning and table shaping, host-neutral:
 * - every input cell becomes a normalised domain (URLs and e-mail addresses accepted), a blank, or an
 *   error cell for text that is no domain;
 * - each distinct domain is asked for once, however many cells repeat it (the drivers cut the domains
 *   they send into requests of at most 5,000: fetch-rows.ts);
 * - the answer comes back one output row per input cell, in input order: a blank cell gives a blank row,
 *   a domain the index lacks gives `#N/A` in that row only.
 */
import type { SelectableColumn } from '../contract/common.js';
import { normalizeDomain } from '../contract/domain.js';
import { errorCell, isErrorCell, type CellValue, type ErrorCell, type Table } from './cells.js';

export interface FetchPlan {
  /** Per input cell: its domain, '' for a blank cell, or the error of text that is no domain. */
  keys: (string | ErrorCell)[];
  /** The distinct domains, in order of first appearance. */
  domains: string[];
}

export function planFetch(cells: readonly unknown[]): FetchPlan {
  const distinct = new Set<string>();
  const keys = cells.map((cell): string | ErrorCell => {
    const text = typeof cell === 'string' ? cell.trim() : typeof cell === 'number' ? String(cell) : '';
    if (text === '') return '';
    const result = normalizeDomain(text);
    if (!result.ok) return errorCell('#VALUE!', result.reason);
    distinct.add(result.domain);
    return result.domain;
  });
  return { keys, domains: [...distinct] };
}

/** A value as a cell shows it: lists joined with "; ", nothing as a blank. */
export function cellOf(value: unknown): CellValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(String).join('; ');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * One row per input cell, in input order (with a header row first when asked). A domain whose request
 * failed (another chunk may have succeeded) shows that request's error in its row.
 */
export function fetchTable(
  plan: FetchPlan,
  found: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  columns: readonly SelectableColumn[],
  headers: boolean,
  failed: ReadonlyMap<string, ErrorCell> = new Map(),
): Table {
  const rows: Table = plan.keys.map((key) => {
    if (isErrorCell(key)) return [key, ...columns.slice(1).map(() => '')];
    if (key === '') return columns.map(() => '');
    const error = failed.get(key);
    if (error) return [error, ...columns.slice(1).map(() => '')];
    const row = found.get(key);
    if (!row) return [errorCell('#N/A', `${key} is not in the index`), ...columns.slice(1).map(() => '')];
    return columns.map((column) => cellOf(row[column]));
  });
  return headers ? [[...columns], ...rows] : rows;
}
