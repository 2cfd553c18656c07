/**
 * German words in the English vector space: a German word stands for the English words it translates to
 * (the committed lexicon `data/lexicon-de-en.json`, built from `data/lexicon/*.tsv`, OrgIndex's own: German
 * lemma → English senses), so a
 * German query and an English description — or the reverse — meet where their meanings do.
 *
 * - Inflection: a word not in the lexicon as written meets its lemma by their Snowball German stem
 *   (`stemGerman`), so "Heizungen", "Rohre" and "Bäckereien" find "heizung", "rohr" and "bäckerei",
 *   however the umlaut is typed.
 * - Compounds: a word the lexicon lacks is split once or twice into words it has, German linking letters
 *   allowed between them ("Heizungsbauer" → heizung + bauer, "Steuerberatungskanzlei" → steuer + beratung +
 *   kanzlei); German builds nouns that way, and the lexicon cannot list them all.
 * - Which language a text is in decides a word both languages have ("bad", "kind", "rat", "art", "gift"):
 *   the embedder counts the function words (function-words.ts) and umlauts of each language (embedder.ts).
 *
 * Portable, synchronous; the lexicon is read once on first use.
 */
import lexicon from '../data/lexicon-de-en.json' with { type: 'json' };
import { spellOutGerman } from '../german-spelling.js';
import { foldTypedUmlauts, stemGerman } from './tokenize.js';

interface LexiconAsset {
  about: string;
  files: string[];
  /** German lemma (lower case, umlauts as written) → "sense, sense" (English words of the vocabulary). */
  entries: Record<string, string>;
}

/** Lower case German spelt plain: umlauts and accents stripped, ß → ss ("für", "fuer" and "fur" → "fur"). */
export function plainGerman(word: string): string {
  return foldTypedUmlauts(spellOutGerman(word));
}

/**
 * The endings German inflection adds to a lemma ("Rohr-e", "Heizung-en", "Kind-er-n"), shortest first, so
 * that the longest lemma wins ("Bauer-n" before "Bau-ern").
 */
const GERMAN_ENDINGS = new Set(['e', 'n', 's', 'en', 'er', 'es', 'em', 'in', 'ern', 'nen', 'innen']);

/** The endings of a conjugated verb or its participle in place of the infinitive's -en / -n. */
const VERB_ENDINGS = ['t', 'st', 'et', 'est', 'te', 'ten', 'tet', 'e'];

/**
 * The longest word tried as a compound (the splitting costs the square of the length); German's long
 * compounds in use ("Steuerberatungsgesellschaft", 27) stay well below it.
 */
export const MAX_COMPOUND = 40;

/** The shortest part of a compound that counts ("Bio", "Kfz", "Bau"). */
const MIN_HEAD = 3;
const MIN_TAIL = 3;
/** German linking letters between the parts of a compound ("Heizung-s-bau", "Blume-n-laden"). */
const LINKS = ['', 's', 'es', 'n', 'en', 'e'];


export class GermanLexicon {
  /** Lemma, umlauts spelt out ("kueche") → English senses (each one or more words), most important first. */
  private readonly senses = new Map<string, string[]>();
  /** Snowball stem → the lemmas (spelt out) with that stem, shortest first. */
  private readonly byStem = new Map<string, string[]>();

  constructor(entries: Readonly<Record<string, string>>) {
    for (const [lemma, list] of Object.entries(entries)) {
      const key = spellOutGerman(lemma);
      const known = this.senses.get(key) ?? [];
      for (const sense of list.split(',')) {
        const trimmed = sense.trim();
        if (trimmed && !known.includes(trimmed)) known.push(trimmed);
      }
      this.senses.set(key, known);
    }
    for (const key of this.senses.keys()) {
      const stem = stemGerman(key);
      const lemmas = this.byStem.get(stem) ?? [];
      lemmas.push(key);
      this.byStem.set(stem, lemmas);
    }
    for (const lemmas of this.byStem.values()) lemmas.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  }

  get size(): number {
    return this.senses.size;
  }

  /** The lemmas of the lexicon (umlauts spelt out), each with its English senses. */
  entries(): IterableIterator<[string, readonly string[]]> {
    return this.senses.entries();
  }

