/**
 * From a need to a trade: users describe what they need ("the breaker keeps tripping", "mein Vater kann
 * nicht mehr allein duschen"); organizations describe what they are ("electrical installation", "ambulante
 * Pflege"). The committed table `data/concepts.json` (OrgIndex's own, built from `data/concepts/*.tsv`)
 * lists kinds of organizations with, in English and German, the words they use about themselves (trade)
 * and the words their customers use about the need (needs). A `describe` query that reads like the needs
 * of a kind borrows that kind's trade words:
 *
 *   match_k = WORD_SHARE · (the query's words among the kind's terms, by SIF weight, as a share of all of
 *             its words) + (1 − WORD_SHARE) · max(0, cos(q − c, needs_k − c), cos(q − c, trade_k − c))
 *   q'      = q + EXPANSION · Σ over the best kinds (at most TOP_KINDS, match ≥ MATCH_FLOOR) of match_k · trade_k
 *
 * with q, needs_k and trade_k SIF vectors of the same embedder (unit length; a kind's vector is the mean of
 * its English and German ones) and c the mean of all kinds' needs vectors (what every need shares). Words
 * are compared as the embedder reads them — the same vocabulary row, so "Steckdosen" meets "Steckdose" and
 * "outlets" meets "outlet" — which the averaged vectors alone blur. Query-side only: organization vectors
 * stay what their own texts say, so operators' data needs no NACE code or anything else for this to work.
 * Portable, synchronous; the table's vectors and word index are built once, on the first query (~0.1 s).
 */
import table from '../data/concepts.json' with { type: 'json' };
import { stemMinimalEnglish } from './tokenize.js';

/** The committed table's shape: per kind, the trade and needs terms of each language, comma-separated. */
export interface ConceptsAsset {
  about: string;
  kinds: { id: string; trade: Record<string, string>; needs: Record<string, string> }[];
}

/** What the expansion needs of an embedder: unit vectors of texts, and the vocabulary rows of their words. */
export interface TextEmbedder {
  readonly dims: number;
  embed(text: string, language?: 'en' | 'de'): Float32Array | null;
  wordRows(text: string, language?: 'en' | 'de'): number[];
  rowWeight(row: number): number;
}

/** How many kinds a query may borrow from (a need can fit two: "garden wall" → landscaping, masonry). */
export const TOP_KINDS = 2;
/** The least match between a query and a kind for it to borrow anything. */
export const MATCH_FLOOR = 0.3;
/** The weight of the borrowed trade vectors against the query's own. */
export const EXPANSION = 1.2;
/** The share of the match that comes from shared words (the rest: the cosine of the vectors). */
export const WORD_SHARE = 0.7;
/** The least SIF weight a query's words must add up to (one word of rank ~1,000) for it to match a kind. */
const MIN_TELLING_WEIGHT = 0.5;

interface KindVectors {
  id: string;
  needs: Float32Array;
  trade: Float32Array;
}

export class ConceptExpansion {
  private kinds: KindVectors[] | null = null;
  /** Vocabulary row → the kinds whose terms have it (indexes into `kinds`). */
  private byRow = new Map<number, number[]>();
  /** The mean of the kinds' needs vectors: what all needs share, taken out before comparing. */
  private center = new Float32Array(0);

  constructor(
    private readonly embedder: TextEmbedder,
    private readonly asset: ConceptsAsset = table,
  ) {}

  /** The kinds a query matches, best first, with their match in [0, 1]. */
  matches(text: string, query: Float32Array): { id: string; match: number }[] {
    const kinds = this.vectors();
    // Shared words: the query's rows (and their English singulars) found among a kind's terms, by weight.
    const rows = new Set([...this.embedder.wordRows(text), ...this.embedder.wordRows(singulars(text))]);
    let total = 0;
    const shared = new Float64Array(kinds.length);
    for (const row of rows) {
      const weight = this.embedder.rowWeight(row);
      total += weight;
      for (const k of this.byRow.get(row) ?? []) shared[k] = (shared[k] ?? 0) + weight;
    }
    // A query of function words alone says nothing to match ("the of and": its vector is noise).
    if (total < MIN_TELLING_WEIGHT) return [];
    const centered = subtract(query, this.center);
    const found: { kind: KindVectors; match: number }[] = [];
    kinds.forEach((kind, k) => {
      const similarity = Math.max(dot(centered, kind.needs), dot(centered, kind.trade));
      const words = total > 0 ? (shared[k] ?? 0) / total : 0;
      const match = WORD_SHARE * words + (1 - WORD_SHARE) * Math.max(0, similarity);
      if (match >= MATCH_FLOOR) found.push({ kind, match });
    });
    found.sort((a, b) => b.match - a.match || (a.kind.id < b.kind.id ? -1 : 1));
    return found.slice(0, TOP_KINDS).map(({ kind, match }) => ({ id: kind.id, match }));
  }

  /** The query vector with the trade vectors of the kinds it matches added, unit length (a new array). */
  expand(text: string, query: Float32Array): Float32Array {
    const out = Float32Array.from(query);
    const byId = new Map(this.vectors().map((kind) => [kind.id, kind]));
    for (const { id, match } of this.matches(text, query)) {
      const trade = byId.get(id)?.trade;
      if (!trade) continue;
      for (let d = 0; d < out.length; d++) out[d] = (out[d] ?? 0) + EXPANSION * match * (trade[d] ?? 0);
    }
    return unit(out);
  }

  /** Each kind's needs and trade vectors (the mean of its languages', centred), and the word index. */
  private vectors(): KindVectors[] {
    if (!this.kinds) {
      const { dims } = this.embedder;
      const raw: KindVectors[] = [];
      for (const { id, trade, needs } of this.asset.kinds) {
        const needsVector = this.meanOfLanguages(needs, dims);
        const tradeVector = this.meanOfLanguages(trade, dims);
        if (!needsVector || !tradeVector) continue;
        const k = raw.length;
        raw.push({ id, needs: needsVector, trade: tradeVector });
        for (const [language, terms] of [...Object.entries(needs), ...Object.entries(trade)]) {
          const lang = language === 'de' ? 'de' : 'en';
          for (const row of new Set([...this.embedder.wordRows(terms, lang), ...this.embedder.wordRows(singulars(terms), lang)])) {
            const list = this.byRow.get(row) ?? [];
            if (list[list.length - 1] !== k) list.push(k);
            this.byRow.set(row, list);
          }
        }
      }
      const center = new Float32Array(dims);
      for (const kind of raw) for (let d = 0; d < dims; d++) center[d] = (center[d] ?? 0) + (kind.needs[d] ?? 0) / raw.length;
      this.center = center;
      this.kinds = raw.map((kind) => ({ id: kind.id, needs: unit(subtract(kind.needs, center)), trade: unit(subtract(kind.trade, center)) }));
    }
    return this.kinds;
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
