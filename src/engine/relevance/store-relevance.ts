/**
 * The relevance structures of a store, built once on first use (or at start by `warmRelevance`): the BM25
 * text index and the organization vectors (SIF-weighted GloVe of summary and tags, common component
 * removed). Filters and rankers both read them.
 */
import { Utf8Column } from '../store/utf8-column.js';
import { ValidationError } from '../../contract/errors.js';
import type { ValidationErrorItem } from '../../contract/validation.js';
import type { Keywords } from '../../contract/v2/filters.js';
import type { ColumnStore } from '../store/store.js';
import { applyComponentRemovalRows, removePrincipalComponent, sifGloveEmbedder, type Embedder } from './embedder.js';
import { indexTextOf, TextIndex, type TextIndexOptions } from './text-index.js';
import { scanRecords, type ScanRecords } from './vector-scan.js';
import { VectorMatrix } from './vectors.js';

interface Relevance {
  text: TextIndex | null;
  vectors: SearchableVectors | null;
}

interface SearchableVectors {
  matrix: VectorMatrix;
  /** The common component removed from every vector: queries built from words remove it too. */
  component: Float32Array;
}

const cache = new WeakMap<ColumnStore, Relevance>();

function relevanceOf(store: ColumnStore): Relevance {
  let relevance = cache.get(store);
  if (!relevance) {
    relevance = { text: null, vectors: null };
    cache.set(store, relevance);
  }
  return relevance;
}

/** A BM25 index of a store: the name field, and a body of summary, keyword tags and hidden text. */
export function buildTextIndex(store: ColumnStore, options: TextIndexOptions = {}): TextIndex {
  const tags = Array.from({ length: store.size }, (_, row) => store.keywordsOf(row).join(', '));
  return TextIndex.build({ name: store.text.name, body: [store.text.summary, tags, indexTextOf(store)] }, options);
}

/** The store's BM25 index (default options), built on first use. */
export function textIndexOf(store: ColumnStore): TextIndex {
  const relevance = relevanceOf(store);
  relevance.text ??= buildTextIndex(store);
  return relevance.text;
}

/**
 * What an organization's vector is made from: its English summary and its tags. Adding the hidden text
 * measured 4.8 s instead of 2.2 s to build at 100,000 organizations for +0.02 nDCG@10 on the semantic eval
 * queries (npm run eval); start-up time won. Plain data (arrays and typed arrays), so that another thread
 * can receive it.
 */
export interface VectorTextSource {
  /** The summary column's buffers (a Utf8Column's, which a thread receives as plain data). */
  summary: Pick<Utf8Column, 'offsets' | 'bytes' | 'nulls'>;
  /** Row r's tags are tagValues[tagIds[j]] for j in [tagOffsets[r], tagOffsets[r + 1]). */
  tagOffsets: ArrayLike<number>;
  tagIds: ArrayLike<number>;
  tagValues: readonly (string | null)[];
}

export function vectorTextSource(store: ColumnStore): VectorTextSource {
  const { offsets, ids, dict } = store.keywords;
  const { summary } = store.text;
  return { summary: { offsets: summary.offsets, bytes: summary.bytes, nulls: summary.nulls }, tagOffsets: offsets, tagIds: ids, tagValues: dict.values };
}

/** The vector texts of a source's rows: `textsOf(row)`. */
export function vectorTexts(source: VectorTextSource): (row: number) => string[] {
  const summaries = new Utf8Column(source.summary.offsets, source.summary.bytes, source.summary.nulls);
  return (row) => vectorTextsOf(source, summaries, row);
}

function vectorTextsOf(source: VectorTextSource, summaries: Utf8Column, row: number): string[] {
  const texts: string[] = [];
  const summary = summaries.get(row);
  if (summary) texts.push(summary);
  for (let j = source.tagOffsets[row] ?? 0; j < (source.tagOffsets[row + 1] ?? 0); j++) texts.push(source.tagValues[source.tagIds[j] ?? 0] ?? '');
  return texts;
}

/** Organization vectors as embedded (f32), before they are coded into what the index keeps (StoredVectors). */
export interface BuiltVectors {
  dims: number;
  /** rows × dims unit vectors, common component removed; a row without a vector is all zeros. */
  data: Float32Array;
  present: Uint8Array;
  component: Float32Array;
}

