// Worst allowed input per route against a second client (npm run bench:stall): the real server in its own
// process on a loopback port; a worker thread polls GET /v2/health one request at a time while this thread
// sends each route's most expensive request the contract admits (and a few it refuses), one after another.
// The server has one event loop: whatever a request does synchronously, the health poll waits for.
// Usage: npm run bench:stall [-- --count 100000] [-- --repeat 5] [-- --only <route substring>]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SignJWT } from 'jose';
import { generateDataset, DEFAULT_DATASET, SELECTABLE_COLUMNS } from '../dist/lib/index.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';
import { FETCH_MAX_DOMAINS } from '../dist/lib/contract/v2/fetch.js';
import { SEARCH_LIMITS } from '../dist/lib/contract/v2/search.js';
import { V1_LIMITS } from '../dist/lib/contract/v1.js';
import { QNA_MAX_PAGES } from '../dist/lib/contract/language.js';
import { TEXT_LIMITS } from '../dist/lib/contract/limits.js';
import { MAX_PAGE_BYTES } from '../dist/lib/server/web-fetch.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(arg('--count', '100000'));
const repeat = Number(arg('--repeat', '5'));
const only = arg('--only', '');
const HEALTH_TARGET_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'orgindex-bench-stall-'));
const key = 'bench-admin-key-0000000000000001';
const jwtSecret = 'bench-stall-secret-0123456789abcdef0123456789';
writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2', admin: true }] }));

const SITE_HOST = 'qna-site.example';

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['bin/orgindex.js', 'serve', '--port', '0', '--count', String(count), '--keys', join(dir, 'keys.json'), '--state-dir', join(dir, 'state'), '--log-level', 'warn', '--allow-private-fetch', '--resolve', `${SITE_HOST}=127.0.0.1`],
      { stdio: ['ignore', 'inherit', 'pipe'], env: { ...process.env, ORGINDEX_JWT_SECRET: jwtSecret } },
    );
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(text);
      if (ready && /relevance structures built in ([\d.]+) s/.test(text)) resolve({ child, url: ready[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
    // A benchmark stopped from outside takes its server with it.
    for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => {
      child.kill('SIGKILL');
      process.exit(1);
    });
  });
}

