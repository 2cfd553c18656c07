/**
 * The rankers of the scored modes, over the store's relevance structures (store-relevance.ts).
 *
 *   fulltext           BM25 over the keywords' candidates (set algebra first, then scoring)
 *   semantic           cosine(describe, organization) ≥ min_score, best first
 *   vector_similarity  per entry: anchor = v(domain) + 0.35·Σ v(boost) − 0.35·Σ v(penalize)
 *                      − 0.5·Σ v(repel_domains), re-normalised; entries summed by weight, normalised;
 *                      cosine ≥ min_score; the reference domains never appear
 *   hybrid             weighted RRF of the BM25 list and the vector list, each cut at HYBRID_WINDOW
 * A ranker reads the rows it may return (`Allowed`) as a read-only mask, or as their list when they are
 * few: the vector scan then reads only those rows' records.
 */
import type { ValidationErrorItem } from '../../contract/validation.js';
import type { Keywords } from '../../contract/v2/filters.js';
import type { SearchRequest } from '../../contract/v2/search.js';
import type { Ranker } from './scored.js';
import { populationOf, type QueryContext } from './context.js';
import { applyComponentRemoval } from '../relevance/embedder.js';
import { keywordQuery, searchableTextIndex, unprocessable, vectorsOf } from '../relevance/store-relevance.js';
import { orderFused, weightedRrf } from '../relevance/rrf.js';
import { nearest } from '../relevance/vectors.js';

/** Coefficients of the similar-to arithmetic (pinned; see the module comment). */
export const SIMILAR_TO_COEFFICIENTS = { boost: 0.35, penalize: 0.35, repel: 0.5 } as const;
/** How many rows of each list hybrid fuses (fixed, so that pages of one query rank alike). */
export const HYBRID_WINDOW = 1_000;

/** The rows a scored query may return: filters, the key's view and excludes applied. */
export interface Allowed {
  /** One byte per row, read-only (it may be shared); made on first use when `rows` is given. */
  mask(): Uint8Array;
  /** The allowed rows in ascending order when they are few enough to be read alone; null otherwise. */
  rows: Uint32Array | null;
}

/** A mask of the listed rows. */
export function maskOfRows(size: number, rows: ArrayLike<number>): Uint8Array {
  const mask = new Uint8Array(size);
  for (let i = 0; i < rows.length; i++) mask[rows[i] ?? 0] = 1;
  return mask;
}

/** The allowed rows without some (the reference domains of a similarity search). */
function withoutRows(allowed: Allowed, dropped: readonly number[]): Allowed {
  if (dropped.length === 0) return allowed;
  const drop = new Set(dropped);
  const rows = allowed.rows?.filter((row) => !drop.has(row)) ?? null;
  let mask: Uint8Array | null = null;
  return {
    rows,
    mask: () => {
      if (!mask) {
        mask = allowed.mask().slice();
        for (const row of drop) mask[row] = 0;
      }
      return mask;
    },
  };
}

export function fulltextRanker(context: QueryContext, keywords: Keywords, allowed: Allowed): Ranker {
  const index = searchableTextIndex(context.store, keywords, ['body', 'keywords']);
  return (k) => {
    const top = index.top(keywordQuery(keywords), k, allowed.mask(), context.store.domainRank);
    return { rows: top.docs, total: top.total, plan: [`bm25: ${top.total} matching document(s) (must_all ∩ must_any − must_not), name boost 2.0`] };
  };
}

/**
 * A query text's vector in the space of the store's vectors: the one the query brought (made ahead by
 * the embedder of those vectors), else the store's embedder's; null when the text has none. `ahead` says
 * which (the messages differ).
 */
function textVector(context: QueryContext, text: string, asQuery = false): { vector: Float32Array | null; ahead: boolean } {
  const given = context.queryVectors?.get(text);
  if (given !== undefined) return { vector: given && Float32Array.from(given), ahead: true };
  const { embedder } = vectorsOf(context.store);
  if (!embedder) throw new Error('this index\'s vectors come from a model the engine cannot run: its queries must bring their texts\' vectors');
  // A description is a search query: the built-in embedder reads a need as its trade too (concepts.ts).
  const vector = asQuery && embedder.embedQuery ? embedder.embedQuery(text) : embedder.embed(text);
  return { vector, ahead: false };
}

/** The query vector of `describe`, with the corpus's common component removed. */
function describeVector(context: QueryContext, describe: string): Float32Array {
  const { component } = vectorsOf(context.store);
  const { vector, ahead } = textVector(context, describe, true);
  if (!vector) {
    throw unprocessable([
      {
        type: 'value_error',
        loc: ['body', 'describe'],
        msg: ahead ? 'Value error, the embedding model gave describe no vector' : 'Value error, none of the words of describe is known to the built-in embedding vocabulary (English or German)',
        input: describe,
        ctx: { error: ahead ? 'no vector' : 'no known word' },
      },
    ]);
  }
  return applyComponentRemoval(vector, component);
}

function normalize(vector: Float32Array): Float32Array | null {
  let norm = 0;
  for (const v of vector) norm += v * v;
  if (norm === 0) return null;
  const scale = 1 / Math.sqrt(norm);
  return vector.map((v) => v * scale);
}

