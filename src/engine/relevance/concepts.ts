/**
 * From a need to a trade: users describe what they need ("the breaker keeps tripping", "mein Vater kann
 * nicht mehr allein duschen"); organizations describe what they are ("electrical installation", "ambulante
 * Pflege"). The committed table `data/concepts.json` (OrgIndex's own, built from `data/concepts/*.tsv`)
 * lists kinds of organizations with, in English and German, the words they use about themselves (trade)
 * and the words their customers use about the need (needs). A `describe` query that reads like the needs
 * of a kind borrows that kind's trade words:
 *
 *   match_k = WORD_SHARE · (the query's words among the kind's terms, by SIF weight, as a share of all of
 *             its words, at most LONG_QUERY_WEIGHT of them) + (1 − WORD_SHARE) · max(0, (q − c) · needs_k,
 *             (q − c) · trade_k)
 *   q'      = q + EXPANSION · Σ over the best kinds (at most TOP_KINDS, match ≥ MATCH_FLOOR and
 *             ≥ SECOND_KIND_RATIO · the best match) of match_k · trade_k
 *
 * over the kinds that share at least one word with the query (words find the candidates, the vectors choose
 * among them), a word not counting when more than COMMON_WORD_SHARE of the kinds name it ("company",
 * "Firma"); q, needs_k and trade_k are SIF vectors of the same embedder (unit length; a kind's vector is
 * the mean of its English and German ones) and c the mean of all kinds' needs vectors (what every need
 * shares). Words are compared as the embedder reads them — the same vocabulary row, so "Steckdosen" meets
 * "Steckdose" and "outlets" meets "outlet" — or by their Snowball English stem ("washing" meets "wash"),
 * which the averaged vectors alone blur. Query-side only: organization vectors
 * stay what their own texts say, so operators' data needs no NACE code or anything else for this to work.
 * Portable, synchronous; the table's vectors and word index are built once, at a server's warm-up (`warm`) or
 * else on the first query (0.1–0.5 s).
 */
import table from '../data/concepts.json' with { type: 'json' };
import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemMinimalEnglish } from './tokenize.js';

/** The committed table's shape: per kind, the trade and needs terms of each language, comma-separated. */
export interface ConceptsAsset {
  about: string;
  kinds: { id: string; trade: Record<string, string>; needs: Record<string, string> }[];
}

/** What the expansion needs of an embedder: unit vectors of texts, and the vocabulary rows of their words. */
export interface ConceptEmbedder {
  readonly dims: number;
  embed(text: string, language?: 'en' | 'de'): Float32Array | null;
  wordRows(text: string, language?: 'en' | 'de'): number[];
  rowWeight(row: number): number;
}

/** How many kinds a query may borrow from (a need can fit two: "garden wall" → landscaping, masonry). */
const TOP_KINDS = 2;
/** The least match between a query and a kind for it to borrow anything. */
const MATCH_FLOOR = 0.2;
/**
 * A word in the terms of more than this share of the kinds is too common to make a kind a candidate
 * ("help", "Firma"); below it, the vectors choose among the kinds a word names.
 */
const COMMON_WORD_SHARE = 0.12;
/**
 * The second kind is borrowed only when it matches nearly as well as the best: a weaker second reading
 * pulls the query away from the need ("learning to drive a car" is not golf, "a puncture on my bike" not
 * a tyre dealer's).
 */
const SECOND_KIND_RATIO = 0.8;
/** The weight of the borrowed trade vectors against the query's own. */
const EXPANSION = 1.2;
/**
 * The share of the match that comes from shared words (the rest: the cosine of the vectors). Shared words
 * find the candidate kinds and weigh as much as a short query's vector needs against a table of wide
 * need lists; the vectors choose among the kinds ("Handwerker, die Heizungen und Rohre
 * reparieren" shares words with builders' merchants too, but reads like heating engineers and plumbers).
 */
const WORD_SHARE = 0.4;
/**
 * The shared words' weight counts against the query's words' weight, but against at most this much (about
 * three telling words): a long description ("someone to keep an eye on our yard after dark and check the
 * gate") names its need in a few of its words and should not be diluted by the rest.
 */
