/**
 * Local sentence embeddings without a model download: SIF-weighted averages (Arora, Liang & Ma 2017, "A
 * Simple but Tough-to-Beat Baseline for Sentence Embeddings") of GloVe 6B 100-d word vectors, from the
 * committed asset `data/embeddings.json` (50,000 most frequent GloVe words plus every word of the dataset
 * vocabulary, int8 with one scale per vector; built by `npm run data:embeddings`, see data/README.md).
 *
 * German: each entry of the German lexicon (german-lexicon.ts) is one more row, the mean of its English
 * senses' vectors (`withGermanRows`), so German and English texts share one space. A text that reads as
 * German (its function words and umlauts, `collectRows`) is read word by word through the lexicon —
 * inflections and compounds included — with English only where the lexicon has nothing; an English text
 * reads a word English lacks as German when it plainly is one. Queries also borrow the trade words of the
 * kinds of organizations whose needs they describe (`embedQuery`, concepts.ts).
 *
 * Portable: no host globals (the asset's base64 is decoded here), synchronous, deterministic. The asset is
 * decoded once, on first use (tens of milliseconds).
 *
 * Quality: averaged word vectors know topics and synonyms ('dentist' ~ 'dental practice', 'photovoltaic' ~
 * 'solar panels') but not word order or negation; well below a sentence transformer. For a corpus, remove
 * the common component (`removePrincipalComponent` + `applyComponentRemoval`) from documents and queries.
 */
import asset from '../data/embeddings.json' with { type: 'json' };
import { ConceptExpansion } from './concepts.js';
import { ENGLISH_FUNCTION_WORDS, GERMAN_FUNCTION_WORDS } from './function-words.js';
import { germanLexicon, plainGerman, type GermanLexicon } from './german-lexicon.js';
import { TermDictionary } from './term-dictionary.js';
import { spellOutGerman } from '../german-spelling.js';
import { ASCII_WORD, END, WordScanner } from './tokenize.js';

export interface Embedder {
  readonly dims: number;
  /** The text's unit-length vector, or null when no word of it is known. */
  embed(text: string): Float32Array | null;
  /**
   * The same, written into `target` at `offset` (no allocation); false when no word is known. Several
   * texts embed as one text made of their words (a document's summary and its tags, without joining them).
   */
  embedInto(text: string | readonly string[], target: Float32Array, offset: number): boolean;
  /** A search query's vector, for an embedder that reads queries apart from documents; else `embed` serves. */
  embedQuery?(text: string): Float32Array | null;
  /** Builds now what the first query would otherwise build (a server's warm-up). */
  warm?(): void;
}

/** The language of a text, when the caller knows it. */
type TextLanguage = 'en' | 'de';

/** The committed asset's shape (see data/README.md). */
export interface EmbeddingsAsset {
  source: { package: string; version: string; licence: string; upstream: string; size: number };
  dims: number;
  count: number;
  /** The first `common` words are the most frequent of the source; the rest are dataset words. */
  common: number;
  /** Lower-case words in ascending frequency rank. */
  words: string[];
  /** 1-based frequency rank of each word in the source list (GloVe order, descending corpus count). */
  ranks: number[];
  /** Per-word dequantisation scale: value = code × scale. */
  scales: number[];
  /** base64 of an Int8Array of count × dims codes, row-major in `words` order. */
  vectors: string;
}

/** The decoded asset: one contiguous Int8Array and a word → row map. */
export interface EmbeddingVocabulary {
  readonly dims: number;
  readonly count: number;
  /** Vocabulary size of the source list (the Zipf normaliser of SIF's word probabilities). */
  readonly sourceSize: number;
  readonly index: ReadonlyMap<string, number>;
  readonly words: readonly string[];
  readonly ranks: Uint32Array;
  readonly scales: Float32Array;
  readonly codes: Int8Array;
}

// ---------------------------------------------------------------------------------------------------------
// base64 (no atob / Buffer in the portable core)

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
let base64Table: Int16Array | undefined;

function base64Lookup(): Int16Array {
  if (!base64Table) {
    base64Table = new Int16Array(256).fill(-1);
    for (let i = 0; i < BASE64_ALPHABET.length; i++) base64Table[BASE64_ALPHABET.charCodeAt(i)] = i;
  }
  return base64Table;
}

