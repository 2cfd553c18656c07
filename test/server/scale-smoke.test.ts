/**
 * The index at scale, as a correctness check (timings belong to npm run bench:scale): 1,000,000 generated
 * organizations built into a snapshot by the real command (streamed store, keyword index in segments,
 * vectors coded in blocks, summaries left on disk when served), then served over HTTP. Every answer is
 * checked against another way of counting the same thing: stats against filter totals, fetch against the
 * domains asked for, scores against their order.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../src/cli/serve.js';
import { readManifest } from '../../src/server/index-snapshot.js';
import { startServerProcess } from '../support/server-process.js';

const COUNT = 1_000_000;
const KEY = 'scale-smoke-test-key-0000000001';
const root = mkdtempSync(join(tmpdir(), 'orgindex-scale-'));
const out = join(root, 'index');
let running: Awaited<ReturnType<typeof serve>> | null = null;

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['--max-old-space-size=4000', join(__dirname, '../../bin/orgindex.js'), 'index', 'build', '--count', String(COUNT), '--out', out], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`index build failed: ${built.stderr}`);
  writeFileSync(join(root, 'keys.json'), JSON.stringify({ keys: [{ key: KEY, tier: 'tier_2' }] }));
  running = await serve({ host: '127.0.0.1', port: 0, index: out, keys: join(root, 'keys.json'), stateDir: join(root, 'state'), logLevel: 'silent' }, () => undefined);
}, 600_000);

afterAll(async () => {
  await running?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A request as a well-behaved client sends it: on 429 it waits as Retry-After says (tier_2: 5 a second, bursts of 10). */
async function post<T>(path: string, body: unknown, server = { url: running?.url ?? '', key: KEY }): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${server.url}/v2/${path}`, { method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status === 429 && attempt < 10) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000));
      continue;
    }
    const answer = (await response.json()) as T;
    expect([response.status, answer]).toEqual([200, answer]);
    return answer;
  }
}

interface Page {
  data: { domain: string }[];
  metadata: { total_hits: number | null; search_after: unknown[] | null };
}

test('the snapshot holds every organization; stats count them all, and each bucket as a filter counts it', async () => {
  expect(readManifest(out).organizations).toBe(COUNT);
  const stats = await post<{ data: { country: string; count: number }[] }>('stats', { group_by: 'country' });
  expect(stats.data.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(COUNT);
  const [largest, smallest] = [stats.data[0]!, stats.data[stats.data.length - 1]!];
  for (const bucket of [largest, smallest]) {
    const page = await post<Page>('search', { filters: { country: [bucket.country] }, size: 10 });
    expect(page.metadata.total_hits).toBe(bucket.count);
  }
}, 60_000);

test('keyword search: the totals within one country and within all the others add up to the whole', async () => {
  const keywords = { must_all: ['bakery'] };
  const all = await post<Page>('search', { keywords, size: 50 });
  const total = all.metadata.total_hits ?? 0;
  expect(total).toBeGreaterThan(1_000);
  expect(all.data).toHaveLength(50);
  const countries = (await post<{ data: { country: string }[] }>('stats', { group_by: 'country' })).data.map((bucket) => bucket.country);
  const [first, ...others] = countries;
  const one = await post<Page>('search', { keywords, filters: { country: [first] }, size: 1 });
  const rest = await post<Page>('search', { keywords, filters: { country: others }, size: 1 });
  expect((one.metadata.total_hits ?? 0) + (rest.metadata.total_hits ?? 0)).toBe(total);
  expect(one.metadata.total_hits).toBeGreaterThan(0);
}, 60_000);

test('fetch of 5,000 domains finds each of them, summaries read from the file', async () => {
  const domains: string[] = [];
  let after: unknown[] | null = null;
  while (domains.length < 5_000) {
    const page: Page = await post<Page>('search', { filters: { country: ['Deutschland'] }, size: 500, columns: ['domain'], ...(after ? { search_after: after } : {}) });
    domains.push(...page.data.map((row) => row.domain));
    after = page.metadata.search_after;
    expect(after).not.toBeNull();
  }
  const fetched = await post<{ data: { domain: string; summary: string | null }[] }>('fetch', { domains, columns: ['domain', 'summary'] });
  expect(new Set(fetched.data.map((row) => row.domain))).toEqual(new Set(domains));
  expect(fetched.data.filter((row) => (row.summary ?? '').length > 20).length).toBeGreaterThan(4_500);
}, 60_000);

test('semantic search: an exact total at or above the floor, fewer above a higher one; the next page continues it', async () => {
  const describe = 'bakeries that make bread for households';
  const page = await post<Page>('search', { describe, size: 100 });
  expect(page.data).toHaveLength(100);
  const total = page.metadata.total_hits ?? 0;
  expect(total).toBeGreaterThanOrEqual(100);
  const narrower = await post<Page>('search', { describe, size: 10, min_score: 0.6 });
  expect(narrower.metadata.total_hits).toBeLessThan(total);
  const next = await post<Page>('search', { describe, size: 100, search_after: page.metadata.search_after });
  expect(next.metadata.total_hits).toBe(total);
  const seen = new Set(page.data.map((row) => row.domain));
  expect(next.data.filter((row) => seen.has(row.domain))).toEqual([]);
}, 60_000);

test('the vector scan on two threads (the server as its own process) answers exactly as on one (the server in this process)', async () => {
  // Compiled files only: under the test runner the scan's worker file is absent and this process scans on one thread.
  const other = await startServerProcess({ index: out, readyWhen: /relevance structures ready .*\)\n/ });
  try {
    expect(other.stderr()).toMatch(availableParallelism() >= 2 ? /vector scan on two threads/ : /vector scan on one thread/);
    const bodies = [
      { describe: 'bakeries that make bread for households', size: 100 },
      { describe: 'wind farms for municipal utilities', size: 50, min_score: 0.2 },
      { describe: 'guitar lessons for seniors', size: 20, min_score: 0.6, filters: { country: ['Deutschland'] } },
      { describe: 'software for hospitals', size: 100, search_after: [100, ''] },
      { keywords: { must_any: ['bakery', 'bread'] }, describe: 'organic bread', size: 50 },
    ];
    for (const body of bodies) {
      const page = { ...body, columns: ['domain'] };
      if (body.search_after) {
        // The second page of the query: its cursor from this process's first page.
        const first = await post<Page>('search', { ...page, search_after: undefined });
        page.search_after = first.metadata.search_after as [number, string];
      }
      const one = await post<Page>('search', page);
      const two = await post<Page>('search', page, other);
      expect(one.data.length).toBeGreaterThan(0);
      expect([two.data, two.metadata.total_hits]).toEqual([one.data, one.metadata.total_hits]);
    }
  } finally {
    await other.close();
  }
}, 120_000);
