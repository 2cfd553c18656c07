/**
 * The analyzer of the keyword engine (text-index.ts): how a name, a body or a query term becomes index
 * terms. Pure, synchronous, no host globals; the same code runs at build time and at query time, so a
 * query and a document always agree.
 *
 * WORDS. A word is a maximal run of word characters — Unicode letters, digits and combining marks
 * (`\p{L}\p{N}\p{M}`) — that may contain, *between two word characters*, a hyphen (`-`, U+2010, U+2011)
 * or an apostrophe (`'`, U+2019, U+02BC). Everything else separates words (spaces, punctuation, `.`, `,`,
 * `/`, `&`, dashes): "e.V." is the two words `e` `v`, "86.21" is `86` `21` — a query for "e.V." or "86.21"
 * is a phrase of the same two words, so both sides still agree. Invisible characters (soft hyphen,
 * zero-width spaces and joiners, BOM) are dropped inside a word.
 *
 * FOLDING (per word, after NFC composition, so a decomposed "Mu\u0308nchen" equals "München"):
 * - lower case (per code point), then compatibility decomposition (NFKD: ligatures, full-width forms,
 *   superscripts) with every combining mark removed: `é` → `e`, `ç` → `c`, `ñ` → `n`;
 * - letters without a decomposition: `ß`/`ẞ` → `ss`, `æ` → `ae`, `œ` → `oe`, `ø` → `o`, `đ`/`ð` → `d`,
 *   `ł` → `l`, `ı` → `i`, `þ` → `th`, `ħ` → `h`;
 * - the German umlauts are TRANSLITERATED: `ä` → `ae`, `ö` → `oe`, `ü` → `ue`. That is the word's primary
 *   form. When it differs from the plain accent-stripped form (`ü` → `u`), that second form is the
 *   word's VARIANT and is indexed at the same position (like a synonym: it never counts towards the field
 *   length). Queries are folded to the primary form only, so:
 *     document "München" → `muenchen` + variant `munchen`;
 *     query "München" → `muenchen`, "Muenchen" → `muenchen`, "Munchen" → `munchen`: all three match.
 *     document "Muenchen" (spelt out) → `muenchen` only: found by "München" and "Muenchen", not "Munchen".
 *   `ß` folds to `ss` in both forms, so "Straße" and "Strasse" are the same word `strasse`.
 *
 * APOSTROPHES. A possessive `'s` at the end of a word (or of a compound part) is dropped, as Lucene's
 * English possessive filter does ("Macy's" → `macy`); any other inner apostrophe joins ("O'Reilly" →
 * `oreilly`).
 *
 * COMPOUNDS. A hyphenated word is indexed split AND whole: "Baden-Württemberg" gives the parts `baden`,
 * `wuerttemberg` (+ variant `wurttemberg`) at consecutive positions, and before them the joined form
 * `badenwuerttemberg` (+ `badenwurttemberg`) at the first part's position, overlapping (no length). The
 * joined form drops the hyphen, so "e-commerce" and "ecommerce" are the same term `ecommerce`; a query
 * word that is a compound looks up the joined form (text-index.ts), inside a multi-word phrase its parts.
 *
 * NOT DONE: stop words are kept (Elasticsearch's default `standard` analyzer keeps them too; BM25's idf
 * already makes "the" or "and" worth almost nothing, and the English list would delete "IT" and "no",
 * real words in this data — "IT-Systemhaus"); no stemming here: the index keeps words as written, and the
 * keyword engine expands a query word to its other forms instead (`stemMinimalEnglish`, `stemGerman`,
 * text-index.ts).
 */
import { stemmer as snowballGerman } from '@orama/stemmers/german';
import { FNV1A_OFFSET, fnv1a, fnv1aStep } from '../../contract/hash.js';

/** Receives the tokens of one text, in order. Positions are implicit: see the methods. */
export interface TokenVisitor {
  /**
   * A plain word at the next position: ASCII letters and digits only, no joiner; its term is
   * `text.slice(start, end)` lower-cased, and `hash` is `hashTerm` of that term (computed while scanning,
   * so a dictionary can look the word up without creating a string).
   */
  ascii(text: string, start: number, end: number, hash: number): void;
  /** Any other word at the next position: its folded primary form and its variant (null when the same). */
  word(term: string, variant: string | null): void;
  /**
   * The joined form of a hyphenated compound, reported just BEFORE its parts (which follow as `ascii` /
   * `word` calls, `parts` of them); it takes no position of its own — it sits at its first part's position.
   */
  compound(term: string, variant: string | null, parts: number): void;
}