/** Decodes standard base64 (RFC 4648 alphabet, `=` padding optional, no whitespace); throws on bad input. */
export function decodeBase64(text: string): Uint8Array {
  const table = base64Lookup();
  let end = text.length;
  if (end % 4 === 0) {
    while (end > 0 && text.length - end < 2 && text.charCodeAt(end - 1) === 61) end--;
  }
  if (end % 4 === 1) throw new SyntaxError('invalid base64: bad length');
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  const code = (i: number): number => {
    const c = text.charCodeAt(i);
    return c < 256 ? (table[c] ?? -1) : -1;
  };
  let o = 0;
  let i = 0;
  let bad = 0;
  for (const whole = end - (end % 4); i < whole; i += 4) {
    const a = code(i);
    const b = code(i + 1);
    const c = code(i + 2);
    const d = code(i + 3);
    bad |= a | b | c | d;
    const bits = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = (bits >> 16) & 255;
    out[o++] = (bits >> 8) & 255;
    out[o++] = bits & 255;
  }
  const rest = end - i;
  if (rest >= 2) {
    const a = code(i);
    const b = code(i + 1);
    const c = rest === 3 ? code(i + 2) : 0;
    bad |= a | b | c;
    const bits = (a << 18) | (b << 12) | (c << 6);
    out[o++] = (bits >> 16) & 255;
    if (rest === 3) out[o++] = (bits >> 8) & 255;
  }
  if (bad < 0) throw new SyntaxError('invalid base64: character outside the alphabet');
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The asset, decoded once

let vocabulary: EmbeddingVocabulary | undefined;

/** Decodes an embeddings asset (the committed one by default; cached). */
export function decodeEmbeddings(data: EmbeddingsAsset): EmbeddingVocabulary {
  const { dims, count } = data;
  const bytes = decodeBase64(data.vectors);
  if (bytes.length !== dims * count || data.words.length !== count || data.ranks.length !== count || data.scales.length !== count) {
    throw new Error('embeddings asset: inconsistent sizes');
  }
  const index = new Map<string, number>();
  data.words.forEach((word, row) => index.set(word, row));
  return {
    dims,
    count,
    sourceSize: data.source.size,
    index,
    words: data.words,
    ranks: Uint32Array.from(data.ranks),
    scales: Float32Array.from(data.scales),
    codes: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length),
  };
}

/** The committed asset, decoded on first use. */
export function embeddingVocabulary(): EmbeddingVocabulary {
  vocabulary ??= decodeEmbeddings(asset as EmbeddingsAsset);
  return vocabulary;
}

/** The dimensions of the committed asset's vectors, without decoding it. */
export function embeddingDims(): number {
  return (asset as EmbeddingsAsset).dims;
}

/** Where the vectors come from (package, version, licence), for health output and attribution. */
export function embeddingSource(): EmbeddingsAsset['source'] {
  return (asset as EmbeddingsAsset).source;
}

// ---------------------------------------------------------------------------------------------------------
// Tokens

const SPLIT = /[^\p{L}\p{N}-]+/u;
const PLAIN_WORD = /^[a-z0-9-]*$/;
const BRITISH_ISE = /is(e|es|ed|ing|ation|ations|er|ers)$/;

/**
 * Lower-case word tokens as the embedder sees them: letters and digits, hyphenated compounds kept whole
 * ("e-commerce"), ß → ss, possessive 's dropped. Diacritics are folded at lookup.
 */
