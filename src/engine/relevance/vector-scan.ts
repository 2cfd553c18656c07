/**
 * The first pass of nearest() (vectors.ts) in WebAssembly SIMD (vector-scan.wat): every allowed row's
 * score estimated from 8-bit codes, with an interval the exact score is certain to lie in. nearest()
 * re-scores exactly only the rows the intervals cannot settle (a few hundred of 100,000 at min_score
 * 0.35), so its results stay those of brute force.
 *
 * Codes: each coordinate is divided by its axis unit, a power of the axis's RMS over the organizations
 * (the principal axes carry very different energies; one scale per row would leave the later axes a
 * code or two, and twice the error), then by a per-row scale that maps the row's largest value to 127.
 * The query is coded to 16 bits the same way.
 * With ŷ the decoded row in axis units, e = x − ŷ·axis its error and q̂ the decoded query:
 *   x·q = e·q + ŷ·q̂ + ŷ·(axis∘q − q̂),  so  |x·q − ŷ·q̂| ≤ ‖e‖·‖q‖ + ‖ŷ‖·‖axis∘q − q̂‖
 * (Cauchy–Schwarz twice); ‖e‖ is stored per row and ‖ŷ‖ taken at its largest over the rows (the query's
 * 16-bit error makes that term tiny), both rounded up.
 *
 * The records are made once per matrix: at start-up by prepareScan() (warmRelevance) or on the server's
 * worker thread (expectScanRecords), else on the first query (about 0.2 s at 100,000 rows).
 *
 * Hosts: Excel's older runtime has no WebAssembly or no SIMD (detected by validating the module; the
 * JavaScript scan runs instead, with identical results). Apps Script compiles only asynchronously:
 * there the scan is used once prepareVectorScan() has resolved. Elsewhere the module (a few hundred
 * bytes, under every synchronous-compile limit) is compiled on first use.
 */
import { kthBestLow } from './top-k.js';
import { VECTOR_SCAN_WASM } from './vector-scan-wasm.js';

type ScanExport = (
  rows: number, chunks: number, data: number, query: number, mask: number, outRow: number, outLow: number, outHigh: number,
  t: number, qNorm: number, constant: number, floor: number,
) => number;

interface Scanner {
  memory: WebAssembly.Memory;
  scan: ScanExport;
  /** The coded matrix whose bytes the memory holds now (one at a time: hosts hold one store). */
  resident: Coded | null;
}

/**
 * A matrix in the scan's codes: one record per row (see vector-scan.wat). Plain data, so that it can be made
 * ahead of the first query, on another thread too (scanRecords, prepareScan).
 */
export interface ScanRecords {
  rows: number;
  dims: number;
  /** The unit of each axis, RMS^(3/4) (1 for an all-zero axis). */
  axis: Float64Array;
  records: Uint8Array;
  /** The largest ‖ŷ‖ (decoded row, axis units) of any row: it weighs the query's own quantisation error. */
  decodedPeak: number;
}

/** Scan records, with where each part goes in the module's memory (the records from offset 0). */
interface Coded extends ScanRecords {
  chunks: number;
  layout: { mask: number; query: number; outRow: number; outLow: number; outHigh: number; end: number };
}

export interface ScanCandidates {
  /** How many rows could reach the floor; rows, low and high hold that many entries. */
  count: number;
  /** Ascending. */
  rows: Uint32Array;
  /** The exact score of rows[i] lies in [low[i], high[i]]. */
  low: Float64Array;
  high: Float64Array;
  /** A score the k-th best row certainly reaches (+∞ for k ≤ 0, −∞ with fewer than k candidates). */
  kth: number;
}

/** Covers the floating-point rounding of the estimate, of the bound and of the exact score (all below 1e-13 for unit vectors). */
const SLACK = 1e-9;
/** int32 sums stay exact up to this many dimensions (see vector-scan.wat). */
const MAX_DIMS = 512;
const QUERY_CODE = 32_767;
const ROW_CODE = 127;
/**
 * The axis unit is RMS^(3/4) (this power of the mean square): the rows' quantisation error ‖e‖, which
 * sets every interval's width, is then about 13 % smaller on the organizations' vectors than with the
 * RMS itself, so fewer rows are left for the exact pass (any unit keeps the bound certain: ‖e‖ is
 * measured).
 */
const AXIS_POWER = 3 / 8;
/** Bytes after a record's codes: its scale and error (f32, so records keep 4-byte alignment: codes take a multiple of 8). */
const RECORD_META = 8;

let scanner: Scanner | null = null;
let supported: boolean | undefined;
let syncRefused = false;
let enabled = true;

/** Turns the WebAssembly scan off or on for every later nearest() (benchmarks compare the two scans). */
export function setVectorScanEnabled(on: boolean): void {
  enabled = on;
}

