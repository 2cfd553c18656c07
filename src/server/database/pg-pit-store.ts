/**
 * v1 point-in-time contexts kept in the database that servers share (`--database`), so that the next
 * page of a search may reach any of them. A PIT row holds the frozen result list (row numbers, 4 bytes
 * each, at most 10,000) and a digest of the data it indexes: a server answers a page only when it holds
 * the same data (every worker of one `serve` does), else a 400 that says to start again. The caps of
 * pit-registry.ts hold across servers: opening takes one lock for the whole table, drops expired PITs,
 * gives up the caller's own least recently used at its cap, and refuses when the service is full.
 */
import { createHash } from 'node:crypto';
import type { SearchMode } from '../../contract/v2/search.js';
import type { ColumnStore } from '../../engine/store/store.js';
import { LegacyError, type Pit, type PitStore } from '../../engine/v1/v1-service.js';
import { MAX_OPEN_PITS, MAX_PITS_PER_CALLER, PIT_KEEP_ALIVE_MS, pitCapacityError } from '../../engine/v1/pit-registry.js';
import type { Engine } from '../../engine/engine.js';
import type { Database } from './database.js';

/** pg_advisory_xact_lock's key for "opening a PIT". */
const OPEN_LOCK = 7_402_118_333;

export interface PgPitStoreOptions {
  keepAliveMs?: number;
  maxOpen?: number;
  maxPerCaller?: number;
}

const digests = new WeakMap<ColumnStore, string>();

/** What identifies the data a PIT's row numbers point into: every domain, in row order (computed once per store). */
function dataDigest(store: ColumnStore): string {
  let digest = digests.get(store);
  if (digest === undefined) {
    const hash = createHash('sha256').update(`${store.size}\n`);
    for (let row = 0; row < store.size; row++) hash.update(store.domains.bytesOf(row)).update('\n');
    digest = hash.digest('hex');
    digests.set(store, digest);
  }
  return digest;
}

const rowsToBytes = (rows: Uint32Array): Buffer => {
  const bytes = Buffer.alloc(rows.length * 4);
  rows.forEach((row, i) => bytes.writeUInt32LE(row, i * 4));
  return bytes;
};

const bytesToRows = (bytes: Buffer): Uint32Array => {
  const rows = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < rows.length; i++) rows[i] = bytes.readUInt32LE(i * 4);
  return rows;
};

export class PgPitStore implements PitStore {
  private readonly keepAliveMs: number;
  private readonly maxOpen: number;
  private readonly maxPerCaller: number;

  constructor(
    private readonly database: Database,
    private readonly now: () => number,
    private readonly newId: () => string,
    options: PgPitStoreOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? PIT_KEEP_ALIVE_MS;
    this.maxOpen = Math.max(1, options.maxOpen ?? MAX_OPEN_PITS);
    this.maxPerCaller = Math.max(1, Math.min(this.maxOpen, options.maxPerCaller ?? MAX_PITS_PER_CALLER));
  }

  async open(owner: string, pit: Pit): Promise<string> {
    const id = this.newId();
    const at = this.now();
    const digest = dataDigest(pit.index.store);
    await this.database.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [OPEN_LOCK]);
      await client.query('DELETE FROM pits WHERE expires_ms <= $1', [at]);
      // At its cap, the caller gives up its own least recently used (the soonest to expire).
      await client.query('DELETE FROM pits WHERE id IN (SELECT id FROM pits WHERE owner = $1 ORDER BY expires_ms DESC OFFSET $2)', [owner, this.maxPerCaller - 1]);
      const { rows } = await client.query<{ open: string; soonest: string | null }>('SELECT count(*) AS open, min(expires_ms) AS soonest FROM pits');
      const open = Number(rows[0]?.open ?? 0);
      if (open >= this.maxOpen) throw pitCapacityError(this.maxOpen, this.maxPerCaller, Math.max(1, Math.ceil((Number(rows[0]?.soonest ?? at) - at) / 1000)));
      await client.query('INSERT INTO pits (id, owner, fingerprint, data_digest, mode, total, rows, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
        id,
        owner,
        pit.fingerprint,
        digest,
        pit.mode,
        pit.total,
        rowsToBytes(pit.rows),
        at + this.keepAliveMs,
      ]);
    });
    return id;
  }

  async use(id: string, owner: string, current: Engine): Promise<Pit | null> {
    const at = this.now();
    const [row] = await this.database.query<{ fingerprint: string; data_digest: string; mode: SearchMode; total: number; rows: Buffer }>(
      'UPDATE pits SET expires_ms = $4 WHERE id = $1 AND owner = $2 AND expires_ms > $3 RETURNING fingerprint, data_digest, mode, total, rows',
      [id, owner, at, at + this.keepAliveMs],
    );
    if (!row) return null;
    if (row.data_digest !== dataDigest(current.store)) throw new LegacyError(`pit_id ${id} was opened on other data than this server holds (the index was replaced since): start again without pit_id`);
    return { index: current, fingerprint: row.fingerprint, mode: row.mode, total: row.total, rows: bytesToRows(row.rows) };
  }

  async close(id: string, owner: string): Promise<boolean> {
    const closed = await this.database.query('DELETE FROM pits WHERE id = $1 AND owner = $2 AND expires_ms > $3 RETURNING id', [id, owner, this.now()]);
    return closed.length > 0;
  }

  /** Expired rows go (best effort: the next open deletes them too). */
  sweep(): void {
    this.database.query('DELETE FROM pits WHERE expires_ms <= $1', [this.now()]).catch(() => undefined);
  }
}
