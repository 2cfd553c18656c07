/**
 * Organizations sharing a name (case-, accent- and spacing-insensitive), for `dedup`: rows whose name is
 * unique belong to group 0; the others to a group listing its members in domain order.
 */
import type { ColumnStore } from '../store/store.js';

/** Lower case, accents removed, ß → ss, anything not a letter or digit → one space, padded with spaces. */
/** The key two names must share to count as the same organization name. */
export function foldForMatch(text: string): string {
  const folded = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return ` ${folded} `;
}

export interface NameGroups {
  groupOf: Uint32Array;
  /** members[group] = rows in ascending domain order; members[0] is empty. */
  members: number[][];
}

const cache = new WeakMap<ColumnStore, NameGroups>();

export function duplicateNameGroups(store: ColumnStore): NameGroups {
  const cached = cache.get(store);
  if (cached) return cached;
  const rowsByName = new Map<string, number[]>();
  for (let position = 0; position < store.size; position++) {
    const row = store.byDomain[position] ?? 0;
    const name = store.text.name.get(row);
    if (!name) continue;
    const key = foldForMatch(name);
    const rows = rowsByName.get(key);
    if (rows) rows.push(row);
    else rowsByName.set(key, [row]);
  }
  const groupOf = new Uint32Array(store.size);
  const members: number[][] = [[]];
  for (const rows of rowsByName.values()) {
    if (rows.length < 2) continue;
    for (const row of rows) groupOf[row] = members.length;
    members.push(rows);
  }
  const groups = { groupOf, members };
  cache.set(store, groups);
  return groups;
}
