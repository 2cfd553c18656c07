/**
 * Folded term → id, an open-addressing hash table over the terms' characters, with a lookup straight from
 * a range of the source text: a plain ASCII word found by `WordScanner` costs no string when it is already
 * known. The keyword index (text-index.ts) and the embedder (embedder.ts) each keep one.
 */
import { Utf8Column, type Utf8ColumnParts } from '../store/utf8-column.js';
import { hashTerm } from './tokenize.js';

/** A TermDictionary as plain data (an index snapshot keeps it). */
export interface TermDictionaryParts {
  terms: Utf8ColumnParts;
  hashes: Int32Array;
  chars: Uint16Array;
  charStart: Uint32Array;
  slots: Int32Array;
}

export class TermDictionary {
  readonly terms: string[] = [];
  private hashes: Int32Array = new Int32Array(1024);
  /** The characters of every term, back to back (term t is chars[charStart[t] … charStart[t + 1])). */
  private chars: Uint16Array = new Uint16Array(8192);
  private charStart: Uint32Array = new Uint32Array(1025);
  private slots: Int32Array = new Int32Array(4096);
  private mask = 4095;

  static fromParts(parts: TermDictionaryParts): TermDictionary {
    const dict = new TermDictionary();
    for (const term of Utf8Column.fromParts(parts.terms).values()) dict.terms.push(term ?? '');
    dict.hashes = parts.hashes;
    dict.chars = parts.chars;
    dict.charStart = parts.charStart;
    dict.slots = parts.slots;
    dict.mask = parts.slots.length - 1;
    return dict;
  }

  parts(): TermDictionaryParts {
    return { terms: Utf8Column.from(this.terms).parts(), hashes: this.hashes, chars: this.chars, charStart: this.charStart, slots: this.slots };
  }

  get size(): number {
    return this.terms.length;
  }

  /** The id of a term, or -1. */
  get(term: string): number {
    const hash = hashTerm(term);
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot] ?? 0;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.hashes[id] === hash && this.terms[id] === term) return id;
    }
  }

  /** The id of a term, added when new. */
  intern(term: string): number {
    const hash = hashTerm(term);
    let slot = hash & this.mask;
    for (; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot] ?? 0;
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] === hash && this.terms[id] === term) return id;
    }
    return this.add(term, hash, slot);
  }

  /** The id of the lower-cased ASCII word text[start, end) whose hash is `hash`, added when new. */
  internRange(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const { slots, mask, hashes, chars, charStart } = this;
    let slot = hash & mask;
    probe: for (; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] ?? 0;
      if (entry === 0) break;
      const id = entry - 1;
      if (hashes[id] !== hash) continue;
      const from = charStart[id] ?? 0;
      if ((charStart[id + 1] ?? 0) - from !== length) continue;
      for (let j = 0; j < length; j++) {
        let c = text.charCodeAt(start + j);
        if (c <= 90 && c >= 65) c += 32;
        if (chars[from + j] !== c) continue probe;
      }
      return id;
    }
    return this.add(text.slice(start, end).toLowerCase(), hash, slot);
  }

  private add(term: string, hash: number, slot: number): number {
    const id = this.terms.length;
    this.terms.push(term);
    if (id + 1 >= this.hashes.length) {
      this.hashes = grow(this.hashes, this.hashes.length * 2);
      this.charStart = grow(this.charStart, this.hashes.length + 1);
    }
    this.hashes[id] = hash;
    const from = this.charStart[id] ?? 0;
    if (from + term.length > this.chars.length) this.chars = grow(this.chars, Math.max(this.chars.length * 2, from + term.length));
    for (let j = 0; j < term.length; j++) this.chars[from + j] = term.charCodeAt(j);
    this.charStart[id + 1] = from + term.length;
    this.slots[slot] = id + 1;
    if ((id + 1) * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let slot = (this.hashes[id] ?? 0) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }

  get bytes(): number {
    let chars = 0;
    for (const term of this.terms) chars += term.length;
    // Strings (~16 B header + 1 B a Latin-1 character) and their array slot, plus the typed arrays.
    return chars + this.terms.length * 24 + this.hashes.byteLength + this.chars.byteLength + this.charStart.byteLength + this.slots.byteLength;
  }
}

/** A copy of a typed array with a larger capacity. */
export function grow<T extends Int32Array | Uint32Array | Uint16Array>(array: T, capacity: number): T {
  const grown = new (array.constructor as new (length: number) => T)(capacity);
  grown.set(array);
  return grown;
}
