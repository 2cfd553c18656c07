/**
 * Organizations sharing a name (case-, accent- and spacing-insensitive), for `dedup`: rows whose name is
 * unique belong to group 0; the others to a group listing its members in domain order.
 *
 * Built without a string per organization held at once: each name's folded form is hashed (two 32-bit
 * hashes; a plain ASCII name is folded and hashed in one pass, without making the folded string), the
 * rows are sorted by hash with a stable radix sort (so each run keeps domain order), and only rows whose
 * hashes collide have their folded names compared. A Map of every name holds at most 2^24 entries and
 * took 12 s at 5,000,000; this takes a few seconds at 20,000,000.
 */
import type { ColumnStore } from '../store/store.js';

/** The key two names must share to count as the same organization name: lower case, accents removed, ß → ss, anything not a letter or digit → one space, padded with spaces. */
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
  /** The group of each row; 0: its name is unique (or it has none). */
  groupOf: Uint32Array;
  /** Group g's rows are rows[starts[g] … starts[g + 1]), in ascending domain order; group 0 has none. */
  starts: Uint32Array;
  rows: Uint32Array;
}

const cache = new WeakMap<ColumnStore, NameGroups>();

/** Two 32-bit hashes of a folded name, fed one character at a time. */
export class FoldHash {
  a = 0;
  b = 0;

  reset(): void {
    this.a = 0x811c9dc5;
    this.b = 0x9747b28c;
  }

  add(code: number): void {
    this.a = Math.imul(this.a ^ code, 0x01000193);
    this.b = Math.imul(this.b ^ code, 0x5bd1e995) ^ (this.b >>> 15);
  }
}

/** Hashes foldForMatch(name) into `hash`: a plain ASCII name without making any string. */
export function hashFolded(name: string, hash: FoldHash): void {
  hash.reset();
  let ascii = true;
  for (let i = 0; i < name.length && ascii; i++) if (name.charCodeAt(i) > 0x7f) ascii = false;
  if (!ascii) {
    const key = foldForMatch(name);
    for (let i = 0; i < key.length; i++) hash.add(key.charCodeAt(i));
    return;
  }
  hash.add(0x20);
  let pending = false;
  let any = false;
  for (let i = 0; i < name.length; i++) {
    let code = name.charCodeAt(i);
    const upper = code >= 0x41 && code <= 0x5a;
    if (upper || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
      if (pending && any) hash.add(0x20);
      if (upper) code += 0x20;
      hash.add(code);
      pending = false;
      any = true;
    } else {
      pending = true;
    }
  }
  hash.add(0x20);
}

export function duplicateNameGroups(store: ColumnStore): NameGroups {
  const cached = cache.get(store);
  if (cached) return cached;
  const n = store.size;
  // Positions in domain order with a name, and their hashes.
  const a = new Uint32Array(n);
  const b = new Uint32Array(n);
  let positions = new Uint32Array(n);
  let count = 0;
  const hash = new FoldHash();
  for (let position = 0; position < n; position++) {
    const name = store.text.name.get(store.byDomain[position] ?? 0);
    if (!name) continue;
    hashFolded(name, hash);
    a[position] = hash.a;
    b[position] = hash.b;
    positions[count++] = position;
  }
  positions = positions.subarray(0, count);
  // Stable LSD radix sort by (a, b), 16 bits a pass: equal hashes stay in domain order.
  let scratch = new Uint32Array(count);
  const buckets = new Uint32Array(65_537);
  for (const [key, shift] of [[b, 0], [b, 16], [a, 0], [a, 16]] as const) {
    buckets.fill(0);
    for (let i = 0; i < count; i++) {
      const k = (((key[positions[i] ?? 0] ?? 0) >>> shift) & 0xffff) + 1;
      buckets[k] = (buckets[k] ?? 0) + 1;
    }
    for (let k = 1; k < buckets.length; k++) buckets[k] = (buckets[k] ?? 0) + (buckets[k - 1] ?? 0);
    for (let i = 0; i < count; i++) {
      const position = positions[i] ?? 0;
      const k = ((key[position] ?? 0) >>> shift) & 0xffff;
      scratch[buckets[k] ?? 0] = position;
      buckets[k] = (buckets[k] ?? 0) + 1;
    }
    [positions, scratch] = [scratch, positions];
  }
  // Runs of equal hashes: the names compared, each set of equal names a group.
  const groupOf = new Uint32Array(n);
  const members: number[] = [];
  const starts: number[] = [0, 0];
  for (let i = 0; i < count; ) {
    const first = positions[i] ?? 0;
    let end = i + 1;
    while (end < count && a[positions[end] ?? 0] === a[first] && b[positions[end] ?? 0] === b[first]) end++;
    if (end - i >= 2) {
      const run = Array.from(positions.subarray(i, end));
      // Almost always one name; a hash shared by different names splits into groups by the names themselves.
      const byKey = new Map<string, number[]>();
      for (const position of run) {
        const row = store.byDomain[position] ?? 0;
        const key = foldForMatch(store.text.name.get(row) ?? '');
        const rows = byKey.get(key);
        if (rows) rows.push(row);
        else byKey.set(key, [row]);
      }
      for (const rows of byKey.values()) {
        if (rows.length < 2) continue;
        const group = starts.length - 1;
        for (const row of rows) {
          groupOf[row] = group;
          members.push(row);
        }
        starts.push(members.length);
      }
    }
    i = end;
  }
  const groups = { groupOf, starts: Uint32Array.from(starts), rows: Uint32Array.from(members) };
  cache.set(store, groups);
  return groups;
}
