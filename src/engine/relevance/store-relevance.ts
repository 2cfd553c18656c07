/**
 * The relevance structures of a store, built once on first use (or at start by `warmRelevance`): the BM25
 * text index and the organization vectors (SIF-weighted GloVe of summary and tags, common component
 * removed). Filters and rankers both read them.
 */
import { Utf8Column, Utf8ColumnBuilder } from '../store/utf8-column.js';
import type { OrganizationRecord } from '../dataset/record.js';
import { ValidationError } from '../../contract/errors.js';
import type { LocSegment, ValidationErrorItem } from '../../contract/validation.js';
import type { Keywords } from '../../contract/v2/filters.js';
import { ColumnStore } from '../store/store.js';
import { applyComponentRemovalRows, removePrincipalComponent, sifGloveEmbedder, type Embedder } from './embedder.js';
import { indexTextOf, TextIndex, TextIndexBuilder, type TextIndexOptions } from './text-index.js';
import { axisUnits, codeRows, roundedPeak, scanRecordBytes, type ScanRecords } from './vector-scan.js';
import { textsWithWords } from './tokenize.js';
import { VectorMatrix } from './vectors.js';

interface Relevance {
  text: TextIndex | null;
  /** Finishes a keyword index built alongside the store (streamedStore), on first use. */
  pendingText: (() => TextIndex) | null;
  vectors: SearchableVectors | null;
}

interface SearchableVectors {
  matrix: VectorMatrix;
  /** The common component removed from every vector: queries built from words remove it too. */
  component: Float32Array;
  /**
   * What embeds a query's texts into the same space: the embedder the vectors were made with, or null for
   * one the engine cannot run (vectors made by a model elsewhere): then every query brings its texts'
   * vectors (QueryContext.queryVectors).
   */
  embedder: Embedder | null;
}

const cache = new WeakMap<ColumnStore, Relevance>();

