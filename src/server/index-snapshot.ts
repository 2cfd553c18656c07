/**
 * Index snapshots on disk: `orgindex index build --out DIR` writes a built index, `orgindex serve --index
 * DIR` (every worker too) loads it without rebuilding anything.
 *
 * A snapshot is a directory: `manifest.json` (format name and version, the organizations it holds, where
 * its data came from, the embedder its vectors came from (embedding/embedder-spec.ts: kind, model,
 * dimensions, fingerprint), the shape of the parts with every typed array replaced by a reference) and one file
 * per typed array (`parts/<n>.bin`, its bytes in this machine's byte order — little-endian, as the manifest
 * records), each with its length and SHA-256 in the manifest. Reading checks the format and version
 * first, then the whole manifest against its schema (the parts' shape with the typed-array kind the engine
 * reads at each place), then every file's place and length, then its checksum as it is read (on worker
 * threads, part-reader.ts), then that the parts fit together: a snapshot of another version, a missing,
 * truncated, altered or retyped part is refused with the part named and what to do, never served
 * half-read. A checksum only ties a file to its manifest; the checks after it are what keep a hand-edited manifest from reading files elsewhere or
 * serving wrong answers.
 *
 * Written into a temporary directory beside DIR and renamed into place only when complete, so a build
 * that stops half-way leaves no snapshot behind.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import * as z from 'zod';
import { flattenParts, partArray, restoreIndex, unflattenParts, type IndexParts, type PartArray, type PartArrayType } from '../engine/snapshot/index-parts.js';
import { arrayRefs, checkIndexParts, ELEMENT_BYTES, INDEX_SHAPE, PART_ARRAY_TYPES, PartError } from '../engine/snapshot/parts-check.js';
import type { ColumnStore } from '../engine/store/store.js';
import { adoptScanMemory, scanMemoryFor, scanRecordBytes } from '../engine/relevance/vector-scan.js';
import type { ByteSource } from '../engine/store/utf8-column.js';
import { readPartFiles, type PartFile } from './part-reader.js';
import { builtinIdentity, EMBEDDER_IDENTITY, type EmbedderIdentity } from './embedding/embedder-spec.js';
import { messageOf, NamedError } from '../contract/errors.js';

export const SNAPSHOT_FORMAT = 'orgindex-index-snapshot';
/** Bumped whenever the parts change shape or meaning: an older or newer snapshot is refused. */
export const SNAPSHOT_VERSION = 8 as const;

/** Reads and writes in pieces below the 2 GiB a single read or write call may move. */
const CHUNK = 1 << 30;

interface ManifestArray {
  file: string;
  type: PartArrayType;
  bytes: number;
  sha256: string;
}

export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  byteOrder: 'little-endian';
  createdAt: string;
  organizations: number;
  /** Where the data came from (the build's --data, or the sample / generated count). */
  source: string;
  /** The embedder the vectors came from: queries must be embedded by the same one. */
  embedder: EmbedderIdentity;
  parts: z.output<typeof INDEX_SHAPE>;
  arrays: ManifestArray[];
}

/** A snapshot that cannot be served: the message says why and what to do. */
export class SnapshotError extends NamedError {}

export interface WrittenSnapshot {
  dir: string;
  bytes: number;
  files: number;
}

/** The directory a snapshot may be written to, or why not (checked before a build that may take minutes). */
export function checkSnapshotTarget(dir: string, replace: boolean): string {
  const target = resolve(dir);
  if (existsSync(target) && !replace) throw new SnapshotError(`${target} exists: give another --out, or --replace to replace it`);
  if (endianness() !== 'LE') throw new SnapshotError('index snapshots are written on little-endian machines only');
  return target;
}

/**
 * Writes a whole index (a store's `indexParts`) to `dir` (which must not exist, or be replaced when
 * `replace`); its vectors are the built-in embedder's unless `embedder` says whose they are.
 */
