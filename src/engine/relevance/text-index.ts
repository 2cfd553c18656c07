/**
 * The keyword engine of the local implementation: an inverted index over each organization's name and
 * body (summary + hidden text) with Lucene's BM25, boolean set algebra and phrases. Pure, synchronous,
 * typed arrays only — no object per document or per posting.
 *
 * LAYOUT. One term dictionary (an open-addressing hash table over the folded terms, see tokenize.ts for
 * the analysis) shared by two fields, `name` and `body`. Per field, in term order and then doc order:
 *   termStart[t] … termStart[t + 1]   the postings of term t (Uint32Array, T + 1)
 *   docs[p]                           the doc id of posting p (ascending within a term), packed: about
 *                                     half a Uint32Array's bytes, each still read in constant time
 *                                     (packed-ids.ts)
 *   tfs[p]                            its term frequency = its number of positions
 *   posBlock[p / 16]                  where the positions of every 16th posting start; posting p's
 *                                     start is that plus the tfs of the postings before it in its block
 *   positions                         word positions, posting after posting
 *   lengths[d]                        the field length of doc d
 * tfs and positions use the narrowest of Uint8Array / Uint16Array / Uint32Array that holds the longest
 * doc (Uint8Array for this project's bodies of ~70 words).
 * A body given as several columns (summary, text) is one field with a position gap between the columns,
 * so a phrase never spans two columns; names and bodies are separate fields, so never those either.
 *
 * BUILD. Per field, pass 1 tokenizes every doc into a stream of term ids (a plain ASCII word is looked up
 * straight from the source text, no string is made for it); pass 2 counts postings and positions per
 * term and pass 3 fills them doc by doc, so every term's postings come out in ascending doc order. At
 * 100,000 generated organizations: about 1 s and 38 MB of typed arrays (doc ids half of it, positions a fifth).
 *
 * SCORING — BM25 as Lucene (≥ 8) computes it, per field with the field's own statistics:
 *   idf   = ln(1 + (N − n + 0.5) / (n + 0.5))      N = docs whose field has ≥ 1 token, n = docs containing t
 *   score = idf · tf / (tf + k1 · (1 − b + b · len / avgLen)),   k1 = 1.2, b = 0.75 (no (k1 + 1) factor)
 *   len   = the field's token count in the doc; avgLen = Σ len / N. Like Lucene's `discountOverlaps`, the
 *           tokens that share a position (umlaut variants, joined compounds) do not count.
 * Deliberate differences from Lucene: lengths are exact (Lucene stores them in one lossy byte, exact only
 * below 40 tokens) and the arithmetic is double precision (Lucene: float).
 * Fields combine like Elasticsearch `multi_match` `most_fields` with `fields: ["name^2", "body"]`:
 *   clause score = 2.0 · BM25_name + BM25_body   (`nameBoost`, default 2.0: a word in the name is the
 *   strongest evidence of what an organization is, and names are short, so without the boost a long body
 *   outweighs them), and a doc's score is the sum over the query's must_all and must_any clauses it
 *   matches (a clause given twice counts twice, as in a Lucene bool query).
 *
 * CLAUSES. Every query string is one clause. One word → a term (a hyphenated compound → its joined form:
 * "e-commerce" matches "e-commerce", "E-Commerce" and "ecommerce"). Several words → a PHRASE: its words
 * (compounds split into their parts) must be adjacent and in order within one field. A phrase is scored
 * like Lucene's PhraseQuery: tf = the number of positions where the phrase occurs in the field (overlapping
 * occurrences count: "a a" occurs twice in "a a a"), idf = the sum of its words' idfs (a repeated word
 * counts each time). A string that analyses to no word ("", "!!") is ignored.
 *
 * PLURALS (stemmer 'english-minimal', the default). The index keeps words as written; at query time each
 * word also stands for the index's other words with the same stem under Lucene's EnglishMinimalStemmer
 * ("dentist" ↔ "dentists", "bakery" ↔ "bakeries"). A clause becomes a group of alternatives — every
 * combination of its words' forms (at most 16), the one as typed first — that matches as one clause (a doc
 * counts once per group) and scores the sum of its alternatives, the typed one at weight 1 and the others
 * at STEM_WEIGHT = 0.5 (Elasticsearch's exact-plus-stemmed `most_fields` pattern, without a second index).
 * On the eval set: plural queries the data spells singular ("electricians", "tax advisors") find their
 * organizations, and exact words still rank first — stemming the index instead lets "dentist" rank the
 * labs that serve "dentists" above dentists, and turns "news" into "new" (docs/benchmarks.md: Relevance quality).
 *
 * BOOLEAN. candidates = (∩ must_all) ∩ (∪ must_any, when it has a clause) − (∪ must_not), intersected with
 * the `allowed` mask (each clause is a group, see PLURALS); an unknown word in must_all gives no candidate, in
 * must_any or must_not nothing. With
 * no must_all / must_any clause at all every doc (allowed, not excluded) is a candidate with score 0.
 *
 * QUERY COST. Postings are walked once per clause into dense per-doc buffers sized N that live with the
 * index (32 bytes a doc, ≈ 3 MB at 100,000, allocated at the first query) and are reset lazily by stamps:
 * only touched entries, never an O(N) clear. must_all clauses run rarest first and later clauses only
 * update docs the first one found. `top` keeps the best k in a heap (top-k.ts). Results are fresh arrays; the buffers
 * make an index single-threaded (as everything here is). Compiling a query string costs time linear in its
 * length (at most 16 alternatives of its words), and a phrase with more words than the longest doc's field
 * is known to match nothing without reading a posting — whatever a caller passes, with or without the
 * contract's limits (src/contract/limits.ts).
 */
import { Utf8Column, type TextValues } from '../store/utf8-column.js';
import { advance, PackedIds, type PackedIdsParts } from './packed-ids.js';
import { TopK } from './top-k.js';
import { TermDictionary, type TermDictionaryParts } from './term-dictionary.js';
import { analyzeQuery, ASCII_WORD, END, stemGerman, stemMinimalEnglish, textsWithWords, WordScanner } from './tokenize.js';

/** The keywords of a search: each string is a word, a compound or a phrase. */
export interface KeywordQuery {
  must_all?: readonly string[];
  must_any?: readonly string[];
  must_not?: readonly string[];
}

/** One text column: a string (or null) per doc — an array, or a store's column (Utf8Column). */
export type TextColumn = readonly (string | null | undefined)[] | TextValues;

const columnLength = (column: TextColumn): number => ('size' in column ? column.size : column.length);
/** The column's values as an indexable reader (one type in the build's hot loop). */
const reader = (column: TextColumn): ((doc: number) => string | null | undefined) => ('get' in column ? (doc) => column.get(doc) : (doc) => column[doc]);

export interface TextIndexSource {
  name: TextColumn;
  /** The body: one column, or several (summary, text) indexed as one field with a phrase gap between them. */
  body: TextColumn | readonly TextColumn[];
}