/** About this many organizations (a regular sample) estimate the common component of a large corpus. */
const COMPONENT_SAMPLE = 16_384;

/**
 * Embeds `count` organizations, row by row from `textsOf`, into `data` and `present` (given, they may be
 * shared memory another thread reads), then removes the common component.
 */
export function buildVectors(
  count: number,
  textsOf: (row: number) => readonly string[],
  embedder: Embedder = sifGloveEmbedder(),
  into: { data: Float32Array; present: Uint8Array } = { data: new Float32Array(count * embedder.dims), present: new Uint8Array(count) },
): BuiltVectors {
  const { dims } = embedder;
  const { data, present } = into;
  for (let row = 0; row < count; row++) present[row] = embedder.embedInto(textsOf(row), data, row * dims) ? 1 : 0;
  const component = removePrincipalComponent(data, count, dims, Math.max(1, Math.ceil(count / COMPONENT_SAMPLE)));
  applyComponentRemovalRows(data, count, dims, component);
  return { dims, data, present, component };
}

/** Organization vectors as the index keeps them (coded: vector-scan.ts), made apart from their store (possibly on another thread) and installed into it. */
export interface StoredVectors {
  present: Uint8Array;
  component: Float32Array;
  scan: ScanRecords;
}

/** Codes built vectors into what the index keeps; `records` may be given (shared memory another thread reads). */
export function storeVectors(built: BuiltVectors, records?: Uint8Array): StoredVectors {
  return { present: built.present, component: built.component, scan: scanRecords(built.dims, built.data, built.present, records) };
}

/** Gives the store vectors made by `storeVectors` over its rows (from its vectorTextSource). */
export function installVectors(store: ColumnStore, stored: StoredVectors): void {
  if (stored.present.length !== store.size || stored.scan.rows !== store.size) throw new Error('vectors built for another store');
  relevanceOf(store).vectors = searchable(stored);
}

function searchable(stored: StoredVectors): SearchableVectors {
  return { matrix: new VectorMatrix(stored.scan, stored.present), component: stored.component };
}

/** Gives the store its keyword index, built elsewhere (an index snapshot's). */
export function installTextIndex(store: ColumnStore, index: TextIndex): void {
  if (index.docCount > store.size) throw new Error('a keyword index built for another store');
  relevanceOf(store).text = index;
}

/** Whether the store's vectors are built. */
export function hasVectors(store: ColumnStore): boolean {
  return relevanceOf(store).vectors !== null;
}

export function vectorsOf(store: ColumnStore, embedder: Embedder = sifGloveEmbedder()): SearchableVectors {
  const relevance = relevanceOf(store);
  relevance.vectors ??= searchable(storeVectors(buildVectors(store.size, vectorTexts(vectorTextSource(store)), embedder)));
  return relevance.vectors;
}

/** The store's vectors as the index keeps them (built first if they are not yet). */
export function storedVectorsOf(store: ColumnStore): StoredVectors {
  const { matrix, component } = vectorsOf(store);
  return { present: matrix.present, component, scan: matrix.scan };
}

/** Builds both structures now (servers call it at start-up; otherwise the first query pays). */
export function warmRelevance(store: ColumnStore): void {
  textIndexOf(store);
  vectorsOf(store).matrix.prepareScan();
}

export function unprocessable(items: ValidationErrorItem[]): ValidationError {
  return new ValidationError(items, 422);
}

export function keywordQuery(keywords: Keywords): { must_all: string[]; must_any: string[]; must_not: string[] } {
  return { must_all: keywords.must_all, must_any: keywords.must_any, must_not: keywords.must_not };
}

/**
 * The store's text index, after checking that the keywords have a word to look for: strings without a
 * letter or digit ("!!!") analyse to nothing, and a query of nothing would match every organization —
 * a 422 at `loc` instead (keywords, or filters.text_keywords, where matching everything would be a
 * filter that filters nothing).
 */
export function searchableTextIndex(store: ColumnStore, keywords: Keywords, loc: (string | number)[]): TextIndex {
  const index = textIndexOf(store);
  if (index.positiveClauseCount(keywordQuery(keywords)) === 0) {
    const reason = 'must_all and must_any hold no searchable word (letters or digits)';
    throw unprocessable([{ type: 'value_error', loc, msg: `Value error, ${reason}`, input: keywords, ctx: { error: reason } }]);
  }
  return index;
}