const LONG_QUERY_WEIGHT = 3;
/** The least SIF weight a query's words must add up to (one word of rank ~1,000) for it to match a kind. */
const MIN_TELLING_WEIGHT = 0.5;

/** The kinds' vectors as rows of two matrices (kinds × dims, centred, unit length), and the word index. */
interface KindTable {
  ids: string[];
  needs: Float32Array;
  trade: Float32Array;
  /** c · needs_k and c · trade_k: (q − c) · v = q · v − c · v, so the query is never copied. */
  centerNeeds: Float64Array;
  centerTrade: Float64Array;
  /** Vocabulary row → the kinds whose terms have it. */
  byRow: Map<number, number[]>;
  /** Snowball English stem of an English term's word → the kinds whose terms have it. */
  byEnglishStem: Map<string, number[]>;
}

export class ConceptExpansion {
  private table: KindTable | null = null;

  constructor(
    private readonly embedder: ConceptEmbedder,
    private readonly asset: ConceptsAsset = table,
  ) {}

  /** Builds the kinds' vectors and word index now rather than in the first query. */
  warm(): void {
    this.kinds();
  }

  /** The kinds a query matches, best first, with their match in [0, 1]. */
  matches(text: string, query: Float32Array): { id: string; match: number }[] {
    return this.best(text, query).map(({ k, match }) => ({ id: this.kinds().ids[k] ?? '', match }));
  }

  /** The query vector with the trade vectors of the kinds it matches added, unit length (a new array). */
  expand(text: string, query: Float32Array): Float32Array {
    const { trade } = this.kinds();
    const dims = query.length;
    const out = Float32Array.from(query);
    for (const { k, match } of this.best(text, query)) {
      const weight = EXPANSION * match;
      for (let d = 0; d < dims; d++) out[d] = (out[d] ?? 0) + weight * (trade[k * dims + d] ?? 0);
    }
    return unit(out);
  }

