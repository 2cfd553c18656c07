/** The quota journal: replay, torn lines, compaction, and a kill -9 of a real server under load. */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QuotaLedger } from '../../src/server/quota-ledger.js';
import { spawnServe } from '../support/server-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-ledger-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('QuotaLedger', () => {
  test('counts survive a reopen; months and keys are separate', async () => {
    const ledger = await QuotaLedger.open(dir);
    await Promise.all([
      ledger.record('2026-11', 'a', { requests: 1, statsRequests: 0, results: 25 }),
      ledger.record('2026-11', 'a', { requests: 1, statsRequests: 1, results: 0 }),
      ledger.record('2026-11', 'b', { requests: 1, statsRequests: 0, results: 3 }),
      ledger.record('2026-12', 'a', { requests: 1, statsRequests: 0, results: 1 }),
    ]);
    expect(ledger.get('2026-11', 'a')).toEqual({ requests: 2, statsRequests: 1, results: 25 });
    await ledger.close();
    const reopened = await QuotaLedger.open(dir);
    expect(reopened.get('2026-11', 'a')).toEqual({ requests: 2, statsRequests: 1, results: 25 });
    expect(reopened.get('2026-11', 'b')).toEqual({ requests: 1, statsRequests: 0, results: 3 });
    expect(reopened.get('2026-12', 'a')).toEqual({ requests: 1, statsRequests: 0, results: 1 });
    expect(reopened.get('2026-10', 'a')).toEqual({ requests: 0, statsRequests: 0, results: 0 });
    await reopened.close();
  });

  test('a torn last line (a crash mid-write, never acknowledged) is skipped', async () => {
    const ledger = await QuotaLedger.open(dir);
    await ledger.record('2026-11', 'a', { requests: 1, statsRequests: 0, results: 5 });
    await ledger.close();
    const log = readdirSync(dir).find((name) => name.endsWith('.log'))!;
    appendFileSync(join(dir, log), '2026-11\ta\t1\t0');
    const reopened = await QuotaLedger.open(dir);
    expect(reopened.get('2026-11', 'a')).toEqual({ requests: 1, statsRequests: 0, results: 5 });
    // And the next line is not glued to the torn one.
    await reopened.record('2026-11', 'a', { requests: 1, statsRequests: 0, results: 0 });
    await reopened.close();
    const third = await QuotaLedger.open(dir);
    expect(third.get('2026-11', 'a').requests).toBe(2);
    await third.close();
  });

  test('compaction folds the journal into a snapshot without losing or doubling a count', async () => {
    const ledger = await QuotaLedger.open(dir, { compactBytes: 200 });
    for (let i = 0; i < 60; i++) await ledger.record('2026-11', `key-${i % 3}`, { requests: 1, statsRequests: i % 2, results: i });
    await ledger.close();
    const files = readdirSync(dir).sort();
    expect(files).toContain('quota-snapshot.json');
    expect(files.filter((name) => name.endsWith('.log')).length).toBeLessThanOrEqual(2);
    const reopened = await QuotaLedger.open(dir);
    let requests = 0;
    let stats = 0;
    let results = 0;
    for (const key of ['key-0', 'key-1', 'key-2']) {
      const usage = reopened.get('2026-11', key);
      requests += usage.requests;
      stats += usage.statsRequests;
      results += usage.results;
    }
    expect({ requests, stats, results }).toEqual({ requests: 60, stats: 30, results: (59 * 60) / 2 });
    await reopened.close();
  });

  test('compaction while records keep arriving (lines still pending) neither loses nor doubles a count', async () => {
    // A slow disk (every sync 15 ms) and a record every 2 ms: lines pile up while a compaction runs.
    const probe = await openFile(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const datasync = prototype.datasync;
    prototype.datasync = async function slowDatasync(this: unknown) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      return datasync.call(this);
    };
    try {
      const ledger = await QuotaLedger.open(dir, { compactBytes: 200 });
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 100; i++) {
        writes.push(ledger.record('2026-11', 'k', { requests: 1, statsRequests: 0, results: 2 }));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await Promise.all(writes);
      expect(ledger.get('2026-11', 'k')).toEqual({ requests: 100, statsRequests: 0, results: 200 });
      await ledger.close();
      expect(readdirSync(dir)).toContain('quota-snapshot.json');
      const reopened = await QuotaLedger.open(dir);
      expect(reopened.get('2026-11', 'k')).toEqual({ requests: 100, statsRequests: 0, results: 200 });
      await reopened.close();
    } finally {
      prototype.datasync = datasync;
    }
  });

  test('a snapshot covering a log that was not yet deleted does not count it twice', async () => {
    const ledger = await QuotaLedger.open(dir);
    await ledger.record('2026-11', 'a', { requests: 4, statsRequests: 0, results: 0 });
    await ledger.close();
    // As if compaction crashed after writing the snapshot (generation 1) but before deleting quota-1.log.
    writeFileSync(join(dir, 'quota-snapshot.json'), JSON.stringify({ generation: 1, months: { '2026-11': { a: [4, 0, 0] } } }));
    const reopened = await QuotaLedger.open(dir);
    expect(reopened.get('2026-11', 'a').requests).toBe(4);
    await reopened.close();
  });
});

describe('kill -9 in the middle of load loses no answered request', () => {
  const key = 'durability-test-key-000000000001';

  // Once warm: the load is meant to meet a server answering searches, not one still building its structures.
  const start = (stateDir: string, keysFile: string) =>
    spawnServe({ args: ['--count', '1500', '--keys', keysFile, '--state-dir', stateDir, '--log-level', 'silent'], testKeyRate: false, readyWhen: /relevance structures/ });

  async function requestsUsed(url: string): Promise<number> {
    const response = await fetch(`${url}/v2/filters/options`, { headers: { 'x-api-key': key } });
    // The headers already include this probe: leave it out.
    return 1_000_000 - Number(response.headers.get('x-ratelimit-requests-remaining')) - 1;
  }

  test('every 200 the client saw is in the counters after a restart', async () => {
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [{ key, tier: 'tier_2' }], tiers: { tier_2: { ratePerSecond: 100_000, burst: 100_000, monthlyRequests: 1_000_000 } } }));
    const stateDir = join(dir, 'state');
    const first = await start(stateDir, keysFile);
    let answered = 0;
    let sent = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        sent++;
        try {
          const response = await fetch(`${first.url}/v2/search`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 2, columns: ['domain'] }),
          });
          if (response.status === 200) answered++;
          await response.arrayBuffer();
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, () => worker());
    // Let load build up, then kill without warning.
    await new Promise((r) => setTimeout(r, 1_500));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(answered).toBeGreaterThan(50);

    const second = await start(stateDir, keysFile);
    try {
      const used = await requestsUsed(second.url);
      // Counted before the answer was sent: at least every answered request, at most every sent one.
      expect(used).toBeGreaterThanOrEqual(answered);
      expect(used).toBeLessThanOrEqual(sent);
    } finally {
      await second.close();
    }
    // A graceful stop flushed and closed the journal: the third start agrees.
    const journal = readdirSync(stateDir).filter((name) => name.endsWith('.log')).map((name) => readFileSync(join(stateDir, name), 'utf8')).join('');
    expect(journal.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(answered + 1);
  }, 60_000);
});
