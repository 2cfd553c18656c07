/**
 * Files of `/v1/download`: written to a local object-store directory (`<state dir>/files/downloads/
 * <caller>/<download id>.<format>`) with well-kept writers — TSV by hand (trivial), XLSX with exceljs,
 * Parquet with hyparquet-writer — and served by the same server through time-limited signed links:
 *   /v1/files/<path>?expires=<epoch ms>&signature=<HMAC-SHA256(path "\n" expires), hex>
 * An expired or tampered link is a 403. The signing key lives in the directory (created once, owner-only),
 * so links survive a restart until they expire (DOWNLOAD_LINK_TTL_MS: one hour).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import ExcelJS from 'exceljs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { DownloadFormat } from '../contract/v1.js';
import type { DownloadContent } from '../engine/legacy/legacy-service.js';

export const DOWNLOAD_LINK_TTL_MS = 60 * 60_000;

export const DOWNLOAD_CONTENT_TYPES: Record<DownloadFormat, string> = {
  tsv: 'text/tab-separated-values; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
};

/** Parquet column types by v1 column (everything not listed is a UTF-8 string). */
const PARQUET_TYPES: Record<string, 'DOUBLE' | 'BOOLEAN' | 'JSON'> = { lat: 'DOUBLE', lon: 'DOUBLE', new_register_entry: 'BOOLEAN', summary_keywords: 'JSON' };

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** A cell as text (TSV): lists joined with "; ", tabs and line breaks turned into spaces. */
function tsvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (Array.isArray(value)) text = value.join('; ');
  else if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else text = JSON.stringify(value);
  return text.replace(/[\t\r\n]+/g, ' ');
}

async function fileBytes(content: DownloadContent): Promise<Buffer> {
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

export class DownloadStore {
  private constructor(
    private readonly dir: string,
    private readonly key: Buffer,
    private readonly now: () => number,
  ) {}

  /** Opens (or creates) the store in `dir`, with its signing key. */
  static open(dir: string, now: () => number): DownloadStore {
    mkdirSync(dir, { recursive: true });
    const keyFile = join(dir, 'signing.key');
    if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    return new DownloadStore(dir, Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'), now);
  }

  private sign(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('hex');
  }

  /** Writes the file (temporary file + rename) and returns its object-store path and signed link path. */
  async write(content: DownloadContent, owner: string): Promise<{ filePath: string; link: string }> {
    if (!SAFE_ID.test(content.downloadId)) throw new Error('download_id may hold letters, digits, ".", "_" and "-" only (at most 100)');
    // A key id is 16 hex digits; anything else (a token's sub) is hashed: no clash, no "..", no escaping.
    const ownerDir = /^key:[0-9a-f]{16}$/.test(owner) ? owner.replace(':', '-') : `user-${createHash('sha256').update(owner).digest('hex').slice(0, 16)}`;
    const filePath = `downloads/${ownerDir}/${content.downloadId}.${content.format}`;
    const absolute = join(this.dir, filePath);
    mkdirSync(dirname(absolute), { recursive: true });
    const temporary = `${absolute}.tmp`;
    writeFileSync(temporary, await fileBytes(content));
    renameSync(temporary, absolute);
    const expires = this.now() + DOWNLOAD_LINK_TTL_MS;
    return { filePath, link: `/v1/files/${filePath}?expires=${expires}&signature=${this.sign(filePath, expires)}` };
  }

  /** The file a link names, or why not ('expired' | 'invalid'). */
  resolve(path: string, expires: string | undefined, signature: string | undefined): { file: string } | { refused: string } {
    const at = Number(expires);
    if (!expires || !signature || !Number.isSafeInteger(at)) return { refused: 'this download link is incomplete' };
    const expected = Buffer.from(this.sign(path, at), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'this download link is not valid (its signature does not match)' };
    if (at <= this.now()) return { refused: 'this download link has expired: ask /v1/download for a new one' };
    const file = normalize(join(this.dir, path));
    if (!file.startsWith(this.dir + sep) || !existsSync(file)) return { refused: 'this download no longer exists' };
    return { file };
  }
}
