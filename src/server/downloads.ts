/**
 * Files of `/v1/download`: written to a local object-store directory (`<state dir>/files/downloads/
 * <caller>/<download id>.<format>`) with well-kept writers — TSV by hand (see `tsvCell`), XLSX with
 * exceljs, Parquet with hyparquet-writer — and served by the same server through time-limited signed links:
 *   /v1/files/<path>?expires=<epoch ms>&signature=<HMAC-SHA256(path "\n" expires), hex>
 * An expired or tampered link is a 403. The signing key lives in the directory (created once, owner-only),
 * so links survive a restart until they expire (DOWNLOAD_LINK_TTL_MS: one hour).
 *
 * A file lives as long as its newest link: its modification time is set to the moment it is written (on
 * the store's clock), and it is deleted once that plus the link lifetime has passed — by a sweep when the
 * store opens (files of earlier runs), before every write, and on a timer. The store keeps an index of
 * its files in memory so that a sweep or a cap check never walks the directory again.
 *
 * Caps (DownloadLimits): files alive per caller (an API key or a bearer user), and files and bytes for
 * the whole store; a write over a cap throws a DownloadLimitError saying which cap and when it frees.
 *
 * Two stores keep the files: a directory (DirectoryDownloadStore, below) for one server process, and the
 * database (database/pg-download-store.ts) for servers that share one (`--database`): a link one of them
 * hands out is served by any other. Both check the same caps with the same words (capRefusal) and sign
 * links the same way (LinkSigner).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import ExcelJS from 'exceljs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { DownloadFormat } from '../contract/v1.js';
import type { DownloadContent } from '../engine/v1/v1-service.js';
import { secondsUntil } from './limits.js';
import { NamedError } from '../contract/errors.js';

export const DOWNLOAD_LINK_TTL_MS = 60 * 60_000;

export const DOWNLOAD_CONTENT_TYPES: Record<DownloadFormat, string> = {
  tsv: 'text/tab-separated-values; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
};

/** Parquet column types by v1 column (everything not listed is a UTF-8 string). */
const PARQUET_TYPES: Record<string, 'DOUBLE' | 'BOOLEAN' | 'JSON'> = { lat: 'DOUBLE', lon: 'DOUBLE', new_register_entry: 'BOOLEAN', summary_keywords: 'JSON' };

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Characters that make a spreadsheet read a cell as a formula (ASCII, and the full-width forms some locales accept). */
const FORMULA_START = /^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;
/** What TSV readers and spreadsheets take as a field or row break (tab, line breaks of every kind). */
const SEPARATORS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
/**
 * Text a spreadsheet would turn into a number, date, time, percentage or truth value on opening, losing
 * what the text says (`62.10` → 62.1, `01067` → 1067, 20 digits → 1.23E+19, `2019-05-27` → a date in the
 * reader's format): digits with nothing but the characters numbers, dates and times are written with
 * (any locale's), a number in scientific notation, or TRUE / FALSE.
 */
const READ_AS_VALUE = /^(?:[\s\d.,:/%()+-]*\d[\s\d.,:/%()+-]*|[+-]?\d+(?:[.,]\d+)?e[+-]?\d+|true|false)$/i;

/**
 * A cell as TSV text that a spreadsheet shows as it is:
 *  - numbers and booleans (typed columns such as lat/lon) are written as they are: `-3.7` is a number, never a formula;
 *  - lists are joined with "; ", objects written as JSON;
 *  - tabs and line breaks become one space each run, so no value can add a column or a row;
 *  - text gets a leading apostrophe when a spreadsheet would otherwise not show it as that text: text starting
 *    with = + - @ (or their full-width forms), with a tab or a carriage return, or with blanks before one of
 *    those (OWASP's CSV-injection rule); text a spreadsheet would read as a number or a date (READ_AS_VALUE);
 *    and text that starts with an apostrophe itself, so that every text cell starting with one has exactly
 *    one added, which a program reading the file removes. Excel and LibreOffice then keep the cell as text
 *    (showing the apostrophe); no import option (quoted fields as text, column types) is needed;
 *  - text starting with a double quote is enclosed in double quotes (inner ones doubled): that is the only
 *    place where spreadsheets read a quote as quoting, and an unclosed one would swallow the rows after it.
 */
export function tsvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text: string;
  if (Array.isArray(value)) text = value.join('; ');
  else if (typeof value === 'string') text = value;
  else text = JSON.stringify(value);
  const formula = text.startsWith('\t') || text.startsWith('\r') || FORMULA_START.test(text.trimStart());
  text = text.replace(SEPARATORS, ' ');
  if (formula || text.startsWith("'") || READ_AS_VALUE.test(text)) return `'${text}`;
  return text.startsWith('"') ? `"${text.replaceAll('"', '""')}"` : text;
}