export function embeddingTokens(text: string): string[] {
  const tokens: string[] = [];
  const lower = text.toLowerCase().replace(/ß/g, 'ss').replace(/['’]s\b/g, ' ');
  for (const raw of lower.split(SPLIT)) {
    let start = 0;
    let end = raw.length;
    while (start < end && raw.charCodeAt(start) === 45) start++;
    while (end > start && raw.charCodeAt(end - 1) === 45) end--;
    if (end > start) tokens.push(start === 0 && end === raw.length ? raw : raw.slice(start, end));
  }
  return tokens;
}

const stripMarks = (s: string): string => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/** Row of one lower-case word, or -1; British -ise spellings fall back to GloVe's -ize ones. */
function rowOfPlain(index: ReadonlyMap<string, number>, word: string): number {
  const row = index.get(word);
  if (row !== undefined) return row;
  if (BRITISH_ISE.test(word)) return index.get(word.replace(BRITISH_ISE, 'iz$1')) ?? -1;
  return -1;
}

/**
 * Row of one token, or -1. Words with diacritics are looked up stripped ("café" → "cafe") and, for
 * German umlauts, transliterated ("grün" → "gruen"); of the forms GloVe has, the more frequent wins
 * ("müller" → "mueller", "münchen" → "munchen").
 */
function rowOfWord(index: ReadonlyMap<string, number>, word: string): number {
  if (PLAIN_WORD.test(word)) return rowOfPlain(index, word);
  const stripped = rowOfPlain(index, stripMarks(word));
  const german = /[äöü]/.test(word) ? rowOfPlain(index, spellOutGerman(word)) : -1;
  if (stripped < 0) return german;
  if (german < 0) return stripped;
  return Math.min(stripped, german); // rows are in frequency order
}

/** Rows of a token: the word, or for an unknown hyphenated compound, its known parts. */
function rowsOfToken(index: ReadonlyMap<string, number>, token: string, out: number[]): void {
  const row = rowOfWord(index, token);
  if (row >= 0) {
    out.push(row);
    return;
  }
  if (!token.includes('-')) return;
  for (const part of token.split('-')) {
    if (!part) continue;
    const partRow = rowOfWord(index, part);
    if (partRow >= 0) out.push(partRow);
  }
}

// ---------------------------------------------------------------------------------------------------------
// SIF embedder

/** The embedder remembers the rows of at most this many distinct words of each kind (see collectRows). */
const WORD_CACHE_LIMIT = 200_000;

/** Euler–Mascheroni constant: H(n) ≈ ln n + γ normalises Zipf's law p(r) = 1 / (r · H(n)). */
const EULER_GAMMA = 0.5772156649015329;

export interface SifOptions {
  /**
   * SIF smoothing: a word weighs a / (a + p(w)). Default 1e-4 (Arora et al. use 1e-4 … 1e-3): "the"
   * (p ≈ 0.075) weighs 0.001, a word of rank 100 about 0.12, of rank 1,000 0.57, of rank 10,000 0.93.
   * People describe a need with common words around a few telling ones ("put something on top of my
   * house to make my own electricity from sunlight"); 1e-4 lets the telling ones lead (docs/design.md).
   */
  a?: number;
  /** A decoded vocabulary other than the committed asset (tests). */
  vocabulary?: EmbeddingVocabulary;
  /**
   * The German → English lexicon that places German words in the vocabulary's space (german-lexicon.ts);
   * default the committed one, `null` for English words only.
   */
  german?: GermanLexicon | null;
}

/**
 * Sentence vectors as SIF-weighted averages of GloVe word vectors, L2-normalised. p(w) is estimated from
 * the word's frequency rank r by Zipf's law, p = 1 / (r · H(V)), V = the source's vocabulary size. Each
 * occurrence of a word counts (the average is over tokens, as in SIF).
 */
export class SifGloveEmbedder implements Embedder {
  readonly dims: number;
  readonly a: number;
  private readonly vocab: EmbeddingVocabulary;
  /** SIF weight × dequantisation scale per row: the coefficient of the row's int8 codes in the sum. */
  private readonly coefficients: Float32Array;
  private readonly sum: Float64Array;
  private readonly rows: number[] = [];
  /** Per word of the text being embedded: where its codes start, and its coefficient. */
  private bases = new Int32Array(256);
  private weights = new Float64Array(256);
  // Word lookup without a string per word (the index build embeds millions of words): plain ASCII words
  // through a dictionary straight from the text, other words through a cache of their rows.
  private readonly scanner = new WordScanner();
  private asciiWords = new TermDictionary();
  /** Vocabulary row of each `asciiWords` term (set when the term is added), −1 when unknown. */
  private asciiRows = new Int32Array(1024);
  private readonly complexRows = new Map<string, ComplexWord>();
  private concepts: ConceptExpansion | undefined;
  private readonly lexicon: GermanLexicon | null;
  /** Stem key of a German lexicon entry → its row (after the English rows; see withGermanRows). */
  private readonly germanRows: ReadonlyMap<string, number>;
  /**
   * Per `asciiWords` term: bit 1 an English, bit 2 a German function word ("in", "so": both); bit 4 a word
   * the lexicon has that English uses rarely (see RARE_IN_ENGLISH): read as German in any text.
   */
  private asciiKinds = new Uint8Array(1024);
  /** Per `asciiWords` term: its rows as a German word (computed when a German text first has it). */
  private asciiGerman: (readonly number[] | undefined)[] = [];
  private asciiStrictGerman: (readonly number[] | undefined)[] = [];
  /** The same for the other words, by spelling: the only caches of German words' rows (the lexicon keeps none). */
  private readonly complexGerman = new Map<string, readonly number[]>();
  private readonly strictGerman = new Map<string, readonly number[]>();

  constructor(options: SifOptions = {}) {
    const english = options.vocabulary ?? embeddingVocabulary();
    const lexicon = options.german === undefined ? germanLexicon() : options.german;
    const bilingual = lexicon ? withGermanRows(english, lexicon) : null;
    this.vocab = bilingual?.vocab ?? english;
    this.lexicon = lexicon;
    this.germanRows = bilingual?.rows ?? new Map<string, number>();
    this.a = options.a ?? 1e-4;
    if (!(this.a > 0)) throw new RangeError('SIF parameter a must be positive');
    this.dims = this.vocab.dims;
    this.sum = new Float64Array(this.dims);
    const harmonic = Math.log(this.vocab.sourceSize) + EULER_GAMMA;
    this.coefficients = new Float32Array(this.vocab.count);
    for (let row = 0; row < this.vocab.count; row++) {
      const p = 1 / ((this.vocab.ranks[row] ?? 1) * harmonic);
      this.coefficients[row] = (this.a / (this.a + p)) * (this.vocab.scales[row] ?? 0);
    }
  }

  /** The SIF weight a / (a + p(w)) of a known word (after the embedder's folding), or null. */
  weight(word: string): number | null {
    const row = this.rowOf(word);
    if (row < 0) return null;
    return this.rowWeight(row);
  }

  /** The SIF weight of a vocabulary row. */
  rowWeight(row: number): number {
    return (this.coefficients[row] ?? 0) / (this.vocab.scales[row] ?? 1);
  }

  /**
   * The vocabulary rows a text's words stand for, in order, as `embed` reads them (German texts as
   * German, function words dropped) — which words two texts share, whatever their language or spelling.
   */
  wordRows(text: string, language?: TextLanguage): number[] {
    this.rows.length = 0;
    this.collectRows(text, language);
    return [...this.rows];
  }

  /**
   * The text's unit vector, or null when no word of it is known. `language` says which language the text
   * is in; without it, the text's function words and umlauts decide (see collectRows).
   */
  embed(text: string, language?: TextLanguage): Float32Array | null {
    const out = new Float32Array(this.dims);
    return this.embedInto(text, out, 0, language) ? out : null;
  }

  /**
   * A search query's vector: `embed`, then moved towards the trade words of the kinds of organizations
   * whose customers' needs it reads like (concepts.ts) — "the breaker keeps tripping" borrows
   * "electrician". Null when no word is known.
   */
  embedQuery(text: string): Float32Array | null {
    const vector = this.embed(text);
    const concepts = this.conceptExpansion();
    return vector && concepts ? concepts.expand(text, vector) : vector;
  }

  /** Builds the need-to-trade table now rather than in the first `describe`. */
  warm(): void {
    this.conceptExpansion()?.warm();
  }

  private conceptExpansion(): ConceptExpansion | null {
    if (!this.lexicon) return null;
    this.concepts ??= new ConceptExpansion(this);
    return this.concepts;
  }

  /**
   * Writes the text's unit vector into `target[offset … offset + dims)` (for one contiguous matrix of many
   * documents, without allocating); returns false, leaving the slot untouched, when no word is known.
   */
  embedInto(text: string | readonly string[], target: Float32Array, offset: number, language?: TextLanguage): boolean {
    const { codes } = this.vocab;
    const { dims, sum, rows, coefficients } = this;
    rows.length = 0;
    if (typeof text === 'string') this.collectRows(text, language);
    else for (const part of text) this.collectRows(part, language);
    if (rows.length === 0) return false;
    // The index build spends most of its embedding time here. Dimension by dimension, so that each sum
    // stays in a register (word by word, every addition would load and store the sum array); plain
    // indexed reads, in range by construction.
    const n = rows.length;
    if (n > this.bases.length) this.growWordBuffers(n);
    const { bases, weights } = this;
    /* eslint-disable @typescript-eslint/no-non-null-assertion */
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      bases[i] = row * dims;
      weights[i] = coefficients[row]!;
    }
    let d = 0;
    for (; d + 3 < dims; d += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        const w = weights[i]!;
        const at = bases[i]! + d;
        s0 += w * codes[at]!;
        s1 += w * codes[at + 1]!;
        s2 += w * codes[at + 2]!;
        s3 += w * codes[at + 3]!;
      }
      sum[d] = s0;
      sum[d + 1] = s1;
      sum[d + 2] = s2;
      sum[d + 3] = s3;
    }
    for (; d < dims; d++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += weights[i]! * codes[bases[i]! + d]!;
      sum[d] = s;
    }
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (sum[d] ?? 0) ** 2;
    if (norm === 0) return false;
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) target[offset + d] = (sum[d] ?? 0) * inv;
    return true;
  }

  /**
   * One word's vector (same folding as `embed`; a hyphenated compound only if GloVe has it whole), unit
   * length unless `unit: false` (then the dequantised GloVe vector); null for an unknown word or for more
   * than one word (embed phrases with `embed`).
   */
  wordVector(word: string, options: { unit?: boolean } = {}): Float32Array | null {
    const row = this.rowOf(word);
    if (row < 0) return null;
    const { dims, vocab } = this;
    const scale = vocab.scales[row] ?? 0;
    const out = new Float32Array(dims);
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = (vocab.codes[row * dims + d] ?? 0) * scale;
      out[d] = x;
      norm += x * x;
    }
    if (options.unit !== false && norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) out[d] = (out[d] ?? 0) * inv;
    }
    return out;
  }

  /**
   * Appends the vocabulary rows of a text's words, in order, to `this.rows` — the same words as
   * `embeddingTokens` (words are found by the keyword engine's scanner; a word that is not plain ASCII is
   * re-tokenised with `embeddingTokens`, so hyphens, apostrophes and ß are treated exactly as there).
   */
  private collectRows(text: string, language?: TextLanguage): void {
    if (!this.lexicon) {
      this.readRows(text, 'english');
      return;
    }
    if (language !== undefined) {
      this.readRows(text, language === 'de' ? 'german' : 'english');
      return;
    }
    const start = this.rows.length;
    const { germanEvidence, englishEvidence } = this.readRows(text, 'english-or-german');
    // A German text is read again, as German (English texts, most of them, are read once).
    if (germanEvidence > englishEvidence) {
      this.rows.length = start;
      this.readRows(text, 'german');
    }
  }

  /**
   * Appends the rows of a text's words read one way: 'english' (the English rows; a word the lexicon has
   * that English uses rarely, as German), 'english-or-german' (the same, and a word English lacks as German
   * where it plainly is one: German firms' English texts keep German trade words, "Meisterbetrieb"),
   * 'german' (as German first, English where the lexicon has nothing, German function words dropped).
   * Counts what tells the language.
   */
  private readRows(text: string, reading: 'english' | 'english-or-german' | 'german'): { germanEvidence: number; englishEvidence: number } {
    const { scanner, rows } = this;
    let germanEvidence = 0;
    let englishEvidence = 0;
    scanner.reset(text);
    for (let kind = scanner.next(); kind !== END; kind = scanner.next()) {
      if (kind === ASCII_WORD) {
        const id = this.asciiId(text);
        const wordKind = this.asciiKinds[id] ?? 0;
        // A word of both languages ("in", "so", "was") tells neither.
        if (wordKind === 1) englishEvidence++;
        else if (wordKind === 2) germanEvidence++;
        if (reading === 'german' && (wordKind & 2) !== 0) continue;
        const row = this.asciiRows[id] ?? -1;
        let german = NO_ROWS;
        if (reading === 'german' || (wordKind & 4) !== 0) german = this.asciiGermanRows(id);
        else if (row < 0 && reading === 'english-or-german') german = this.asciiGermanRows(id, true);
        if (german.length > 0) for (const r of german) rows.push(r);
        else if (row >= 0) rows.push(row);
        continue;
      }
      const raw = text.slice(scanner.start, scanner.end);
      const word = this.complexWord(raw);
      if (word.german) germanEvidence++;
      if (reading === 'german' && word.functionWord) continue;
      let found = word.english;
      if (reading === 'german') {
        const german = this.germanRowsOf(raw);
        if (german.length > 0) found = german;
      } else if (found.length === 0 && reading === 'english-or-german') {
        found = this.germanRowsOf(raw, true);
      }
      for (const r of found) rows.push(r);
    }
    return { germanEvidence, englishEvidence };
  }

  /** The `asciiWords` id of the scanner's current word (plain ASCII), remembering a new word's rows. */
  private asciiId(text: string): number {
    const { scanner } = this;
    // Queries of a long-running server bring new words for ever: start afresh rather than grow.
    if (this.asciiWords.size >= WORD_CACHE_LIMIT) this.forgetAsciiWords();
    const known = this.asciiWords.size;
    const id = this.asciiWords.internRange(text, scanner.start, scanner.end, scanner.hash);
    if (id >= known) this.rememberAsciiRow(id);
    return id;
  }

  /** What the embedder knows of a word that is not plain ASCII (cached). */
  private complexWord(raw: string): ComplexWord {
    let word = this.complexRows.get(raw);
    if (word === undefined) {
      const english: number[] = [];
      for (const token of embeddingTokens(raw)) rowsOfToken(this.vocab.index, token, english);
      const functionWord = GERMAN_FUNCTION_WORDS.has(plainGerman(raw));
      // An umlaut or ß, or a German function word with another letter ("für"), says German.
      const german = functionWord || /[äöüß]/i.test(raw);
      if (this.complexRows.size >= WORD_CACHE_LIMIT) this.complexRows.clear();
      word = { english, german, functionWord };
      this.complexRows.set(raw, word);
    }
    return word;
  }

  /**
   * The rows of a word read as German: its lexicon entry, or the entries of its compound's parts. `strict`
   * for a word of a text that does not read as German (GermanLexicon.strictKeysOf). Uncached: a plain ASCII
   * word's rows are kept by its `asciiWords` id (asciiGermanRows), any other word's by its spelling (germanRowsOf).
   */
  private lookUpGermanRows(word: string, strict: boolean): readonly number[] {
    if (!this.lexicon) return NO_ROWS;
    const keys = strict ? this.lexicon.strictKeysOf(word) : this.lexicon.keysOf(word);
    return keys.map((key) => this.germanRows.get(key) ?? -1).filter((row) => row >= 0);
  }

  /** `lookUpGermanRows` of a word that is not an `asciiWords` term, cached by its spelling. */
  private germanRowsOf(word: string, strict = false): readonly number[] {
    if (!this.lexicon) return NO_ROWS;
    const cache = strict ? this.strictGerman : this.complexGerman;
    let found = cache.get(word);
    if (found === undefined) {
      found = this.lookUpGermanRows(word, strict);
      if (cache.size >= WORD_CACHE_LIMIT) cache.clear();
      cache.set(word, found);
    }
    return found;
  }

  /** `lookUpGermanRows` of an `asciiWords` term, cached by its id (forgotten with the terms). */
  private asciiGermanRows(id: number, strict = false): readonly number[] {
    const cache = strict ? this.asciiStrictGerman : this.asciiGerman;
    let found = cache[id];
    if (found === undefined) {
      found = this.lookUpGermanRows(this.asciiWords.terms[id] ?? '', strict);
      cache[id] = found;
    }
    return found;
  }

  private forgetAsciiWords(): void {
    this.asciiWords = new TermDictionary();
    this.asciiGerman = [];
    this.asciiStrictGerman = [];
  }

  private growWordBuffers(words: number): void {
    this.bases = new Int32Array(words * 2);
    this.weights = new Float64Array(words * 2);
  }

  private rememberAsciiRow(id: number): void {
    if (id >= this.asciiRows.length) {
      const grown = new Int32Array(this.asciiRows.length * 2);
      grown.set(this.asciiRows);
      this.asciiRows = grown;
      const kinds = new Uint8Array(grown.length);
      kinds.set(this.asciiKinds);
      this.asciiKinds = kinds;
    }
    const term = this.asciiWords.terms[id] ?? '';
    this.asciiRows[id] = rowOfPlain(this.vocab.index, term);
    const row = this.asciiRows[id] ?? -1;
    const rare = row >= 0 && (this.vocab.ranks[row] ?? 0) > RARE_IN_ENGLISH && this.lexicon?.has(term) === true;
    this.asciiKinds[id] = (ENGLISH_FUNCTION_WORDS.has(term) ? 1 : 0) | (GERMAN_FUNCTION_WORDS.has(plainGerman(term)) ? 2 : 0) | (rare ? 4 : 0);
  }

  /** The row of one word: English first, else the German lexicon's (a compound's first part). */
  private rowOf(word: string): number {
    const tokens = embeddingTokens(word);
    const [token] = tokens;
    if (tokens.length !== 1 || token === undefined) return -1;
    const row = rowOfWord(this.vocab.index, token);
    if (row >= 0 || !this.lexicon) return row;
    const german = this.germanRowsOf(token);
    return german.length === 1 ? (german[0] ?? -1) : -1;
  }
}