/** FNV-1a over the UTF-16 code units of a term (the dictionary's hash; `TokenVisitor.ascii` passes it). */
export function hashTerm(term: string): number {
  return fnv1a(term) | 0;
}

// ---------------------------------------------------------------------------------------------------------
// Plural stemming (the keyword engine's query expansion, see text-index.ts)

/**
 * A folded term's stem under Lucene's EnglishMinimalStemmer (the "S-stemmer", Harman 1991), which only
 * undoes English plurals:
 *   -ies → -y (not -aies, -eies)             bakeries → bakery
 *   -es  → -e (not -aes, -ees, -oes, -ies)   services → service
 *   -s   → removed (not -us, -ss)            dentists → dentist; business, status stay
 * Terms shorter than 3 characters stay.
 */
export function stemMinimalEnglish(term: string): string {
  const len = term.length;
  if (len < 3 || term.charCodeAt(len - 1) !== 0x73) return term;
  const before = term.charCodeAt(len - 2);
  if (before === 0x75 || before === 0x73) return term; // -us, -ss
  if (before === 0x65) {
    const third = term.charCodeAt(len - 3);
    if (len > 3 && third === 0x69) {
      const fourth = term.charCodeAt(len - 4);
      if (fourth !== 0x61 && fourth !== 0x65) return `${term.slice(0, -3)}y`;
    }
    if (third === 0x69 || third === 0x61 || third === 0x6f || third === 0x65) return term;
  }
  return term.slice(0, -1);
}

/**
 * A folded term's stem under the Snowball German stemmer (the keyword engine's German forms, text-index.ts):
 * inflection and plural endings go, so "baeckereien", "backereien" and "baeckerei" share the stem `backerei`,
 * "heizungen" and "heizung" `heizung`, "mitarbeitern" and "mitarbeiter" `mitarbeit`. Folded terms spell
 * umlauts out (`ae`); like Snowball's "german2" variant, `ae`/`oe`/`ue` after a consonant other than `q` are
 * read as umlauts here before the stemmer ("Bauer", "Feuer", "Quelle" keep theirs), so the transliterated,
 * the plain-vowel and the umlaut spelling all meet. Terms shorter than 4 characters or with a digit stay as
 * they are (codes, numbers).
 */
export function stemGerman(term: string): string {
  if (term.length < 4 || /\d/.test(term)) return term;
  return snowballGerman(foldTypedUmlauts(term));
}

/** `ae`/`oe`/`ue` after a consonant other than `q` (or at the start) as the plain vowel: "baeckerei" → "backerei", as "bäckerei" folds. */
export function foldTypedUmlauts(word: string): string {
  return word.replace(/(?<![aeiouq])(a|o|u)e/g, '$1');
}

// ---------------------------------------------------------------------------------------------------------
// Character classes

const SEP = 0;
const WORD = 1;
const HYPHEN = 2;
const APOS = 3;
const IGNORE = 4;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = WORD;
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = WORD;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = WORD;
ASCII_CLASS[0x2d] = HYPHEN;
ASCII_CLASS[0x27] = APOS;

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

/** Classes of BMP code points above ASCII, computed on first sight: 0 = not yet known, else class + 1. */
const BMP_CLASS = new Uint8Array(0x10000);
/** Classes of astral code points, computed on first sight. */
const ASTRAL_CLASS = new Map<number, number>();

function computeClass(cp: number): number {
  if (cp === 0x2010 || cp === 0x2011) return HYPHEN;
  if (cp === 0x2019 || cp === 0x02bc) return APOS;
  if (cp === 0x00ad || (cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || cp === 0xfeff) return IGNORE;
  return WORD_CHAR.test(String.fromCodePoint(cp)) ? WORD : SEP;
}

/** The class of a code point. */
function classOf(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp] ?? SEP;
  if (cp < 0x10000) {
    const known = BMP_CLASS[cp] ?? 0;
    if (known !== 0) return known - 1;
    const cls = computeClass(cp);
    BMP_CLASS[cp] = cls + 1;
    return cls;
  }
  let cls = ASTRAL_CLASS.get(cp);
  if (cls === undefined) {
    cls = computeClass(cp);
    ASTRAL_CLASS.set(cp, cls);
  }
  return cls;
}