export interface TextIndexOptions {
  /** BM25 k1 (1.2). */
  k1?: number;
  /** BM25 b (0.75). */
  b?: number;
  /** Weight of the name field's BM25 against the body's (2.0). */
  nameBoost?: number;
  /**
   * 'english-minimal': a query word also matches the index's words with the same stem under Lucene's
   * EnglishMinimalStemmer (plurals only, tokenize.ts) — "electricians" finds "electrician" — and those
   * other forms score STEM_WEIGHT of the typed form, so exact matches rank first. The index itself stays
   * unstemmed. 'english-german': also the words with the same Snowball German stem (`stemGerman`,
   * tokenize.ts) — "Bäckereien", "backereien" and "Baeckerei" find "Bäckerei" — at the same weight.
   * 'none': exact words only. Default: TEXT_STEMMER.
   */
  stemmer?: Stemmer;
}

export type Stemmer = 'none' | 'english-minimal' | 'english-german';

/** The stemmer of indexes built without the option (decided on the eval set: docs/benchmarks.md, Relevance quality). */
export const TEXT_STEMMER: Stemmer = 'english-german';
/** Score weight of a clause's other forms ("dentists" for "dentist") against the form as typed. */
export const STEM_WEIGHT = 0.5;
/** At most this many form combinations per query string (a phrase of n plural-ambiguous words has 2ⁿ). */
const MAX_FORMS = 16;
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const NAME_BOOST = 2.0;

export type FieldName = 'name' | 'body';

/** Sizes of one field, for reports. */
export interface FieldStats {
  /** Docs whose field has at least one token (BM25's N). */
  docCount: number;
  avgLength: number;
  postings: number;
  positions: number;
  bytes: number;
}

/** One clause's contribution in one field to one doc's score (`explain`). */
export interface ClauseExplanation {
  clause: string;
  occur: 'must_all' | 'must_any';
  field: FieldName;
  /** The index terms looked up: one for a term, the words of a phrase in order. */
  terms: string[];
  /** Term or phrase frequency in the doc's field. */
  tf: number;
  /** BM25's N and, per term, n. */
  N: number;
  n: number[];
  idf: number;
  len: number;
  avgLen: number;
  boost: number;
  /** 1 for the clause as typed, STEM_WEIGHT for another form of its words (stemmer). */
  weight: number;
  /** weight · boost · idf · tf / (tf + k1 · (1 − b + b · len / avgLen)), 0 when tf is 0. */
  score: number;
}

export interface Explanation {
  doc: number;
  matches: boolean;
  score: number;
  details: ClauseExplanation[];
}

// ---------------------------------------------------------------------------------------------------------
// Fields

/**
 * Token stream values: 1 + term id × 2, + 1 more for a token sharing the next token's position (variants,
 * joined compounds); GAP skips a position (between body columns). Kept in a Uint16Array while the term
 * ids allow (half the memory of the build's largest temporary), else a Uint32Array.
 */
const GAP = 0;
const SHARED = 1;

function token(term: number, shared: number): number {
  return 1 + term * 2 + shared;
}

/** The build's first pass over one field: the token stream of every doc. */
class FieldTokenizer {
  tokens: Uint16Array | Uint32Array;
  size = 0;
  /** The largest value `tokens` holds. */
  private limit = 0xffff;
  readonly docEnd: Uint32Array;
  readonly lengths: Uint32Array;
  /** The largest number of positions (tokens + gaps) and of tokens (overlapping ones too) of a doc. */
  maxPositions = 0;
  maxTokens = 0;

  constructor(dict: TermDictionary, sources: readonly TextColumn[], count: number) {
    const columns = sources.map(reader);
    let chars = 0;
    for (const column of sources) chars += charCount(column, count);
    // Prose has about one token per six characters: start at one per five, grow by half when short.
    this.tokens = new Uint16Array(Math.ceil(chars / 5) + 1024);
    this.docEnd = new Uint32Array(count);
    this.lengths = new Uint32Array(count);
    const scanner = new WordScanner();
    for (let d = 0; d < count; d++) {
      let length = 0;
      const docStart = this.size;
      let gaps = 0;
      for (const column of columns) {
        const text = column(d);
        if (text === null || text === undefined || text === '') continue;
        if (length > 0) {
          this.push(GAP);
          gaps++;
        }
        scanner.reset(text);
        for (let kind = scanner.next(); kind !== END; kind = scanner.next()) {
          if (kind === ASCII_WORD) {
            this.push(token(dict.internRange(text, scanner.start, scanner.end, scanner.hash), 0));
            length++;
            continue;
          }
          const { parts, variants, joined, joinedVariant } = scanner.folded;
          if (joined !== null) {
            this.push(token(dict.intern(joined), SHARED));
            if (joinedVariant !== null) this.push(token(dict.intern(joinedVariant), SHARED));
          }
          for (let k = 0; k < parts.length; k++) {
            const variant = variants[k] ?? null;
            if (variant !== null) this.push(token(dict.intern(variant), SHARED));
            this.push(token(dict.intern(parts[k] ?? ''), 0));
            length++;
          }
        }
      }
      this.docEnd[d] = this.size;
      this.lengths[d] = length;
      if (length + gaps > this.maxPositions) this.maxPositions = length + gaps;
      if (this.size - docStart > this.maxTokens) this.maxTokens = this.size - docStart;
    }
  }

  private push(value: number): void {
    if (this.size === this.tokens.length || value > this.limit) this.grow(value);
    this.tokens[this.size++] = value;
  }

  private grow(value: number): void {
    const capacity = this.size === this.tokens.length ? Math.ceil(this.tokens.length * 1.5) : this.tokens.length;
    const wide = value > this.limit || this.tokens instanceof Uint32Array;
    const grown = wide ? new Uint32Array(capacity) : new Uint16Array(capacity);
    grown.set(this.tokens.subarray(0, this.size));
    this.tokens = grown;
    if (wide) this.limit = 0xffffffff;
  }
}

/** The smallest unsigned typed array holding values up to `max`. */
function uintArray(length: number, max: number): Uint8Array | Uint16Array | Uint32Array {
  if (max < 0x100) return new Uint8Array(length);
  if (max < 0x10000) return new Uint16Array(length);
  return new Uint32Array(length);
}

/** Where posting p's positions start in a field's `positions`. */
function positionOffset(field: Pick<FieldParts, 'posBlock' | 'tfs'>, p: number): number {
  let offset = field.posBlock[p >>> BLOCK_SHIFT] ?? 0;
  for (let q = p - (p & BLOCK_MASK); q < p; q++) offset += field.tfs[q] ?? 0;
  return offset;
}

/** An empty array of `like`'s type. */
function uintArrayLike(like: Uint8Array | Uint16Array | Uint32Array, length: number): Uint8Array | Uint16Array | Uint32Array {
  if (like instanceof Uint8Array) return new Uint8Array(length);
  if (like instanceof Uint16Array) return new Uint16Array(length);
  return new Uint32Array(length);
}

