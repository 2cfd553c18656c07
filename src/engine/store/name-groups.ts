/**
 * Organizations sharing a name (case-, accent- and spacing-insensitive), for `dedup`: rows whose name is
 * unique belong to group 0; the others to a group listing its members in domain order. Here, below the
 * snapshot layer, so that an index snapshot can keep them and a loaded store has them without this pass
 * (installNameGroups).
 *
 * Built without a string per organization held at once: each name's folded form is hashed (two 32-bit
 * hashes; a name of ASCII and Latin-1 is folded and hashed from its UTF-8 bytes in one pass), the
 * rows are sorted by hash with a stable radix sort (so each run keeps domain order), and only rows whose
 * hashes collide have their folded names compared. A Map of every name holds at most 2^24 entries and
 * took 12 s at 5,000,000; this takes a few seconds at 20,000,000.
 */
import type { ColumnStore } from './store.js';
import { FNV1A_OFFSET, fnv1aStep } from '../../contract/hash.js';
import { radixBuckets, radixPass } from './radix-sort.js';

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

/** Gives the store its name groups, made elsewhere (an index snapshot's); checked by the caller. */
export function installNameGroups(store: ColumnStore, groups: NameGroups): void {
  if (groups.groupOf.length !== store.size) throw new Error('name groups of another store');
  cache.set(store, groups);
}

/** Two 32-bit hashes of a folded name, fed one character at a time. */
export class FoldHash {
  a = 0;
  b = 0;

  reset(): void {
    this.a = FNV1A_OFFSET;
    this.b = 0x9747b28c;
  }

  add(code: number): void {
    this.a = fnv1aStep(this.a, code);
    this.b = Math.imul(this.b ^ code, 0x5bd1e995) ^ (this.b >>> 15);
  }
}

/**
 * What foldForMatch makes of each Latin-1 letter U+00C0–U+00FF alone ("" where it is not a letter or digit):
 * for these, folding a name is folding each character, so a name of ASCII and Latin-1 is folded and hashed
 * from its UTF-8 bytes in one pass.
 */
const LATIN1 = Array.from({ length: 0x40 }, (_, i) => foldForMatch(String.fromCharCode(0xc0 + i)).trim());

/**
 * Hashes foldForMatch of the name whose UTF-8 bytes are `bytes` into `hash`, straight from the bytes; false
 * (hash unset) when the name has a character beyond Latin-1, which foldForMatch itself must fold.
 */
export function hashFoldedBytes(bytes: Uint8Array, hash: FoldHash): boolean {
  hash.reset();
  hash.add(0x20);
  let pending = false;
  let any = false;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
  for (let i = 0; i < bytes.length; i++) {
    let code = bytes[i]!;
    let folded: string | null = null;
    if (code >= 0x80) {
      // Two-byte sequences C3 80–BF are U+00C0–U+00FF; anything else goes the long way.
      const next = bytes[i + 1] ?? 0;
      if (code !== 0xc3 || next < 0x80 || next > 0xbf) return false;
      i++;
      folded = LATIN1[next - 0x80]!;
      if (folded === '') {
        pending = true;
        continue;
      }
    } else {
      const upper = code >= 0x41 && code <= 0x5a;
      if (!(upper || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39))) {
        pending = true;
        continue;
      }
      if (upper) code += 0x20;
    }
    if (pending && any) hash.add(0x20);
    if (folded === null) hash.add(code);
    else for (let j = 0; j < folded.length; j++) hash.add(folded.charCodeAt(j));
    pending = false;
    any = true;
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  hash.add(0x20);
  return true;
}

/** Hashes foldForMatch(name) into `hash`. */
function hashFolded(name: string, hash: FoldHash): void {
  hash.reset();
  const key = foldForMatch(name);
  for (let i = 0; i < key.length; i++) hash.add(key.charCodeAt(i));
}

/** The store's name groups: installed, or made on first use. */
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
  const names = store.text.name;
  for (let position = 0; position < n; position++) {
    const row = store.byDomain[position] ?? 0;
    if (names.isNull(row)) continue;
    const bytes = names.bytesOf(row);
    if (bytes.length === 0) continue;
    if (!hashFoldedBytes(bytes, hash)) hashFolded(names.get(row) ?? '', hash);
    a[position] = hash.a;
    b[position] = hash.b;
    positions[count++] = position;
  }
  positions = positions.subarray(0, count);
  // Stable LSD radix sort by (a, b), 16 bits a pass: equal hashes stay in domain order.
  let scratch = new Uint32Array(count);
  const buckets = radixBuckets();
  for (const [key, shift] of [[b, 0], [b, 16], [a, 0], [a, 16]] as const) {
    radixPass(positions, scratch, key, shift, buckets);
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
      // Almost always one name; a hash shared by different names splits into groups by the names themselves
      // (folded only where the run's names differ as written).
      const written = run.map((position) => names.get(store.byDomain[position] ?? 0) ?? '');
      const same = written.every((name) => name === written[0]);
      const byKey = new Map<string, number[]>();
      for (const [j, position] of run.entries()) {
        const row = store.byDomain[position] ?? 0;
        const key = same ? '' : foldForMatch(written[j] ?? '');
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
