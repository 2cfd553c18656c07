// The pruned vector scan (src/engine/relevance/vectors.ts) against the plainest brute force over the
// stored (decoded) vectors: every dot product, a full sort. Rows, scores and totals must be identical —
// the bounds may only save work.
// Both scans are checked: the WebAssembly one (vector-scan.ts, what Node runs by default) and the
// JavaScript one (hosts without WebAssembly SIMD).
import { execFileSync } from 'node:child_process';
import { createEngine, generateDataset } from '../../src/index.js';
import { applyComponentRemoval, sifGloveEmbedder } from '../../src/engine/relevance/embedder.js';
import { vectorsOf } from '../../src/engine/relevance/store-relevance.js';
import { currentRecords, prepareVectorScan, scanRecordBytes, scanRecords, shareScan, vectorScanAvailable, type ScanHelper } from '../../src/engine/relevance/vector-scan.js';
import { VECTOR_SCAN_SHARED_WASM, VECTOR_SCAN_WASM } from '../../src/engine/relevance/vector-scan-wasm.js';
import { Random } from '../../src/engine/random.js';
import { nearest, VectorMatrix, type VectorHits } from '../../src/engine/relevance/vectors.js';

function unit(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return norm === 0 ? values : values.map((v) => v / norm);
}

/** Random unit vectors whose energy decays with the dimension like principal axes (or is flat); every missingEvery-th row has none. */
function randomVectors(random: Random, rows: number, dims: number, decay: number, missingEvery = 0): { data: Float32Array; present: Uint8Array } {
  const data = new Float32Array(rows * dims);
  const present = new Uint8Array(rows);
  for (let row = 0; row < rows; row++) {
    if (missingEvery > 0 && row % missingEvery === 0) continue;
    const v = unit(Array.from({ length: dims }, (_, d) => (random.next() * 2 - 1) * Math.exp(-decay * d)));
    data.set(v, row * dims);
    present[row] = 1;
  }
  return { data, present };
}

function randomMatrix(random: Random, rows: number, dims: number, decay: number, missingEvery = 0): VectorMatrix {
  const { data, present } = randomVectors(random, rows, dims, decay, missingEvery);
  return VectorMatrix.fromVectors(dims, data, present);
}

function bruteForce(matrix: VectorMatrix, query: Float32Array, k: number, allowed: Uint8Array, minScore: number, tieKey: Uint32Array) {
  const hits: { row: number; score: number }[] = [];
  for (let row = 0; row < matrix.rows; row++) {
    if (!allowed[row] || !matrix.present[row]) continue;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    const base = row * matrix.dims;
    const { data } = matrix.plain();
    // The scan's summation order (four accumulators), so scores compare bit for bit.
    for (; d + 3 < matrix.dims; d += 4) {
      s0 += (data[base + d] ?? 0) * (query[d] ?? 0);
      s1 += (data[base + d + 1] ?? 0) * (query[d + 1] ?? 0);
      s2 += (data[base + d + 2] ?? 0) * (query[d + 2] ?? 0);
      s3 += (data[base + d + 3] ?? 0) * (query[d + 3] ?? 0);
    }
    for (; d < matrix.dims; d++) s0 += (data[base + d] ?? 0) * (query[d] ?? 0);
    const score = s0 + s1 + s2 + s3;
    if (score >= minScore) hits.push({ row, score });
  }
  hits.sort((a, b) => b.score - a.score || (tieKey[a.row] ?? 0) - (tieKey[b.row] ?? 0));
  const top = hits.slice(0, k);
  return { rows: top.map((h) => h.row), scores: top.map((h) => h.score), total: hits.length };
}

type Want = ReturnType<typeof bruteForce>;

function expectSame(got: VectorHits, want: Want, counted: boolean): void {
  expect(got.total).toBe(counted ? want.total : null);
  expect(Array.from(got.rows)).toEqual(want.rows);
  expect(Array.from(got.scores)).toEqual(want.scores);
}

/** Both scans, counted and not, against brute force; how many rows were compared. */
function checkAll(matrix: VectorMatrix, query: Float32Array, k: number, allowed: Uint8Array, minScore: number, tieKey: Uint32Array): number {
  const want = bruteForce(matrix, query, k, allowed, minScore, tieKey);
  for (const wasm of [true, false]) {
    expectSame(nearest(matrix, query, k, allowed, minScore, tieKey, { wasm }), want, true);
    // Without the count (hybrid): the same rows and scores, pruned on the k-th best alone.
    expectSame(nearest(matrix, query, k, allowed, minScore, tieKey, { wasm, count: false }), want, false);
  }
  return want.rows.length;
}

