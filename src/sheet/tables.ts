/**
 * Answers shaped as spill ranges, host-neutral: ORG.SEARCH's rows with a header row, and ORG.STATS's
 * buckets as a value/count table or — with a secondary dimension — a crosstab (primary values down,
 * secondary across, 0 where a pair has no organization) or the long format.
 */
import type { StatsResponse } from '../contract/v2/stats.js';
import type { Table } from './cells.js';
import { cellOf } from './fetch-plan.js';

/** Search rows in the requested columns, header row first when asked. */
export function searchTable(rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[], headers: boolean): Table {
  const body = rows.map((row) => columns.map((column) => cellOf(row[column])));
  return headers ? [[...columns], ...body] : body;
}

export type StatsLayout = 'crosstab' | 'long';

/** A bucket's value in a dimension, as a cell shows it (null → "(none)": a blank would read as missing data). */
const valueOf = (bucket: Readonly<Record<string, unknown>>, dimension: string): string => {
  const value = bucket[dimension];
  if (value === null || value === undefined) return '(none)';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
};

export function statsTable(response: StatsResponse, layout: StatsLayout, headers: boolean): Table {
  const primary = response.metadata.group_by ?? 'value';
  const secondary = response.metadata.group_by_secondary;
  const buckets = response.data as readonly Readonly<Record<string, unknown>>[];
  if (!secondary || layout === 'long') {
    const columns = secondary ? [primary, secondary, 'count'] : [primary, 'count'];
    const body: Table = buckets.map((bucket) => [...columns.slice(0, -1).map((dimension) => valueOf(bucket, dimension)), Number(bucket.count)]);
    return headers ? [columns, ...body] : body;
  }
  // Crosstab: rows and columns in order of first appearance (the service's order: largest first).
  const rowKeys: string[] = [];
  const columnKeys: string[] = [];
  const counts = new Map<string, number>();
  for (const bucket of buckets) {
    const row = valueOf(bucket, primary);
    const column = valueOf(bucket, secondary);
    if (!rowKeys.includes(row)) rowKeys.push(row);
    if (!columnKeys.includes(column)) columnKeys.push(column);
    counts.set(`${row}\u0000${column}`, Number(bucket.count));
  }
  const body: Table = rowKeys.map((row) => [row, ...columnKeys.map((column) => counts.get(`${row}\u0000${column}`) ?? 0)]);
  return headers ? [[`${primary} \\ ${secondary}`, ...columnKeys], ...body] : body;
}
