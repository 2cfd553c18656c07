/** Scored modes over a generated dataset: cursors bound to the query, the depth cap, dedup, RRF, similar-to. */
import { createEngine, generateDataset, ValidationError, type SearchRequestInput, type SearchResponse } from '../../src/index.js';
import { applyComponentRemoval, sifGloveEmbedder } from '../../src/engine/relevance/embedder.js';
import { HYBRID_WINDOW, SIMILAR_TO_COEFFICIENTS } from '../../src/engine/query/rankers.js';
import { vectorsOf } from '../../src/engine/relevance/store-relevance.js';
import { RRF_K, orderFused, weightedRrf } from '../../src/engine/relevance/rrf.js';

const records = generateDataset({ count: 12_000, seed: 5 });
const index = createEngine(records);

function walk(request: SearchRequestInput): { domains: string[]; pages: SearchResponse[] } {
  const pages: SearchResponse[] = [];
  let cursor: SearchRequestInput['search_after'] = null;
  do {
    const page = index.search({ ...request, search_after: cursor });
    pages.push(page);
    cursor = page.metadata.search_after;
  } while (cursor !== null && pages.length < 100);
  return { domains: pages.flatMap((p) => p.data.map((r) => r.domain)), pages };
}

function validationLoc(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).detail.map((d) => d.loc);
  }
  throw new Error('expected a ValidationError');
}

describe('weighted reciprocal rank fusion', () => {
  test('score = (1 − β)/(60 + r_bm25) + β/(60 + r_vec); absent ranks add 0; ties by domain', () => {
    const fused = weightedRrf({ rows: [10, 20, 30] }, { rows: [30, 40] }, 0.25);
    expect(RRF_K).toBe(60);
    expect(fused.get(10)).toBeCloseTo(0.75 / 61, 15);
    expect(fused.get(20)).toBeCloseTo(0.75 / 62, 15);
    expect(fused.get(30)).toBeCloseTo(0.75 / 63 + 0.25 / 61, 15);
    expect(fused.get(40)).toBeCloseTo(0.25 / 62, 15);
    const names: Record<number, string> = { 1: 'b.de', 2: 'a.de' };
    expect(orderFused(weightedRrf({ rows: [1] }, { rows: [2] }, 0.5), (row) => names[row] ?? '').rows).toEqual([2, 1]);
  });

  test('β = 0 is BM25 alone, β = 1 vectors alone', () => {
    expect([...weightedRrf({ rows: [1, 2] }, { rows: [3] }, 0).keys()]).toEqual([1, 2]);
    expect([...weightedRrf({ rows: [1, 2] }, { rows: [3] }, 1).keys()]).toEqual([3]);
  });
});

describe('scored pages', () => {
  test('fulltext: every page, no duplicate, no gap, rows sum to total_hits', () => {
    const { domains, pages } = walk({ keywords: { must_any: ['software', 'cloud'] }, size: 97 });
    const total = pages[0]!.metadata.total_hits!;
    expect(total).toBeGreaterThan(200);
    expect(new Set(domains).size).toBe(domains.length);
    expect(domains).toHaveLength(total);
    expect(pages.every((p) => p.metadata.mode === 'fulltext' && p.metadata.total_hits === total)).toBe(true);
  });

  test('the page size may change between pages; the ranking does not', () => {
    const all = index.search({ keywords: { must_all: ['software'] }, size: 30 }).data.map((r) => r.domain);
    const first = index.search({ keywords: { must_all: ['software'] }, size: 10 });
    const second = index.search({ keywords: { must_all: ['software'] }, size: 20, search_after: first.metadata.search_after });
    expect([...first.data, ...second.data].map((r) => r.domain)).toEqual(all);
  });

  test('a cursor is bound to its query: another query, a forged cursor, a filter-mode cursor → 422 at search_after', () => {
    const cursor = index.search({ keywords: { must_all: ['software'] }, size: 5 }).metadata.search_after!;
    expect(cursor).toEqual([5, expect.stringMatching(/^q:[0-9a-f]{8}$/)]);
    expect(validationLoc(() => index.search({ keywords: { must_all: ['hotel'] }, search_after: cursor }))).toEqual([['body', 'search_after']]);
    expect(validationLoc(() => index.search({ keywords: { must_all: ['software'] }, search_after: [5] }))).toEqual([['body', 'search_after']]);
    expect(validationLoc(() => index.search({ keywords: { must_all: ['software'] }, search_after: ['alpha.de'] }))).toEqual([['body', 'search_after']]);
  });

  test('depth cap: 10,000 rows at most — the last page ends there with a null cursor; a cursor beyond is a 422', () => {
    // Every generated organization's hidden text says when it was founded.
    const request: SearchRequestInput = { keywords: { must_all: ['founded'] }, size: 500 };
    const { domains, pages } = walk(request);
    expect(pages[0]!.metadata.total_hits).toBeGreaterThan(10_000);
    expect(domains).toHaveLength(10_000);
    expect(new Set(domains).size).toBe(10_000);
    expect(pages[pages.length - 1]!.metadata.search_after).toBeNull();
    const token = pages[0]!.metadata.search_after![1];
    let message = '';
    try {
      index.search({ ...request, search_after: [10_000, token as string] });
    } catch (error) {
      message = (error as ValidationError).detail[0]!.msg;
    }
    expect(message).toMatch(/at most 10,000 rows deep; narrow the filters, or use filter mode/);
  });

  test('dedup: one row per organization name, pages still full, across pages too', () => {
    const { domains } = walk({ keywords: { must_any: ['software', 'consulting', 'construction'] }, size: 100, dedup: true });
    const nameOf = new Map(records.map((r) => [r.domain, r.name!.toLowerCase()]));
    const names = domains.map((d) => nameOf.get(d));
    expect(new Set(names).size).toBe(names.length);
    const firstPage = index.search({ keywords: { must_any: ['software', 'consulting', 'construction'] }, size: 100, dedup: true });
    expect(firstPage.data).toHaveLength(100);
  });

  test('filters narrow scored modes and excludes never appear', () => {
    const page = index.search({ describe: 'software development', filters: { state: ['Bayern'] }, excludes: [records[0]!.domain], size: 50, columns: ['state'] });
    expect(page.data.every((r) => r.state === 'Bayern')).toBe(true);
    expect(page.data.map((r) => r.domain)).not.toContain(records[0]!.domain);
  });

  test('min_score is the cosine floor; total_hits counts the rows above it', () => {
    const loose = index.search({ describe: 'dental practice', min_score: 0.2, size: 5 }).metadata.total_hits!;
    const strict = index.search({ describe: 'dental practice', min_score: 0.6, size: 5 }).metadata.total_hits!;
    expect(strict).toBeLessThan(loose);
    expect(strict).toBeGreaterThan(0);
  });

  test('explain lists the plan of a scored mode', () => {
    const plan = index.search({ keywords: { must_all: ['software'] }, describe: 'cloud hosting', explain: true }).metadata.explain_plan!;
    expect(plan[0]).toBe('mode: hybrid');
    expect(plan.some((line) => line.startsWith('hybrid: weighted RRF'))).toBe(true);
  });
});