/** The code point at i (a lone surrogate is returned as itself and classifies as a separator). */
function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return c;
}

/** The class of the code point at i (0 past the end) and its width in code units, packed as class * 4 + width. */
function classAt(text: string, i: number): number {
  if (i >= text.length) return SEP * 4 + 1;
  const cp = codePointAt(text, i);
  return classOf(cp) * 4 + (cp > 0xffff ? 2 : 1);
}

// ---------------------------------------------------------------------------------------------------------
// Folding

/** Letters that have no decomposition to strip, and the German transliterations ([primary, variant]). */
const SPECIAL_FOLDS = new Map<number, readonly [string, string]>([
  [0xe4, ['ae', 'a']], // ä
  [0xc4, ['ae', 'a']], // Ä
  [0xf6, ['oe', 'o']], // ö
  [0xd6, ['oe', 'o']], // Ö
  [0xfc, ['ue', 'u']], // ü
  [0xdc, ['ue', 'u']], // Ü
  [0xdf, ['ss', 'ss']], // ß
  [0x1e9e, ['ss', 'ss']], // ẞ
  [0xe6, ['ae', 'ae']], // æ
  [0xc6, ['ae', 'ae']], // Æ
  [0x153, ['oe', 'oe']], // œ
  [0x152, ['oe', 'oe']], // Œ
  [0xf8, ['o', 'o']], // ø
  [0xd8, ['o', 'o']], // Ø
  [0x111, ['d', 'd']], // đ
  [0x110, ['d', 'd']], // Đ
  [0xf0, ['d', 'd']], // ð
  [0xd0, ['d', 'd']], // Ð
  [0x142, ['l', 'l']], // ł
  [0x141, ['l', 'l']], // Ł
  [0x131, ['i', 'i']], // ı
  [0xfe, ['th', 'th']], // þ
  [0xde, ['th', 'th']], // Þ
  [0x127, ['h', 'h']], // ħ
  [0x126, ['h', 'h']], // Ħ
]);

const COMBINING_MARKS = /\p{M}/gu;
const FOLD_CACHE = new Map<number, readonly [string, string]>();

/** [primary, variant] of one non-ASCII word character (both may be empty, e.g. a lone combining mark). */
function foldCodePoint(cp: number): readonly [string, string] {
  let folded = FOLD_CACHE.get(cp);
  if (folded === undefined) {
    folded = SPECIAL_FOLDS.get(cp);
    if (folded === undefined) {
      const plain = String.fromCodePoint(cp).toLowerCase().normalize('NFKD').replace(COMBINING_MARKS, '');
      // A compatibility decomposition may produce another special letter or upper case (rare): fold again.
      let out = '';
      for (const ch of plain) {
        const code = ch.codePointAt(0) ?? 0;
        out += SPECIAL_FOLDS.get(code)?.[0] ?? ch.toLowerCase();
      }
      folded = [out, out];
    }
    FOLD_CACHE.set(cp, folded);
  }
  return folded;
}

/** Lower-case ASCII codes (other codes below 128 map to themselves). */
const ASCII_LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

/** A word that is not plain ASCII, folded: its parts (one unless hyphenated) and the joined form. */
export interface FoldedWord {
  parts: string[];
  /** Per part, the variant or null. */
  variants: (string | null)[];
  /** The joined form of a compound (null for a single part) and its variant. */
  joined: string | null;
  joinedVariant: string | null;
}

const EMPTY_WORD: FoldedWord = { parts: [], variants: [], joined: null, joinedVariant: null };
/** A scanner keeps the folded forms of at most this many complex words (names and places repeat). */
const WORD_CACHE_LIMIT = 50_000;