  private best(text: string, query: Float32Array): { k: number; match: number }[] {
    const { ids, needs, trade, centerNeeds, centerTrade, byRow, byEnglishStem } = this.kinds();
    // Shared words: the query's rows (and their English singulars) found among a kind's terms, by weight.
    const rows = new Set(this.embedder.wordRows(text));
    for (const row of this.embedder.wordRows(singulars(text))) rows.add(row);
    let total = 0;
    const shared = new Float64Array(ids.length);
    // Only a kind that shares a word with the query is a candidate: a word of the need must be there (a
    // query whose vector merely leans towards a kind borrows nothing), and most kinds share none.
    const candidates = new Set<number>();
    // A word many kinds name ("company", "service", "Firma") nominates none of them.
    const commonWordKinds = Math.max(1, COMMON_WORD_SHARE * ids.length);
    for (const row of rows) {
      const weight = this.embedder.rowWeight(row);
      total += weight;
      const kindsOfRow = byRow.get(row) ?? [];
      if (kindsOfRow.length > commonWordKinds) continue;
      for (const k of kindsOfRow) {
        shared[k] = (shared[k] ?? 0) + weight;
        candidates.add(k);
      }
    }
    // English words the terms have in another form ("washing" for "wash", "drawings" for "draw up"):
    // the Snowball English stem, where the word's own row did not match.
    for (const word of new Set(text.toLowerCase().match(/[a-z]+/g) ?? [])) {
      const kinds = byEnglishStem.get(stemEnglish(word));
      if (!kinds || kinds.length > commonWordKinds) continue;
      const [row] = this.embedder.wordRows(word, 'en');
      if (row === undefined) continue;
      const weight = this.embedder.rowWeight(row);
      const byItsRow = byRow.get(row) ?? [];
      for (const k of kinds) {
        if (byItsRow.includes(k)) continue;
        shared[k] = (shared[k] ?? 0) + weight;
        candidates.add(k);
      }
    }
    // A query of function words alone says nothing to match ("the of and": its vector is noise).
    if (total < MIN_TELLING_WEIGHT) return [];
    const dims = query.length;
    const found: { k: number; match: number }[] = [];
    const wordWeight = WORD_SHARE / Math.min(total, LONG_QUERY_WEIGHT);
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- typed arrays indexed within their length (a query's hot loop) */
    for (const k of candidates) {
      let toNeeds = 0;
      let toTrade = 0;
      for (let d = 0, at = k * dims; d < dims; d++, at++) {
        const q = query[d]!;
        toNeeds += q * needs[at]!;
        toTrade += q * trade[at]!;
      }
      const similarity = Math.max(toNeeds - centerNeeds[k]!, toTrade - centerTrade[k]!);
      const match = wordWeight * shared[k]! + (1 - WORD_SHARE) * Math.max(0, similarity);
      if (match >= MATCH_FLOOR) found.push({ k, match });
    }
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
    found.sort((a, b) => b.match - a.match || a.k - b.k);
    const best = found[0]?.match ?? 0;
    return found.slice(0, TOP_KINDS).filter(({ match }) => match >= SECOND_KIND_RATIO * best);
  }

  /** Each kind's needs and trade vectors (the mean of its languages', centred), and the word index. */
  private kinds(): KindTable {
    if (!this.table) {
      const { dims } = this.embedder;
      const ids: string[] = [];
      const rawNeeds: Float32Array[] = [];
      const rawTrade: Float32Array[] = [];
      const byRow = new Map<number, number[]>();
      const byEnglishStem = new Map<string, number[]>();
      for (const { id, trade, needs } of this.asset.kinds) {
        const needsVector = this.meanOfLanguages(needs, dims);
        const tradeVector = this.meanOfLanguages(trade, dims);
        if (!needsVector || !tradeVector) continue;
        const k = ids.length;
        ids.push(id);
        rawNeeds.push(needsVector);
        rawTrade.push(tradeVector);
        for (const word of `${needs.en ?? ''} ${trade.en ?? ''}`.toLowerCase().match(/[a-z]+/g) ?? []) {
          const stem = stemEnglish(word);
          const list = byEnglishStem.get(stem) ?? [];
          if (list[list.length - 1] !== k) list.push(k);
          byEnglishStem.set(stem, list);
        }
        for (const [language, terms] of [...Object.entries(needs), ...Object.entries(trade)]) {
          const lang = language === 'de' ? 'de' : 'en';
          for (const row of new Set([...this.embedder.wordRows(terms, lang), ...this.embedder.wordRows(singulars(terms), lang)])) {
            const list = byRow.get(row) ?? [];
            if (list[list.length - 1] !== k) list.push(k);
            byRow.set(row, list);
          }
        }
      }
      // What every need shares, taken out of both sides before they are compared.
      const center = new Float32Array(dims);
      for (const vector of rawNeeds) for (let d = 0; d < dims; d++) center[d] = (center[d] ?? 0) + (vector[d] ?? 0) / rawNeeds.length;
      const needs = new Float32Array(ids.length * dims);
      const trade = new Float32Array(ids.length * dims);
      const centerNeeds = new Float64Array(ids.length);
      const centerTrade = new Float64Array(ids.length);
      ids.forEach((_, k) => {
        const n = unit(subtract(rawNeeds[k] ?? center, center));
        const t = unit(subtract(rawTrade[k] ?? center, center));
        needs.set(n, k * dims);
        trade.set(t, k * dims);
        centerNeeds[k] = dot(center, n);
        centerTrade[k] = dot(center, t);
      });
      this.table = { ids, needs, trade, centerNeeds, centerTrade, byRow, byEnglishStem };
    }
    return this.table;
  }

  private meanOfLanguages(texts: Record<string, string>, dims: number): Float32Array | null {
    const sum = new Float32Array(dims);
    let any = false;
    for (const [language, text] of Object.entries(texts)) {
      const vector = this.embedder.embed(text, language === 'de' ? 'de' : 'en');
      if (!vector) continue;
      any = true;
      for (let d = 0; d < dims; d++) sum[d] = (sum[d] ?? 0) + (vector[d] ?? 0);
    }
    return any ? unit(sum) : null;
  }
}

/** The text with each word's English plural undone ("outlets" → "outlet"), to find terms written singular. */
function singulars(text: string): string {
  return text.replace(/\p{L}+/gu, (word) => stemMinimalEnglish(word.toLowerCase()));
}

function subtract(a: Float32Array, b: Float32Array): Float32Array {
  return a.map((x, d) => x - (b[d] ?? 0));
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return v.map((x) => x * inv);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += (a[d] ?? 0) * (b[d] ?? 0);
  return sum;
}