function relevanceOf(store: ColumnStore): Relevance {
  let relevance = cache.get(store);
  if (!relevance) {
    relevance = { text: null, pendingText: null, vectors: null };
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
  if (!relevance.text) {
    const pending = relevance.pendingText;
    relevance.pendingText = null;
    relevance.text = pending ? pending() : buildTextIndex(store);
  }
  return relevance.text;
}

/**
 * How to get the store's keyword index without holding on to the store: a streamed store's (its last
 * segment and the merge need no store column), else one built from the store (which it then keeps).
 */
export function textIndexLater(store: ColumnStore): () => TextIndex {
  const relevance = relevanceOf(store);
  const { text, pendingText } = relevance;
  if (text) return () => text;
  if (pendingText) {
    relevance.pendingText = null;
    return pendingText;
  }
  return () => textIndexOf(store);
}

/** Docs the keyword index of a streamed store takes at a time: about 0.3 GB of their text at hand. */
const TEXT_SEGMENT = 500_000;

/**
 * A store built from records as they stream by, with its keyword index built alongside a segment at a
 * time (TextIndexBuilder) instead of from the store: the index text, about half of a store's bytes, is
 * held a segment at a time and not kept. The last segment and the merge wait for the index's first use
 * (warmRelevance), as a store's own index does. The index is the one buildTextIndex would build.
 */
export function streamedStore(records: Iterable<OrganizationRecord>, segment = TEXT_SEGMENT): ColumnStore {
  const text = new RecordTextSegments(segment);
  function* tapped(): Generator<OrganizationRecord> {
    for (const record of records) {
      text.add(record);
      yield record;
    }
  }
  const store = ColumnStore.fromRecords(tapped(), { indexText: false });
  relevanceOf(store).pendingText = () => text.finish();
  return store;
}

/** The keyword-index text of records (buildTextIndex's columns), indexed a segment at a time. */
class RecordTextSegments {
  private readonly builder = new TextIndexBuilder();
  private columns = RecordTextSegments.empty();

  constructor(private readonly segment: number) {}

  private static empty(): { name: Utf8ColumnBuilder; summary: Utf8ColumnBuilder; tags: Utf8ColumnBuilder; text: Utf8ColumnBuilder } {
    return { name: new Utf8ColumnBuilder(), summary: new Utf8ColumnBuilder(), tags: new Utf8ColumnBuilder(), text: new Utf8ColumnBuilder() };
  }

  add(record: OrganizationRecord): void {
    const { name, summary, tags, text } = this.columns;
    name.push(record.name);
    summary.push(record.summary);
    // As the store keeps them (keywordsOf): each tag once, in order of first appearance.
    tags.push([...new Set(record.summary_keywords)].join(', '));
    text.push(record.text);
    if (name.size >= this.segment) this.flush();
  }

  private flush(): void {
    const { name, summary, tags, text } = this.columns;
    if (name.size === 0) return;
    this.columns = RecordTextSegments.empty();
    this.builder.add({ name: name.finish(), body: [summary.finish(), tags.finish(), text.finish()] });
  }

  finish(): TextIndex {
    this.flush();
    return this.builder.finish();
  }
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
  return { summary: { offsets: summary.offsets, bytes: summary.inMemory(), nulls: summary.nulls }, tagOffsets: offsets, tagIds: ids, tagValues: dict.values };
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

/** About this many organizations (a regular sample) estimate the common component and the axis units of a large corpus. */
const COMPONENT_SAMPLE = 16_384;
/** Rows embedded and coded at a time: the f32 vectors of a block, never of the whole corpus. */
export const VECTOR_BLOCK = 4_096;

/** Organization vectors as the index keeps them (coded: vector-scan.ts), made apart from their store (possibly on another thread) and installed into it. */
export interface StoredVectors {
  present: Uint8Array;
  /** The common component removed from every vector. */
  component: Float32Array;
  scan: ScanRecords;
}

/** Every how many organizations one is in the regular sample that fixes the axis units (and SIF's component). */
export function sampleStride(count: number): number {
  return Math.max(1, Math.ceil(count / COMPONENT_SAMPLE));
}

/**
 * Codes a corpus's vectors into scan records a block of VECTOR_BLOCK rows at a time, once a sample has
 * fixed the axis units — the one way every embedder's vectors (built-in or an operator's) become records.
 */
export class BlockCoder {
  private readonly block: Float32Array;
  private peak = 0;

  constructor(
    private readonly count: number,
    private readonly dims: number,
    private readonly axis: Float64Array,
    private readonly into: { present: Uint8Array; records: Uint8Array },
  ) {
    this.block = new Float32Array(Math.min(count, VECTOR_BLOCK) * dims);
  }

  /** Rows first … first + rows − 1: `fill` writes their vectors into the zeroed block and marks the present ones. */
  code(first: number, rows: number, fill: (block: Float32Array, present: Uint8Array) => void): void {
    const { block, dims, axis, into } = this;
    block.fill(0);
    const present = into.present.subarray(first, first + rows);
    fill(block, present);
    this.peak = Math.max(this.peak, codeRows(dims, block, present, rows, axis, into.records, first));
  }

  /** The records, once every block is coded. */
  scan(): ScanRecords {
    const { count, dims, axis, into } = this;
    return { rows: count, dims, axis, records: into.records, decodedPeak: roundedPeak(this.peak) };
  }
}

/**
 * Embeds `count` organizations, row by row from `textsOf`, and codes them into scan records. First a regular
 * sample (every organization up to COMPONENT_SAMPLE) gives the common component, which every vector loses,
 * and the axis units of the codes; then the rows are embedded and coded a block at a time. `into` may be
 * given (shared memory another thread reads).
 */
export function buildVectors(
  count: number,
  textsOf: (row: number) => readonly string[],
  embedder: Embedder = sifGloveEmbedder(),
  into: { present: Uint8Array; records: Uint8Array } = { present: new Uint8Array(count), records: new Uint8Array(scanRecordBytes(count, embedder.dims)) },
): StoredVectors {
  const { dims } = embedder;
  const stride = sampleStride(count);
  const sampled = Math.ceil(count / stride);
  const sample = new Float32Array(sampled * dims);
  const samplePresent = new Uint8Array(sampled);
  for (let i = 0; i < sampled; i++) samplePresent[i] = embedder.embedInto(textsOf(i * stride), sample, i * dims) ? 1 : 0;
  const component = removePrincipalComponent(sample, sampled, dims);
  applyComponentRemovalRows(sample, sampled, dims, component);
  const coder = new BlockCoder(count, dims, axisUnits(dims, sample, samplePresent, sampled), into);
  for (let first = 0; first < count; first += VECTOR_BLOCK) {
    const rows = Math.min(VECTOR_BLOCK, count - first);
    coder.code(first, rows, (block, present) => {
      for (let row = 0; row < rows; row++) present[row] = embedder.embedInto(textsOf(first + row), block, row * dims) ? 1 : 0;
      applyComponentRemovalRows(block, rows, dims, component);
    });
  }
  return { present: into.present, component, scan: coder.scan() };
}

/**
 * Gives the store vectors made over its rows (from its vectorTextSource) by `embedder` (default: the
 * built-in one; null: by a model the engine cannot run, whose queries come embedded).
 */
export function installVectors(store: ColumnStore, stored: StoredVectors, embedder: Embedder | null = sifGloveEmbedder()): void {
  const { scan } = stored;
  if (stored.present.length !== store.size || scan.rows !== store.size) throw new Error('vectors built for another store');
  if (scan.records.length !== scanRecordBytes(scan.rows, scan.dims)) throw new Error('scan records of another layout');
  if (stored.component.length !== scan.dims) throw new Error('a common component of another dimension');
  relevanceOf(store).vectors = searchable(stored, embedder);
}

function searchable(stored: StoredVectors, embedder: Embedder | null): SearchableVectors {
  return { matrix: new VectorMatrix(stored.scan, stored.present), component: stored.component, embedder };
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

/** The store's vectors, built by `embedder` (default: the built-in one) on first use. */
export function vectorsOf(store: ColumnStore, embedder?: Embedder): SearchableVectors {
  const relevance = relevanceOf(store);
  if (!relevance.vectors) {
    const chosen = embedder ?? sifGloveEmbedder();
    relevance.vectors = searchable(buildVectors(store.size, vectorTexts(vectorTextSource(store)), chosen), chosen);
  }
  return relevance.vectors;
}

/** The store's vectors as the index keeps them (built first if they are not yet). */
export function storedVectorsOf(store: ColumnStore): StoredVectors {
  const { matrix, component } = vectorsOf(store);
  return { present: matrix.present, component, scan: matrix.scan };
}

/** Builds both structures now (servers call it at start-up; otherwise the first query pays). */
export function warmRelevance(store: ColumnStore): void {
  textIndexOf(store).warm();
  warmVectors(store);
}

/** The vectors' scan, and what the embedder builds for its first query. */
export function warmVectors(store: ColumnStore): void {
  const { matrix, embedder } = vectorsOf(store);
  matrix.prepareScan();
  embedder?.warm?.();
}

export function unprocessable(items: ValidationErrorItem[]): ValidationError {
  return new ValidationError(items, 422);
}

export function keywordQuery(keywords: Keywords): { must_all: string[]; must_any: string[]; must_not: string[] } {
  return { must_all: keywords.must_all, must_any: keywords.must_any, must_not: keywords.must_not };
}

/**
 * Keywords whose must_all and must_any hold no word ("!!!" analyses to nothing) would match every
 * organization: the problem at `loc`, or null when they hold one.
 */
export function keywordsWithoutWord(keywords: Keywords, loc: LocSegment[]): ValidationErrorItem | null {
  if (textsWithWords([...keywords.must_all, ...keywords.must_any]) > 0) return null;
  const reason = 'must_all and must_any hold no searchable word (letters or digits)';
  return { type: 'value_error', loc, msg: `Value error, ${reason}`, input: keywords, ctx: { error: reason } };
}

/**
 * The store's text index, after checking that the keywords have a word to look for: strings without a
 * letter or digit ("!!!") analyse to nothing, and a query of nothing would match every organization —
 * a 422 at `loc` instead (keywords, or filters.text_keywords, where matching everything would be a
 * filter that filters nothing).
 */
export function searchableTextIndex(store: ColumnStore, keywords: Keywords, loc: (string | number)[]): TextIndex {
  const problem = keywordsWithoutWord(keywords, loc);
  if (problem) throw unprocessable([problem]);
  return textIndexOf(store);
}