/** Fold a word that is not plain ASCII (non-ASCII characters, hyphens or apostrophes). */
function foldComplexWord(raw: string): FoldedWord {
  const s = raw.normalize('NFC');
  const parts: string[] = [];
  const variants: (string | null)[] = [];
  const joinedVariants: string[] = [];
  let primary = '';
  let variant = '';
  const n = s.length;
  for (let i = 0; i <= n; ) {
    const cp = i < n ? codePointAt(s, i) : 0x2d;
    const width = cp > 0xffff ? 2 : 1;
    const cls = classOf(cp);
    if (cls === HYPHEN) {
      if (primary !== '') {
        parts.push(primary);
        variants.push(variant === primary ? null : variant);
        joinedVariants.push(variant);
      }
      primary = '';
      variant = '';
    } else if (cls === APOS) {
      // A possessive 's at the end of the word or of a part: drop both characters.
      const next = s.charCodeAt(i + width);
      if ((next === 0x73 || next === 0x53) && classAt(s, i + width + 1) >> 2 !== WORD) {
        i += width + 1;
        continue;
      }
    } else if (cls === WORD) {
      if (cp < 128) {
        const ch = String.fromCharCode(ASCII_LOWER[cp] ?? cp);
        primary += ch;
        variant += ch;
      } else {
        const [p, v] = foldCodePoint(cp);
        primary += p;
        variant += v;
      }
    }
    // IGNORE (and anything else inside the word) adds nothing.
    i += width;
  }
  let joined: string | null = null;
  let joinedVariant: string | null = null;
  if (parts.length > 1) {
    joined = parts.join('');
    const v = joinedVariants.join('');
    joinedVariant = v === joined ? null : v;
  }
  return { parts, variants, joined, joinedVariant };
}

/** Report a folded word: the joined compound (when there are several parts), then each part. */
function emitFolded(folded: FoldedWord, visitor: TokenVisitor): void {
  const { parts, variants, joined } = folded;
  if (joined !== null) visitor.compound(joined, folded.joinedVariant, parts.length);
  for (let k = 0; k < parts.length; k++) visitor.word(parts[k] ?? '', variants[k] ?? null);
}

/** The end of the word that continues at i (full rules: non-ASCII word characters, joiners between word characters). */
function complexWordEnd(text: string, from: number): number {
  let i = from;
  const n = text.length;
  while (i < n) {
    const packed = classAt(text, i);
    const cls = packed >> 2;
    const width = packed & 3;
    if (cls === WORD || cls === IGNORE) {
      i += width;
    } else if ((cls === HYPHEN || cls === APOS) && classAt(text, i + width) >> 2 === WORD) {
      i += width;
    } else {
      break;
    }
  }
  return i;
}

// ---------------------------------------------------------------------------------------------------------
// Scanning

/** `WordScanner.next` results. */
export const END = 0;
/** A plain ASCII word: `start`, `end`, `hash`. */
export const ASCII_WORD = 1;
/** Any other word: `folded` (and `start`, `end`: the raw word in the text). */
export const FOLDED_WORD = 2;

/**
 * The words of a text, one `next()` at a time (the index's build loop calls it directly; `tokenize` wraps
 * it in callbacks). Plain ASCII words (the vast majority) cost no allocation: their lower-cased form is
 * `text.slice(start, end).toLowerCase()` and `hash` its `hashTerm`, computed while scanning. Other words
 * are folded into strings once per distinct spelling (cached).
 */
export class WordScanner {
  text = '';
  start = 0;
  end = 0;
  hash = 0;
  folded: FoldedWord = EMPTY_WORD;
  private i = 0;
  /** Folded forms by spelling, for this scanner's lifetime (an index build): no memory kept after it. */
  private readonly cache = new Map<string, FoldedWord>();

  /** The folded form of a complex word. */
  private fold(raw: string): FoldedWord {
    let folded = this.cache.get(raw);
    if (folded === undefined) {
      folded = foldComplexWord(raw);
      if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
      this.cache.set(raw, folded);
    }
    return folded;
  }

  reset(text: string): void {
    this.text = text;
    this.i = 0;
  }