  /** Whether the lexicon has the word (any inflection). */
  has(word: string): boolean {
    return this.lemmaOf(spellOutGerman(word)) !== null;
  }

  /**
   * The lemma of a word (spelt out): the word itself, else of the lemmas with its Snowball stem the longest
   * that begins the word — stems join unrelated words ("Bau" and "Bauer", "Küche" and "Kuchen"), and an
   * inflection only adds letters ("Bauern" → bauer, "Küchen" → kueche, "Heizungen" → heizung) — else the
   * shortest of them ("Rohre" → rohr).
   */
  private lemmaOf(word: string, strict = false): string | null {
    if (this.senses.has(word)) return word;
    // A lemma and an inflection ending: short words the stemmer leaves alone ("Baus", "Hofes").
    for (const ending of GERMAN_ENDINGS) {
      if (!word.endsWith(ending)) continue;
      const lemma = word.slice(0, word.length - ending.length);
      if (lemma.length >= MIN_HEAD && this.senses.has(lemma)) return lemma;
    }
    // A verb as people write it, its lemma the infinitive: "tropft", "springt", "repariert", "sammelt".
    for (const ending of VERB_ENDINGS) {
      if (!word.endsWith(ending)) continue;
      const base = word.slice(0, word.length - ending.length);
      for (const infinitive of [`${base}en`, `${base}n`]) if (base.length >= MIN_HEAD && this.senses.has(infinitive)) return infinitive;
    }
    // Strictly, that is all: a lemma and a German ending. Else the lemmas with the word's Snowball stem.
    if (strict) return null;
    const lemmas = this.byStem.get(stemGerman(word));
    if (!lemmas) return null;
    let best: string | null = null;
    for (const lemma of lemmas) if (word.startsWith(lemma) && (best === null || lemma.length > best.length)) best = lemma;
    return best ?? lemmas[0] ?? null;
  }

  /**
   * The lemmas a German word stands for: its own, or the parts of the compound it is made of (at most
   * three, the longest last part first); an empty list when neither. Not cached: the embedder keeps each
   * word's rows (embedder.ts, germanRowsOf).
   */
  keysOf(word: string): readonly string[] {
    const key = spellOutGerman(word);
    const lemma = this.lemmaOf(key);
    return lemma !== null ? [lemma] : (this.split(key, 2) ?? []);
  }

  /**
   * `keysOf` for a word of a text that does not read as German (an English word the English vectors
   * lack): only the lemma itself, the lemma with a German inflection or verb ending, or a compound — not
   * a word by its Snowball stem alone, which would read "kittens" as "Kitt".
   */
  strictKeysOf(word: string): readonly string[] {
    const lemma = this.lemmaOf(spellOutGerman(word), true);
    if (lemma !== null) return [lemma];
    const compound = this.keysOf(word);
    return compound.length > 1 ? compound : [];
  }

  /**
   * A compound's parts (lemmas), splitting the first part again up to `depth` times; null when none.
   * (nlp_search's parser splits by the index's terms instead: knownWords, language/query-parser.ts.)
   */
  private split(word: string, depth: number): string[] | null {
    if (word.length > MAX_COMPOUND) return null;
    for (let cut = MIN_HEAD; cut <= word.length - MIN_TAIL; cut++) {
      const tail = this.lemmaOf(word.slice(cut));
      if (tail === null) continue;
      for (const link of LINKS) {
        const head = word.slice(0, cut);
        if (!head.endsWith(link) || head.length - link.length < MIN_HEAD) continue;
        const bare = head.slice(0, head.length - link.length);
        const headLemma = this.lemmaOf(bare);
        if (headLemma !== null) return [headLemma, tail];
        const inner = depth > 1 ? this.split(bare, depth - 1) : null;
        if (inner) return [...inner, tail];
      }
    }
    return null;
  }
}

let shared: GermanLexicon | undefined;

/** The committed lexicon, read on first use. */
export function germanLexicon(): GermanLexicon {
  shared ??= new GermanLexicon((lexicon as LexiconAsset).entries);
  return shared;
}