const NO_ROWS: readonly number[] = [];

/** A word that is not plain ASCII, as the embedder reads it. */
interface ComplexWord {
  /** Its English rows (diacritics stripped or umlauts spelt out). */
  english: readonly number[];
  /** Whether it says a text is German (an umlaut or ß, or a German function word). */
  german: boolean;
  functionWord: boolean;
}
/**
 * GloVe learnt German words from English text too ("krankenhaus", "stadt", "garten": ranks 45,000 –
 * 235,000), where they sit among German names rather than beside their meaning; the English words German
 * shares ("bad", "kind", "rat", "handy", "bauer") are all more frequent than this rank. So a word the lexicon
 * has and English uses more rarely than this is read as German, whatever the text's language.
 */
const RARE_IN_ENGLISH = 20_000;

// ---------------------------------------------------------------------------------------------------------
// German words: rows after the English ones

/** How much each of a German word's senses counts, in the lexicon's order (the first sense is the main one). */
const SENSE_WEIGHTS = [1, 0.8, 0.6, 0.5];

interface BilingualVocabulary {
  vocab: EmbeddingVocabulary;
  /** Stem key of a lexicon entry → its row. */
  rows: ReadonlyMap<string, number>;
}

const bilingualCache = new WeakMap<EmbeddingVocabulary, WeakMap<GermanLexicon, BilingualVocabulary>>();

