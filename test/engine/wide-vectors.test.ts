// Vectors of the widths sentence encoders give (384, 768, 1,024, 2,048 dimensions; any model, not rotated
// into principal axes): the WebAssembly scan takes them (its query codes narrower past 512 dimensions, so
// that its int32 sums cannot overflow) and, like the JavaScript scan, answers exactly what brute force over
// the stored vectors answers. The hardest case for the sums: flat vectors whose signs agree with the
// query's, every code at its largest.
import { Random } from '../../src/engine/random.js';
import { scanCandidates, vectorScanAvailable } from '../../src/engine/relevance/vector-scan.js';
import { nearest, VectorMatrix } from '../../src/engine/relevance/vectors.js';

/** Unit vectors: `rows` random ones, then the query itself, its negation and flat vectors agreeing with it in all but a few signs. */
function matrixAround(random: Random, query: Float32Array, rows: number): { matrix: VectorMatrix; tieKey: Uint32Array } {
  const dims = query.length;
  const total = rows + 12;
  const data = new Float32Array(total * dims);
  const present = new Uint8Array(total).fill(1);
  for (let row = 0; row < rows; row++) {
    let norm = 0;
    const v = Array.from({ length: dims }, () => random.next() * 2 - 1);
    for (const x of v) norm += x * x;
    data.set(v.map((x) => x / Math.sqrt(norm)), row * dims);
  }
  data.set(query, rows * dims);
  data.set(query.map((x) => -x), (rows + 1) * dims);
  for (let j = 2; j < 12; j++) data.set(query.map((x, d) => (d < j * 3 ? -x : x)), (rows + j) * dims);
  const tieKey = Uint32Array.from({ length: total }, (_, row) => row);
  return { matrix: VectorMatrix.fromVectors(dims, data, present), tieKey };
}

function bruteForce(matrix: VectorMatrix, query: Float32Array, k: number, minScore: number): { rows: number[]; scores: number[]; total: number } {
  const { data } = matrix.plain();
  const { dims } = matrix;
  const hits: { row: number; score: number }[] = [];
  for (let row = 0; row < matrix.rows; row++) {
    // The scans' summation order (four accumulators), so that scores compare bit for bit.
    const sums = [0, 0, 0, 0];
    let d = 0;
    for (; d + 3 < dims; d += 4) for (let lane = 0; lane < 4; lane++) sums[lane] = sums[lane]! + data[row * dims + d + lane]! * query[d + lane]!;
    for (; d < dims; d++) sums[0] = sums[0]! + data[row * dims + d]! * query[d]!;
    const score = sums[0]! + sums[1]! + sums[2]! + sums[3]!;
    if (score >= minScore) hits.push({ row, score });
  }
  hits.sort((a, b) => b.score - a.score || a.row - b.row);
  return { rows: hits.slice(0, k).map((hit) => hit.row), scores: hits.slice(0, k).map((hit) => hit.score), total: hits.length };
}

test.each([384, 768, 1_024, 2_048])('%i dimensions: both scans answer as brute force; the WebAssembly one takes them', (dims) => {
  expect(vectorScanAvailable()).toBe(true);
  const random = new Random(dims);
  const query = Float32Array.from({ length: dims }, () => (random.next() < 0.5 ? -1 : 1) / Math.sqrt(dims));
  const { matrix, tieKey } = matrixAround(random, query, 2_000);
  const allowed = new Uint8Array(matrix.rows).fill(1);
  for (const [k, minScore] of [[10, -1], [25, 0.05], [5, 0.9]] as const) {
    const expected = bruteForce(matrix, query, k, minScore);
    for (const wasm of [true, false]) {
      const hits = nearest(matrix, query, k, allowed, minScore, tieKey, { wasm });
      expect({ rows: Array.from(hits.rows), scores: Array.from(hits.scores), total: hits.total }).toEqual(expected);
    }
  }
  // The first pass ran in WebAssembly, and every interval it gave holds the exact score.
  const exact = bruteForce(matrix, query, matrix.rows, -2);
  const scoreOf = new Map(exact.rows.map((row, i) => [row, exact.scores[i]!]));
  const candidates = scanCandidates(matrix.scan, Float64Array.from(query), allowed, -2, 10);
  expect(candidates).not.toBeNull();
  expect(candidates!.count).toBe(matrix.rows);
  for (let i = 0; i < candidates!.count; i++) {
    const score = scoreOf.get(candidates!.rows[i]!)!;
    expect(candidates!.low[i]!).toBeLessThanOrEqual(score);
    expect(candidates!.high[i]!).toBeGreaterThanOrEqual(score);
  }
  // The query itself is first, at 1.
  expect(exact.rows[0]).toBe(2_000);
  expect(exact.scores[0]).toBeCloseTo(1, 3);
});