// Pages for /v1/qna at the largest size a page may have, served on loopback (the server may fetch private
// addresses here through --allow-private-fetch): the work is parsing and ranking their text.
function startSite(pageBytes) {
  const paragraph = '<p>We design, build and maintain industrial heat pumps and solar thermal plants for breweries, dairies and hospitals across Europe. </p>';
  const links = Array.from({ length: QNA_MAX_PAGES * 4 }, (_, i) => `<a href="/page-${i}">Page ${i}</a>`).join('');
  const page = `<!doctype html><html><head><title>Heat</title></head><body>${links}${paragraph.repeat(Math.floor(pageBytes / paragraph.length))}</body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const records = generateDataset({ ...DEFAULT_DATASET, count });
const random = new Random(7);
const frequentWords = [...new Set(INDUSTRY_CLASSES.flatMap((c) => c.keywords).filter((k) => /^[a-z]+s$/.test(k)))];
/** A phrase of the most words a term may hold, of plural words (each has a singular form to try too). */
const phrase = () => {
  const words = [];
  let length = 0;
  while (words.length < TEXT_LIMITS.termWords) {
    const word = random.pick(frequentWords);
    if (length + word.length + 1 > TEXT_LIMITS.termLength) break;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
};
const terms = (n) => Array.from({ length: n }, phrase);
const singleWords = (n) => Array.from({ length: n }, (_, i) => frequentWords[i % frequentWords.length]);
const longText = (limit) => {
  let text = '';
  while (text.length < limit - 40) {
    const c = random.pick(INDUSTRY_CLASSES);
    text += `${random.pick(c.offerings)} for ${random.pick(c.audiences)}, `;
  }
  return text.slice(0, limit);
};
const maxKeywords = () => ({
  must_all: singleWords(2),
  must_any: [...singleWords(TEXT_LIMITS.termsPerList / 2), ...terms(TEXT_LIMITS.termsPerList / 2)],
  must_not: terms(TEXT_LIMITS.termsPerList),
});
const allColumns = [...SELECTABLE_COLUMNS];
const domains = Array.from({ length: FETCH_MAX_DOMAINS }, () => random.pick(records).domain);
const domainPool = records.slice(0, 20).map((r) => r.domain);
const manyDomains = (n) => Array.from({ length: n }, () => random.pick(records).domain);
/** Every filter value the dataset has for a column, up to the limit of a filter list. */
const valuesOf = (column) => [...new Set(records.map((r) => r[column]).filter((v) => typeof v === 'string'))].slice(0, TEXT_LIMITS.filterValues);
const maxFilters = () => ({ country: valuesOf('country'), state: valuesOf('state'), municipality: valuesOf('municipality'), organization_size: valuesOf('organization_size') });
const similarTo = domainPool.slice(0, SEARCH_LIMITS.similarToEntries).map((domain, i) => ({
  domain,
  boost: singleWords(SEARCH_LIMITS.conceptTerms),
  penalize: terms(SEARCH_LIMITS.conceptTerms),
  repel_domains: domainPool.slice(5 + i * 5, 5 + i * 5 + SEARCH_LIMITS.conceptTerms),
}));
const userQuery = () => {
  const places = ['in Berlin', 'near Munich', 'not in Hamburg', 'outside Bavaria', 'in Vienna or Zurich'];
  let text = '';
  while (text.length < TEXT_LIMITS.userQueryLength - 60) text += `${random.pick(frequentWords)} ${random.pick(places)} and `;
  return text.slice(0, TEXT_LIMITS.userQueryLength);
};

const json = (path, body, auth = 'key') => ({ method: 'POST', path, body, auth });
const get = (path, auth = 'key') => ({ method: 'GET', path, auth });

const scenarios = (site) => [
  { route: 'POST /v2/search fulltext', input: `keywords: ${TEXT_LIMITS.termsPerList} terms a list of up to ${TEXT_LIMITS.termWords} plural words, size ${SEARCH_LIMITS.sizeMax}, all columns`, request: json('/v2/search', { keywords: maxKeywords(), size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search filter + text_keywords', input: 'filters.text_keywords at the limits, keywords at the limits', request: json('/v2/search', { filters: { text_keywords: maxKeywords() }, keywords: maxKeywords(), size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search semantic', input: `describe of ${TEXT_LIMITS.describeLength} characters, size ${SEARCH_LIMITS.sizeMax}`, request: json('/v2/search', { describe: longText(TEXT_LIMITS.describeLength), size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search hybrid', input: 'keywords at the limits + describe at the limit', request: json('/v2/search', { keywords: maxKeywords(), describe: longText(TEXT_LIMITS.describeLength), size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search excludes + filters', input: `keywords at the limits, ${TEXT_LIMITS.excludes.toLocaleString('en')} excluded domains, filter lists of every value`, request: json('/v2/search', { keywords: maxKeywords(), filters: maxFilters(), excludes: manyDomains(TEXT_LIMITS.excludes), size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search similar_to', input: `${SEARCH_LIMITS.similarToEntries} domains, each ${SEARCH_LIMITS.conceptTerms} boosts, penalties and repelled domains`, request: json('/v2/search', { similar_to: similarTo, size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/search filters only', input: `no filter values (every row counted), size ${SEARCH_LIMITS.sizeMax}, all columns`, request: json('/v2/search', { filters: { organization_type: null }, size: SEARCH_LIMITS.sizeMax, columns: allColumns }) },
  { route: 'POST /v2/fetch', input: `${FETCH_MAX_DOMAINS.toLocaleString('en')} domains, all columns`, request: json('/v2/fetch', { domains, columns: allColumns }) },
  { route: 'POST /v2/stats', input: 'all rows, summary_keywords × company_register_court, limit 500', request: json('/v2/stats', { group_by: 'summary_keywords', group_by_secondary: 'company_register_court', limit: 500 }) },
  { route: 'POST /v2/stats filtered', input: 'filter lists of every value, municipality × summary_keywords', request: json('/v2/stats', { filters: maxFilters(), group_by: 'municipality', group_by_secondary: 'summary_keywords', limit: 500 }) },
  { route: 'POST /v2/stats dates', input: 'all rows, created_at by week × state', request: json('/v2/stats', { group_by: 'created_at', group_by_secondary: 'state', date_trunc: 'week', limit: 500 }) },
  { route: 'GET /v2/filters/options', input: '', request: get('/v2/filters/options') },
  { route: 'GET /v2/locations/search', input: `q of ${TEXT_LIMITS.locationQueryLength} characters`, request: get(`/v2/locations/search?q=${encodeURIComponent(longText(TEXT_LIMITS.locationQueryLength))}&limit=100`) },
  { route: 'POST /v1/search', input: `keywords.must_one at the limits, size ${V1_LIMITS.searchSizeMax}`, request: json('/v1/search', { search_id: crypto.randomUUID(), keywords: { must_one: maxKeywords().must_any, must_all: [], must_not: maxKeywords().must_not }, size: V1_LIMITS.searchSizeMax }) },
  { route: 'POST /v1/search similar', input: `${TEXT_LIMITS.referenceDomains.toLocaleString('en')} reference domains, ${TEXT_LIMITS.excludes.toLocaleString('en')} excludes, size ${V1_LIMITS.searchSizeMax}`, request: json('/v1/search', { search_id: crypto.randomUUID(), domains: manyDomains(TEXT_LIMITS.referenceDomains), excludes: manyDomains(TEXT_LIMITS.excludes), size: V1_LIMITS.searchSizeMax }) },
  { route: 'POST /v1/search semantic', input: `semantic_input of ${TEXT_LIMITS.describeLength} characters, ${TEXT_LIMITS.excludes.toLocaleString('en')} excludes, size ${V1_LIMITS.searchSizeMax}`, request: json('/v1/search', { search_id: crypto.randomUUID(), semantic_input: longText(TEXT_LIMITS.describeLength), excludes: manyDomains(TEXT_LIMITS.excludes), size: V1_LIMITS.searchSizeMax }) },
  { route: 'POST /v1/fetch-market', input: `${FETCH_MAX_DOMAINS.toLocaleString('en')} domains`, request: json('/v1/fetch-market', { domains }) },
  { route: 'POST /v1/generate-keywords', input: `${TEXT_LIMITS.generateKeywords} keywords of ${TEXT_LIMITS.generateKeywordLength} characters`, request: json('/v1/generate-keywords', { keywords: Array.from({ length: TEXT_LIMITS.generateKeywords }, () => phrase().slice(0, TEXT_LIMITS.generateKeywordLength)) }, 'bearer') },
  { route: 'POST /v1/nlp_search', input: `user_query of ${TEXT_LIMITS.userQueryLength} characters, many places and negations`, request: json('/v1/nlp_search', { user_query: userQuery(), search_id: 'bench' }, 'bearer') },
  { route: 'POST /v1/qna', input: `max_pages ${QNA_MAX_PAGES}, pages of ${(site.pageBytes / 1024).toFixed(0)} KB on loopback`, request: json('/v1/qna', { question: 'Which industries do you build heat pumps for?', domain: site.host, max_pages: QNA_MAX_PAGES }, 'bearer') },
  // Refused inputs: what a refusal costs.
  { route: 'POST /v2/search (refused)', input: 'one keyword term of 900 KB', refused: true, request: json('/v2/search', { keywords: { must_any: [longText(900_000)] } }) },
  { route: 'POST /v1/nlp_search (refused)', input: 'user_query of 480 KB', refused: true, request: json('/v1/nlp_search', { user_query: longText(480_000), search_id: 'bench' }, 'bearer') },
  { route: 'POST /v2/fetch (refused)', input: 'a body over 1 MiB', refused: true, request: json('/v2/fetch', { domains: Array.from({ length: 60_000 }, () => random.pick(records).domain) }) },
];

function percentile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const pageBytes = Number(arg('--page-bytes', String(MAX_PAGE_BYTES)));
const site = await startSite(pageBytes);
const siteHost = `http://${SITE_HOST}:${site.address().port}`;
const { child, url } = await startServer();
const token = await new SignJWT({ username: 'bench', 'idp:groups': ['analysts'] })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench')
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(jwtSecret));
const poller = new Worker(new URL('./health-poller.mjs', import.meta.url), { workerData: { url, key, intervalMs: 2 } });
const collect = () => new Promise((resolve) => poller.once('message', resolve));