/**
 * The vocabulary with one more row per German lexicon entry: the weighted mean of its senses' unit
 * vectors (a sense of several words — "real estate" — is the mean of its words), scaled to the senses'
 * mean length and quantised like the English rows. Its frequency rank, which sets its SIF weight, is its
 * most frequent sense's (a sense of several words counts by its rarest word): "machen" (make, do) weighs
 * as little as "do". Entries none of whose words the vocabulary has are left out. Built once per
 * vocabulary and lexicon (tens of milliseconds for 10,000 entries).
 */
function withGermanRows(english: EmbeddingVocabulary, lexicon: GermanLexicon): BilingualVocabulary {
  let byLexicon = bilingualCache.get(english);
  const cached = byLexicon?.get(lexicon);
  if (cached) return cached;
  const { dims, index, codes, scales, ranks } = english;
  // At most one row per entry; the entries none of whose senses the vocabulary has are dropped at the end.
  const extra = new Float32Array(lexicon.size * dims);
  const extraRanks: number[] = [];
  const keys: string[] = [];
  const sum = new Float64Array(dims);
  const mean = new Float64Array(dims);
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- typed arrays indexed within their length */
  for (const [key, senses] of lexicon.entries()) {
    sum.fill(0);
    let length = 0;
    let weights = 0;
    let rank = Infinity;
    for (let i = 0; i < senses.length && i < SENSE_WEIGHTS.length; i++) {
      const rows = senses[i]!.split(/\s+/).map((word) => rowOfWord(index, word));
      if (rows.length === 0 || rows.some((row) => row < 0)) continue;
      mean.fill(0);
      let rarest = 1;
      for (const row of rows) {
        const scale = scales[row]! / rows.length;
        const base = row * dims;
        for (let d = 0; d < dims; d++) mean[d] = mean[d]! + codes[base + d]! * scale;
        rarest = Math.max(rarest, ranks[row]!);
      }
      let squares = 0;
      for (let d = 0; d < dims; d++) squares += mean[d]! * mean[d]!;
      const meanNorm = Math.sqrt(squares);
      if (meanNorm === 0) continue;
      const weight = SENSE_WEIGHTS[i]!;
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + (weight * mean[d]!) / meanNorm;
      length += weight * meanNorm;
      weights += weight;
      rank = Math.min(rank, rarest);
    }
    if (weights === 0) continue;
    let squares = 0;
    for (let d = 0; d < dims; d++) squares += sum[d]! * sum[d]!;
    const scale = length / weights / Math.sqrt(squares);
    const base = keys.length * dims;
    for (let d = 0; d < dims; d++) extra[base + d] = sum[d]! * scale;
    extraRanks.push(rank);
    keys.push(key);
  }
  const count = english.count + keys.length;
  const allCodes = new Int8Array(count * dims);
  allCodes.set(codes.subarray(0, english.count * dims));
  const allScales = new Float32Array(count);
  allScales.set(scales.subarray(0, english.count));
  const allRanks = new Uint32Array(count);
  allRanks.set(ranks.subarray(0, english.count));
  const rows = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    const row = english.count + i;
    let peak = 0;
    for (let d = 0; d < dims; d++) peak = Math.max(peak, Math.abs(extra[i * dims + d]!));
    const scale = peak / 127 || 1;
    for (let d = 0; d < dims; d++) allCodes[row * dims + d] = Math.round(extra[i * dims + d]! / scale);
    allScales[row] = scale;
    allRanks[row] = extraRanks[i]!;
    rows.set(keys[i]!, row);
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  const vocab: EmbeddingVocabulary = { ...english, count, ranks: allRanks, scales: allScales, codes: allCodes };
  const built = { vocab, rows };
  if (!byLexicon) bilingualCache.set(english, (byLexicon = new WeakMap()));
  byLexicon.set(lexicon, built);
  return built;
}