/** A field's length statistics and BM25's length normalisation from its doc lengths. */
function lengthStats(lengths: Uint32Array, k1: number, b: number): Pick<FieldParts, 'lengths' | 'docCount' | 'avgLength' | 'normBase' | 'normPerToken'> {
  let docCount = 0;
  let sum = 0;
  for (let doc = 0; doc < lengths.length; doc++) {
    const len = lengths[doc] ?? 0;
    if (len > 0) docCount++;
    sum += len;
  }
  const avgLength = docCount === 0 ? 0 : sum / docCount;
  return { lengths, docCount, avgLength, normBase: k1 * (1 - b), normPerToken: docCount === 0 ? 0 : (k1 * b) / avgLength };
}

/** Postings are grouped in blocks of this many for the position offsets (see FieldIndex.posBlock). */
/** Doc ids a walk decodes at a time: small enough to stay in the first-level cache. */
const DECODE_CHUNK = 1024;
const BLOCK_SHIFT = 4;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;

/** A field's postings as plain data (an index snapshot keeps them). */
interface FieldParts {
  termStart: Uint32Array;
  docs: PackedIdsParts;
  tfs: Uint8Array | Uint16Array | Uint32Array;
  posBlock: Uint32Array;
  positions: Uint8Array | Uint16Array | Uint32Array;
  lengths: Uint32Array;
  maxPositions: number;
  docCount: number;
  avgLength: number;
  normBase: number;
  normPerToken: number;
}

/** A TextIndex as plain data: what an index snapshot writes and reads back without rebuilding. */
export interface TextIndexParts {
  docCount: number;
  dict: TermDictionaryParts;
  fields: [FieldParts, FieldParts];
  params: Required<TextIndexOptions>;
}

class FieldIndex {
  readonly termStart: Uint32Array;
  readonly docs: PackedIds;
  /** Term frequency of each posting (the number of its positions). */
  readonly tfs: Uint8Array | Uint16Array | Uint32Array;
  /** posBlock[p >> 4]: the offset in `positions` of posting p when p is a multiple of 16 (see posOffset). */
  readonly posBlock: Uint32Array;
  readonly positions: Uint8Array | Uint16Array | Uint32Array;
  readonly lengths: Uint32Array;
  /** The most positions (words and column gaps) of one doc: no longer phrase can occur. */
  readonly maxPositions: number;
  readonly docCount: number;
  readonly avgLength: number;
  /** BM25's length normalisation k1 · (1 − b + b · len / avgLen), computed as normBase + normPerToken · len. */
  readonly normBase: number;
  readonly normPerToken: number;

  constructor(parts: FieldParts) {
    this.termStart = parts.termStart;
    this.docs = new PackedIds(parts.docs);
    this.tfs = parts.tfs;
    this.posBlock = parts.posBlock;
    this.positions = parts.positions;
    this.lengths = parts.lengths;
    this.maxPositions = parts.maxPositions;
    this.docCount = parts.docCount;
    this.avgLength = parts.avgLength;
    this.normBase = parts.normBase;
    this.normPerToken = parts.normPerToken;
  }

  parts(): FieldParts {
    const { termStart, docs, tfs, posBlock, positions, lengths, maxPositions, docCount, avgLength, normBase, normPerToken } = this;
    return { termStart, docs: docs.parts(), tfs, posBlock, positions, lengths, maxPositions, docCount, avgLength, normBase, normPerToken };
  }

  static build(source: FieldTokenizer, termCount: number, k1: number, b: number): FieldIndex {
    const { tokens, docEnd, lengths } = source;
    const count = lengths.length;

    // Count postings (df) and positions (total tf) per term; the counts then become the fill cursors.
    const postCursor = new Uint32Array(termCount);
    const posCursor = new Uint32Array(termCount);
    const last = new Int32Array(termCount).fill(-1);
    let k = 0;
    for (let doc = 0; doc < count; doc++) {
      const end = docEnd[doc] ?? 0;
      for (; k < end; k++) {
        const value = tokens[k] ?? GAP;
        if (value === GAP) continue;
        const term = (value - 1) >>> 1;
        posCursor[term] = (posCursor[term] ?? 0) + 1;
        if (last[term] !== doc) {
          last[term] = doc;
          postCursor[term] = (postCursor[term] ?? 0) + 1;
        }
      }
    }
    const termStart = new Uint32Array(termCount + 1);
    let postings = 0;
    let positions = 0;
    for (let t = 0; t < termCount; t++) {
      termStart[t] = postings;
      postings += postCursor[t] ?? 0;
      postCursor[t] = termStart[t] ?? 0;
      const total = posCursor[t] ?? 0;
      posCursor[t] = positions;
      positions += total;
    }
    termStart[termCount] = postings;

    // Fill, doc by doc, so every term's postings come out in ascending doc order.
    const docs = new Uint32Array(postings);
    const tfs = uintArray(postings, source.maxTokens);
    const posBlock = new Uint32Array((postings >>> BLOCK_SHIFT) + 1);
    const pos = uintArray(positions, source.maxPositions);
    last.fill(-1);
    k = 0;
    for (let doc = 0; doc < count; doc++) {
      const end = docEnd[doc] ?? 0;
      let position = 0;
      for (; k < end; k++) {
        const value = tokens[k] ?? GAP;
        if (value === GAP) {
          position++;
          continue;
        }
        const term = (value - 1) >>> 1;
        const at = posCursor[term] ?? 0;
        let p: number;
        if (last[term] !== doc) {
          last[term] = doc;
          p = postCursor[term] ?? 0;
          postCursor[term] = p + 1;
          docs[p] = doc;
          if ((p & BLOCK_MASK) === 0) posBlock[p >>> BLOCK_SHIFT] = at;
        } else {
          p = (postCursor[term] ?? 1) - 1;
        }
        tfs[p] = (tfs[p] ?? 0) + 1;
        pos[at] = position;
        posCursor[term] = at + 1;
        if (((value - 1) & SHARED) === 0) position++;
      }
    }
    return new FieldIndex({
      termStart,
      docs: PackedIds.pack(docs).parts(),
      tfs,
      posBlock,
      positions: pos,
      maxPositions: source.maxPositions,
      ...lengthStats(lengths, k1, b),
    });
  }

