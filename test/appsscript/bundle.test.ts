/**
 * The Apps Script bundle as Google would run it: dist/appsscript/Code.js (built by `npm run build:web`
 * before jest) parsed as a classic ES2019 script, then run in a sandbox without fetch / setTimeout / URL
 * holding stand-ins for the Apps Script services, whose UrlFetchApp makes real synchronous HTTP calls to
 * the real server on a loopback port (see harness.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acorn from 'acorn';
import { startServerProcess, type ServedProcess } from '../support/server-process.js';
import { loadBundle } from './harness.js';

const BUNDLE = join(process.cwd(), 'dist/appsscript/Code.js');
const table = (value: unknown): unknown[][] => value as unknown[][];
let server: ServedProcess;

beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  await server.close();
});

const connect = (sandbox: ReturnType<typeof loadBundle>): void => {
  sandbox.userProperties.setProperty('orgindex.connection', JSON.stringify({ backend: 'remote', serviceUrl: server.url, apiKey: server.key, cacheHours: 6 }));
};

test('a classic ES2019 script: no module syntax; each public function a top-level declaration with its JSDoc', () => {
  const code = readFileSync(BUNDLE, 'utf8');
  const comments: acorn.Comment[] = [];
  const program = acorn.parse(code, { ecmaVersion: 2019, sourceType: 'script', onComment: comments });
  const declared = new Map(program.body.flatMap((node) => (node.type === 'FunctionDeclaration' ? [[node.id.name, node] as const] : [])));
  for (const [name, params] of [
    ['ORGSEARCH', ['query', 'filters', 'columns', 'options']],
    ['ORGFETCH', ['domains', 'columns', 'options']],
    ['ORGSTATS', ['group_by', 'group_by_secondary', 'filters', 'options']],
    ['ORGASK', ['domain', 'question', 'max_pages', 'options']],
  ] as const) {
    const node = declared.get(name);
    expect(node).toBeDefined();
    expect(node?.params.map((p) => (p.type === 'Identifier' ? p.name : '?'))).toEqual(params);
    const doc = comments.filter((c) => c.type === 'Block' && c.end <= (node?.start ?? 0)).at(-1);
    expect(code.slice(doc?.end ?? 0, node?.start ?? 0).trim()).toBe('');
    expect(doc?.value).toContain('@customfunction');
    for (const param of params) expect(doc?.value).toMatch(new RegExp(`@param \\{any\\} \\[?${param}\\]? `));
  }
  // The menu, sidebar and trigger entry points: top-level declarations too, each with its JSDoc.
  for (const name of ['onOpen', 'orgindexShowSidebar', 'orgindexRefreshNow', 'orgindexShowSchedule', 'orgindexPinSelection', 'orgindexScheduledRefresh', 'orgindexSidebarCall']) {
    const node = declared.get(name);
    expect(node).toBeDefined();
    const doc = comments.filter((c) => c.type === 'Block' && c.end <= (node?.start ?? 0)).at(-1);
    expect(code.slice(doc?.end ?? 0, node?.start ?? 0).trim()).toBe('');
    expect(doc?.value.trim().length).toBeGreaterThan(20);
  }
  // The help Sheets shows names the Sheets functions.
  expect(code.slice(0, code.indexOf('var OrgIndexSheets'))).not.toMatch(/\bORG\.(SEARCH|FETCH|STATS|ASK)\b/);
});

test('clasp sees the built project (clasp status works offline; push needs a Google login, so no test runs it)', () => {
  // A checkout after `clasp create --rootDir dist/appsscript`: the .clasp.json it writes (not committed), the build.
  const project = mkdtempSync(join(tmpdir(), 'orgindex-clasp-'));
  try {
    cpSync(join(process.cwd(), 'dist/appsscript'), join(project, 'dist/appsscript'), { recursive: true });
    writeFileSync(join(project, '.clasp.json'), JSON.stringify({ scriptId: 'test-script-id', rootDir: 'dist/appsscript' }));
    const status = execFileSync(join(process.cwd(), 'node_modules/.bin/clasp'), ['status'], { cwd: project, timeout: 30_000 }).toString();
    const tracked = status.slice(0, status.indexOf('Untracked files'));
    for (const file of ['Code.js', 'Sidebar.html', 'appsscript.json']) expect(tracked).toContain(`dist/appsscript/${file}`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('appsscript.json: V8 and only the scopes the features use (no full Drive or Sheets access)', () => {
  const manifest = JSON.parse(readFileSync(join(process.cwd(), 'dist/appsscript/appsscript.json'), 'utf8')) as { runtimeVersion: string; oauthScopes: string[] };
  expect(manifest.runtimeVersion).toBe('V8');
  expect(manifest.oauthScopes.map((scope) => scope.replace('https://www.googleapis.com/auth/', ''))).toEqual(['spreadsheets.currentonly', 'script.external_request', 'script.container.ui', 'script.scriptapp', 'script.send_mail']);
});

test('the sandbox really lacks fetch, setTimeout and URL', () => {
  const sandbox = loadBundle();
  for (const name of ['fetch', 'setTimeout', 'URL', 'TextEncoder']) expect(sandbox.context[name]).toBeUndefined();
});

test('each function returns the expected table from the real server; a second evaluation is served from the cache', () => {
  const sandbox = loadBundle();
  connect(sandbox);
  const search = table(sandbox.call('ORGSEARCH', 'software', 'country=Deutschland', 'domain, name', 'size=5'));
  expect(search[0]).toEqual(['domain', 'name']);
  expect(search.length).toBeGreaterThan(1);
  const domains = search.slice(1).map((row) => row[0]);
  const fetched = table(sandbox.call('ORGFETCH', [...domains.map((domain) => [domain]), [''], ['nobody.example']], 'name, country'));
  expect(fetched).toHaveLength(domains.length + 2);
  expect(fetched.slice(0, domains.length).map((row) => row[1])).toEqual(domains.map(() => 'Deutschland'));
  expect(fetched[domains.length]).toEqual(['', '']);
  expect(fetched[domains.length + 1]).toEqual(['#N/A nobody.example is not in the index', '']);
  const stats = table(sandbox.call('ORGSTATS', 'organization_type', undefined, [['country', 'Deutschland']]));
  expect(stats[0]).toEqual(['organization_type', 'count']);
  const calls = sandbox.fetched.length;
  expect(calls).toBe(3);

  // Recalculation: a new execution (a fresh bundle instance) over the same document cache.
  const again = loadBundle();
  connect(again);
  for (const [key, value] of sandbox.cache.values) again.cache.values.set(key, value);
  expect(again.call('ORGSEARCH', 'software', 'country=Deutschland', 'domain, name', 'size=5')).toEqual(search);
  expect(again.call('ORGSTATS', 'organization_type', undefined, [['country', 'Deutschland']])).toEqual(stats);
  expect(again.fetched).toEqual([]);
}, 60_000);

test('errors: bad arguments throw (#ERROR! with the message naming the bad part); an unreachable service says so', () => {
  const sandbox = loadBundle();
  connect(sandbox);
  expect(() => sandbox.call('ORGSEARCH', 'solar', 'contry=Germany')).toThrow('#VALUE! filters: unknown filter "contry" — did you mean "country"?');
  sandbox.userProperties.setProperty('orgindex.connection', JSON.stringify({ backend: 'remote', serviceUrl: 'http://127.0.0.1:9', apiKey: server.key }));
  expect(() => sandbox.call('ORGSTATS', 'country')).toThrow(/^#N\/A Cannot reach the OrgIndex service/);
}, 60_000);

test('without a connection the embedded sample (10,000 organizations in the Sheets bundle) answers, without network', () => {
  const sandbox = loadBundle();
  const stats = table(sandbox.call('ORGSTATS', 'organization_type'));
  expect(stats.slice(1).reduce((sum, row) => sum + Number(row[1]), 0)).toBe(10_000);
  expect(sandbox.fetched).toEqual([]);
}, 120_000);
