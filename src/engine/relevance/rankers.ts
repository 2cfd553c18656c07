/**
 * The rankers of the scored modes, over relevance structures built once per store on first use:
 * the BM25 text index and the organization vectors (SIF-weighted GloVe of summary, tags and hidden text,
 * common component removed).
 *
 *   fulltext           BM25 over the keywords' candidates (set algebra first, then scoring)
 *   semantic           cosine(describe, organization) ≥ min_score, best first
 *   vector_similarity  per entry: anchor = v(domain) + 0.35·Σ v(boost) − 0.35·Σ v(penalize)
 *                      − 0.5·Σ v(repel_domains), re-normalised; entries summed by weight, normalised;
 *                      cosine ≥ min_score; the reference domains never appear
 *   hybrid             weighted RRF of the BM25 list and the vector list, each cut at HYBRID_WINDOW
 * The `allowed` mask a ranker receives is read-only (it may be shared); rankers that drop rows copy it.
 */
import { ValidationError } from '../../contract/errors.js';
import type { ValidationErrorItem } from '../../contract/validation.js';
import type { Keywords } from '../../contract/v2/filters.js';
import type { SearchRequest } from '../../contract/v2/search.js';
import type { Ranker } from '../query/scored.js';
import { populationOf, type QueryContext } from '../query/search.js';
import type { ColumnStore } from '../store/store.js';
import { applyComponentRemoval, applyComponentRemovalRows, removePrincipalComponent, sifGloveEmbedder, type Embedder } from './embedder.js';
import { orderFused, weightedRrf } from './rrf.js';
import { TextIndex, type TextIndexOptions } from './text-index.js';
import { nearest, VectorMatrix } from './vectors.js';

/** Coefficients of the similar-to arithmetic (pinned; see the module comment). */
export const SIMILAR_TO_COEFFICIENTS = { boost: 0.35, penalize: 0.35, repel: 0.5 } as const;
/** How many rows of each list hybrid fuses (fixed, so that pages of one query rank alike). */
export const HYBRID_WINDOW = 1_000;

interface Relevance {
  text: TextIndex | null;
  vectors: { matrix: VectorMatrix; component: Float32Array } | null;
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
  return TextIndex.build({ name: store.text.name, body: [store.text.summary, tags, store.indexText] }, options);
}

/** The store's BM25 index (default options), built on first use. */
export function textIndexOf(store: ColumnStore): TextIndex {
  const relevance = relevanceOf(store);
  relevance.text ??= buildTextIndex(store);
  return relevance.text;
}

/**
 * The texts an organization's vector is made from: its English summary and its tags. Adding the hidden
 * text measured 4.8 s instead of 2.2 s to build at 100,000 organizations for +0.02 nDCG@10 on the
 * semantic eval queries (npm run eval); start-up time won.
 */
function vectorTexts(store: ColumnStore, row: number): readonly string[] {
  const summary = store.text.summary[row];
  const tags = store.keywordsOf(row);
  return summary ? [summary, ...tags] : tags;
}

/** About this many organizations (a regular sample) estimate the common component of a large corpus. */
const COMPONENT_SAMPLE = 16_384;

export function vectorsOf(store: ColumnStore, embedder: Embedder = sifGloveEmbedder()): { matrix: VectorMatrix; component: Float32Array } {
  const relevance = relevanceOf(store);
  if (!relevance.vectors) {
    const dims = embedder.dims;
    const data = new Float32Array(store.size * dims);
    const present = new Uint8Array(store.size);
    for (let row = 0; row < store.size; row++) present[row] = embedder.embedInto(vectorTexts(store, row), data, row * dims) ? 1 : 0;
    const component = removePrincipalComponent(data, store.size, dims, Math.max(1, Math.ceil(store.size / COMPONENT_SAMPLE)));
    applyComponentRemovalRows(data, store.size, dims, component);
    relevance.vectors = { matrix: new VectorMatrix(dims, data, present), component };
  }
  return relevance.vectors;
}

/** Builds both structures now (servers call it at start-up; otherwise the first query pays). */
export function warmRelevance(store: ColumnStore): void {
  textIndexOf(store);
  vectorsOf(store);
}

function unprocessable(items: ValidationErrorItem[]): ValidationError {
  return new ValidationError(items, 422);
}