describe('semantic and similar-to', () => {
  test('keywords without a searchable word are a 422 at keywords', () => {
    expect(validationLoc(() => index.search({ keywords: { must_all: ['!!'] } }))).toEqual([['body', 'keywords']]);
  });

  test('a description without a known word is a 422 at describe', () => {
    expect(validationLoc(() => index.search({ describe: 'xqzv wvvq' }))).toEqual([['body', 'describe']]);
  });

  test('unknown reference domains and unknown concept terms are 422s naming them', () => {
    expect(validationLoc(() => index.search({ similar_to: ['not-in-the-index.de', { domain: records[1]!.domain, boost: ['xqzvq'] }] }))).toEqual([
      ['body', 'similar_to', 0, 'domain'],
      ['body', 'similar_to', 1, 'boost', 0],
    ]);
  });

  test('the arithmetic: anchor + 0.35·boost, normalised; the reference never appears', () => {
    const reference = records.find((r) => r.nace_code === '62.10')!.domain;
    const { matrix, component } = vectorsOf(index.store);
    const row = index.store.rowOf(reference)!;
    const anchor = matrix.vector(row)!;
    const boost = applyComponentRemoval(sifGloveEmbedder().embed('cloud')!, component);
    const query = anchor.map((v, d) => v + SIMILAR_TO_COEFFICIENTS.boost * (boost[d] ?? 0));
    const norm = Math.hypot(...query);
    const unit = query.map((v) => v / norm);
    expect(component.length).toBe(matrix.dims);
    const expected = Array.from({ length: matrix.rows }, (_, r) => r)
      .filter((r) => r !== row && matrix.present[r])
      .map((r) => ({ r, score: matrix.vector(r)!.reduce((s, v, d) => s + v * (unit[d] ?? 0), 0) }))
      .sort((a, b) => b.score - a.score || index.store.domainRank[a.r]! - index.store.domainRank[b.r]!)
      .slice(0, 10)
      .map((x) => index.store.domain(x.r));
    const result = index.search({ similar_to: [{ domain: reference, boost: ['cloud'] }], size: 10, min_score: 0 });
    expect(result.metadata.mode).toBe('vector_similarity');
    expect(result.data.map((r) => r.domain)).toEqual(expected);
  });

  test('weights: an entry of weight 0 changes nothing', () => {
    const [a, b] = records.filter((r) => r.nace_code === '86.23').map((r) => r.domain);
    const alone = index.search({ similar_to: [a!], size: 20, min_score: 0, excludes: [b!] }).data.map((r) => r.domain);
    const weighted = index.search({ similar_to: [a!, { domain: b!, weight: 0 }], size: 20, min_score: 0 }).data.map((r) => r.domain);
    expect(weighted).toEqual(alone);
  });

  test('hybrid is the exact RRF of the BM25 and vector lists (top 1,000 each)', () => {
    const body = { keywords: { must_any: ['bakery', 'bread'] }, describe: 'organic bread and cakes' };
    const list = (request: SearchRequestInput): number[] => {
      const { domains } = walk({ ...request, size: 500 });
      return domains.slice(0, HYBRID_WINDOW).map((d) => index.store.rowOf(d)!);
    };
    const keyword = list({ keywords: body.keywords });
    const vector = list({ describe: body.describe });
    const expected = orderFused(weightedRrf({ rows: keyword }, { rows: vector }, 0.3), (row) => index.store.domain(row)).rows.slice(0, 40);
    const hybrid = index.search({ ...body, search_balance: 0.3, size: 40 });
    expect(hybrid.metadata.mode).toBe('hybrid');
    expect(hybrid.data.map((r) => index.store.rowOf(r.domain))).toEqual(expected);
  });
});