/** The combined similar-to query vector, and the rows of the reference domains (which never appear). */
function similarVector(context: QueryContext, request: SearchRequest): { query: Float32Array; references: number[] } {
  const { store } = context;
  const { matrix, component } = vectorsOf(store);
  const errors: ValidationErrorItem[] = [];
  const combined = new Float32Array(matrix.dims);
  const references: number[] = [];
  const domainVector = (domain: string, loc: (string | number)[]): Float32Array | null => {
    const row = store.rowOf(domain);
    const visible = row !== undefined && (context.visible === null || context.visible[row] === 1);
    const vector = visible ? matrix.vector(row) : null;
    if (row !== undefined && visible) references.push(row);
    if (!vector) {
      const reason = visible ? `${domain} has no description to compare with` : `${domain} is not in the index`;
      errors.push({ type: 'value_error', loc: ['body', ...loc], msg: `Value error, ${reason}`, input: domain, ctx: { error: reason } });
    }
    return vector;
  };
  // Concept terms live in the same space as the organizations: common component removed too.
  const termVector = (term: string, loc: (string | number)[]): Float32Array | null => {
    const { vector: raw, ahead } = textVector(context, term);
    const vector = raw ? applyComponentRemoval(raw, component) : null;
    if (!vector) {
      const reason = ahead ? `the embedding model gave "${term}" no vector` : `"${term}" has no word vector in the local embedding vocabulary`;
      errors.push({ type: 'value_error', loc: ['body', ...loc], msg: `Value error, ${reason}`, input: term, ctx: { error: reason } });
    }
    return vector;
  };
  (request.similar_to ?? []).forEach((entry, i) => {
    const base: (string | number)[] = ['similar_to', i];
    const anchor = domainVector(entry.domain, [...base, 'domain']);
    const parts: [Float32Array | null, number][] = [[anchor, 1]];
    entry.boost.forEach((term, j) => parts.push([termVector(term, [...base, 'boost', j]), SIMILAR_TO_COEFFICIENTS.boost]));
    entry.penalize.forEach((term, j) => parts.push([termVector(term, [...base, 'penalize', j]), -SIMILAR_TO_COEFFICIENTS.penalize]));
    entry.repel_domains.forEach((domain, j) => parts.push([domainVector(domain, [...base, 'repel_domains', j]), -SIMILAR_TO_COEFFICIENTS.repel]));
    const sum = new Float32Array(matrix.dims);
    for (const [vector, coefficient] of parts) if (vector) for (let d = 0; d < sum.length; d++) sum[d] = (sum[d] ?? 0) + coefficient * (vector[d] ?? 0);
    const unit = normalize(sum);
    if (unit) for (let d = 0; d < combined.length; d++) combined[d] = (combined[d] ?? 0) + entry.weight * (unit[d] ?? 0);
  });
  if (errors.length > 0) throw unprocessable(errors);
  const query = normalize(combined);
  if (!query) {
    const reason = 'the similar-to entries cancel out (all weights 0, or penalties equal to the anchors)';
    throw unprocessable([{ type: 'value_error', loc: ['body', 'similar_to'], msg: `Value error, ${reason}`, input: request.similar_to, ctx: { error: reason } }]);
  }
  return { query, references };
}

const NO_MASK = new Uint8Array(0);

function vectorRanker(context: QueryContext, query: Float32Array, allowed: Allowed, minScore: number, label: string, count = true): Ranker {
  const { matrix } = vectorsOf(context.store);
  const { rows } = allowed;
  return (k) => {
    const hits = rows
      ? nearest(matrix, query, k, NO_MASK, minScore, context.store.domainRank, { count, rows })
      : nearest(matrix, query, k, allowed.mask(), minScore, context.store.domainRank, { count });
    const found = hits.total === null ? `best ${hits.rows.length} at or above min_score ${minScore} (not counted)` : `${hits.total} at or above min_score ${minScore}`;
    const scanned = rows ? `${rows.length} vectors (the allowed rows alone)` : `${populationOf(context)} vectors`;
    return { rows: hits.rows, total: hits.total, plan: [`${label}: exact cosine scan over ${scanned} (pruned by bounds), ${found}`] };
  };
}

export function semanticRanker(context: QueryContext, request: SearchRequest, allowed: Allowed): Ranker {
  return vectorRanker(context, describeVector(context, request.describe ?? ''), allowed, request.min_score, 'semantic');
}

export function similarRanker(context: QueryContext, request: SearchRequest, allowed: Allowed): Ranker {
  const { query, references } = similarVector(context, request);
  return vectorRanker(context, query, withoutRows(allowed, references), request.min_score, 'vector_similarity');
}

/** Hybrid: the BM25 list and the vector list (describe or similar_to), each cut at the window, fused by weighted RRF. */
export function hybridRanker(context: QueryContext, request: SearchRequest, allowed: Allowed): Ranker {
  // Reference domains never appear, in either list: both rank over the same reduced rows.
  const similar = request.describe !== null ? null : similarVector(context, request);
  const query = similar ? similar.query : describeVector(context, request.describe ?? '');
  const vectorAllowed = withoutRows(allowed, similar?.references ?? []);
  const keyword = fulltextRanker(context, request.keywords ?? { must_all: [], must_any: [], must_not: [] }, vectorAllowed)(HYBRID_WINDOW);
  const vector = vectorRanker(context, query, vectorAllowed, request.min_score, 'vector', false)(HYBRID_WINDOW);
  const fused = orderFused(weightedRrf(keyword, vector, request.search_balance), (row) => context.store.domain(row));
  const ranking = {
    rows: fused.rows,
    total: fused.rows.length,
    plan: [
      ...keyword.plan,
      ...vector.plan,
      `hybrid: weighted RRF, β = search_balance = ${request.search_balance}, k = 60, top ${HYBRID_WINDOW} of each list → ${fused.rows.length} candidates`,
    ],
  };
  return (k) => ({ ...ranking, rows: ranking.rows.slice(0, k) });
}