/** The same answer, row for row, score for score, and the same total. */
function expectEqualHits(got: VectorHits, want: VectorHits): void {
  expect(got.total).toBe(want.total);
  expect(Array.from(got.rows)).toEqual(Array.from(want.rows));
  expect(Array.from(got.scores)).toEqual(Array.from(want.scores));
}

/** The mask holding exactly the listed rows. */
function maskOf(list: Uint32Array, rows: number): Uint8Array {
  const mask = new Uint8Array(rows);
  for (const row of list) mask[row] = 1;
  return mask;
}

/** Each row with probability `share`, ascending. */
function randomList(random: Random, rows: number, share: number): Uint32Array {
  const list: number[] = [];
  for (let row = 0; row < rows; row++) if (random.next() < share) list.push(row);
  return Uint32Array.from(list);
}

/** A row list against the mask of the same rows: both scans, counted and not; how many rows were compared. */
function checkList(matrix: VectorMatrix, query: Float32Array, k: number, list: Uint32Array, minScore: number, tieKey: Uint32Array): number {
  const mask = maskOf(list, matrix.rows);
  let compared = 0;
  for (const wasm of [true, false]) {
    for (const count of [true, false]) {
      const want = nearest(matrix, query, k, mask, minScore, tieKey, { wasm, count });
      // The mask given is not read: an empty one, or one allowing every row, answers the same.
      expectEqualHits(nearest(matrix, query, k, new Uint8Array(0), minScore, tieKey, { wasm, count, rows: list }), want);
      expectEqualHits(nearest(matrix, query, k, new Uint8Array(matrix.rows).fill(1), minScore, tieKey, { wasm, count, rows: list }), want);
      compared += want.rows.length;
    }
  }
  return compared;
}

test('Node runs the WebAssembly scan (so the tests below compare both scans)', async () => {
  expect(WebAssembly.validate(VECTOR_SCAN_WASM)).toBe(true);
  expect(vectorScanAvailable()).toBe(true);
  await expect(prepareVectorScan()).resolves.toBe(true);
});