let defaultEmbedder: SifGloveEmbedder | undefined;

/** The shared embedder over the committed asset (a = 1e-3), created on first use. */
export function sifGloveEmbedder(): SifGloveEmbedder {
  defaultEmbedder ??= new SifGloveEmbedder();
  return defaultEmbedder;
}

/** A word's unit vector from the committed asset (for similar_to boost / penalize terms), or null. */
export function wordVector(word: string): Float32Array | null {
  return sifGloveEmbedder().wordVector(word);
}

// ---------------------------------------------------------------------------------------------------------
// Common-component removal (SIF step 2)

/**
 * The first principal component u (unit length) of `count` rows of `dims` values — uncentred, as in SIF:
 * the direction all sentence vectors share. Power iteration on XᵀX from the rows' sum (a deterministic
 * start close to u); sign: u · (sum of rows) ≥ 0. All-zero rows (documents without a vector) do not count.
 * Does not modify `vectors`; subtract u from every document and every query with `applyComponentRemoval`.
 * One iteration reads the rows twice (~20 ms at 100,000 × 100) and it takes about a dozen, so a large
 * corpus passes `stride` to estimate u from every stride-th row (a direction shared by all rows is found
 * as well from a regular sample of ~16,000).
 */
export function removePrincipalComponent(vectors: Float32Array, count: number, dims: number, stride = 1): Float32Array {
  if (!Number.isInteger(count) || !Number.isInteger(dims) || count < 0 || dims < 1 || count * dims > vectors.length) {
    throw new RangeError('removePrincipalComponent: count × dims exceeds the array');
  }
  if (!Number.isInteger(stride) || stride < 1) throw new RangeError('removePrincipalComponent: stride must be a positive integer');
  const step = stride * dims;
  const start = new Float64Array(dims);
  for (let row = 0, base = 0; row < count; row += stride, base += step) {
    for (let d = 0; d < dims; d++) start[d] = (start[d] ?? 0) + (vectors[base + d] ?? 0);
  }
  let u = Float64Array.from(start);
  if (!normalise(u)) {
    u.fill(1);
    normalise(u);
  }
  const next = new Float64Array(dims);
  for (let iteration = 0; iteration < 200; iteration++) {
    next.fill(0);
    for (let row = 0, base = 0; row < count; row += stride, base += step) {
      let p = 0;
      for (let d = 0; d < dims; d++) p += (vectors[base + d] ?? 0) * (u[d] ?? 0);
      if (p === 0) continue;
      for (let d = 0; d < dims; d++) next[d] = (next[d] ?? 0) + p * (vectors[base + d] ?? 0);
    }
    if (!normalise(next)) return new Float32Array(dims); // all rows zero: nothing to remove
    let change = 0;
    for (let d = 0; d < dims; d++) change = Math.max(change, Math.abs((next[d] ?? 0) - (u[d] ?? 0)));
    u = Float64Array.from(next);
    if (change < 1e-9) break;
  }
  let side = 0;
  for (let d = 0; d < dims; d++) side += (u[d] ?? 0) * (start[d] ?? 0);
  const sign = side < 0 ? -1 : 1;
  return Float32Array.from(u, (x) => sign * x);
}

