/**
 * The int8 scan records: the organizations' vectors as the index keeps them, and the first pass of
 * nearest() (vectors.ts) over them in WebAssembly SIMD (vector-scan.wat): every allowed (or listed) row's
 * score estimated from the codes and a 16-bit query, with an interval the exact score is certain to lie in.
 * nearest() re-scores exactly only the rows the intervals cannot settle, so its results stay those of
 * brute force over the stored vectors.
 *
 * Codes: each coordinate is divided by its axis unit, a power of the axis's RMS over the organizations
 * (the principal axes carry very different energies; one scale per row would leave the later axes a
 * code or two, and twice the error), then by a per-row scale that maps the row's largest value to 127.
 * The stored vector of a row is its codes decoded, x[d] = f32(code · scale · axis[d]) (decodeRow): 112
 * bytes a row instead of 400 for the f32 vector it was coded from (the ranking measured the same: see
 * docs/benchmarks.md). The records are a head block (the first 32 dimensions, whose query codes the scan
 * keeps in registers) and a tail block, read as two streams (see vector-scan.wat). The query is coded to
 * 16 bits the same way.
 * With ŷ the codes times the scale (axis units), e = x − ŷ·axis (only the f32 rounding of the decoded
 * value) and q̂ the decoded query:
 *   x·q = e·q + ŷ·q̂ + ŷ·(axis∘q − q̂),  so  |x·q − ŷ·q̂| ≤ ‖e‖·‖q‖ + ‖ŷ‖·‖axis∘q − q̂‖
 * (Cauchy–Schwarz twice); ‖e‖ is stored per row and ‖ŷ‖ taken at its largest over the rows (the query's
 * 16-bit error makes that term tiny), both rounded up.
 *
 * A matrix's records go into the module's memory on its first scan (prepareScan does it ahead) and then
 * live there only: the copy outside is given up, and taken back if another matrix takes the memory.
 * Records read from an index snapshot are read into that memory directly (scanMemoryFor): no copy at all.
 * In Node the server shares that memory with a worker thread (shareScan, src/server/scan-thread.ts) that
 * scans the second half of the rows (or of the listed rows) of large scans.
 *
 * Hosts: Excel's older runtime has no WebAssembly or no SIMD (detected by validating the module; the
 * JavaScript scan runs over the decoded vectors instead, with identical results). Apps Script compiles
 * only asynchronously: there the scan is used once prepareVectorScan() has resolved. Elsewhere the module
 * (a few hundred bytes, under every synchronous-compile limit) is compiled on first use.
 */
import { kthBestLow } from './top-k.js';
import { VECTOR_SCAN_SHARED_WASM, VECTOR_SCAN_WASM } from './vector-scan-wasm.js';

type ScanExport = (
  from: number, to: number, chunks: number, head: number, tail: number, query: number, mask: number, list: number, outRow: number, outLow: number, outHigh: number,
  t: number, qNorm: number, constant: number, floor: number,
) => number;

interface Scanner {
  memory: WebAssembly.Memory;
  scan: ScanExport;
  /** The coded matrix whose bytes the memory holds now (one at a time: hosts hold one store). */
  resident: Coded | null;
  /** The room scanMemoryFor gave for records not yet resident, while nothing else has used the memory. */
  reserved: Uint8Array | null;
}

/**
 * A matrix in the scan's codes: one record per row (see vector-scan.wat). Plain data, so that it can be made
 * on another thread and kept in an index snapshot (scanRecords).
 */
export interface ScanRecords {
  rows: number;
  dims: number;
  /** The unit of each axis, RMS^(3/4) (1 for an all-zero axis). */
  axis: Float64Array;
  /**
   * scanRecordBytes(rows, dims): the head block, then the tail block (see vector-scan.wat). A row's head is
   * the int8 codes of its first 32 dimensions, then its f32 scale and error (‖e‖); its tail the codes of the
   * other dimensions (zero-padded to a multiple of 8).
   */
  records: Uint8Array;
  /** The largest ‖ŷ‖ (decoded row, axis units) of any row: it weighs the query's own quantisation error. */
  decodedPeak: number;
}