  next(): number {
    const text = this.text;
    const n = text.length;
    let i = this.i;
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c < 128) {
        if (ASCII_CLASS[c] !== WORD) {
          i++;
          continue;
        }
        // An ASCII word, hashed while scanning.
        const start = i;
        let hash = FNV1A_OFFSET;
        do {
          hash = fnv1aStep(hash, ASCII_LOWER[c] ?? 0);
          if (++i >= n) break;
          c = text.charCodeAt(i);
        } while (c < 128 && ASCII_CLASS[c] === WORD);
        // It may go on with a non-ASCII character or a joiner: the full rules decide where it ends.
        const end = i >= n || (c < 128 && ASCII_CLASS[c] === SEP) ? i : complexWordEnd(text, i);
        this.start = start;
        this.end = end;
        this.i = end;
        if (end === i) {
          this.hash = hash;
          return ASCII_WORD;
        }
        this.folded = this.fold(text.slice(start, end));
        return FOLDED_WORD;
      }
      const packed = classAt(text, i);
      const cls = packed >> 2;
      if (cls !== WORD && cls !== IGNORE) {
        i += packed & 3;
        continue;
      }
      const start = i;
      i = complexWordEnd(text, i);
      this.start = start;
      this.end = i;
      this.i = i;
      this.folded = this.fold(text.slice(start, i));
      if (this.folded.parts.length === 0) continue; // only invisible characters
      return FOLDED_WORD;
    }
    this.i = n;
    return END;
  }
}

/** How many of the texts hold a word: a text without one ("!!!") analyses to nothing. */
export function textsWithWords(texts: readonly string[]): number {
  // Whether a text has a word is known at its first word.
  const scanner = new WordScanner();
  let count = 0;
  for (const text of texts) {
    scanner.reset(text);
    if (scanner.next() !== END) count++;
  }
  return count;
}

/** Split a text into words and report them to the visitor, in order (see `WordScanner`). */
export function tokenize(text: string, visitor: TokenVisitor): void {
  const scanner = new WordScanner();
  scanner.reset(text);
  for (let kind = scanner.next(); kind !== END; kind = scanner.next()) {
    if (kind === ASCII_WORD) visitor.ascii(text, scanner.start, scanner.end, scanner.hash);
    else emitFolded(scanner.folded, visitor);
  }
}

/** One token of `analyze`: its term, the variant indexed beside it, its position, and whether it is a joined compound. */
export interface AnalyzedToken {
  term: string;
  variant: string | null;
  /** Position in the text (a compound shares its first part's position). */
  position: number;
  compound: boolean;
}

/** The tokens of a text as objects (queries, tests, explanations; the index uses `tokenize` directly). */
export function analyze(text: string): AnalyzedToken[] {
  const tokens: AnalyzedToken[] = [];
  let position = 0;
  tokenize(text, {
    ascii(source, start, end) {
      tokens.push({ term: source.slice(start, end).toLowerCase(), variant: null, position: position++, compound: false });
    },
    word(term, variant) {
      tokens.push({ term, variant, position: position++, compound: false });
    },
    compound(term, variant) {
      tokens.push({ term, variant, position, compound: true });
    },
  });
  return tokens;
}

/**
 * A query term as the index looks it up: its words' primary forms. `words[i]` is one word: a single term,
 * or for a hyphenated compound its joined form first and then its parts.
 */
export interface AnalyzedQueryWord {
  /** The joined form of a compound, or the word itself. */
  whole: string;
  /** The parts of a compound (length ≥ 2), or just [whole]. */
  parts: string[];
}

/** The words of a query term (primary forms only; see the module comment). */
export function analyzeQuery(text: string): AnalyzedQueryWord[] {
  const words: AnalyzedQueryWord[] = [];
  let open: AnalyzedQueryWord | null = null;
  /** Parts still expected for the open compound (they follow its joined form). */
  let pending = 0;
  const add = (term: string): void => {
    if (open && pending > 0) {
      open.parts.push(term);
      pending--;
      return;
    }
    words.push({ whole: term, parts: [term] });
  };
  tokenize(text, {
    ascii(source, start, end) {
      add(source.slice(start, end).toLowerCase());
    },
    word(term) {
      add(term);
    },
    compound(term, _variant, parts) {
      open = { whole: term, parts: [] };
      pending = parts;
      words.push(open);
    },
  });
  return words;
}