export function writeSnapshot(dir: string, parts: IndexParts, source: string, options: { replace?: boolean; now?: () => Date; embedder?: EmbedderIdentity } = {}): WrittenSnapshot {
  const writer = new SnapshotWriter(dir, options);
  try {
    writer.add('store', parts.store);
    writer.add('text', parts.text);
    writer.add('vectors', parts.vectors);
    writer.add('names', parts.names);
    writer.add('postings', parts.postings);
    return writer.finish(source, parts.store.size, options.embedder);
  } catch (error) {
    writer.abandon();
    throw error;
  }
}

/**
 * Writes a snapshot a part at a time (the store, the keyword index, the vectors, the name groups, the
 * filter postings, in any order): each part's arrays go to their files at once, so that a build can let a part go before it makes
 * the next (20,000,000 organizations do not fit in memory with every part at once). Nothing is in place
 * until `finish`.
 */
export class SnapshotWriter {
  private readonly target: string;
  private readonly temporary: string;
  private readonly listed: ManifestArray[] = [];
  private readonly shapes: Partial<Record<keyof IndexParts, unknown>> = {};
  private bytes = 0;

  constructor(
    dir: string,
    private readonly options: { replace?: boolean; now?: () => Date } = {},
  ) {
    this.target = checkSnapshotTarget(dir, options.replace === true);
    this.temporary = `${this.target}.partial-${process.pid}`;
    rmSync(this.temporary, { recursive: true, force: true });
    mkdirSync(join(this.temporary, 'parts'), { recursive: true });
  }

  add(name: keyof IndexParts, part: IndexParts[keyof IndexParts]): void {
    if (name in this.shapes) throw new Error(`the snapshot has its ${name} already`);
    const { shape, arrays, types } = flattenParts(part, this.listed.length);
    arrays.forEach((array, i) => {
      const file = `parts/${String(this.listed.length).padStart(4, '0')}.bin`;
      const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      const fd = openSync(join(this.temporary, file), 'w');
      // In pieces: one write, and one hash update, takes at most 2 GiB (the scan records of 20,000,000 are more).
      const hash = createHash('sha256');
      try {
        for (let at = 0; at < view.length; at += CHUNK) {
          const piece = view.subarray(at, Math.min(view.length, at + CHUNK));
          for (let done = 0; done < piece.length; ) done += writeSync(fd, piece, done, piece.length - done);
          hash.update(piece);
        }
      } finally {
        closeSync(fd);
      }
      this.bytes += view.length;
      this.listed.push({ file, type: types[i] ?? 'Uint8Array', bytes: view.length, sha256: hash.digest('hex') });
    });
    this.shapes[name] = shape;
  }

  /** Writes the manifest and puts the snapshot in place; the vectors came from `embedder` (default: the built-in one). */
  finish(source: string, organizations: number, embedder: EmbedderIdentity = builtinIdentity()): WrittenSnapshot {
    for (const name of ['store', 'text', 'vectors', 'names', 'postings'] as const) if (!(name in this.shapes)) throw new Error(`the snapshot has no ${name}`);
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      byteOrder: 'little-endian',
      createdAt: (this.options.now?.() ?? new Date()).toISOString(),
      organizations,
      source,
      embedder,
      parts: this.shapes as SnapshotManifest['parts'],
      arrays: this.listed,
    };
    writeFileSync(join(this.temporary, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
    mkdirSync(dirname(this.target), { recursive: true });
    if (existsSync(this.target)) rmSync(this.target, { recursive: true, force: true });
    renameSync(this.temporary, this.target);
    return { dir: this.target, bytes: this.bytes, files: this.listed.length + 1 };
  }

  /** Removes what was written (a build that failed). */
  abandon(): void {
    rmSync(this.temporary, { recursive: true, force: true });
  }
}

/** A manifest is a few kilobytes (one entry per typed array); a larger file is not one. */
const MANIFEST_MAX_BYTES = 1 << 20;

const MANIFEST = z.strictObject({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.literal(SNAPSHOT_VERSION),
  byteOrder: z.literal('little-endian'),
  createdAt: z.string().max(64),
  organizations: z.int().min(0),
  source: z.string().max(4_096),
  embedder: EMBEDDER_IDENTITY,
  parts: INDEX_SHAPE,
  arrays: z
    .array(
      z.strictObject({
        // Where the writer puts them: in parts/ of the snapshot, nowhere else.
        file: z.string().regex(/^parts\/[0-9]{4,9}\.bin$/, 'is not a file of the snapshot\'s parts/ folder (parts/NNNN.bin)'),
        type: z.enum(PART_ARRAY_TYPES),
        bytes: z.int().min(0),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'is not a SHA-256 in hex'),
      }),
    )
    .max(10_000),
});

