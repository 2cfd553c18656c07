/**
 * Index snapshots on disk: `orgindex index build --out DIR` writes a built index, `orgindex serve --index
 * DIR` (every worker too) loads it without rebuilding anything.
 *
 * A snapshot is a directory: `manifest.json` (format name and version, the organizations it holds, where
 * its data came from, the shape of the parts with every typed array replaced by a reference) and one file
 * per typed array (`parts/<n>.bin`, its bytes in this machine's byte order — little-endian, as the manifest
 * records), each with its length and SHA-256 in the manifest. Reading checks the format and version
 * first, then every file's length and checksum as it reads it: a snapshot of another version, a missing,
 * truncated or altered file is refused with what to do, never served half-read.
 *
 * Written into a temporary directory beside DIR and renamed into place only when complete, so a build
 * that stops half-way leaves no snapshot behind.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { flattenParts, partArray, restoreIndex, unflattenParts, type IndexParts, type PartArray, type PartArrayType } from '../engine/snapshot/index-parts.js';
import type { ColumnStore } from '../engine/store/store.js';
import type { ByteSource } from '../engine/store/utf8-column.js';

export const SNAPSHOT_FORMAT = 'orgindex-index-snapshot';
/** Bumped whenever the parts change shape or meaning: an older or newer snapshot is refused. */
export const SNAPSHOT_VERSION = 5;

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
  version: number;
  byteOrder: 'little-endian';
  createdAt: string;
  organizations: number;
  /** Where the data came from (the build's --data, or the sample / generated count). */
  source: string;
  parts: unknown;
  arrays: ManifestArray[];
}

/** A snapshot that cannot be served: the message says why and what to do. */
export class SnapshotError extends Error {}

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

/** Writes a whole index (a store's `indexParts`) to `dir` (which must not exist, or be replaced when `replace`). */
export function writeSnapshot(dir: string, parts: IndexParts, source: string, options: { replace?: boolean; now?: () => Date } = {}): WrittenSnapshot {
  const writer = new SnapshotWriter(dir, options);
  try {
    writer.add('store', parts.store);
    writer.add('text', parts.text);
    writer.add('vectors', parts.vectors);
    return writer.finish(source, parts.store.size);
  } catch (error) {
    writer.abandon();
    throw error;
  }
}

