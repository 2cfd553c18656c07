/**
 * v1 PITs in a database servers share (a real throwaway PostgreSQL): the same rules as in memory
 * (test/support/pit-scenarios.ts), a page opened on one server continued on another, and a server that
 * holds other data refusing the page instead of answering it from the wrong rows.
 */
import { randomUUID } from 'node:crypto';
import { createEngine, generateDataset, LegacyService } from '../../src/engine/index.js';
import { Database } from '../../src/server/database/database.js';
import { PgPitStore } from '../../src/server/database/pg-pit-store.js';
import { usePostgres } from '../support/postgres.js';
import { PitClock, pitCaller, pitIndex, pitQuery, pitScenarios } from '../support/pit-scenarios.js';

const cluster = usePostgres();
const opened: Database[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
});

async function database(url?: string): Promise<Database> {
  const open = await Database.open(url ?? (await cluster().createDatabase()));
  opened.push(open);
  return open;
}

describe('LegacyService PITs in PostgreSQL, with the default caps', () => {
  pitScenarios(async (clock, caps) => {
    const shared = await database();
    const store = new PgPitStore(shared, clock.now, randomUUID, caps);
    return { store, open: async () => Number((await shared.query<{ n: string }>('SELECT count(*) AS n FROM pits WHERE expires_ms > $1', [clock.now()]))[0]?.n) };
  });
});

test('two servers on one database: a walk opened on one continues on the other, page after page, with no row twice', async () => {
  const url = await cluster().createDatabase();
  const clock = new PitClock();
  const [a, b] = [await database(url), await database(url)].map((shared) => new LegacyService({ now: clock.now, newId: randomUUID, pits: new PgPitStore(shared, clock.now, randomUUID) }));
  const query = { ...pitQuery, size: 50 };
  let page = await a!.search(query, pitCaller('key:walker'));
  const seen = page.data.map((row) => row.domain);
  for (let n = 1; page.metadata.search_after !== null && n < 6; n++) {
    page = await (n % 2 === 1 ? b! : a!).search({ ...query, pit_id: page.metadata.pit_id, search_after: page.metadata.search_after }, pitCaller('key:walker'));
    seen.push(...page.data.map((row) => row.domain));
  }
  expect(seen.length).toBe(300);
  expect(new Set(seen).size).toBe(seen.length);
  const all = pitIndex.search({ filters: { country: ['Deutschland'] }, size: 300, columns: ['domain'] }).data.map((row) => row.domain);
  expect(seen).toEqual(all);
});

test('a server holding other data refuses the next page of a PIT opened elsewhere, saying to start again', async () => {
  const url = await cluster().createDatabase();
  const clock = new PitClock();
  const opener = new LegacyService({ now: clock.now, newId: randomUUID, pits: new PgPitStore(await database(url), clock.now, randomUUID) });
  const other = new LegacyService({ now: clock.now, newId: randomUUID, pits: new PgPitStore(await database(url), clock.now, randomUUID) });
  const first = await opener.search(pitQuery, pitCaller('key:a'));
  const otherData = createEngine(generateDataset({ count: 1_500, seed: 6, asOf: '2026-11-01' }));
  await expect(other.search({ ...pitQuery, pit_id: first.metadata.pit_id, search_after: first.metadata.search_after }, { id: 'key:a', index: otherData })).rejects.toThrow(
    'was opened on other data than this server holds (the index was replaced since): start again without pit_id',
  );
});