export async function fileBytes(content: DownloadContent): Promise<Buffer> {
  const { columns, rows } = content;
  if (content.format === 'tsv') {
    const lines = [columns.join('\t'), ...rows.map((row) => columns.map((column) => tsvCell(row[column])).join('\t'))];
    return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  }
  if (content.format === 'xlsx') {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Results');
    sheet.addRow(columns);
    sheet.getRow(1).font = { bold: true };
    for (const row of rows) sheet.addRow(columns.map((column) => (Array.isArray(row[column]) ? (row[column] as unknown[]).join('; ') : (row[column] ?? null))));
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }
  const columnData = columns.map((name) => {
    const type: 'DOUBLE' | 'BOOLEAN' | 'JSON' | 'STRING' = PARQUET_TYPES[name] ?? 'STRING';
    const data = rows.map((row) => {
      const value = row[name] ?? null;
      return value;
    });
    return { name, data, type };
  });
  return Buffer.from(parquetWriteBuffer({ columnData }));
}

/** Caps on the files of the store. */
export interface DownloadLimits {
  /** Files one caller (an API key or a bearer user) may have alive at a time. */
  filesPerCaller: number;
  /** Files alive in the whole store. */
  totalFiles: number;
  /** Bytes of the files alive in the whole store. */
  totalBytes: number;
}

/** Downloads hold at most 10 rows (a file is some kB), so 10,000 files stay far below the byte cap. */
export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = { filesPerCaller: 20, totalFiles: 10_000, totalBytes: 1024 ** 3 };

/** How often expired files are deleted besides the sweep before each write (a file outlives its link by at most this). */
export const DOWNLOAD_SWEEP_INTERVAL_MS = 60_000;

/** A write over a cap: the caller's ('caller') or the whole store's ('store'), and when a slot frees (null: not by waiting). */
export class DownloadLimitError extends Error {
  constructor(
    readonly scope: 'caller' | 'store',
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

/** A download_id that cannot name a file (the route answers it as a bad parameter). */
export class DownloadIdError extends NamedError {}

export interface DownloadStoreOptions {
  limits?: Partial<DownloadLimits>;
  /** 0: no timer (the sweeps at open and before writes remain). */
  sweepIntervalMs?: number;
  /** A sweep on the timer that fails (a file it may not delete): reported here instead of thrown. */
  onError?: (error: Error) => void;
}

interface StoredFile {
  /** The caller's folder under downloads/. */
  owner: string;
  bytes: number;
  expires: number;
}

const isoSeconds = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const count = (n: number, word: string): string => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
function byteSize(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2]] as const) if (bytes >= size && bytes % size === 0) return `${(bytes / size).toLocaleString('en')} ${unit}`;
  return count(bytes, 'byte');
}
const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException).code;

/**
 * The base of download links from a configured public URL: http(s), host, optional path prefix; no
 * credentials, query or fragment. Returned without a trailing slash.
 */