/** Scan records, with where each part goes in the module's memory (the records from offset 0). */
interface Coded {
  scan: ScanRecords;
  chunks: number;
  recordBytes: number;
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
const ROW_CODE = 127;
/** The widest vectors the WebAssembly scan takes (wider ones are scanned in JavaScript). */
const MAX_DIMS = 4_096;
/**
 * The largest query code for rows of `chunks` chunks: the scan's int32 sum, at most 127 · code · 8 ·
 * chunks, must stay below 2^31 (see vector-scan.wat): 32,767 (16 bits) up to 512 dimensions, 16,513 at
 * 1,024, 4,128 at 4,096. Fewer query bits only widen the intervals a little; the scan stays exact.
 */
const queryCode = (chunks: number): number => Math.min(32_767, Math.floor(0x7fffffff / (ROW_CODE * 8 * chunks)));
/**
 * The axis unit is RMS^(3/4) (this power of the mean square): the rows' quantisation error ‖e‖, which
 * sets every interval's width, is then about 13 % smaller on the organizations' vectors than with the
 * RMS itself, so fewer rows are left for the exact pass (any unit keeps the bound certain: ‖e‖ is
 * measured).
 */
const AXIS_POWER = 3 / 8;
/** The chunks (8 dimensions each) of a row's head, whose query codes the scan keeps in registers. */
const HEAD_CHUNKS = 4;
/** Bytes of a row's head: its head codes, then f32 scale and error (see vector-scan.wat). */
const HEAD_BYTES = HEAD_CHUNKS * 8 + 8;

let scanner: Scanner | null = null;
let helper: ScanHelper | null = null;
let supported: boolean | undefined;
let syncRefused = false;
let enabled = true;

/**
 * Another thread running the scan over part of the rows, in the scanner's shared memory (the server's
 * scan-thread.ts). One thread's pass reads its records at well under the memory's bandwidth (a bare read
 * of memory runs about 1.6 times as fast on one core, 3 times on two), so a second core nearly halves it.
 */
export interface ScanHelper {
  /** Starts the scan with these arguments (the module's `scan` export) there; false when the thread cannot take it now. */
  start(args: readonly number[]): boolean;
  /** Waits for the started scan: how many rows it listed, or null when it did not finish in time (the helper is then given up). */
  finish(): number | null;
}

/** Scans of fewer rows (or listed rows) stay on one thread: waking the other costs more than it saves. */
const SHARED_SCAN_ROWS = 100_000;

/**
 * Makes the scan run in `memory` (shared, 65,536 pages at most) with the helper taking the second half of
 * the rows of large scans; false (and nothing changed) where the shared module cannot be made. Records
 * already in the scan's memory are moved. Large scans then run on two threads until a helper fails.
 */
export function shareScan(memory: WebAssembly.Memory, scanHelper: ScanHelper): boolean {
  const wasm = webAssembly();
  if (!wasm || !isSupported()) return false;
  let shared: Scanner;
  try {
    shared = scannerOf(new wasm.Instance(new wasm.Module(VECTOR_SCAN_SHARED_WASM), { env: { memory } }), memory);
  } catch {
    return false;
  }
  const resident = scanner?.resident;
  if (scanner && resident) evict(scanner);
  scanner = shared;
  helper = scanHelper;
  if (resident) makeResident(shared, resident);
  return true;
}

/** Turns the WebAssembly scan off or on for every later nearest() (benchmarks compare the two scans). */
export function setVectorScanEnabled(on: boolean): void {
  enabled = on;
}

function webAssembly(): typeof WebAssembly | undefined {
  return (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
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

function scannerOf(instance: WebAssembly.Instance, memory = instance.exports.memory as WebAssembly.Memory): Scanner {
  return { memory, scan: instance.exports.scan as ScanExport, resident: null, reserved: null };
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

/** The coded form of each set of records the scan has seen (the records themselves are plain data). */
const coded = new WeakMap<ScanRecords, Coded>();

const align = (offset: number, to: number): number => Math.ceil(offset / to) * to;
/** Rounded up a little, so that a stored norm is never below the true one. */
const up = (value: number): number => value * (1 + 1e-6);

/** A row's chunks of codes: the head's four at least (zeros past the last dimension count for nothing). */
function chunksOf(dims: number): number {
  return Math.max(HEAD_CHUNKS, Math.ceil(dims / 8));
}

/** The bytes of one row's tail. */
function tailStride(dims: number): number {
  return (chunksOf(dims) - HEAD_CHUNKS) * 8;
}

/** The bytes of a matrix's scan records. */
export function scanRecordBytes(rows: number, dims: number): number {
  return rows * (HEAD_BYTES + tailStride(dims));
}

/** Where row `row`'s head and tail start in records of `rows` rows. */
function recordOffsets(rows: number, dims: number, row: number): { head: number; tail: number } {
  return { head: row * HEAD_BYTES, tail: rows * HEAD_BYTES + row * tailStride(dims) };
}

/**
 * Codes f32 vectors (rows × dims, present rows L2-normalised) into scan records, written into `records`
 * (scanRecordBytes long; it may be shared memory), with axis units from every row.
 */
export function scanRecords(
  dims: number, data: Float32Array, present: Uint8Array, records: Uint8Array = new Uint8Array(scanRecordBytes(present.length, dims)),
): ScanRecords {
  const rows = present.length;
  const axis = axisUnits(dims, data, present, rows);
  const decodedPeak = codeRows(dims, data, present, rows, axis, records, 0);
  return { rows, dims, axis, records, decodedPeak: up(decodedPeak) };
}

/**
 * The unit of each axis, RMS^(3/4) over the present rows of `data` (1 for an all-zero axis): from every
 * row, or from a regular sample of a large matrix (any unit keeps the bounds certain; the sample only
 * sets how finely each axis is coded).
 */
export function axisUnits(dims: number, data: Float32Array, present: Uint8Array, rows: number): Float64Array {
  const axis = new Float64Array(dims);
  let counted = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
  for (let row = 0; row < rows; row++) {
    if (!present[row]) continue;
    counted++;
    for (let d = 0; d < dims; d++) axis[d] = axis[d]! + data[row * dims + d]! ** 2;
  }
  for (let d = 0; d < dims; d++) axis[d] = axis[d]! > 0 ? (axis[d]! / counted) ** AXIS_POWER : 1;
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return axis;
}

/**
 * Codes `rows` rows of `data` (present[i] for row i of data) into the records of rows first … first +
 * rows − 1; returns the largest ‖ŷ‖ among them (not yet rounded up). A large matrix is coded a block at a
 * time, so that its f32 vectors never exist whole.
 */
export function codeRows(dims: number, data: Float32Array, present: Uint8Array, rows: number, axis: Float64Array, records: Uint8Array, first: number): number {
  const total = records.length / scanRecordBytes(1, dims);
  const headDims = HEAD_CHUNKS * 8;
  // Typed views in the host's byte order, which is WebAssembly's (little-endian) on every platform that runs it.
  const codes = new Int8Array(records.buffer, records.byteOffset, records.length);
  const meta = new Float32Array(records.buffer, records.byteOffset, records.length >>> 2);
  const perAxis = axis.map((unit) => 1 / unit);
  let decodedPeak = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
  for (let row = 0; row < rows; row++) {
    const base = row * dims;
    const { head, tail } = recordOffsets(total, dims, first + row);
    // Dimension d's code is at head + d in the head, tail + d − 32 after it.
    const codeAt = (d: number): number => (d < headDims ? head + d : tail + d - headDims);
    const metaAt = (head + headDims) / 4;
    codes.fill(0, head, head + headDims);
    codes.fill(0, tail, tail + tailStride(dims));
    meta.fill(0, metaAt, metaAt + 2);
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
    // Rounded to f32 before use: the stored value is what decodes.
    const scale = Math.fround(peak / ROW_CODE);
    const perCode = 1 / scale;
    let error = 0;
    let decoded = 0;
    for (let d = 0; d < dims; d++) {
      // Plain comparisons and products: Math.min/max and ** here made the coding several times slower.
      let c = Math.round(data[base + d]! * perAxis[d]! * perCode);
      if (c > ROW_CODE) c = ROW_CODE;
      else if (c < -ROW_CODE) c = -ROW_CODE;
      codes[codeAt(d)] = c;
      const y = c * scale;
      // The stored vector is the decoded one (decodeRow): its error against ŷ·axis is its f32 rounding.
      const exact = y * axis[d]!;
      const e = Math.fround(exact) - exact;
      decoded += y * y;
      error += e * e;
    }
    meta[metaAt] = scale;
    meta[metaAt + 1] = up(Math.sqrt(error));
    decodedPeak = Math.max(decodedPeak, Math.sqrt(decoded));
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return decodedPeak;
}

/** The rounding-up of a decoded peak gathered over blocks by codeRows. */
export function roundedPeak(peak: number): number {
  return up(peak);
}

/** Row `row`'s stored vector, x[d] = f32(code · scale · axis[d]), into `out` from `offset` (zeros for a row without one). */
export function decodeRow(scan: ScanRecords, row: number, out: Float32Array, offset = 0): void {
  const { dims, axis, rows } = scan;
  const records = currentRecords(scan);
  const { head, tail } = recordOffsets(rows, dims, row);
  const headDims = HEAD_CHUNKS * 8;
  const headCodes = new Int8Array(records.buffer, records.byteOffset + head, headDims);
  const tailCodes = new Int8Array(records.buffer, records.byteOffset + tail, tailStride(dims));
  const scale = new Float32Array(records.buffer, records.byteOffset + head + headDims, 1)[0] ?? 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < dims */
  for (let d = 0; d < dims; d++) out[offset + d] = (d < headDims ? headCodes[d]! : tailCodes[d - headDims]!) * scale * axis[d]!;
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
}

/** The records' bytes where they are now: in the module's memory while resident there, else their own array. */
export function currentRecords(scan: ScanRecords): Uint8Array {
  const matrix = coded.get(scan);
  if (matrix && scanner?.resident === matrix) return new Uint8Array(scanner.memory.buffer, 0, matrix.recordBytes);
  return scan.records;
}

/** Where each part of a scan over `rows × dims` records goes in the module's memory. */
function layoutOf(rows: number, dims: number): Coded['layout'] {
  const chunks = chunksOf(dims);
  const mask = align(scanRecordBytes(rows, dims), 16);
  const query = align(mask + rows, 16);
  const outRow = align(query + chunks * 16, 16);
  const outLow = align(outRow + rows * 4, 8);
  const outHigh = outLow + rows * 8;
  return { mask, query, outRow, outLow, outHigh, end: outHigh + rows * 8 };
}

function codedOf(scan: ScanRecords): Coded {
  let matrix = coded.get(scan);
  if (!matrix) {
    const { rows, dims } = scan;
    matrix = { scan, chunks: chunksOf(dims), recordBytes: scanRecordBytes(rows, dims), layout: layoutOf(rows, dims) };
    coded.set(scan, matrix);
  }
  return matrix;
}

/** Grows the scanner's memory to hold `end` bytes. */
function growTo(target: Scanner, end: number): void {
  const missing = end - target.memory.buffer.byteLength;
  if (missing > 0) target.memory.grow(Math.ceil(missing / 65_536));
}

/**
 * Room for `rows × dims` records at the start of the scan's memory, for records read from elsewhere (an
 * index snapshot's) straight into the place they are scanned from, so that they are never held twice;
 * null where the scan cannot run here or its memory cannot grow so far. What was resident there is moved
 * out first. ScanRecords over this array become resident without a copy (adoptScanMemory): make them so
 * before any other matrix is scanned, which would write over these bytes.
 */
export function scanMemoryFor(rows: number, dims: number): Uint8Array | null {
  const target = enabled && isSupported() ? currentScanner() : null;
  if (!target || dims < 1 || dims > MAX_DIMS) return null;
  evict(target);
  try {
    growTo(target, layoutOf(rows, dims).end);
  } catch {
    return null;
  }
  target.reserved = new Uint8Array(target.memory.buffer, 0, scanRecordBytes(rows, dims));
  return target.reserved;
}

/** Makes records read into the room scanMemoryFor gave resident there, without a copy; nothing for any others. */
export function adoptScanMemory(scan: ScanRecords): void {
  if (scanner && scan.records === scanner.reserved) makeResident(scanner, codedOf(scan));
}

/** Puts the records into the module's memory now, so that the first query does not wait for the copy; nothing where the scan cannot run. */
export function prepareScan(scan: ScanRecords): void {
  const target = enabled && isSupported() ? currentScanner() : null;
  if (target) makeResident(target, codedOf(scan));
}

/**
 * Moves a matrix's records into the module's memory (one matrix at a time: hosts hold one store). The
 * records that were there go back to an array of their own; the new ones give theirs up, so that a large
 * index holds its records once.
 */
function makeResident(target: Scanner, matrix: Coded): void {
  if (target.resident === matrix) return;
  const { records } = matrix.scan;
  // Read into the memory already (scanMemoryFor): nothing to copy, and nothing resident to evict.
  const inPlace = records === target.reserved;
  target.reserved = null;
  if (!inPlace) evict(target);
  growTo(target, matrix.layout.end);
  if (!inPlace) new Uint8Array(target.memory.buffer).set(records, 0);
  matrix.scan.records = EMPTY;
  target.resident = matrix;
}

/** Gives the records in the scanner's memory an array of their own again. */
function evict(target: Scanner): void {
  const previous = target.resident;
  if (previous) previous.scan.records = new Uint8Array(target.memory.buffer, 0, previous.recordBytes).slice();
  target.resident = null;
}

const EMPTY = new Uint8Array(0);

/**
 * The rows of `allowed` (and present) whose exact score (Σ data·q in f64) may be ≥ `minScore`, each with
 * an interval holding that score, and a score the k-th best certainly reaches; null where the WebAssembly
 * scan is unavailable (the caller scans in JavaScript). With `list` (strictly ascending rows below
 * scan.rows, as nearest() checks) only those rows are read, and `allowed` is not. The arrays are views of
 * the module's memory: valid until the next call.
 */
export function scanCandidates(scan: ScanRecords, q: Float64Array, allowed: Uint8Array, minScore: number, k: number, list?: Uint32Array): ScanCandidates | null {
  const target = enabled ? currentScanner() : null;
  const { rows, dims, axis } = scan;
  if (!target || dims < 1 || dims > MAX_DIMS || q.length < dims || (list ? list.length > rows : allowed.length < rows)) return null;
  const matrix = codedOf(scan);
  makeResident(target, matrix);
  const { layout, chunks } = matrix;
  const { buffer } = target.memory;
  // The list goes where the rows are listed: 4 bytes a row fit there whatever its length (see vector-scan.wat).
  if (list) new Uint32Array(buffer, layout.outRow, list.length).set(list);
  else new Uint8Array(buffer).set(allowed.subarray(0, rows), layout.mask);
  const scaled = new Float64Array(dims);
  let peak = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < dims */
  for (let d = 0; d < dims; d++) {
    scaled[d] = axis[d]! * q[d]!;
    peak = Math.max(peak, Math.abs(scaled[d]!));
  }
  const code = queryCode(chunks);
  const t = peak > 0 ? peak / code : 1;
  const codes = new Int16Array(buffer, layout.query, chunks * 8).fill(0);
  let norm = 0;
  let error = 0;
  for (let d = 0; d < dims; d++) {
    const c = Math.max(-code, Math.min(code, Math.round(scaled[d]! / t)));
    codes[d] = c;
    error += (scaled[d]! - c * t) ** 2;
    norm += q[d]! ** 2;
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  const constant = scan.decodedPeak * up(Math.sqrt(error)) + SLACK;
  const { tail } = recordOffsets(rows, dims, 0);
  // The scan of rows [from, to) (entries of the list), listing them from entry `from` of the outputs.
  const rangeArgs = (from: number, to: number): Parameters<ScanExport> => [
    from, to, chunks, 0, tail, layout.query, layout.mask, list ? layout.outRow : 0, layout.outRow + from * 4, layout.outLow + from * 8, layout.outHigh + from * 8,
    t, up(Math.sqrt(norm)), constant, minScore,
  ];
  const scanRange = (from: number, to: number): number => target.scan(...rangeArgs(from, to));
  let count: number;
  const entries = list ? list.length : rows;
  const half = entries >>> 1;
  if (helper && entries >= SHARED_SCAN_ROWS && helper.start(rangeArgs(half, entries))) {
    count = scanRange(0, half);
    const listed = helper.finish();
    if (listed === null) {
      helper = null;
      // The helper may have listed rows over the list's second half: it is written again.
      if (list) new Uint32Array(buffer, layout.outRow + half * 4, entries - half).set(list.subarray(half));
    }
    const more = listed ?? scanRange(half, entries);
    // The second half's entries follow the first's: rows stay ascending.
    new Uint32Array(buffer, layout.outRow, rows).copyWithin(count, half, half + more);
    new Float64Array(buffer, layout.outLow, rows).copyWithin(count, half, half + more);
    new Float64Array(buffer, layout.outHigh, rows).copyWithin(count, half, half + more);
    count += more;
  } else {
    count = scanRange(0, entries);
  }
  const low = new Float64Array(buffer, layout.outLow, count);
  return { count, rows: new Uint32Array(buffer, layout.outRow, count), low, high: new Float64Array(buffer, layout.outHigh, count), kth: kthBestLow(low, count, k) };
}