test('the embedded module is a fresh compile of vector-scan.wat', () => {
  // Throws (exit code 1) when the committed bytes differ from what wabt makes of the source.
  expect(() => execFileSync(process.execPath, ['scripts/wasm/build-vector-scan.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
});

describe('nearest: the pruned scan returns exactly what brute force returns', () => {
  const cases = [
    { name: 'energy in the first dimensions (principal axes)', decay: 0.08, dims: 100 },
    { name: 'flat energy (nothing to prune)', decay: 0, dims: 100 },
    { name: 'dimensions not a multiple of the step', decay: 0.05, dims: 37 },
    { name: 'fewer dimensions than one step', decay: 0.05, dims: 10 },
    { name: 'one dimension past the head (32)', decay: 0.05, dims: 33 },
    { name: 'dimensions ending at the second cut (64)', decay: 0.05, dims: 64 },
    { name: 'one chunk past the second cut', decay: 0.03, dims: 72 },
  ];
  for (const { name, decay, dims } of cases) {
    test(name, () => {
      const random = new Random(dims * 1000 + Math.round(decay * 100));
      const rows = 3_000;
      const matrix = randomMatrix(random, rows, dims, decay, 97);
      const tieKey = Uint32Array.from({ length: rows }, (_, row) => (row * 7919) % rows);
      let checked = 0;
      for (let i = 0; i < 12; i++) {
        // Queries near a row (high scores), and random ones (scores around 0).
        const near = Array.from(matrix.vector(1 + i * 101) ?? new Float32Array(dims));
        const raw = i % 2 === 0 ? near.map((v) => v + (random.next() - 0.5) * 0.3) : Array.from({ length: dims }, (_, d) => (random.next() * 2 - 1) * Math.exp(-decay * d));
        const query = Float32Array.from(unit(raw));
        const allowed = new Uint8Array(rows).fill(1);
        if (i % 3 === 1) for (let row = 0; row < rows; row += 3) allowed[row] = 0;
        for (const minScore of [-1, 0, 0.2, 0.35, 0.6]) {
          for (const k of [0, 1, 10, 100, 1_000]) checked += checkAll(matrix, query, k, allowed, minScore, tieKey);
        }
      }
      expect(checked).toBeGreaterThan(1_000);
    });
  }

  test('queries alternating between matrices of different sizes (buffers reused from query to query)', () => {
    const random = new Random(17);
    const small = randomMatrix(random, 500, 24, 0.05);
    const large = randomMatrix(random, 4_000, 24, 0.05, 13);
    let checked = 0;
    for (let i = 0; i < 6; i++) {
      for (const matrix of i % 2 === 0 ? [large, small] : [small, large]) {
        const tieKey = Uint32Array.from({ length: matrix.rows }, (_, row) => matrix.rows - 1 - row);
        const query = Float32Array.from(unit(Array.from({ length: 24 }, (_, d) => (random.next() * 2 - 1) * Math.exp(-0.05 * d))));
        const allowed = new Uint8Array(matrix.rows).fill(1);
        // All rows candidates (floor −1), then few: a long candidate list followed by a short one.
        for (const minScore of [-1, 0.3]) checked += checkAll(matrix, query, 50, allowed, minScore, tieKey);
      }
    }
    expect(checked).toBeGreaterThan(600);
  });

  test('equal scores (duplicate vectors) are ordered by the tie key, across the pruning threshold', () => {
    const dims = 40;
    const random = new Random(5);
    const base = unit(Array.from({ length: dims }, (_, d) => (random.next() * 2 - 1) * Math.exp(-0.1 * d)));
    const rows = 500;
    const data = new Float32Array(rows * dims);
    // Every row the same vector: every score ties, so only the tie key orders them.
    for (let row = 0; row < rows; row++) data.set(base, row * dims);
    const matrix = VectorMatrix.fromVectors(dims, data, new Uint8Array(rows).fill(1));
    const tieKey = Uint32Array.from({ length: rows }, (_, row) => rows - 1 - row);
    for (const wasm of [true, false]) {
      const hits = nearest(matrix, Float32Array.from(base), 5, new Uint8Array(rows).fill(1), 0.35, tieKey, { wasm });
      expect(Array.from(hits.rows)).toEqual([499, 498, 497, 496, 495]);
      expect(hits.total).toBe(rows);
    }
  });

  test('groups of equal vectors straddling the k-th place, the floor and masked rows', () => {
    const dims = 100;
    const random = new Random(17);
    const rows = 2_000;
    const distinct = Array.from({ length: 40 }, () => unit(Array.from({ length: dims }, (_, d) => (random.next() * 2 - 1) * Math.exp(-0.06 * d))));
    const data = new Float32Array(rows * dims);
    for (let row = 0; row < rows; row++) data.set(distinct[row % distinct.length] ?? [], row * dims);
    const matrix = VectorMatrix.fromVectors(dims, data, new Uint8Array(rows).fill(1));
    const tieKey = Uint32Array.from({ length: rows }, (_, row) => (row * 7919) % rows);
    const allowed = Uint8Array.from({ length: rows }, (_, row) => (row % 7 === 3 ? 0 : row % 5 === 0 ? 2 : 1));
    for (let i = 0; i < 6; i++) {
      const query = Float32Array.from(distinct[i] ?? []);
      for (const minScore of [-1, 0.1, 0.35]) for (const k of [1, 49, 50, 51, 100, 777]) checkAll(matrix, query, k, allowed, minScore, tieKey);
    }
  });

  test('a floor equal to a score, or one float step either side of it', () => {
    const random = new Random(23);
    const rows = 3_000;
    const matrix = randomMatrix(random, rows, 100, 0.06, 101);
    const tieKey = Uint32Array.from({ length: rows }, (_, row) => row);
    const allowed = new Uint8Array(rows).fill(1);
    const query = Float32Array.from(matrix.vector(7) ?? []);
    const scores = bruteForce(matrix, query, rows, allowed, -2, tieKey).scores;
    const step = (x: number, direction: 1 | -1) => {
      const view = new Float64Array([x]);
      const bits = new BigInt64Array(view.buffer);
      bits[0] = (bits[0] ?? 0n) + BigInt(x > 0 ? direction : -direction);
      return view[0] ?? x;
    };
    for (const place of [0, 1, 99, 100, 500, 2_000]) {
      const score = scores[place] ?? 0;
      for (const minScore of [score, step(score, 1), step(score, -1)]) {
        for (const k of [1, 100, 1_000]) checkAll(matrix, query, k, allowed, minScore, tieKey);
      }
    }
  });

  test('real organization vectors (a generated store): semantic and similar-to queries', () => {
    const index = createEngine(generateDataset({ count: 6_000, seed: 3 }));
    const { matrix, component } = vectorsOf(index.store);
    const embedder = sifGloveEmbedder();
    const tieKey = index.store.domainRank;
    const everything = new Uint8Array(matrix.rows).fill(1);
    const some = Uint8Array.from({ length: matrix.rows }, (_, row) => (row % 3 === 0 ? 0 : 1));
    const queries: Float32Array[] = [];
    for (const text of ['solar panels for homes', 'accounting software for small businesses', 'organic bakery', 'logistics and freight forwarding']) {
      const raw = embedder.embed(text);
      if (raw) queries.push(applyComponentRemoval(raw, component));
    }
    for (const row of [0, 11, 222, 3_333]) {
      const vector = matrix.vector(row);
      if (vector) queries.push(vector);
    }
    expect(queries.length).toBeGreaterThanOrEqual(6);
    let checked = 0;
    for (const query of queries) {
      for (const allowed of [everything, some]) {
        for (const minScore of [0, 0.35, 0.5]) for (const k of [10, 100, 1_000]) checked += checkAll(matrix, query, k, allowed, minScore, tieKey);
      }
    }
    expect(checked).toBeGreaterThan(5_000);
  });

  test('a row whose vector is all zeros scores 0 (listed from a floor of 0 down), a row without one never', () => {
    const random = new Random(29);
    const rows = 400;
    const { data, present } = randomVectors(random, rows, 100, 0.05, 50);
    // Present but zero (what removing the common component leaves of a text that was only that component).
    data.fill(0, 7 * 100, 8 * 100);
    const matrix = VectorMatrix.fromVectors(100, data, present);
    expect(Array.from(matrix.vector(7) ?? [])).toEqual(new Array<number>(100).fill(0));
    const tieKey = Uint32Array.from({ length: rows }, (_, row) => row);
    const allowed = new Uint8Array(rows).fill(1);
    const query = Float32Array.from(matrix.vector(3) ?? []);
    for (const minScore of [-1, 0, 1e-12]) for (const k of [10, 400]) checkAll(matrix, query, k, allowed, minScore, tieKey);
    const all = nearest(matrix, query, 400, allowed, -1, tieKey);
    expect(Array.from(all.rows)).toContain(7);
    expect(Array.from(all.rows)).not.toContain(50);
  });

  test('the stored vectors are the f32 ones coded: within 2 % of their length, scores within 0.02', () => {
    const random = new Random(37);
    const rows = 2_000;
    const dims = 100;
    const { data, present } = randomVectors(random, rows, dims, 0.06);
    const matrix = VectorMatrix.fromVectors(dims, data, present);
    const query = data.slice(5 * dims, 6 * dims);
    let worst = 0;
    let worstScore = 0;
    for (let row = 0; row < rows; row++) {
      const stored = matrix.vector(row) ?? new Float32Array(dims);
      let error = 0;
      let original = 0;
      let stored1 = 0;
      for (let d = 0; d < dims; d++) {
        const x = data[row * dims + d] ?? 0;
        error += (x - (stored[d] ?? 0)) ** 2;
        original += x * (query[d] ?? 0);
        stored1 += (stored[d] ?? 0) * (query[d] ?? 0);
      }
      worst = Math.max(worst, Math.sqrt(error));
      worstScore = Math.max(worstScore, Math.abs(original - stored1));
    }
    expect(worst).toBeLessThan(0.02);
    expect(worstScore).toBeLessThan(0.02);
  });

  test('records made apart (another thread, shared memory) answer as those made here; the scan holds them once', () => {
    const random = new Random(31);
    const rows = 2_000;
    const { data, present } = randomVectors(random, rows, 100, 0.06, 89);
    const first = VectorMatrix.fromVectors(100, data, present);
    const shared = new Uint8Array(new SharedArrayBuffer(scanRecordBytes(rows, 100)));
    const made = scanRecords(100, data, present, shared);
    expect(made.records).toBe(shared);
    const twin = new VectorMatrix(made, present);
    twin.prepareScan();
    // In the module's memory now, and there only.
    expect(made.records.length).toBe(0);
    expect(Array.from(currentRecords(made))).toEqual(Array.from(currentRecords(first.scan)));
    const tieKey = Uint32Array.from({ length: rows }, (_, row) => row);
    const allowed = new Uint8Array(rows).fill(1);
    for (const row of [1, 500, 1_999]) {
      const query = Float32Array.from(first.vector(row) ?? []);
      const want = nearest(first, query, 100, allowed, 0.35, tieKey);
      expectSame(nearest(twin, query, 100, allowed, 0.35, tieKey), { rows: Array.from(want.rows), scores: Array.from(want.scores), total: want.total ?? -1 }, true);
    }
    // Records of another shape are refused.
    expect(() => new VectorMatrix(made, new Uint8Array(rows + 1))).toThrow('scan records of another matrix');
  });

  test('a row list answers what the mask of the same rows answers: empty, one row, a few, many, every row, rows without vectors', () => {
    for (const { dims, decay } of [
      { dims: 100, decay: 0.06 },
      { dims: 37, decay: 0.05 },
    ]) {
      const random = new Random(41 + dims);
      const rows = 3_000;
      const matrix = randomMatrix(random, rows, dims, decay, 7);
      const tieKey = Uint32Array.from({ length: rows }, (_, row) => (row * 7919) % rows);
      const missing = Uint32Array.from({ length: rows / 7 }, (_, i) => i * 7 + 7).filter((row) => row < rows);
      const lists = [
        new Uint32Array(0),
        Uint32Array.of(random.int(0, rows - 1)),
        Uint32Array.of(0),
        Uint32Array.of(rows - 1),
        // Rows without vectors only, and a few rows among them.
        missing,
        Uint32Array.of(7, 8, 14, 15, 1_001),
        randomList(random, rows, 0.003),
        randomList(random, rows, 0.05),
        randomList(random, rows, 0.5),
        Uint32Array.from({ length: rows }, (_, row) => row),
      ];
      let compared = 0;
      for (let i = 0; i < 4; i++) {
        const near = Array.from(matrix.vector(1 + i * 313) ?? new Float32Array(dims));
        const query = Float32Array.from(unit(near.map((v) => v + (random.next() - 0.5) * 0.4)));
        for (const list of lists) {
          for (const minScore of [-1, 0, 0.35, 0.6]) for (const k of [0, 1, 10, 100, 3_000]) compared += checkList(matrix, query, k, list, minScore, tieKey);
        }
      }
      expect(compared).toBeGreaterThan(10_000);
      // And, where rows are listed, what brute force over the same mask answers.
      const query = Float32Array.from(matrix.vector(5) ?? []);
      const list = lists[7] ?? new Uint32Array(0);
      for (const wasm of [true, false]) {
        expectSame(nearest(matrix, query, 50, new Uint8Array(0), 0.2, tieKey, { wasm, rows: list }), bruteForce(matrix, query, 50, maskOf(list, rows), 0.2, tieKey), true);
      }
    }
  });

  test('a row list that does not strictly ascend within the matrix is refused', () => {
    const random = new Random(43);
    const matrix = randomMatrix(random, 100, 24, 0.05);
    const query = Float32Array.from(matrix.vector(1) ?? []);
    const tieKey = Uint32Array.from({ length: 100 }, (_, row) => row);
    for (const rows of [Uint32Array.of(3, 2), Uint32Array.of(4, 4), Uint32Array.of(1, 100), Uint32Array.of(2 ** 32 - 1)]) {
      for (const wasm of [true, false]) expect(() => nearest(matrix, query, 10, new Uint8Array(0), 0, tieKey, { wasm, rows })).toThrow(RangeError);
    }
  });

  test('tail norms are per row and per cut, never below the true norm', () => {
    const random = new Random(9);
    const matrix = randomMatrix(random, 50, 100, 0.05);
    expect(matrix.cuts).toEqual([16, 32, 48, 64, 80, 96]);
    for (let row = 0; row < 50; row++) {
      const v = matrix.vector(row) ?? new Float32Array(100);
      matrix.cuts.forEach((cut, c) => {
        const exact = Math.hypot(...Array.from(v.subarray(cut)));
        const stored = matrix.plain().tailNorms[row * matrix.cuts.length + c] ?? 0;
        expect(stored).toBeGreaterThanOrEqual(exact);
        expect(stored).toBeLessThan(exact * (1 + 1e-5) + 1e-12);
      });
    }
  });
});

describe('the scan shared with a helper (last: the scan then stays in shared memory)', () => {
  // The helper here runs its half on this thread, synchronously, in a second instance over the same shared
  // memory: the split and the merge are checked here, the real worker thread against a server process in
  // test/server/scale-smoke.test.ts.
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 65_536, shared: true });
  const other = new WebAssembly.Instance(new WebAssembly.Module(VECTOR_SCAN_SHARED_WASM), { env: { memory } });
  const scan = other.exports.scan as (...args: number[]) => number;
  const rows = 150_000;
  const random = new Random(31);
  const matrix = randomMatrix(random, rows, 100, 0.06, 89);
  const tieKey = Uint32Array.from({ length: rows }, (_, row) => (row * 7919) % rows);

  function check(queries: number): void {
    for (let i = 0; i < queries; i++) {
      const query = Float32Array.from(unit(Array.from(matrix.vector(7 + i * 4_999) ?? []).map((v) => v + (random.next() - 0.5) * 0.2)));
      const allowed = new Uint8Array(rows).fill(1);
      if (i % 2 === 1) for (let row = 0; row < rows; row += 5) allowed[row] = 0;
      for (const minScore of [0.35, 0.7]) {
        const want = bruteForce(matrix, query, 100, allowed, minScore, tieKey);
        expectSame(nearest(matrix, query, 100, allowed, minScore, tieKey), want, true);
        expectSame(nearest(matrix, query, 100, allowed, minScore, tieKey, { count: false }), want, false);
      }
    }
  }

  test('the helper scans the second half of the rows; the answers are brute force\'s', () => {
    matrix.prepareScan();
    const ranges: number[][] = [];
    let listed: number | null = null;
    const helper: ScanHelper = {
      start(args) {
        ranges.push([args[0] ?? -1, args[1] ?? -1]);
        listed = scan(...args);
        return true;
      },
      finish: () => listed,
    };
    expect(shareScan(memory, helper)).toBe(true);
    // The records moved into the shared memory.
    expect(Array.from(currentRecords(matrix.scan).subarray(0, 48))).toEqual(Array.from(new Uint8Array(memory.buffer, 0, 48)));
    check(4);
    expect(ranges.length).toBe(4 * 2 * 2);
    for (const range of ranges) expect(range).toEqual([rows / 2, rows]);
  });

  test('a helper that cannot start, or does not finish, leaves the rows to this thread, and is given up after failing', () => {
    let starts = 0;
    const busy: ScanHelper = { start: () => (starts++, false), finish: () => null };
    expect(shareScan(memory, busy)).toBe(true);
    check(1);
    expect(starts).toBe(4);
    const failing: ScanHelper = { start: () => (starts++, true), finish: () => null };
    expect(shareScan(memory, failing)).toBe(true);
    check(2);
    // Given up after its first failure: every later scan ran on this thread alone.
    expect(starts).toBe(5);
  });

  test('a long row list is split with the helper at its middle entry, a short one is not; the answers are the mask\'s', () => {
    const lists: number[][] = [];
    let listed: number | null = null;
    const helper: ScanHelper = {
      start(args) {
        // Argument 7 is the list's address: 0 for a range of rows under the mask.
        if (args[7]) lists.push([args[0] ?? -1, args[1] ?? -1]);
        listed = scan(...args);
        return true;
      },
      finish: () => listed,
    };
    expect(shareScan(memory, helper)).toBe(true);
    const long = randomList(random, rows, 0.8);
    const short = randomList(random, rows, 0.3);
    expect(long.length).toBeGreaterThan(100_000);
    expect(short.length).toBeLessThan(100_000);
    for (const [i, list] of [long, short].entries()) {
      const query = Float32Array.from(unit(Array.from(matrix.vector(11 + i * 7_001) ?? []).map((v) => v + (random.next() - 0.5) * 0.2)));
      for (const minScore of [0.35, 0.7]) checkList(matrix, query, 100, list, minScore, tieKey);
    }
    // The long list's WebAssembly scans only (two floors, counted and not, two masks given).
    expect(lists).toEqual(new Array<number[]>(8).fill([long.length >>> 1, long.length]));
  });

  test('a helper that lists its half of a row list and then fails: this thread scans that half again from the list', () => {
    const list = randomList(random, rows, 0.9);
    const query = Float32Array.from(matrix.vector(123) ?? []);
    // Every row that has a vector is listed from a floor of −1: the helper overwrites its half of the list.
    const want = nearest(matrix, query, 100, maskOf(list, rows), -1, tieKey, { wasm: false });
    let starts = 0;
    const failing: ScanHelper = {
      start(args) {
        starts++;
        scan(...args);
        return true;
      },
      finish: () => null,
    };
    expect(shareScan(memory, failing)).toBe(true);
    expectEqualHits(nearest(matrix, query, 100, new Uint8Array(0), -1, tieKey, { rows: list }), want);
    expect(starts).toBe(1);
  });
});