  /**
   * One field of segments built apart (doc ids from 0 in each, the segments in doc order, their terms from
   * one dictionary of termCount terms) as one: term by term, each segment's postings after the previous
   * segment's, their doc ids shifted by the docs before. The same postings, positions and statistics as a
   * build over every doc at once; only the term ids may differ (the dictionary's order of first sight).
   * Each segment array is let go once merged (the segments' parts are emptied), so that the segments and
   * the merged field are not all held at once.
   */
  static merge(segments: FieldParts[], termCount: number, k1: number, b: number): FieldIndex {
    const firstDoc: number[] = [];
    let docs = 0;
    let postings = 0;
    let positions = 0;
    let maxPositions = 0;
    for (const segment of segments) {
      firstDoc.push(docs);
      docs += segment.lengths.length;
      postings += segment.docs.length;
      positions += segment.positions.length;
      maxPositions = Math.max(maxPositions, segment.maxPositions);
    }
    const lengths = new Uint32Array(docs);
    segments.forEach((segment, s) => {
      lengths.set(segment.lengths, firstDoc[s]);
      segment.lengths = new Uint32Array(0);
    });
    const widest = <T extends Uint8Array | Uint16Array | Uint32Array>(arrays: T[]): T => arrays.reduce((a, c) => (c.BYTES_PER_ELEMENT > a.BYTES_PER_ELEMENT ? c : a));
    const tfs = uintArrayLike(widest(segments.map((segment) => segment.tfs)), postings);
    const pos = uintArrayLike(widest(segments.map((segment) => segment.positions)), positions);
    const termStart = new Uint32Array(termCount + 1);
    const posBlock = new Uint32Array((postings >>> BLOCK_SHIFT) + 1);
    const range = (segment: FieldParts, t: number): [number, number] => {
      const from = segment.termStart[t] ?? 0;
      return [from, t + 1 < segment.termStart.length ? (segment.termStart[t + 1] ?? 0) : from];
    };
    // Term frequencies and positions, term by term.
    let p = 0;
    let at = 0;
    for (let t = 0; t < termCount; t++) {
      termStart[t] = p;
      for (const segment of segments) {
        const [from, to] = range(segment, t);
        if (from === to) continue;
        const posFrom = positionOffset(segment, from);
        const posTo = to < segment.docs.length ? positionOffset(segment, to) : segment.positions.length;
        tfs.set(segment.tfs.subarray(from, to), p);
        pos.set(segment.positions.subarray(posFrom, posTo), at);
        for (let q = from; q < to; q++, p++) {
          if ((p & BLOCK_MASK) === 0) posBlock[p >>> BLOCK_SHIFT] = at;
          at += segment.tfs[q] ?? 0;
        }
      }
    }
    termStart[termCount] = p;
    for (const segment of segments) {
      segment.tfs = new Uint8Array(0);
      segment.positions = new Uint8Array(0);
      segment.posBlock = new Uint32Array(0);
    }
    // Then the doc ids, packed from the same walk.
    const ids = segments.map((segment) => new PackedIds(segment.docs));
    const chunk = new Uint32Array(DECODE_CHUNK);
    const packed = PackedIds.packStream(postings, (emit) => {
      for (let t = 0; t < termCount; t++) {
        segments.forEach((segment, s) => {
          const [start, to] = range(segment, t);
          const shift = firstDoc[s] ?? 0;
          for (let from = start; from < to; from += DECODE_CHUNK) {
            const count = Math.min(DECODE_CHUNK, to - from);
            ids[s]?.decode(from, from + count, chunk);
            for (let j = 0; j < count; j++) chunk[j] = (chunk[j] ?? 0) + shift;
            emit(chunk, count);
          }
        });
      }
    });
    segments.length = 0;
    ids.length = 0;
    return new FieldIndex({ termStart, docs: packed.parts(), tfs, posBlock, positions: pos, maxPositions, ...lengthStats(lengths, k1, b) });
  }

  /** k1 · (1 − b + b · len / avgLen) of a doc. */
  norm(doc: number): number {
    return this.normBase + this.normPerToken * (this.lengths[doc] ?? 0);
  }

  /** Docs containing term t in this field. */
  docFreq(term: number): number {
    return (this.termStart[term + 1] ?? 0) - (this.termStart[term] ?? 0);
  }

  /** Lucene's BM25 idf of a term in this field. */
  idf(term: number): number {
    const n = this.docFreq(term);
    return Math.log(1 + (this.docCount - n + 0.5) / (n + 0.5));
  }

  /** Where posting p's positions start in `positions`. */
  posOffset(p: number): number {
    return positionOffset(this, p);
  }

  /** The posting of `doc` in term t's postings, or -1. */
  find(term: number, doc: number): number {
    const end = this.termStart[term + 1] ?? 0;
    const p = advance(this.docs, this.termStart[term] ?? 0, end, doc);
    return p < end && this.docs.get(p) === doc ? p : -1;
  }