const rows = [];
try {
  for (const scenario of scenarios({ host: siteHost, pageBytes })) {
    if (only && !scenario.route.includes(only)) continue;
    const { method, path, body, auth } = scenario.request;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { ...(payload ? { 'content-type': 'application/json' } : {}), ...(auth === 'bearer' ? { authorization: `Bearer ${token}` } : { 'x-api-key': key }) };
    // Signed-in users share tier_2's token bucket (5 a second, bursts of 10): let it refill first.
    if (auth === 'bearer') await new Promise((resolve) => setTimeout(resolve, 2_100));
    // One warm-up outside the measurement (first-use compilation, lazily built structures).
    await fetch(`${url}${path}`, { method, headers, body: payload }).then((r) => r.arrayBuffer()).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    poller.postMessage('start');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const own = [];
    let status = 0;
    let bytes = 0;
    let detail = '';
    for (let i = 0; i < repeat; i++) {
      const started = performance.now();
      try {
        const response = await fetch(`${url}${path}`, { method, headers, body: payload });
        status = response.status;
        const answer = await response.arrayBuffer();
        bytes = answer.byteLength;
        if (status >= 400) detail = Buffer.from(answer).toString('utf8').slice(0, 200);
      } catch (error) {
        status = `error ${error.cause?.code ?? error.message}`;
      }
      own.push(performance.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const samplesPromise = collect();
    poller.postMessage('stop');
    const health = (await samplesPromise).sort((a, b) => a - b);
    own.sort((a, b) => a - b);
    const row = { ...scenario, status, bytes, bodyBytes: payload?.length ?? 0, ownP50: percentile(own, 50), ownMax: own.at(-1), healthP99: percentile(health, 99), healthMax: health.at(-1) ?? 0, polls: health.length };
    rows.push(row);
    console.log(`${row.route}: ${row.status}${detail && !scenario.refused ? ` (${detail})` : ''}, own p50 ${row.ownP50.toFixed(1)} ms (max ${row.ownMax.toFixed(1)}), health p99 ${row.healthP99.toFixed(1)} ms, max ${row.healthMax.toFixed(1)} ms over ${row.polls} polls`);
  }
} finally {
  poller.postMessage('exit');
  await poller.terminate();
  site.close();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
console.log(`\n### Worst allowed input per route, ${count.toLocaleString('en')} organizations, ${repeat} requests each; health polled every 2 ms by a second client (target: health ≤ ${HEALTH_TARGET_MS} ms)\n`);
console.log('| route | worst input | body | status | its own time p50 / max | health p99 / max during it |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  const body = r.bodyBytes ? `${(r.bodyBytes / 1024).toFixed(0)} KB` : '';
  console.log(`| ${r.route} | ${r.input} | ${body} | ${r.status} | ${fmt(r.ownP50)} / ${fmt(r.ownMax)} ms | ${fmt(r.healthP99)} / ${fmt(r.healthMax)} ms |`);
}
const worst = Math.max(...rows.map((r) => r.healthMax));
console.log(`\nworst health latency: ${fmt(worst)} ms (${worst <= HEALTH_TARGET_MS ? 'within' : 'OVER'} the ${HEALTH_TARGET_MS} ms target)`);