/**
 * Why a manifest value is refused, in zod's words: a typed array of the parts as `part P (file F)`, anything
 * else by its place in the manifest.
 */
function issueText(issue: z.core.$ZodIssue, manifest: object): string {
  const path = issue.path.map(String);
  const last = path.at(-1);
  if (path[0] === 'parts' && (last === 'type' || last === '$array')) {
    let leaf: unknown = manifest;
    for (const key of path.slice(0, -1)) leaf = leaf !== null && typeof leaf === 'object' ? (leaf as Record<string, unknown>)[key] : undefined;
    const index = leaf !== null && typeof leaf === 'object' && '$array' in leaf ? leaf.$array : undefined;
    const arrays = 'arrays' in manifest && Array.isArray(manifest.arrays) ? (manifest.arrays as unknown[]) : [];
    const entry = typeof index === 'number' ? arrays[index] : undefined;
    const file = entry !== null && typeof entry === 'object' && 'file' in entry && typeof entry.file === 'string' ? ` (file ${entry.file})` : '';
    return `part ${path.slice(1, -1).join('.')}${file}: ${issue.message}`;
  }
  return `${path.length > 0 ? `${path.join('.')}: ` : ''}${issue.message}`;
}

/** The manifest of a snapshot directory, checked for format and version, then whole against its schema. */
export function readManifest(dir: string): SnapshotManifest {
  const root = resolve(dir);
  const path = join(root, 'manifest.json');
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > MANIFEST_MAX_BYTES) throw new SnapshotError(`${path} is damaged: ${size} bytes, a manifest has at most ${MANIFEST_MAX_BYTES}; rebuild the snapshot with orgindex index build`);
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError(`${root} is not an index snapshot (no manifest.json): make one with orgindex index build --out ${dir}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SnapshotError(`${path} is damaged (not JSON): rebuild the snapshot with orgindex index build`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('format' in parsed) || parsed.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(`${root} is not an OrgIndex index snapshot (its manifest.json names no format ${SNAPSHOT_FORMAT})`);
  }
  const version = 'version' in parsed ? parsed.version : undefined;
  if (typeof version !== 'number') {
    throw new SnapshotError(`${path} is damaged: its format version is ${version === undefined ? 'missing' : `${JSON.stringify(version)}, not a number`}; rebuild the snapshot with orgindex index build`);
  }
  if (version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(`${root} is an index snapshot of format version ${version}; this orgindex reads version ${SNAPSHOT_VERSION}: rebuild it with this orgindex (orgindex index build)`);
  }
  if (!('byteOrder' in parsed) || parsed.byteOrder !== 'little-endian' || endianness() !== 'LE') throw new SnapshotError('index snapshots are read on little-endian machines only');
  const checked = MANIFEST.safeParse(parsed);
  if (!checked.success) {
    const shown = checked.error.issues
      .slice(0, 3)
      .map((issue) => issueText(issue, parsed))
      .join('; ');
    const more = checked.error.issues.length > 3 ? ` (and ${checked.error.issues.length - 3} more)` : '';
    throw new SnapshotError(`${path} is damaged: ${shown}${more}; rebuild the snapshot with orgindex index build`);
  }
  return checked.data;
}

/**
 * The parts a server reads from their files when asked instead of holding them (a row's summary is read
 * only to answer with it): by their path in the parts.
 */
const ON_DISK = new Set(['store.text.summary.bytes']);
/** The part read into the vector scan's memory (vector-scan.ts scanMemoryFor), where it is scanned from. */
const SCAN_RECORDS = 'vectors.scan.records';

/** A part of a snapshot that cannot be served, named with its file. */
const partRefused = (root: string, part: string, file: string | undefined, reason: string): SnapshotError =>
  new SnapshotError(`index snapshot ${root}: part ${part}${file !== undefined ? ` (file ${file})` : ''}: ${reason}; rebuild it with orgindex index build`);

/** A part's file, opened for reading: a regular file inside the snapshot directory, of the length the manifest says. */
function openPart(root: string, realRoot: string, part: string, entry: ManifestArray): number {
  let fd: number;
  try {
    const real = realpathSync(join(root, entry.file));
    if (!real.startsWith(realRoot + sep)) throw partRefused(root, part, entry.file, 'its file leads out of the snapshot directory');
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError(`index snapshot ${root} is incomplete: ${entry.file} (part ${part}) is missing; rebuild it with orgindex index build`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw partRefused(root, part, entry.file, 'not a regular file');
    if (stat.size !== entry.bytes) throw partRefused(root, part, entry.file, `has ${stat.size} bytes, the manifest says ${entry.bytes}`);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * Reads a snapshot, every file checked against its length and checksum, and restores its index. The
 * summaries stay in their file and are read a row at a time when asked (the largest column, read only to
 * answer with it: 2.9 GB at 20,000,000), unless `inMemory`; the snapshot must not change while it is served.
 *
 * A part is read only from a regular file inside the snapshot directory (a symbolic link leading out of it
 * is refused), only as the typed-array kind the engine reads there, and the parts are checked to fit
 * together before anything is served from them.
 *
 * The vectors' queries are embedded by the built-in embedder, unless `external` (the snapshot's embedder
 * is a model the engine cannot run: each query brings its vectors, QueryContext.queryVectors); the caller
 * checks that the embedder is the one the manifest names. `manifest`: the one the caller read already from `dir`.
 */
export function readSnapshot(dir: string, options: { inMemory?: boolean; external?: boolean; manifest?: SnapshotManifest } = {}): { store: ColumnStore; manifest: SnapshotManifest; bytes: number } {
  const root = resolve(dir);
  const manifest = options.manifest ?? readManifest(root);
  let refs: ReturnType<typeof arrayRefs>;
  try {
    refs = arrayRefs(manifest.parts);
  } catch (error) {
    if (error instanceof PartError) throw partRefused(root, error.part, undefined, error.reason);
    throw error;
  }
  const fileOf = new Map<string, string>();
  manifest.arrays.forEach((entry, index) => {
    const ref = refs.get(index);
    if (!ref) throw new SnapshotError(`index snapshot ${root} is damaged: ${entry.file} is listed, but no part refers to it; rebuild it with orgindex index build`);
    fileOf.set(ref.part, entry.file);
    if (entry.type !== ref.type) throw partRefused(root, ref.part, entry.file, `declared ${entry.type}, this orgindex reads ${ref.type}`);
    const size = ELEMENT_BYTES[entry.type];
    if (entry.bytes % size !== 0) throw partRefused(root, ref.part, entry.file, `${entry.bytes} bytes are not a whole number of ${entry.type} elements (${size} bytes each)`);
  });
  for (const [index, ref] of refs) if (index >= manifest.arrays.length) throw partRefused(root, ref.part, undefined, `refers to array ${index}, which the manifest does not list`);
  const realRoot = realpathSync(root);
  const { rows: scanRows, dims: scanDims } = manifest.parts.vectors.scan;
  // Every file is opened and sized first, in order, then read (on other threads where it can be), then its
  // checksum compared in order: the first damaged file is the one named, as when they were read one by one.
  const opened: { entry: ManifestArray; part: string; file: PartFile; onDisk: boolean; kept?: FileBytes }[] = [];
  let refusal: SnapshotError | null = null;
  const arrays: (PartArray | FileBytes)[] = [];
  let bytes = 0;
  try {
    for (const [index, entry] of manifest.arrays.entries()) {
      const part = refs.get(index)?.part ?? entry.file;
      try {
        const fd = openPart(root, realRoot, part, entry);
        const onDisk = options.inMemory !== true && ON_DISK.has(part);
        // A buffer of its own for every array kept: aligned for its element type, and not in Node's shared
        // pool. The scan records go straight into the vector scan's memory: a copy made later would hold them twice.
        const scanMemory = part === SCAN_RECORDS && !onDisk && entry.bytes === scanRecordBytes(scanRows, scanDims) ? scanMemoryFor(scanRows, scanDims) : null;
        opened.push({ entry, part, file: { fd, size: entry.bytes, into: onDisk ? 'check' : (scanMemory ?? 'keep') }, onDisk });
      } catch (error) {
        if (!(error instanceof SnapshotError)) throw error;
        refusal = error;
        break;
      }
    }
    const reads = readPartFiles(opened.map(({ file }) => file));
    opened.forEach(({ entry, part }, i) => {
      const read = reads[i];
      if (read === undefined || read.short) throw partRefused(root, part, entry.file, 'ends early');
      if (read.sha256 !== entry.sha256) throw partRefused(root, part, entry.file, 'does not match its checksum');
    });
    if (refusal) throw refusal;
    opened.forEach((open, i) => {
      const { entry, file } = open;
      const read = reads[i];
      const buffer = read && !read.short ? read.buffer : null;
      // A part left on disk keeps its file open for the rows read later (FileBytes closes it when let go).
      if (open.onDisk) open.kept = new FileBytes(file.fd, file.size);
      arrays.push(open.kept ?? (file.into instanceof Uint8Array ? file.into : partArray(entry.type, buffer ?? new ArrayBuffer(0), 0, file.size)));
      bytes += file.size;
    });
  } finally {
    for (const { file, kept } of opened) if (!kept) closeSync(file.fd);
  }
  // Every reference is checked above: each names a listed array of its own.
  const parts = unflattenParts(manifest.parts, (index) => arrays[index] as PartArray) as IndexParts;
  let store: ColumnStore;
  try {
    checkIndexParts(parts);
    if (parts.vectors.scan.dims !== manifest.embedder.dims) throw new PartError('vectors.scan.dims', `is ${parts.vectors.scan.dims}, the embedder's vectors ${manifest.embedder.dims}`);
    store = restoreIndex(parts, options.external === true ? null : undefined);
    // Resident where they were read, before anything else can scan over that memory.
    adoptScanMemory(parts.vectors.scan);
  } catch (error) {
    if (error instanceof PartError) throw partRefused(root, error.part, fileOf.get(error.part), error.reason);
    throw new SnapshotError(`index snapshot ${root} cannot be loaded: ${messageOf(error)}; rebuild it with this orgindex`, { cause: error });
  }
  if (store.size !== manifest.organizations) throw new SnapshotError(`index snapshot ${root} is damaged: it holds ${store.size} organizations, the manifest says ${manifest.organizations}`);
  return { store, manifest, bytes };
}

/** Bytes of a snapshot file read a range at a time (ByteSource); the file is closed when they are let go. */
class FileBytes implements ByteSource {
  private static readonly closer = new FinalizationRegistry<number>((fd) => {
    try {
      closeSync(fd);
    } catch {
      // Closed already: nothing to do.
    }
  });

  constructor(
    private readonly fd: number,
    readonly length: number,
  ) {
    FileBytes.closer.register(this, fd);
  }

  subarray(from: number, to: number): Uint8Array {
    const out = new Uint8Array(Math.max(0, Math.min(to, this.length) - from));
    for (let at = 0; at < out.length; ) {
      const read = readSync(this.fd, out, at, out.length - at, from + at);
      if (read === 0) throw new Error('an index snapshot file became shorter while it was served');
      at += read;
    }
    return out;
  }
}
