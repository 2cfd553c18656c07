/**
 * The files of /v1/download kept in the database that servers share (`--database`): a link one server
 * hands out is served by any other, and the caps hold for all of them together. The signing key is one
 * row of service_secrets, made by the first server that needs it. A write takes one lock for the whole
 * store (downloads are few; the cap check and the write must not interleave across servers), deletes the
 * expired files, checks the caps and writes, in one transaction.
 */
import { randomBytes } from 'node:crypto';
import type { DownloadContent } from '../../engine/v1/v1-service.js';
import { capRefusal, DEFAULT_DOWNLOAD_LIMITS, DOWNLOAD_LINK_TTL_MS, downloadPath, fileBytes, LinkSigner, NO_LONGER_EXISTS, type DownloadLimits, type DownloadStore } from '../downloads.js';
import type { Database } from './database.js';

/** pg_advisory_xact_lock's key for "writing a download file". */
const WRITE_LOCK = 7_402_118_332;

interface StandingRow {
  owner_files: string;
  files: string;
  bytes: string;
  replaced_bytes: number | null;
  next_owner_expiry: string | null;
  next_expiry: string | null;
}

const numberOrNull = (text: string | null): number | null => (text === null ? null : Number(text));

/** A file's write or read moves up to its whole size: it may take longer than a statement of the quota state. */
const FILE_WORK_MS = 30_000;

export class PgDownloadStore implements DownloadStore {
  private readonly signer: LinkSigner;

  private constructor(
    private readonly database: Database,
    key: Buffer,
    private readonly now: () => number,
    private readonly limits: DownloadLimits,
  ) {
    this.signer = new LinkSigner(key, now);
  }

  /** The store of the database, with the signing key every server on it shares. */
  static async open(database: Database, now: () => number, limits: Partial<DownloadLimits> = {}): Promise<PgDownloadStore> {
    await database.query("INSERT INTO service_secrets (name, value) VALUES ('download signing key', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(32)]);
    const [row] = await database.query<{ value: Buffer }>("SELECT value FROM service_secrets WHERE name = 'download signing key'");
    if (!row) throw new Error('the download signing key could not be stored in the database');
    return new PgDownloadStore(database, row.value, now, { ...DEFAULT_DOWNLOAD_LIMITS, ...limits });
  }

  async write(content: DownloadContent, owner: string): Promise<{ filePath: string; link: string }> {
    const { ownerDir, filePath } = downloadPath(content, owner);
    const bytes = await fileBytes(content);
    const at = this.now();
    const expires = at + DOWNLOAD_LINK_TTL_MS;
    await this.database.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      await client.query('DELETE FROM download_files WHERE expires_ms <= $1', [at]);
      const { rows } = await client.query<StandingRow>(
        `SELECT count(*) FILTER (WHERE owner = $1) AS owner_files, count(*) AS files, coalesce(sum(size), 0) AS bytes,
                max(size) FILTER (WHERE path = $2) AS replaced_bytes,
                min(expires_ms) FILTER (WHERE owner = $1) AS next_owner_expiry, min(expires_ms) AS next_expiry
         FROM download_files`,
        [ownerDir, filePath],
      );
      const row = rows[0];
      const refused = capRefusal(
        this.limits,
        {
          ownerFiles: Number(row?.owner_files ?? 0),
          files: Number(row?.files ?? 0),
          bytes: Number(row?.bytes ?? 0),
          replacedBytes: row?.replaced_bytes ?? null,
          nextOwnerExpiry: numberOrNull(row?.next_owner_expiry ?? null),
          nextExpiry: numberOrNull(row?.next_expiry ?? null),
        },
        bytes.length,
        at,
      );
      if (refused) throw refused;
      await client.query(
        `INSERT INTO download_files (path, owner, content, size, expires_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (path) DO UPDATE SET content = excluded.content, size = excluded.size, expires_ms = excluded.expires_ms`,
        [filePath, ownerDir, bytes, bytes.length, expires],
      );
    }, { workMs: FILE_WORK_MS });
    return { filePath, link: this.signer.link(filePath, expires) };
  }

  async read(path: string, expires: string | undefined, signature: string | undefined): Promise<{ bytes: Buffer } | { refused: string }> {
    const refused = this.signer.refusal(path, expires, signature);
    if (refused !== null) return { refused };
    const { rows } = await this.database.transaction((client) => client.query<{ content: Buffer }>('SELECT content FROM download_files WHERE path = $1 AND expires_ms > $2', [path, this.now()]), { workMs: FILE_WORK_MS });
    const row = rows[0];
    return row ? { bytes: row.content } : { refused: NO_LONGER_EXISTS };
  }

  /** Nothing runs on a timer: every write deletes the expired files first. */
  close(): void {
    // the database is closed by its owner
  }
}