/**
 * Writes a snapshot a part at a time (the store, the keyword index, the vectors, in any order): each part's
 * arrays go to their files at once, so that a build can let a part go before it makes the next (20,000,000
 * organizations do not fit in memory with every part at once). Nothing is in place until `finish`.
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

  /** Writes the manifest and puts the snapshot in place. */
  finish(source: string, organizations: number): WrittenSnapshot {
    for (const name of ['store', 'text', 'vectors'] as const) if (!(name in this.shapes)) throw new Error(`the snapshot has no ${name}`);
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      byteOrder: 'little-endian',
      createdAt: (this.options.now?.() ?? new Date()).toISOString(),
      organizations,
      source,
      parts: this.shapes,
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

/** The manifest of a snapshot directory, checked for format and version. */
export function readManifest(dir: string): SnapshotManifest {
  const path = join(resolve(dir), 'manifest.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new SnapshotError(`${resolve(dir)} is not an index snapshot (no manifest.json): make one with orgindex index build --out ${dir}`);
  }
  let manifest: Partial<SnapshotManifest>;
  try {
    manifest = JSON.parse(text) as Partial<SnapshotManifest>;
  } catch {
    throw new SnapshotError(`${path} is damaged (not JSON): rebuild the snapshot with orgindex index build`);
  }
  if (manifest.format !== SNAPSHOT_FORMAT) throw new SnapshotError(`${resolve(dir)} is not an OrgIndex index snapshot`);
  if (manifest.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(`${resolve(dir)} is an index snapshot of format version ${String(manifest.version)}; this orgindex reads version ${SNAPSHOT_VERSION}: rebuild it with this orgindex (orgindex index build)`);
  }
  if (manifest.byteOrder !== 'little-endian' || endianness() !== 'LE') throw new SnapshotError('index snapshots are read on little-endian machines only');
  if (!Array.isArray(manifest.arrays) || typeof manifest.organizations !== 'number') throw new SnapshotError(`${path} is damaged (fields missing): rebuild the snapshot`);
  return manifest as SnapshotManifest;
}

/**
 * The parts a server reads from their files when asked instead of holding them (a row's summary is read
 * only to answer with it): by their path in the parts.
 */
const ON_DISK = new Set(['store.text.summary.bytes']);
/** The piece a part left on disk is read through for its checksum. */
const ON_DISK_PIECE = 16 << 20;

/**
 * Reads a snapshot, every file checked against its length and checksum, and restores its index. The
 * summaries stay in their file and are read a row at a time when asked (the largest column, read only to
 * answer with it: 2.9 GB at 20,000,000), unless `inMemory`; the snapshot must not change while it is served.
 */
export function readSnapshot(dir: string, options: { inMemory?: boolean } = {}): { store: ColumnStore; manifest: SnapshotManifest; bytes: number } {
  const root = resolve(dir);
  const manifest = readManifest(root);
  const paths = arrayPaths(manifest.parts);
  const arrays: (PartArray | FileBytes)[] = [];
  let bytes = 0;
  manifest.arrays.forEach((entry, index) => {
    const path = join(root, entry.file);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      throw new SnapshotError(`index snapshot ${root} is incomplete: ${entry.file} is missing; rebuild it with orgindex index build`);
    }
    const onDisk = options.inMemory !== true && ON_DISK.has(paths.get(index) ?? '');
    let kept = false;
    try {
      const size = fstatSync(fd).size;
      if (size !== entry.bytes) throw new SnapshotError(`index snapshot ${root} is damaged: ${entry.file} has ${size} bytes, the manifest says ${entry.bytes}; rebuild it with orgindex index build`);
      // A buffer of its own for every array kept: aligned for its element type, and not in Node's shared
      // pool; a part left on disk is read through one small piece at a time for its checksum.
      const buffer = new ArrayBuffer(onDisk ? Math.min(size, ON_DISK_PIECE) : size);
      const view = new Uint8Array(buffer);
      const piece = onDisk ? ON_DISK_PIECE : CHUNK;
      const hash = createHash('sha256');
      for (let at = 0; at < size; ) {
        const into = onDisk ? 0 : at;
        const read = readSync(fd, view, into, Math.min(piece, size - at), at);
        if (read === 0) throw new SnapshotError(`index snapshot ${root} is damaged: ${entry.file} ends early; rebuild it`);
        hash.update(view.subarray(into, into + read));
        at += read;
      }
      if (hash.digest('hex') !== entry.sha256) throw new SnapshotError(`index snapshot ${root} is damaged: ${entry.file} does not match its checksum; rebuild it with orgindex index build`);
      if (onDisk) {
        if (entry.type !== 'Uint8Array') throw new SnapshotError(`index snapshot ${root} is damaged: ${entry.file} is not bytes; rebuild it`);
        // The file stays open for the rows read later.
        arrays.push(new FileBytes(fd, size));
        kept = true;
      } else {
        arrays.push(partArray(entry.type, buffer, 0, size));
      }
      bytes += size;
    } finally {
      if (!kept) closeSync(fd);
    }
  });
  const parts = unflattenParts(manifest.parts, (index) => {
    const array = arrays[index] as PartArray | undefined;
    if (!array) throw new SnapshotError(`index snapshot ${root} is damaged: the manifest refers to a part it does not list; rebuild it`);
    return array;
  }) as IndexParts;
  let store: ColumnStore;
  try {
    store = restoreIndex(parts);
  } catch (error) {
    throw new SnapshotError(`index snapshot ${root} cannot be loaded: ${(error as Error).message}; rebuild it with this orgindex`);
  }
  if (store.size !== manifest.organizations) throw new SnapshotError(`index snapshot ${root} is damaged: it holds ${store.size} organizations, the manifest says ${manifest.organizations}`);
  return { store, manifest, bytes };
}

/** The path in the parts ("store.text.summary.bytes") of each array, by its number. */
function arrayPaths(shape: unknown): Map<number, string> {
  const paths = new Map<number, string>();
  const walk = (node: unknown, path: string): void => {
    if (node === null || typeof node !== 'object') return;
    if ('$array' in node && typeof node.$array === 'number') {
      paths.set(node.$array, path);
      return;
    }
    for (const [key, value] of Object.entries(node)) walk(value, path === '' ? key : `${path}.${key}`);
  };
  walk(shape, '');
  return paths;
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