  get stats(): FieldStats {
    return {
      docCount: this.docCount,
      avgLength: this.avgLength,
      postings: this.docs.length,
      positions: this.positions.length,
      bytes: this.termStart.byteLength + this.docs.byteLength + this.tfs.byteLength + this.posBlock.byteLength + this.positions.byteLength + this.lengths.byteLength,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Queries

/** A query string, analysed: term ids (−1 = not in the index) — one for a term, several for a phrase. */
interface Clause {
  text: string;
  terms: Int32Array;
  words: string[];
  /** 1 for the words as typed, STEM_WEIGHT for another form of them (see `stemmer`). */
  weight: number;
}

/** One query string: the clause as typed and, with the stemmer, its other forms — matched as one clause. */
interface ClauseGroup {
  text: string;
  alternatives: Clause[];
}

const ALL = 0;
const ANY = 1;
const NOT = 2;

/** Stamps run up to here before the per-doc buffers are cleared once. */
const STAMP_LIMIT = 0xfffffff0;

/** Doc ids (and, when scored, scores) of a query's candidates, in discovery order. */
interface Candidates {
  docs: Uint32Array;
  scores: Float64Array;
  count: number;
}

/** Past every doc id (ids are below 2^32 − 1). */
const END_OF_POSTINGS = 0xffffffff;

/** One term's postings in one field, walked in doc order a decoded chunk at a time (singleGroupTop). */
class PostingCursor {
  /** The doc of the current posting (END_OF_POSTINGS after the last). */
  doc = 0;
  private readonly ids = new Uint32Array(DECODE_CHUNK);
  /** The posting ids[0] stands for, and the current one. */
  private base: number;
  private at: number;

  constructor(
    private readonly field: FieldIndex,
    /** The clause's weight × field boost × idf, as visit() computes it. */
    private readonly weight: number,
    from: number,
    private readonly to: number,
  ) {
    this.base = from;
    this.at = from;
    this.load();
  }

  private load(): void {
    if (this.at >= this.to) {
      this.doc = END_OF_POSTINGS;
      return;
    }
    this.base = this.at;
    this.field.docs.decode(this.at, Math.min(this.to, this.at + DECODE_CHUNK), this.ids);
    this.doc = this.ids[0] ?? END_OF_POSTINGS;
  }

  /** The current posting's BM25 part, in visit()'s expression. */
  part(): number {
    const { field } = this;
    const tf = field.tfs[this.at] ?? 0;
    return (this.weight * tf) / (tf + (field.normBase + field.normPerToken * (field.lengths[this.doc] ?? 0)));
  }

  next(): void {
    this.at++;
    const i = this.at - this.base;
    if (i < DECODE_CHUNK && this.at < this.to) this.doc = this.ids[i] ?? END_OF_POSTINGS;
    else this.load();
  }
}

export class TextIndex {
  readonly docCount: number;
  private readonly dict: TermDictionary;
  private readonly fields: readonly [FieldIndex, FieldIndex];
  /** BM25 parameters and the name boost this index scores with. */
  readonly params: Readonly<Required<TextIndexOptions>>;
  private readonly boosts: readonly [number, number];

  // Per-query buffers (allocated on first use, reused, reset lazily by stamps).
  private stamp = 0;
  private seen = new Uint32Array(0);
  private clauseMark = new Uint32Array(0);
  private excluded = new Uint32Array(0);
  private anyHit = new Uint32Array(0);
  private allCount = new Uint32Array(0);
  private scores = new Float64Array(0);
  private touched = new Uint32Array(0);
  private touchedCount = 0;
  private phraseDocs = new Uint32Array(256);
  /** Stem → the index's terms with that stem, per stemmer (built at the first query that needs it). */
  private stems: { english: Map<string, string[]>; german: Map<string, string[]> | null } | null = null;
  private phraseFreqs = new Uint32Array(256);
  /** A chunk of a term's doc ids, decoded (walk). */
  private readonly decoded = new Uint32Array(DECODE_CHUNK);

  /** Made by TextIndex.build, a TextIndexBuilder or fromParts. */
  constructor(docCount: number, dict: TermDictionary, fields: readonly [FieldIndex, FieldIndex], options: Required<TextIndexOptions>) {
    this.docCount = docCount;
    this.dict = dict;
    this.fields = fields;
    this.boosts = [options.nameBoost, 1];
    this.params = options;
  }

  /** Index names and bodies (every column the same length: one entry per doc). */
  static build(source: TextIndexSource, options: TextIndexOptions = {}): TextIndex {
    const builder = new TextIndexBuilder(options);
    builder.add(source);
    return builder.finish();
  }

  static fromParts(parts: TextIndexParts): TextIndex {
    return new TextIndex(parts.docCount, TermDictionary.fromParts(parts.dict), [new FieldIndex(parts.fields[0]), new FieldIndex(parts.fields[1])], parts.params);
  }

  parts(): TextIndexParts {
    return { docCount: this.docCount, dict: this.dict.parts(), fields: [this.fields[0].parts(), this.fields[1].parts()], params: { ...this.params } };
  }

  /** The index of a column store: name, and summary + hidden text as the body. */
  static fromStore(
    store: { readonly text: { readonly name: TextColumn; readonly summary: TextColumn }; readonly indexText: TextColumn | null },
    options: TextIndexOptions = {},
  ): TextIndex {
    return TextIndex.build({ name: store.text.name, body: [store.text.summary, indexTextOf(store)] }, options);
  }

  /** Distinct index terms (both fields, variants and joined compounds included). */
  get termCount(): number {
    return this.dict.size;
  }

  /** Sizes, for reports: per field, and the bytes of all arrays plus an estimate for the dictionary. */
  get stats(): { docs: number; terms: number; name: FieldStats; body: FieldStats; bytes: number } {
    const name = this.fields[0].stats;
    const body = this.fields[1].stats;
    return { docs: this.docCount, terms: this.dict.size, name, body, bytes: name.bytes + body.bytes + this.dict.bytes };
  }

  /** Whether every word of the text is in the index in some form (as typed or, with the stemmer, another). */
  knows(text: string): boolean {
    const words = analyzeQuery(text);
    return words.length > 0 && words.every(({ parts }) => parts.every((part) => this.formsOf(part).some((form) => this.dict.get(form) >= 0)));
  }

  /** Docs matching the boolean query (ascending ids), optionally only where `allowed[doc]` is non-zero. */
  match(query: KeywordQuery, allowed?: Uint8Array): Uint32Array {
    const found = this.run(query, allowed, false);
    return found.docs.slice(0, found.count).sort();
  }

  /** BM25 scores of the matching docs: parallel arrays, in no particular order. */
  score(query: KeywordQuery, allowed?: Uint8Array): { docs: Uint32Array; scores: Float64Array } {
    const found = this.run(query, allowed, true);
    return { docs: found.docs.slice(0, found.count), scores: found.scores.slice(0, found.count) };
  }

  /**
   * The k best matching docs by score, descending; equal scores by `tieRank[doc]` ascending (default: the
   * doc id). `total` counts every matching doc.
   */
  top(query: KeywordQuery, k: number, allowed?: Uint8Array, tieRank?: Uint32Array): { docs: Uint32Array; scores: Float64Array; total: number } {
    const single = this.singleGroupTop(query, k, allowed, tieRank);
    if (single) return single;
    const found = this.run(query, allowed, true);
    const best = new TopK(Math.max(0, Math.min(Math.floor(k), found.count)), tieRank);
    for (let j = 0; j < found.count; j++) best.offer(found.docs[j] ?? 0, found.scores[j] ?? 0);
    const { rows, scores } = best.sorted();
    return { docs: rows, scores, total: found.count };
  }

  /**
   * top() of the commonest query, one word (must_all or must_any, its other forms as alternatives, nothing
   * excluded), in one ordered walk: the postings of each form in each field are merged by doc id, and
   * each doc is scored and offered as it comes, so no per-doc buffer of the whole index is touched (at
   * millions of organizations those random accesses were most of the time). Scores are summed in
   * visit()'s order, so they are bit for bit those of the general path; null for any other query.
   */
  private singleGroupTop(query: KeywordQuery, k: number, allowed?: Uint8Array, tieRank?: Uint32Array): { docs: Uint32Array; scores: Float64Array; total: number } | null {
    // One query string and nothing excluded, before anything is compiled (run() compiles the others).
    if ((query.must_not?.length ?? 0) > 0 || (query.must_all?.length ?? 0) + (query.must_any?.length ?? 0) !== 1) return null;
    const groups = [...this.compile(query.must_all), ...this.compile(query.must_any)];
    const group = groups[0];
    if (groups.length !== 1 || !group || group.alternatives.some((clause) => clause.terms.length !== 1)) return null;
    const cursors: PostingCursor[] = [];
    for (const clause of group.alternatives) {
      const term = clause.terms[0] ?? -1;
      if (term < 0) continue;
      for (let f = 0; f < 2; f++) {
        const field = f === 0 ? this.fields[0] : this.fields[1];
        const from = field.termStart[term] ?? 0;
        const to = field.termStart[term + 1] ?? 0;
        const weight = clause.weight * (f === 0 ? this.boosts[0] : this.boosts[1]) * this.clauseIdf(field, clause.terms);
        if (from < to) cursors.push(new PostingCursor(field, weight, from, to));
      }
    }
    const best = new TopK(Math.max(0, Math.floor(k)), tieRank);
    let total = 0;
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < cursors.length */
    for (;;) {
      let doc = END_OF_POSTINGS;
      for (let c = 0; c < cursors.length; c++) if (cursors[c]!.doc < doc) doc = cursors[c]!.doc;
      if (doc === END_OF_POSTINGS) break;
      const wanted = !allowed || allowed[doc] !== 0;
      let score = 0;
      for (let c = 0; c < cursors.length; c++) {
        const cursor = cursors[c]!;
        if (cursor.doc !== doc) continue;
        if (wanted) score += cursor.part();
        cursor.next();
      }
      if (!wanted) continue;
      total++;
      best.offer(doc, score);
    }
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
    const { rows, scores } = best.sorted();
    return { docs: rows, scores, total };
  }

  /**
   * The must_all and must_any strings that analyse to at least one word. When 0, the query has no positive
   * clause and every doc matches with score 0 (the caller may prefer to treat it as "no keywords").
   */
  positiveClauseCount(query: KeywordQuery): number {
    return textsWithWords([...(query.must_all ?? []), ...(query.must_any ?? [])]);
  }

  /** How a doc's score comes about: every positive clause in every field, with BM25's inputs. */
  explain(query: KeywordQuery, doc: number): Explanation {
    const details: ClauseExplanation[] = [];
    let score = 0;
    const occurs: ['must_all' | 'must_any', readonly string[] | undefined][] = [
      ['must_all', query.must_all],
      ['must_any', query.must_any],
    ];
    for (const [occur, list] of occurs) {
      for (const clause of this.compile(list).flatMap((group) => group.alternatives)) {
        for (let f = 0; f < 2; f++) {
          const field = this.fields[f === 0 ? 0 : 1];
          const boost = this.boosts[f === 0 ? 0 : 1];
          const tf = this.frequency(field, clause.terms, doc);
          const idf = this.clauseIdf(field, clause.terms);
          const len = field.lengths[doc] ?? 0;
          const part = tf > 0 ? (clause.weight * boost * idf * tf) / (tf + field.norm(doc)) : 0;
          score += part;
          details.push({
            clause: clause.text,
            occur,
            field: f === 0 ? 'name' : 'body',
            terms: clause.words,
            tf,
            N: field.docCount,
            n: Array.from(clause.terms, (t) => (t < 0 ? 0 : field.docFreq(t))),
            idf,
            len,
            avgLen: field.avgLength,
            boost,
            weight: clause.weight,
            score: part,
          });
        }
      }
    }
    const allowed = new Uint8Array(this.docCount);
    if (doc >= 0 && doc < this.docCount) allowed[doc] = 1;
    const matches = this.match(query, allowed).length === 1;
    return { doc, matches, score: matches ? score : 0, details };
  }

  /** The analysed clauses of query strings (strings without any word are dropped). */
  private compile(list: readonly string[] | undefined): ClauseGroup[] {
    const groups: ClauseGroup[] = [];
    for (const text of list ?? []) {
      const words = analyzeQuery(text);
      if (words.length === 0) continue;
      const typed = words.length === 1 ? [words[0]?.whole ?? ''] : words.flatMap((w) => w.parts);
      // Each distinct word's forms and their term ids, looked up once however often the word repeats.
      const known = new Map<string, { forms: string[]; ids: Int32Array }>();
      const choices = typed.map((word) => {
        let choice = known.get(word);
        if (!choice) {
          const forms = this.formsOf(word);
          const ids = new Int32Array(forms.length);
          for (let k = 0; k < forms.length; k++) ids[k] = this.dict.get(forms[k] ?? '');
          choice = { forms, ids };
          known.set(word, choice);
        }
        return choice;
      });
      // Every combination of the words' forms, the typed one first; a long phrase of plurals is capped.
      const combinations = firstCombinations(
        choices.map((choice) => choice.forms.length),
        MAX_FORMS,
      );
      const alternatives = combinations.map((digits, i) => {
        const terms = new Int32Array(digits.length);
        const forms = new Array<string>(digits.length);
        for (let k = 0; k < digits.length; k++) {
          const choice = choices[k];
          const d = digits[k] ?? 0;
          terms[k] = choice?.ids[d] ?? -1;
          forms[k] = choice?.forms[d] ?? '';
        }
        return { text, words: forms, terms, weight: i === 0 ? 1 : STEM_WEIGHT };
      });
      groups.push({ text, alternatives });
    }
    return groups;
  }

  /** Groups the index's words by stem now (a server's warm-up) rather than in the first query. */
  warm(): void {
    if (this.params.stemmer !== 'none') this.stemGroups();
  }

  /** A query word and, with the stemmer, the index's other words with the same stem (English, then German). */
  private formsOf(word: string): string[] {
    if (this.params.stemmer === 'none') return [word];
    const stems = this.stemGroups();
    const forms = new Set([word, ...(stems.english.get(stemMinimalEnglish(word)) ?? [])]);
    for (const form of stems.german?.get(stemGerman(word)) ?? []) forms.add(form);
    return [...forms];
  }

  private stemGroups(): { english: Map<string, string[]>; german: Map<string, string[]> | null } {
    if (!this.stems) {
      const german = this.params.stemmer === 'english-german';
      this.stems = { english: groupBy(this.dict.terms, stemMinimalEnglish), german: german ? groupBy(this.dict.terms, stemGerman) : null };
    }
    return this.stems;
  }

  /** Σ idf of the clause's terms in a field (a term's idf for a single term). */
  private clauseIdf(field: FieldIndex, terms: Int32Array): number {
    let idf = 0;
    for (const t of terms) if (t >= 0) idf += field.idf(t);
    return idf;
  }

  /** An upper bound of the docs a clause group can match (to run must_all clauses rarest first). */
  private estimate(group: ClauseGroup): number {
    let total = 0;
    for (const clause of group.alternatives) {
      for (const field of this.fields) {
        let least = Infinity;
        for (const t of clause.terms) least = Math.min(least, t < 0 ? 0 : field.docFreq(t));
        total += least;
      }
    }
    return total;
  }

  /** Term or phrase frequency of a clause in one doc's field. */
  private frequency(field: FieldIndex, terms: Int32Array, doc: number): number {
    if (terms.length > field.maxPositions) return 0;
    const postings: number[] = [];
    for (const t of terms) {
      if (t < 0) return 0;
      const p = field.find(t, doc);
      if (p < 0) return 0;
      postings.push(p);
    }
    if (postings.length === 1) return field.tfs[postings[0] ?? 0] ?? 0;
    return phraseFrequency(field, Uint32Array.from(postings), new Uint32Array(postings.length), new Uint32Array(postings.length));
  }

  private ensureBuffers(): void {
    if (this.seen.length === this.docCount) return;
    const n = this.docCount;
    this.seen = new Uint32Array(n);
    this.clauseMark = new Uint32Array(n);
    this.excluded = new Uint32Array(n);
    this.anyHit = new Uint32Array(n);
    this.allCount = new Uint32Array(n);
    this.scores = new Float64Array(n);
    this.touched = new Uint32Array(n);
  }

  /** Reserve the stamps of one query (one for the query, one per clause), clearing the marks when they run out. */
  private reserveStamps(count: number): void {
    if (this.stamp + count < STAMP_LIMIT) return;
    this.seen.fill(0);
    this.clauseMark.fill(0);
    this.excluded.fill(0);
    this.anyHit.fill(0);
    this.stamp = 0;
  }

  private nextStamp(): number {
    return ++this.stamp;
  }

  /** The candidates of a query, scored when asked. */
  private run(query: KeywordQuery, allowed: Uint8Array | undefined, scored: boolean): Candidates {
    this.ensureBuffers();
    const all = this.compile(query.must_all);
    const any = this.compile(query.must_any);
    const none = this.compile(query.must_not);
    const n = this.docCount;
    this.reserveStamps(all.length + any.length + 1);
    const queryStamp = this.nextStamp();

    // must_not first: excluded[doc] = queryStamp.
    for (const group of none) for (const clause of group.alternatives) this.visit(clause, queryStamp, NOT, 0, undefined, false, false);

    if (all.length === 0 && any.length === 0) {
      // No positive clause: everything allowed and not excluded, score 0.
      const docs = new Uint32Array(n);
      let count = 0;
      for (let doc = 0; doc < n; doc++) {
        if (allowed && !allowed[doc]) continue;
        if (this.excluded[doc] === queryStamp) continue;
        docs[count++] = doc;
      }
      return { docs, scores: new Float64Array(count), count };
    }
    const unmatchable = (group: ClauseGroup): boolean => group.alternatives.every((clause) => clause.terms.includes(-1));
    if (all.some(unmatchable)) return { docs: new Uint32Array(0), scores: new Float64Array(0), count: 0 };

    // The alternatives of a group share its stamp: a doc counts once per group, scores from each form.
    all.sort((x, y) => this.estimate(x) - this.estimate(y));
    this.touchedCount = 0;
    all.forEach((group, i) => {
      const stamp = this.nextStamp();
      for (const clause of group.alternatives) this.visit(clause, queryStamp, ALL, stamp, allowed, i === 0, scored);
    });
    for (const group of any) {
      const stamp = this.nextStamp();
      for (const clause of group.alternatives) this.visit(clause, queryStamp, ANY, stamp, allowed, all.length === 0, scored);
    }

    const needAll = all.length;
    const needAny = any.length > 0;
    const docs = new Uint32Array(this.touchedCount);
    const scores = new Float64Array(scored ? this.touchedCount : 0);
    let count = 0;
    for (let j = 0; j < this.touchedCount; j++) {
      const doc = this.touched[j] ?? 0;
      if (this.allCount[doc] !== needAll) continue;
      if (needAny && this.anyHit[doc] !== queryStamp) continue;
      docs[count] = doc;
      if (scored) scores[count] = this.scores[doc] ?? 0;
      count++;
    }
    return { docs, scores, count };
  }

  /**
   * Walk the docs a clause matches, field by field. NOT marks `excluded`; ALL / ANY add
   * the BM25 contribution and count the clause once per doc (clauseMark = clauseStamp). `open`: the clause
   * may add new docs (the first must_all clause, or must_any without must_all); otherwise it only updates
   * docs already seen in this query.
   */
  private visit(clause: Clause, queryStamp: number, occur: number, clauseStamp: number, allowed: Uint8Array | undefined, open: boolean, scored: boolean): void {
    if (clause.terms.includes(-1)) return;
    const { seen, clauseMark, excluded, anyHit, allCount, scores, touched } = this;
    for (let f = 0; f < 2; f++) {
      const field = f === 0 ? this.fields[0] : this.fields[1];
      const boost = f === 0 ? this.boosts[0] : this.boosts[1];
      const weight = scored ? clause.weight * boost * this.clauseIdf(field, clause.terms) : 0;
      const { normBase, normPerToken, lengths } = field;
      let tfs: Uint8Array | Uint16Array | Uint32Array;
      let from: number;
      let to: number;
      const single = clause.terms.length === 1;
      if (single) {
        const t = clause.terms[0] ?? 0;
        tfs = field.tfs;
        from = field.termStart[t] ?? 0;
        to = field.termStart[t + 1] ?? 0;
      } else {
        to = this.matchPhrase(field, clause.terms);
        from = 0;
        tfs = this.phraseFreqs;
      }
      // A term's doc ids are decoded a chunk at a time; a phrase's are in phraseDocs already.
      let docs = this.phraseDocs;
      let shift = 0;
      for (let start = from, stop = from; start < to; start = stop) {
        if (single) {
          stop = Math.min(to, start + DECODE_CHUNK);
          field.docs.decode(start, stop, this.decoded);
          docs = this.decoded;
          shift = start;
        } else {
          stop = to;
        }
        for (let p = start; p < stop; p++) {
          const doc = docs[p - shift] ?? 0;
          if (occur === NOT) {
            excluded[doc] = queryStamp;
            continue;
          }
          if (seen[doc] !== queryStamp) {
            if (!open) continue;
            if (allowed && !allowed[doc]) continue;
            if (excluded[doc] === queryStamp) continue;
            seen[doc] = queryStamp;
            scores[doc] = 0;
            allCount[doc] = 0;
            touched[this.touchedCount++] = doc;
          }
          if (scored) {
            const tf = tfs[p] ?? 0;
            scores[doc] = (scores[doc] ?? 0) + (weight * tf) / (tf + (normBase + normPerToken * (lengths[doc] ?? 0)));
          }
          if (clauseMark[doc] !== clauseStamp) {
            clauseMark[doc] = clauseStamp;
            if (occur === ALL) allCount[doc] = (allCount[doc] ?? 0) + 1;
            else anyHit[doc] = queryStamp;
          }
        }
        }
    }
  }

  /** The docs where a phrase occurs in a field, into phraseDocs / phraseFreqs; returns their count. */
  private matchPhrase(field: FieldIndex, terms: Int32Array): number {
    const m = terms.length;
    // Its words take m consecutive positions: longer than every doc's field, it cannot occur.
    if (m > field.maxPositions) return 0;
    const cursors = new Uint32Array(m);
    const ends = new Uint32Array(m);
    let pivot = 0;
    for (let i = 0; i < m; i++) {
      const t = terms[i] ?? 0;
      cursors[i] = field.termStart[t] ?? 0;
      ends[i] = field.termStart[t + 1] ?? 0;
      if (cursors[i] === ends[i]) return 0;
      if ((ends[i] ?? 0) - (cursors[i] ?? 0) < (ends[pivot] ?? 0) - (cursors[pivot] ?? 0)) pivot = i;
    }
    const pivotEnd = ends[pivot] ?? 0;
    if (this.phraseDocs.length < pivotEnd - (cursors[pivot] ?? 0)) {
      const size = pivotEnd - (cursors[pivot] ?? 0);
      this.phraseDocs = new Uint32Array(size);
      this.phraseFreqs = new Uint32Array(size);
    }
    const docs = field.docs;
    const ptr = new Uint32Array(m);
    const end = new Uint32Array(m);
    let count = 0;
    outer: for (let p = cursors[pivot] ?? 0; p < pivotEnd; p++) {
      const doc = docs.get(p);
      for (let i = 0; i < m; i++) {
        if (i === pivot) continue;
        const end = ends[i] ?? 0;
        const c = advance(docs, cursors[i] ?? 0, end, doc);
        cursors[i] = c;
        if (c >= end) break outer;
        if (docs.get(c) !== doc) continue outer;
      }
      cursors[pivot] = p;
      const freq = phraseFrequency(field, cursors, ptr, end);
      if (freq > 0) {
        this.phraseDocs[count] = doc;
        this.phraseFreqs[count] = freq;
        count++;
      }
    }
    return count;
  }
}

/**
 * How often the words whose postings (all in the same doc) are `postings[0…]` occur adjacently and in
 * order: the number of start positions s with word i at s + i for every i (Lucene's ExactPhraseMatcher).
 * `ptr` and `end` are scratch arrays of the same length as `postings`.
 */
function phraseFrequency(field: FieldIndex, postings: Uint32Array, ptr: Uint32Array, end: Uint32Array): number {
  const m = postings.length;
  const { tfs, positions } = field;
  for (let i = 0; i < m; i++) {
    const p = postings[i] ?? 0;
    const offset = field.posOffset(p);
    ptr[i] = offset;
    end[i] = offset + (tfs[p] ?? 0);
  }
  let freq = 0;
  const firstEnd = end[0] ?? 0;
  outer: for (let a = ptr[0] ?? 0; a < firstEnd; a++) {
    const start = positions[a] ?? 0;
    for (let i = 1; i < m; i++) {
      const want = start + i;
      let q = ptr[i] ?? 0;
      const qEnd = end[i] ?? 0;
      while (q < qEnd && (positions[q] ?? 0) < want) q++;
      ptr[i] = q;
      if (q >= qEnd) break outer;
      if (positions[q] !== want) continue outer;
    }
    freq++;
  }
  return freq;
}

/**
 * The first `limit` combinations of one choice per word (`counts[k]` choices for word k), as the chosen
 * index per word, in order: the first word's choices vary slowest, so the first combination takes every
 * word's first choice. Counted like a mixed-radix number (the last word is the lowest digit), so the work
 * is the size of the result, not of every prefix's combinations.
 */
function firstCombinations(counts: readonly number[], limit: number): Uint32Array[] {
  const digits = new Uint32Array(counts.length);
  const out: Uint32Array[] = [];
  for (;;) {
    out.push(digits.slice());
    if (out.length >= limit) return out;
    let k = counts.length - 1;
    while (k >= 0 && (digits[k] ?? 0) + 1 >= (counts[k] ?? 1)) digits[k--] = 0;
    if (k < 0) return out;
    digits[k] = (digits[k] ?? 0) + 1;
  }
}

function isColumnList(body: TextColumn | readonly TextColumn[]): body is readonly TextColumn[] {
  // A column's entries are strings or null; a list's are columns (arrays or column objects).
  return Array.isArray(body) && body.length > 0 && typeof body[0] === 'object' && body[0] !== null;
}

/** About how many characters a column holds (its UTF-8 bytes for a store column): sizes the token buffer. */
function charCount(column: TextColumn, count: number): number {
  if (column instanceof Utf8Column) return column.bytes.length;
  const read = reader(column);
  let chars = 0;
  for (let d = 0; d < count; d++) chars += read(d)?.length ?? 0;
  return chars;
}

/** A store's index text; a store loaded from a snapshot has none (its keyword index came with it). */
export function indexTextOf(store: { readonly indexText: TextColumn | null }): TextColumn {
  if (!store.indexText) throw new Error('this store was loaded from an index snapshot without its index text: its keyword index comes from the snapshot, not from a rebuild');
  return store.indexText;
}

/**
 * Builds a TextIndex a segment of docs at a time: each segment is indexed as it is added (its text can go
 * then) and finish() merges the segments, one dictionary for all. A corpus whose text does not fit in
 * memory at once (the hidden text of millions of organizations) is indexed with a bounded amount of it at
 * hand. The merged index answers exactly as one built from every doc at once (see FieldIndex.merge).
 */
export class TextIndexBuilder {
  private readonly dict = new TermDictionary();
  private readonly names: FieldParts[] = [];
  private readonly bodies: FieldParts[] = [];
  private count = 0;
  private readonly params: Required<TextIndexOptions>;

  constructor(options: TextIndexOptions = {}) {
    this.params = {
      k1: options.k1 ?? BM25_K1,
      b: options.b ?? BM25_B,
      nameBoost: options.nameBoost ?? NAME_BOOST,
      stemmer: options.stemmer ?? TEXT_STEMMER,
    };
  }

  /** Indexes the next docs (numbered on from the docs added before). */
  add(source: TextIndexSource): void {
    const count = columnLength(source.name);
    const bodyColumns = isColumnList(source.body) ? source.body : [source.body];
    for (const column of bodyColumns) {
      if (columnLength(column) !== count) throw new Error(`TextIndex.build: a body column has ${columnLength(column)} entries for ${count} names`);
    }
    const { dict, params } = this;
    const nameTokens = new FieldTokenizer(dict, [source.name], count);
    const bodyTokens = new FieldTokenizer(dict, bodyColumns, count);
    this.names.push(FieldIndex.build(nameTokens, dict.size, params.k1, params.b).parts());
    this.bodies.push(FieldIndex.build(bodyTokens, dict.size, params.k1, params.b).parts());
    this.count += count;
  }

  get docCount(): number {
    return this.count;
  }

  finish(): TextIndex {
    const { dict, params, names, bodies } = this;
    if (names.length === 0) this.add({ name: [], body: [] });
    const [name, body] = names.length === 1 ? [names[0], bodies[0]] : [FieldIndex.merge(names, dict.size, params.k1, params.b).parts(), FieldIndex.merge(bodies, dict.size, params.k1, params.b).parts()];
    if (!name || !body) throw new Error('TextIndexBuilder: no segment');
    return new TextIndex(this.count, dict, [new FieldIndex(name), new FieldIndex(body)], params);
  }
}

/** Terms grouped by a key (a stemmer): key → the terms that have it, in dictionary order. */
function groupBy(terms: Iterable<string>, key: (term: string) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const term of terms) {
    const k = key(term);
    const group = groups.get(k);
    if (group) group.push(term);
    else groups.set(k, [term]);
  }
  return groups;
}
