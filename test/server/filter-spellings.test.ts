/**
 * Filter values over the wire, spelled the way users spell them: the real server on a loopback port,
 * raw JSON bodies with raw UTF-8 (as curl sends them).
 */
import { KEYS, raw, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

interface Answer {
  data: { domain: string }[];
  metadata: { total_hits: number; filters_applied: Record<string, string[]> | null; warnings?: { field: string; value: string; message: string; closest: string[] }[] };
}

async function post(route: 'search' | 'stats', key: string, body: object): Promise<{ status: number; body: Answer }> {
  const answer = await raw(`${server.url}/v2/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: answer.body as Answer };
}

test('country "Germany", "deutschland" and state "Bavaria" find what the stored spelling finds, and echo it', async () => {
  const stored = await post('search', KEYS.tier2, { filters: { country: ['Deutschland'], state: ['Bayern'] }, size: 50, columns: ['domain'] });
  expect(stored.body.metadata.total_hits).toBeGreaterThan(0);
  for (const filters of [{ country: ['Germany'], state: ['Bavaria'] }, { country: ['deutschland'], state: ['BAYERN'] }, { country: ['DE'], state: ['DE-BY'] }]) {
    const typed = await post('search', KEYS.tier2, { filters, size: 50, columns: ['domain'] });
    expect(typed.status).toBe(200);
    expect(typed.body.data).toEqual(stored.body.data);
    expect(typed.body.metadata.filters_applied).toEqual({ country: ['Deutschland'], state: ['Bayern'] });
    expect(typed.body.metadata.warnings).toBeUndefined();
  }
  const stats = await post('stats', KEYS.tier2, { group_by: 'state', filters: { country: ['germany'] } });
  expect(stats.status).toBe(200);
  expect(stats.body.metadata.filters_applied).toEqual({ country: ['Deutschland'] });
});

test('an unknown value: 200 with no rows, and a warning with the closest known value instead of a silent empty answer', async () => {
  const answer = await post('search', KEYS.tier2, { filters: { country: ['Deutschlnd'] }, columns: ['domain'] });
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual([]);
  expect(answer.body.metadata.warnings).toEqual([
    { field: 'filters.country', value: 'Deutschlnd', message: 'No organization has country "Deutschlnd"; closest known values: "Deutschland".', closest: ['Deutschland'] },
  ]);
  const stats = await post('stats', KEYS.tier2, { group_by: 'country', filters: { municipality: ['Munich, Bavaria'] } });
  expect(stats.body.metadata.warnings?.[0]?.closest).toContain('München');
});

test('a scoped key gets the same warning for a value outside its scope as for one that exists nowhere', async () => {
  const outside = await post('search', KEYS.scoped, { filters: { country: ['Germany'] }, columns: ['domain'] });
  const nowhere = await post('search', KEYS.scoped, { filters: { country: ['Narnia'] }, columns: ['domain'] });
  expect(outside.body.data).toEqual([]);
  expect(outside.body.metadata.warnings?.[0]?.message.replace('Germany', 'Narnia')).toBe(nowhere.body.metadata.warnings?.[0]?.message);
  expect(outside.body.metadata.warnings?.[0]?.closest).toEqual([]);
  const inside = await post('search', KEYS.scoped, { filters: { country: ['austria'] }, columns: ['domain'] });
  expect(inside.body.metadata.total_hits).toBeGreaterThan(0);
  expect(inside.body.metadata.filters_applied).toEqual({ country: ['Österreich'] });
});