export function publicBaseUrl(text: string): string {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash || text.includes('?') || text.includes('#')) {
    throw new Error(`the public URL (--public-url) must be an http(s) URL with at most a path, such as https://orgindex.example.com (no credentials, query or fragment); got "${text}"`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The origin of the address a connection reached on this server (its own socket address, never a header
 * the client writes), or '' when unknown (an injected request): the link is then relative to the server.
 */
export function connectionOrigin(protocol: string, localAddress: string | undefined, localPort: number | undefined): string {
  if (!localAddress || !localPort) return '';
  const address = localAddress.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return `${protocol}://${address.includes(':') ? `[${address.replace('%', '%25')}]` : address}:${localPort}`;
}

/** Where a store keeps a download's file: checks the id, and names the caller's folder. */
export function downloadPath(content: DownloadContent, owner: string): { ownerDir: string; filePath: string } {
  if (!SAFE_ID.test(content.downloadId)) throw new DownloadIdError('download_id may hold letters, digits, ".", "_" and "-" only (at most 100)');
  // A key id is 16 hex digits; anything else (a token's sub) is hashed: no clash, no "..", no escaping.
  const ownerDir = /^key:[0-9a-f]{16}$/.test(owner) ? owner.replace(':', '-') : `user-${createHash('sha256').update(owner).digest('hex').slice(0, 16)}`;
  return { ownerDir, filePath: `downloads/${ownerDir}/${content.downloadId}.${content.format}` };
}

/** What a store holds when a file is about to be written (expired files already gone). */
export interface StoreStanding {
  /** Files of the writing caller. */
  ownerFiles: number;
  files: number;
  bytes: number;
  /** Bytes of the file this write replaces (same path), or null for a new file. */
  replacedBytes: number | null;
  /** When the caller's, and anyone's, first file expires (null: none). */
  nextOwnerExpiry: number | null;
  nextExpiry: number | null;
}

/** The refusal of a write of `size` bytes over a cap (null: it fits). */
export function capRefusal(limits: DownloadLimits, standing: StoreStanding, size: number, at: number): DownloadLimitError | null {
  const retry = (next: number | null): { text: string; seconds: number | null } => {
    if (next === null) return { text: '', seconds: null };
    const seconds = secondsUntil(next, at);
    return { text: `${isoSeconds(next)} (in ${count(seconds, 'second')})`, seconds };
  };
  const lifetime = `each is deleted ${count(DOWNLOAD_LINK_TTL_MS / 60_000, 'minute')} after it is written, when its link expires`;
  const { filesPerCaller, totalFiles, totalBytes } = limits;
  const replaced = standing.replacedBytes !== null;
  if (!replaced && standing.ownerFiles >= filesPerCaller) {
    const next = retry(standing.nextOwnerExpiry);
    return new DownloadLimitError(
      'caller',
      `Download limit reached: at most ${count(filesPerCaller, 'download file')} per caller are kept at a time (${lifetime}); the next slot frees at ${next.text}. A download with the download_id of a file you still have replaces it without taking a slot.`,
      next.seconds,
    );
  }
  const files = standing.files + (replaced ? 0 : 1);
  const bytes = standing.bytes - (standing.replacedBytes ?? 0) + size;
  if (files > totalFiles || bytes > totalBytes) {
    const next = retry(standing.nextExpiry);
    return new DownloadLimitError(
      'store',
      `The download store is full: at most ${count(totalFiles, 'file')} and ${byteSize(totalBytes)} are kept for all callers together (${lifetime}); ${next.seconds === null ? `a file of ${byteSize(size)} does not fit` : `the next file expires at ${next.text}`}`,
      next.seconds,
    );
  }
  return null;
}

/** Signs download links and checks them: an HMAC of the path and the expiry under the store's key. */
export class LinkSigner {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number,
  ) {}

  /** The link path of a file whose link expires at `expires`. */
  link(filePath: string, expires: number): string {
    return `/v1/files/${filePath}?expires=${expires}&signature=${this.sign(filePath, expires)}`;
  }

  /** Why a link may not be served (null: it may). */
  refusal(path: string, expires: string | undefined, signature: string | undefined): string | null {
    const at = Number(expires);
    if (!expires || !signature || !Number.isSafeInteger(at)) return 'this download link is incomplete';
    const expected = Buffer.from(this.sign(path, at), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'this download link is not valid (its signature does not match)';
    if (at <= this.now()) return 'this download link has expired: ask /v1/download for a new one';
    return null;
  }

  private sign(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('hex');
  }
}

/** Keeps the files of /v1/download and serves them by signed link. */
export interface DownloadStore {
  /**
   * Writes the file and returns its object-store path and signed link path. Throws a DownloadIdError for
   * an id that cannot name a file, a DownloadLimitError over a cap (nothing written).
   */
  write(content: DownloadContent, owner: string): Promise<{ filePath: string; link: string }>;
  /** The bytes of the file a link names, or why not. */
  read(path: string, expires: string | undefined, signature: string | undefined): Promise<{ bytes: Buffer } | { refused: string }>;
  /** Stops its timers (the store's files stay). */
  close(): void;
}

export const NO_LONGER_EXISTS = 'this download no longer exists';

/** The files in a directory of this machine, for one server process (it keeps their index in memory). */
export class DirectoryDownloadStore implements DownloadStore {
  /** The files alive, by object-store path. */
  private readonly files = new Map<string, StoredFile>();
  private readonly filesOf = new Map<string, number>();
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;

  private readonly signer: LinkSigner;

  private constructor(
    private readonly dir: string,
    key: Buffer,
    private readonly now: () => number,
    private readonly limits: DownloadLimits,
  ) {
    this.signer = new LinkSigner(key, now);
  }

  /**
   * Opens (or creates) the store in `dir`, with its signing key; deletes what earlier runs left expired
   * (and half-written files) and starts the periodic sweep (an unref'd timer: `close` stops it).
   */
  static open(dir: string, now: () => number, options: DownloadStoreOptions = {}): DirectoryDownloadStore {
    mkdirSync(dir, { recursive: true });
    const keyFile = join(dir, 'signing.key');
    if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    const store = new DirectoryDownloadStore(dir, Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'), now, { ...DEFAULT_DOWNLOAD_LIMITS, ...options.limits });
    store.load();
    store.sweep();
    const interval = options.sweepIntervalMs ?? DOWNLOAD_SWEEP_INTERVAL_MS;
    if (interval > 0) {
      store.timer = setInterval(() => {
        try {
          store.sweep();
        } catch (error) {
          options.onError?.(error as Error);
        }
      }, interval);
      store.timer.unref();
    }
    return store;
  }

  /** Stops the periodic sweep. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Indexes the files on disk; a file expires its link lifetime after its modification time (set at write). */
  private load(): void {
    const root = join(this.dir, 'downloads');
    if (!existsSync(root)) return;
    for (const owner of readdirSync(root, { withFileTypes: true })) {
      if (!owner.isDirectory()) continue;
      for (const entry of readdirSync(join(root, owner.name), { withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const path = `downloads/${owner.name}/${entry.name}`;
        const absolute = join(this.dir, path);
        // A temporary file exists only within one synchronous step of a write: any found here is debris.
        if (entry.name.endsWith('.tmp')) {
          unlinkSync(absolute);
          continue;
        }
        const stat = statSync(absolute);
        this.track(path, { owner: owner.name, bytes: stat.size, expires: Math.round(stat.mtimeMs) + DOWNLOAD_LINK_TTL_MS });
      }
      this.removeIfEmpty(owner.name);
    }
  }

  private track(path: string, file: StoredFile): void {
    this.forget(path);
    this.files.set(path, file);
    this.filesOf.set(file.owner, (this.filesOf.get(file.owner) ?? 0) + 1);
    this.bytes += file.bytes;
  }

  private forget(path: string): void {
    const file = this.files.get(path);
    if (!file) return;
    this.files.delete(path);
    this.bytes -= file.bytes;
    const left = (this.filesOf.get(file.owner) ?? 1) - 1;
    if (left > 0) this.filesOf.set(file.owner, left);
    else this.filesOf.delete(file.owner);
  }

  private removeIfEmpty(owner: string): void {
    if (this.filesOf.has(owner)) return;
    try {
      rmdirSync(join(this.dir, 'downloads', owner));
    } catch {
      // not empty (a file the store does not index) or already gone: either way nothing to do
    }
  }

  /** Deletes the files whose links have expired; returns how many. A file it may not delete stays counted. */
  sweep(at: number = this.now()): number {
    let removed = 0;
    const owners = new Set<string>();
    let failure: unknown = null;
    for (const [path, file] of this.files) {
      if (file.expires > at) continue;
      try {
        unlinkSync(join(this.dir, path));
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') {
          failure ??= error;
          continue;
        }
      }
      this.forget(path);
      owners.add(file.owner);
      removed++;
    }
    for (const owner of owners) this.removeIfEmpty(owner);
    if (failure) throw failure as Error;
    return removed;
  }

  /** When the first of the matching files expires (null: none). */
  private nextExpiry(owner: string | null): number | null {
    let next: number | null = null;
    for (const file of this.files.values()) if ((owner === null || file.owner === owner) && (next === null || file.expires < next)) next = file.expires;
    return next;
  }

  /** Writes the file (temporary file + rename); see DownloadStore.write. */
  async write(content: DownloadContent, owner: string): Promise<{ filePath: string; link: string }> {
    const { ownerDir, filePath } = downloadPath(content, owner);
    const bytes = await fileBytes(content);
    // From here on synchronous: the caps checked are the caps applied (no other write or sweep runs between).
    const at = this.now();
    this.sweep(at);
    const refused = capRefusal(
      this.limits,
      { ownerFiles: this.filesOf.get(ownerDir) ?? 0, files: this.files.size, bytes: this.bytes, replacedBytes: this.files.get(filePath)?.bytes ?? null, nextOwnerExpiry: this.nextExpiry(ownerDir), nextExpiry: this.nextExpiry(null) },
      bytes.length,
      at,
    );
    if (refused) throw refused;
    const absolute = join(this.dir, filePath);
    const temporary = `${absolute}.tmp`;
    try {
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileSync(temporary, bytes);
      // The modification time carries the expiry across restarts (on the store's clock).
      utimesSync(temporary, at / 1000, at / 1000);
      renameSync(temporary, absolute);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // never created
      }
      throw error;
    }
    const expires = at + DOWNLOAD_LINK_TTL_MS;
    this.track(filePath, { owner: ownerDir, bytes: bytes.length, expires });
    return { filePath, link: this.signer.link(filePath, expires) };
  }

  async read(path: string, expires: string | undefined, signature: string | undefined): Promise<{ bytes: Buffer } | { refused: string }> {
    const refused = this.signer.refusal(path, expires, signature);
    if (refused !== null) return { refused };
    const file = normalize(join(this.dir, path));
    if (!file.startsWith(this.dir + sep)) return { refused: NO_LONGER_EXISTS };
    try {
      return { bytes: await readFile(file) };
    } catch {
      return { refused: NO_LONGER_EXISTS };
    }
  }
}
