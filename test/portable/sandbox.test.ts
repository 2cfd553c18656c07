/**
 * The webpack bundle of the portable core parses as ES2019 (what Apps
 * Script V8 accepts) and works in a V8 context that, like Apps Script, has no fetch, setTimeout, URL,
 * TextEncoder, process or require. The transport there is scripted — a stand-in for UrlFetchApp.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { parse } from 'acorn';
import type * as Portable from '../../src/portable.js';
import type { HttpOutcome } from '../../src/portable.js';

const root = path.resolve(__dirname, '../..');
const bundlePath = path.join(root, 'dist/portable/orgindex-core.js');

let code = '';
/** The bundle's global has the portable entry's exports (typed from the sources it was built from). */
let core: typeof Portable;
let sandbox: Record<string, unknown>;

beforeAll(() => {
  // Only this bundle: rebuilding the others would empty dist/addin and dist/appsscript under the tests reading them.
  execFileSync(process.execPath, [path.join(root, 'node_modules/webpack-cli/bin/cli.js'), '--mode', 'production', '--config-name', 'portable-core'], {
    cwd: root,
    stdio: 'pipe',
  });
  code = readFileSync(bundlePath, 'utf8');
  sandbox = {};
  createContext(sandbox);
  runInContext(`${code}\n;this.OrgIndexCore = OrgIndexCore;`, sandbox, { filename: 'orgindex-core.js' });
  core = sandbox.OrgIndexCore as typeof Portable;
}, 120_000);

test('the bundle parses as ECMAScript 2019', () => {
  expect(() => parse(code, { ecmaVersion: 2019, sourceType: 'script' })).not.toThrow();
});

test('the sandbox really lacks the host globals', () => {
  for (const name of ['fetch', 'setTimeout', 'URL', 'URLSearchParams', 'TextEncoder', 'process', 'require', 'Buffer']) {
    expect(runInContext(`typeof ${name}`, sandbox)).toBe('undefined');
  }
});

test('contract validation and normalisation work in the sandbox', () => {
  expect(core.normalizeDomain('https://www.München.de/impressum')).toEqual({ ok: true, domain: 'xn--mnchen-3ya.de' });
  const bad = core.validate(core.SearchRequestSchema, { similar_to: ['a.de', { domain: 'b.de', boost: ['1', '2', '3', '4', '5', '6'] }] });
  expect(bad.ok ? null : bad.error.detail[0]!.loc).toEqual(['body', 'similar_to', 1, 'boost']);
  const good = core.validate(core.SearchRequestSchema, { describe: 'solar installers', filters: { nace_code: ['43.21'] } });
  expect(good.ok && core.inferSearchMode(good.value)).toBe('semantic');
});

test('the local engine generates and answers inside the sandbox (no Node, no host globals)', () => {
  const index = core.createEngine(core.generateDataset({ count: 300, seed: 3 }));
  const page = index.search({ filters: { country: ['Deutschland'] }, size: 5 });
  expect(page.data).toHaveLength(5);
  expect(page.metadata.total_hits).toBeGreaterThan(100);
  expect(index.stats({ group_by: 'state' }).data.length).toBeGreaterThan(5);
  expect(index.locationSearch({ q: 'Muenchen' }).items[0]?.name).toBe('München');
});

test('a client call runs to completion with a synchronous transport and retries', () => {
  const slept: number[] = [];
  const responses: HttpOutcome[] = [
    { kind: 'response', response: { status: 503, headers: {}, body: '' } },
    { kind: 'response', response: { status: 200, headers: { 'x-ratelimit-requests-remaining': '7' }, body: '{"healthy":true}' } },
  ];
  const transport = {
    send: () => responses.shift()!,
    sleep: (ms: number) => {
      slept.push(ms);
    },
  };
  const config = core.resolveConfig({ baseUrls: { v2: 'https://api.example.test/v2' }, random: () => 0 });
  const result = core.runSync(core.callEndpoint(config, 'v2.health', undefined), transport);
  expect(result.body).toEqual({ healthy: true });
  expect(result.quota?.requestsRemaining).toBe(7);
  expect(slept).toEqual([250]);
});
