/**
 * The database schema as numbered migrations. Each runs once, in order, inside one transaction that
 * holds an advisory lock, so server processes starting together migrate once. A database already
 * migrated past this build's last version is refused (an older build must not write to a newer schema).
 * A migration, once released, never changes: the next change is a new one.
 */
import type { PoolClient } from 'pg';
import { NamedError } from '../../contract/errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys and tier limits',
    sql: `
      CREATE TABLE api_keys (
        id          text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
        key_sha256  text NOT NULL UNIQUE CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
        name        text,
        tier        text NOT NULL,
        visibility  jsonb,
        admin       boolean NOT NULL DEFAULT false,
        created_at  timestamptz NOT NULL DEFAULT now(),
        revoked_at  timestamptz
      );
      CREATE UNIQUE INDEX api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL AND name IS NOT NULL;
      CREATE TABLE tier_limits (
        tier    text PRIMARY KEY,
        limits  jsonb NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'token buckets, quota counts and holds',
    sql: `
      CREATE TABLE token_buckets (
        slot        text PRIMARY KEY,
        tokens      double precision NOT NULL,
        updated_ms  bigint NOT NULL
      );
      CREATE TABLE quota_usage (
        month           text NOT NULL,
        key_id          text NOT NULL,
        requests        bigint NOT NULL DEFAULT 0,
        stats_requests  bigint NOT NULL DEFAULT 0,
        results         bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (month, key_id)
      );
      CREATE TABLE quota_holds (
        id              bigserial PRIMARY KEY,
        month           text NOT NULL,
        key_id          text NOT NULL,
        requests        integer NOT NULL,
        stats_requests  integer NOT NULL,
        results         integer NOT NULL,
        expires_at      timestamptz NOT NULL
      );
      CREATE INDEX quota_holds_key ON quota_holds (month, key_id);
    `,
  },
  {
    version: 3,
    name: 'download files, v1 point-in-time contexts and service secrets',
    sql: `
      CREATE TABLE service_secrets (
        name        text PRIMARY KEY,
        value       bytea NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE download_files (
        path        text PRIMARY KEY,
        owner       text NOT NULL,
        content     bytea NOT NULL,
        size        integer NOT NULL,
        expires_ms  bigint NOT NULL
      );
      CREATE INDEX download_files_owner ON download_files (owner, expires_ms);
      CREATE INDEX download_files_expiry ON download_files (expires_ms);
      CREATE TABLE pits (
        id           text PRIMARY KEY,
        owner        text NOT NULL,
        fingerprint  text NOT NULL,
        data_digest  text NOT NULL,
        mode         text NOT NULL,
        total        integer NOT NULL,
        rows         bytea NOT NULL,
        expires_ms   bigint NOT NULL
      );
      CREATE INDEX pits_owner ON pits (owner, expires_ms);
      CREATE INDEX pits_expiry ON pits (expires_ms);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((last, migration) => Math.max(last, migration.version), 0);

/** Any 64-bit number of our own: pg_advisory_xact_lock's key for "migrating the OrgIndex schema". */
const MIGRATION_LOCK = 7_402_118_331;

export class SchemaTooNew extends NamedError {}

/**
 * Brings the schema up to date; returns the versions before and after. Run inside one transaction
 * (Database.transaction): its advisory lock is held until that commits.
 */
export async function migrate(client: PoolClient): Promise<{ from: number; to: number }> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  await client.query(`
    CREATE TABLE IF NOT EXISTS orgindex_schema (
      version     integer PRIMARY KEY,
      name        text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM orgindex_schema');
  const from = rows[0]?.version ?? 0;
  if (from > SCHEMA_VERSION) {
    throw new SchemaTooNew(`the database's schema is at version ${from}, newer than this orgindex's ${SCHEMA_VERSION}: run a newer orgindex against it`);
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= from) continue;
    await client.query(migration.sql);
    await client.query('INSERT INTO orgindex_schema (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
  return { from, to: Math.max(from, SCHEMA_VERSION) };
}