function keywordQuery(keywords: Keywords): { must_all: string[]; must_any: string[]; must_not: string[] } {
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

export function fulltextRanker(context: QueryContext, keywords: Keywords, allowed: Uint8Array): Ranker {
  const index = searchableTextIndex(context.store, keywords, ['body', 'keywords']);
  return (k) => {
    const top = index.top(keywordQuery(keywords), k, allowed, context.store.domainRank);
    return { rows: top.docs, total: top.total, plan: [`bm25: ${top.total} matching document(s) (must_all ∩ must_any − must_not), name boost 2.0`] };
  };
}

/** The query vector of `describe`, with the corpus's common component removed. */
function describeVector(context: QueryContext, describe: string): Float32Array {
  const { component } = vectorsOf(context.store);
  const vector = sifGloveEmbedder().embed(describe);
  if (!vector) {
    throw unprocessable([
      {
        type: 'value_error',
        loc: ['body', 'describe'],
        msg: 'Value error, none of the words of describe is in the local embedding vocabulary (English words work best)',
        input: describe,
        ctx: { error: 'no known word' },
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

/** The combined similar-to query vector; reference rows are removed from `allowed`. */
function similarVector(context: QueryContext, request: SearchRequest, allowed: Uint8Array): Float32Array {
  const { store } = context;
  const { matrix, component } = vectorsOf(store);
  const embedder = sifGloveEmbedder();
  const errors: ValidationErrorItem[] = [];
  const combined = new Float32Array(matrix.dims);
  const domainVector = (domain: string, loc: (string | number)[]): Float32Array | null => {
    const row = store.rowOf(domain);
    const visible = row !== undefined && (context.visible === null || context.visible[row] === 1);
    const vector = visible ? matrix.vector(row) : null;
    if (row !== undefined && visible) allowed[row] = 0;
    if (!vector) {
      const reason = visible ? `${domain} has no description to compare with` : `${domain} is not in the index`;
      errors.push({ type: 'value_error', loc: ['body', ...loc], msg: `Value error, ${reason}`, input: domain, ctx: { error: reason } });
    }
    return vector;
  };
  // Concept terms live in the same space as the organizations: common component removed too.
  const termVector = (term: string, loc: (string | number)[]): Float32Array | null => {
    const raw = embedder.embed(term);
    const vector = raw ? applyComponentRemoval(raw, component) : null;
    if (!vector) {
      const reason = `"${term}" has no word vector in the local embedding vocabulary`;
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
  return query;
}

function vectorRanker(context: QueryContext, query: Float32Array, allowed: Uint8Array, minScore: number, label: string, count = true): Ranker {
  const { matrix } = vectorsOf(context.store);
  return (k) => {
    const hits = nearest(matrix, query, k, allowed, minScore, context.store.domainRank, { count });
    const found = hits.total === null ? `best ${hits.rows.length} at or above min_score ${minScore} (not counted)` : `${hits.total} at or above min_score ${minScore}`;
    return { rows: hits.rows, total: hits.total, plan: [`${label}: exact cosine scan over ${populationOf(context)} vectors (pruned by bounds), ${found}`] };
  };
}

export function semanticRanker(context: QueryContext, request: SearchRequest, allowed: Uint8Array): Ranker {
  return vectorRanker(context, describeVector(context, request.describe ?? ''), allowed, request.min_score, 'semantic');
}

export function similarRanker(context: QueryContext, request: SearchRequest, allowed: Uint8Array): Ranker {
  const withoutReferences = allowed.slice();
  const query = similarVector(context, request, withoutReferences);
  return vectorRanker(context, query, withoutReferences, request.min_score, 'vector_similarity');
}

/** Hybrid: the BM25 list and the vector list (describe or similar_to), each cut at the window, fused by weighted RRF. */
export function hybridRanker(context: QueryContext, request: SearchRequest, allowed: Uint8Array): Ranker {
  // Reference domains never appear, in either list: both rank over the same reduced mask.
  const vectorAllowed = allowed.slice();
  const query = request.describe !== null ? describeVector(context, request.describe) : similarVector(context, request, vectorAllowed);
  const keyword = fulltextRanker(context, request.keywords ?? { must_all: [], must_any: [], must_not: [] }, vectorAllowed)(HYBRID_WINDOW);
  const vector = vectorRanker(context, query, vectorAllowed, request.min_score, 'vector', false)(HYBRID_WINDOW);
  const fused = orderFused(weightedRrf(keyword, vector, request.search_balance), (row) => context.store.domains[row] ?? '');
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