function webAssembly(): typeof WebAssembly | undefined {
  return (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
}

/** Whether this host can run the WebAssembly scan (it may still have to compile it: prepareVectorScan). */
export function vectorScanSupported(): boolean {
  return isSupported();
}

function isSupported(): boolean {
  if (supported === undefined) {
    try {
      supported = webAssembly()?.validate(VECTOR_SCAN_WASM) ?? false;
    } catch {
      supported = false;
    }
  }
  return supported;
}

function scannerOf(instance: WebAssembly.Instance): Scanner {
  return { memory: instance.exports.memory as WebAssembly.Memory, scan: instance.exports.scan as ScanExport, resident: null };
}

/**
 * Compiles the scan asynchronously, where a host allows nothing else (Apps Script) or prefers it (a
 * browser's main thread); true when nearest() will use it. Safe to call any number of times.
 */
export function prepareVectorScan(): Promise<boolean> {
  const wasm = webAssembly();
  if (scanner) return Promise.resolve(true);
  if (!wasm || !isSupported()) return Promise.resolve(false);
  return wasm.instantiate(VECTOR_SCAN_WASM, {}).then(
    ({ instance }) => {
      scanner ??= scannerOf(instance);
      return true;
    },
    () => false,
  );
}

/** The scanner now: compiled synchronously on first use where the host allows it. */
function currentScanner(): Scanner | null {
  const wasm = webAssembly();
  if (scanner || syncRefused || !wasm || !isSupported()) return scanner;
  try {
    scanner = scannerOf(new wasm.Instance(new wasm.Module(VECTOR_SCAN_WASM), {}));
  } catch {
    syncRefused = true;
  }
  return scanner;
}

/** Whether nearest() scans in WebAssembly here (now). */
export function vectorScanAvailable(): boolean {
  return currentScanner() !== null;
}

const coded = new WeakMap<Float32Array, Coded>();

const align = (offset: number, to: number): number => Math.ceil(offset / to) * to;
/** Rounded up a little, so that a stored norm is never below the true one. */
const up = (value: number): number => value * (1 + 1e-6);

/** The bytes of a matrix's scan records. */
export function scanRecordBytes(rows: number, dims: number): number {
  return rows * (Math.ceil(dims / 8) * 8 + RECORD_META);
}

/** A matrix's scan records, written into `records` (scanRecordBytes long; it may be shared memory). */
export function scanRecords(
  dims: number, data: Float32Array, present: Uint8Array, records: Uint8Array = new Uint8Array(scanRecordBytes(present.length, dims)),
): ScanRecords {
  const rows = present.length;
  const chunks = Math.ceil(dims / 8);
  const stride = chunks * 8 + RECORD_META;
  // Typed views in the host's byte order, which is WebAssembly's (little-endian) on every platform that runs it.
  const codes = new Int8Array(records.buffer, records.byteOffset, records.length);
  const meta = new Float32Array(records.buffer, records.byteOffset, records.length / 4);
  const axis = new Float64Array(dims);
  let counted = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
  for (let row = 0; row < rows; row++) {
    if (!present[row]) continue;
    counted++;
    for (let d = 0; d < dims; d++) axis[d] = axis[d]! + data[row * dims + d]! ** 2;
  }
  for (let d = 0; d < dims; d++) axis[d] = axis[d]! > 0 ? (axis[d]! / counted) ** AXIS_POWER : 1;
  const perAxis = axis.map((unit) => 1 / unit);
  let decodedPeak = 0;
  for (let row = 0; row < rows; row++) {
    const base = row * dims;
    const at = row * stride;
    const metaAt = (at + chunks * 8) / 4;
    if (!present[row]) {
      // A row without a vector is never listed (as in the JavaScript scan): its bound is −∞.
      meta[metaAt + 1] = Number.NEGATIVE_INFINITY;
      continue;
    }
    let peak = 0;
    for (let d = 0; d < dims; d++) {
      const v = data[base + d]! * perAxis[d]!;
      if (v > peak) peak = v;
      else if (-v > peak) peak = -v;
    }
    // An all-zero vector keeps scale and error 0: it scores exactly 0.
    if (peak === 0) continue;
    // Rounded to f32 before use: the estimate multiplies by the stored value, the error is measured against it.
    const scale = Math.fround(peak / ROW_CODE);
    const perCode = 1 / scale;
    let error = 0;
    let decoded = 0;
    for (let d = 0; d < dims; d++) {
      const x = data[base + d]!;
      // Plain comparisons and products: Math.min/max and ** here made the coding several times slower.
      let c = Math.round(x * perAxis[d]! * perCode);
      if (c > ROW_CODE) c = ROW_CODE;
      else if (c < -ROW_CODE) c = -ROW_CODE;
      codes[at + d] = c;
      const y = c * scale;
      const e = x - y * axis[d]!;
      decoded += y * y;
      error += e * e;
    }
    meta[metaAt] = scale;
    meta[metaAt + 1] = up(Math.sqrt(error));
    decodedPeak = Math.max(decodedPeak, Math.sqrt(decoded));
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return { rows, dims, axis, records, decodedPeak: up(decodedPeak) };
}

function withLayout(made: ScanRecords): Coded {
  const { rows, dims, records } = made;
  const chunks = Math.ceil(dims / 8);
  const mask = records.length;
  const query = align(mask + rows, 16);
  const outRow = align(query + chunks * 16, 16);
  const outLow = align(outRow + rows * 4, 8);
  const outHigh = outLow + rows * 8;
  return { ...made, chunks, layout: { mask, query, outRow, outLow, outHigh, end: outHigh + rows * 8 } };
}

/** Records being made elsewhere (another thread), by matrix: the function returns them, waiting if it must, or null. */
const expected = new WeakMap<Float32Array, () => ScanRecords | null>();

/**
 * Makes the matrix's scan records now (or takes those expectScanRecords was told of), so that the first
 * query does not pay for them (about 0.2 s at 100,000 rows); nothing where the scan cannot run.
 */
export function prepareScan(dims: number, data: Float32Array, present: Uint8Array): void {
  if (!isSupported()) return;
  const matrix = codedOf(dims, data, present);
  // And into the module's memory, where the module can be compiled now.
  const target = enabled ? currentScanner() : null;
  if (target) makeResident(target, matrix);
}

/**
 * Says that the matrix's records are being made elsewhere: the first query (or prepareScan) takes them
 * from `take`, which may wait for them, and makes them itself when it returns null or records of
 * another shape.
 */
export function expectScanRecords(data: Float32Array, take: () => ScanRecords | null): void {
  if (isSupported() && !coded.has(data)) expected.set(data, take);
}

/** The matrix's scan records: those made already (or being made elsewhere), else made now. */
export function scanRecordsOf(dims: number, data: Float32Array, present: Uint8Array): ScanRecords {
  return isSupported() ? codedOf(dims, data, present) : scanRecords(dims, data, present);
}

function codedOf(dims: number, data: Float32Array, present: Uint8Array): Coded {
  const rows = present.length;
  const known = coded.get(data);
  if (known && known.rows === rows && known.dims === dims) return known;
  const take = expected.get(data);
  expected.delete(data);
  const made = take?.() ?? null;
  const matrix = withLayout(made && made.rows === rows && made.dims === dims ? made : scanRecords(dims, data, present));
  coded.set(data, matrix);
  return matrix;
}

function makeResident(target: Scanner, matrix: Coded): void {
  if (target.resident === matrix) return;
  const missing = matrix.layout.end - target.memory.buffer.byteLength;
  if (missing > 0) target.memory.grow(Math.ceil(missing / 65_536));
  new Uint8Array(target.memory.buffer).set(matrix.records, 0);
  target.resident = matrix;
}

/**
 * The rows of `allowed` (and present) whose exact score (Σ data·q in f64) may be ≥ `minScore`, each with
 * an interval holding that score, and a score the k-th best certainly reaches; null where the WebAssembly
 * scan is unavailable (the caller scans in JavaScript). The arrays are views of the module's memory:
 * valid until the next call.
 */
export function scanCandidates(dims: number, data: Float32Array, present: Uint8Array, q: Float64Array, allowed: Uint8Array, minScore: number, k: number): ScanCandidates | null {
  const target = enabled ? currentScanner() : null;
  const rows = present.length;
  if (!target || dims < 1 || dims > MAX_DIMS || allowed.length < rows || q.length < dims) return null;
  const matrix = codedOf(dims, data, present);
  makeResident(target, matrix);
  const { layout, axis, chunks } = matrix;
  const { buffer } = target.memory;
  new Uint8Array(buffer).set(allowed.subarray(0, rows), layout.mask);
  const scaled = new Float64Array(dims);
  let peak = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < dims */
  for (let d = 0; d < dims; d++) {
    scaled[d] = axis[d]! * q[d]!;
    peak = Math.max(peak, Math.abs(scaled[d]!));
  }
  const t = peak > 0 ? peak / QUERY_CODE : 1;
  const codes = new Int16Array(buffer, layout.query, chunks * 8).fill(0);
  let norm = 0;
  let error = 0;
  for (let d = 0; d < dims; d++) {
    const c = Math.max(-QUERY_CODE, Math.min(QUERY_CODE, Math.round(scaled[d]! / t)));
    codes[d] = c;
    error += (scaled[d]! - c * t) ** 2;
    norm += q[d]! ** 2;
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  const constant = matrix.decodedPeak * up(Math.sqrt(error)) + SLACK;
  const count = target.scan(rows, chunks, 0, layout.query, layout.mask, layout.outRow, layout.outLow, layout.outHigh, t, up(Math.sqrt(norm)), constant, minScore);
  const low = new Float64Array(buffer, layout.outLow, count);
  return { count, rows: new Uint32Array(buffer, layout.outRow, count), low, high: new Float64Array(buffer, layout.outHigh, count), kth: kthBestLow(low, count, k) };
}
