/**
 * A whole index as plain parts — the store, its keyword index, its vectors and their scan records, the
 * name groups of `dedup`, the filter postings — and back, with nothing rebuilt: what an index snapshot
 * holds (the server's index-snapshot.ts writes the parts' typed arrays to files and reads them back).
 * Portable: typed arrays and plain values only.
 *
 * The store is kept without its index text (the hidden long text only the keyword index is built from,
 * about half the store's bytes): the keyword index comes with the snapshot.
 */
import { ColumnStore, type StoreParts } from '../store/store.js';
import { duplicateNameGroups, installNameGroups, type NameGroups } from '../store/name-groups.js';
import { installTextIndex, installVectors, storedVectorsOf, textIndexOf, type StoredVectors } from '../relevance/store-relevance.js';
import { TextIndex, type TextIndexParts } from '../relevance/text-index.js';
import { currentRecords } from '../relevance/vector-scan.js';
import type { Embedder } from '../relevance/embedder.js';
import { postingsOf, type PostingsParts } from '../store/postings.js';

export interface IndexParts {
  store: StoreParts;
  text: TextIndexParts;
  vectors: StoredVectors;
  names: NameGroups;
  postings: PostingsParts;
}

/** The parts of a store's whole index (its keyword index, vectors, name groups and filter postings made first if they are not yet). */
export function indexParts(store: ColumnStore): IndexParts {
  return { store: store.parts(false), text: textIndexOf(store).parts(), vectors: vectorParts(store), names: duplicateNameGroups(store), postings: postingsOf(store).parts() };
}

/** The parts of a store's vectors (built first if they are not yet). */
export function vectorParts(store: ColumnStore): StoredVectors {
  const { present, component, scan } = storedVectorsOf(store);
  const { rows, dims, axis, decodedPeak } = scan;
  // A copy of the record fields: the records may be in the scan's memory now (vector-scan.ts).
  return { present, component, scan: { rows, dims, axis, records: currentRecords(scan), decodedPeak } };
}

/**
 * The store of these parts, with its keyword index, vectors, scan records, name groups and filter postings
 * installed; `embedder` embeds its queries (default: the built-in one; null: queries bring their vectors,
 * see installVectors).
 */
export function restoreIndex(parts: IndexParts, embedder?: Embedder | null): ColumnStore {
  const store = new ColumnStore(parts.store);
  installTextIndex(store, TextIndex.fromParts(parts.text));
  installVectors(store, parts.vectors, embedder);
  installNameGroups(store, parts.names);
  postingsOf(store).install(parts.postings);
  return store;
}

/** Any typed array a part may be. */
export type PartArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

const ARRAY_TYPES = { Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array } as const;
export type PartArrayType = keyof typeof ARRAY_TYPES;

/** A tree of parts with each typed array replaced by `{ "$array": i, "type": … }`, and the arrays (and their types) in order. */
export interface FlatParts {
  shape: unknown;
  arrays: PartArray[];
  types: PartArrayType[];
}

const arrayType = (value: unknown): PartArrayType | null => {
  for (const [name, type] of Object.entries(ARRAY_TYPES)) if (value instanceof type) return name as PartArrayType;
  return null;
};

/**
 * Takes the typed arrays out of a tree of parts (plain objects, arrays, numbers, strings, booleans, null);
 * their numbers start at `first` (a tree written after others).
 */
export function flattenParts(tree: unknown, first = 0): FlatParts {
  const arrays: PartArray[] = [];
  const types: PartArrayType[] = [];
  const walk = (node: unknown): unknown => {
    const type = arrayType(node);
    if (type) {
      arrays.push(node as PartArray);
      types.push(type);
      return { $array: first + arrays.length - 1, type };
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      // A column read from its file on demand (or anything but plain data) cannot be written.
      if (Object.getPrototypeOf(node) !== Object.prototype) throw new Error('an index part is neither plain data nor a typed array');
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    }
    if (typeof node === 'number' && !Number.isFinite(node)) throw new Error('an index part is not a finite number');
    return node;
  };
  return { shape: walk(tree), arrays, types };
}

/** The tree again, each `$array` placeholder replaced by `arrayOf(i, type)`. */
export function unflattenParts(shape: unknown, arrayOf: (index: number, type: PartArrayType) => PartArray): unknown {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      if ('$array' in node && 'type' in node && typeof node.$array === 'number' && typeof node.type === 'string' && node.type in ARRAY_TYPES) {
        return arrayOf(node.$array, node.type as PartArrayType);
      }
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    }
    return node;
  };
  return walk(shape);
}

/** A typed array of `type` over `bytes` (its length a multiple of the element size; aligned to it). */
export function partArray(type: PartArrayType, buffer: ArrayBuffer, byteOffset: number, byteLength: number): PartArray {
  const Type = ARRAY_TYPES[type];
  if (byteLength % Type.BYTES_PER_ELEMENT !== 0) throw new Error(`${byteLength} bytes are not a whole number of ${type} elements`);
  return new Type(buffer, byteOffset, byteLength / Type.BYTES_PER_ELEMENT);
}