/**
 * Subtracts the projection on `u` from the vector at `vec[offset … offset + u.length)` and re-normalises it
 * to unit length, in place (a zero vector stays zero); returns `vec`.
 */
export function applyComponentRemoval(vec: Float32Array, u: Float32Array, offset = 0): Float32Array {
  const dims = u.length;
  let p = 0;
  for (let d = 0; d < dims; d++) p += (vec[offset + d] ?? 0) * (u[d] ?? 0);
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    const x = (vec[offset + d] ?? 0) - p * (u[d] ?? 0);
    vec[offset + d] = x;
    norm += x * x;
  }
  // Below this the vector was (almost) u itself: no direction is left.
  if (norm < 1e-12) {
    vec.fill(0, offset, offset + dims);
    return vec;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let d = 0; d < dims; d++) vec[offset + d] = (vec[offset + d] ?? 0) * inv;
  return vec;
}

/** `applyComponentRemoval` on each of `count` rows of a contiguous matrix; returns `vectors`. */
export function applyComponentRemovalRows(vectors: Float32Array, count: number, dims: number, u: Float32Array): Float32Array {
  if (u.length !== dims || count * dims > vectors.length) throw new RangeError('applyComponentRemovalRows: sizes');
  for (let row = 0; row < count; row++) applyComponentRemoval(vectors, u, row * dims);
  return vectors;
}

function normalise(v: Float64Array): boolean {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (!(norm > 0)) return false;
  const inv = 1 / Math.sqrt(norm);
  for (let d = 0; d < v.length; d++) v[d] = (v[d] ?? 0) * inv;
  return true;
}
