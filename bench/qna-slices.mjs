// The longest event-loop block during POST /v1/qna at the contract's worst input: max_pages 10, every page
// just under 2 MiB of realistic HTML (head scripts and styles, navigation, nested markup, entities, tables,
// varied prose). The server runs in this process so the loop is probed directly (monitorEventLoopDelay at
// 1 ms resolution, and a setInterval(1) drift probe); the fixture site runs in a worker thread with its own
// loop, and another worker polls GET /v2/health as a second client would.
// With --adversarial: instead, the CPU time of the longest parser slice (PageReader.write, 32 KB) for pages
// made to be expensive (deep nesting, stray end tags, entities, links, <pre> lines, one huge tag ...).
// Usage: npm run build:lib && node bench/qna-slices.mjs [--dist <dir of the compiled lib>] [--repeat 3]
//        [--pages 10] [--page-bytes 2096000] [--adversarial]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { SignJWT } from 'jose';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const dist = resolve(arg('--dist', new URL('../dist/lib', import.meta.url).pathname));
const repeat = Number(arg('--repeat', '3'));
const pages = Number(arg('--pages', '10'));
const pageBytes = Number(arg('--page-bytes', String(2 * 1024 * 1024 - 4096)));
const lib = (path) => import(pathToFileURL(join(dist, path)).href);

if (args.includes('--adversarial')) {
  const { PageReader } = await lib('server/web-fetch.js');
  const fill = (head, unit) => head + unit.repeat(Math.floor((pageBytes - head.length) / unit.length));
  const cases = {
    'nested <div>s': fill('<body>', '<div>'),
    'stray end tags': fill(`<body>${'<div>'.repeat(500)}`, '</span>'),
    'one long line': fill('<body><p>', 'word '),
    'no spaces': fill('<body><p>', 'x'),
    'open comment': fill('<body><!--', 'x'),
    'one huge tag': fill('<body><div ', 'a="1" '),
    links: fill('<body>', '<a href=/a>x</a>'),
    entities: fill('<body><p>', '&amp;&lt;&#169;'),
    '<pre> lines': fill('<body><pre>', 'a\n'),
    'inline tags': fill('<body>', '<b>x</b>'),
    '<br>s': fill('<body>', '<br>'),
    'open <script>': fill('<body><script>', 'x<'),
    'long <title>': fill('<title>', 't '),
  };
  const cpu = (work) => {
    const started = process.cpuUsage();
    work();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  console.log(`| page of ${(pageBytes / 1024).toFixed(0)} KiB | longest slice, CPU ms (best of ${repeat}) | all slices | end |\n| --- | --- | --- | --- |`);
  for (const [name, html] of Object.entries(cases)) {
    const runs = [];
    for (let run = 0; run < repeat; run++) {
      const reader = new PageReader(() => undefined);
      let longest = 0;
      let total = 0;
      for (let at = 0; at < html.length; at += 32 * 1024) {
        const slice = html.slice(at, at + 32 * 1024);
        const ms = cpu(() => reader.write(slice));
        longest = Math.max(longest, ms);
        total += ms;
      }
      runs.push({ longest, total, end: cpu(() => reader.end()) });
    }
    const best = runs.sort((a, b) => a.longest - b.longest)[0];
    console.log(`| ${name} | ${best.longest.toFixed(1)} | ${best.total.toFixed(0)} | ${best.end.toFixed(1)} |`);
  }
  process.exit(0);
}

const { createServer } = await lib('server/app.js');
const { bearerVerifier } = await lib('server/bearer.js');
const { KeyRing } = await lib('server/keys.js');
const { QuotaLedger } = await lib('server/quota-ledger.js');

// The fixture site, in a worker: pages are built there once and served from memory.
const siteSource = `
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
const { pages, pageBytes } = workerData;
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (list) => list[Math.floor(random() * list.length)];
const WORDS = ('heat pump solar thermal plant brewery dairy hospital engineer install maintain service contract energy ' +
  'efficiency municipal district network pipeline boiler storage tank customer project planning design permit grid ' +
  'electricity supply renewable carbon emission reduction subsidy program region team office workshop training safety ' +
  'quality certificate standard measurement control system software monitoring remote operation warranty spare part ' +
  'delivery schedule budget invoice partner supplier manufacturer component valve compressor exchanger collector panel ' +
  'roof facade building residential commercial industrial agricultural greenhouse cooling refrigeration ventilation ' +
  'water steam pressure temperature capacity output kilowatt megawatt annual season winter summer night demand peak ' +
  'load flexible modular compact robust reliable proven innovative sustainable local international european austrian').split(' ');
const FILLER = 'the a of and to in for with on by from at our their its this that which we they is are was were has have will can'.split(' ');
const sentence = () => {
  const length = 8 + Math.floor(random() * 18);
  const words = Array.from({ length }, () => (random() < 0.35 ? pick(FILLER) : pick(WORDS)));
  const text = words.join(' ');
  return text[0].toUpperCase() + text.slice(1) + (random() < 0.1 ? ' &amp; more' : '') + pick(['.', '.', '.', '!', '?']);
};
const paragraph = () => Array.from({ length: 2 + Math.floor(random() * 5) }, () => (random() < 0.2 ? '<strong>' + sentence() + '</strong>' : random() < 0.2 ? '<a href="/page-' + Math.floor(random() * 40) + '">' + sentence() + '</a>' : sentence())).join(' ');
const nav = '<nav class="main-nav"><ul>' + Array.from({ length: 60 }, (_, i) => '<li class="nav-item"><a class="nav-link" href="/page-' + i + '">Section ' + i + '</a></li>').join('') + '</ul></nav>';
const head = (title) => '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' + title + '</title>' +
  '<meta name="viewport" content="width=device-width, initial-scale=1"><style>' + '.card{margin:0 auto;padding:1rem}.nav-link{color:#123}'.repeat(200) + '</style>' +
  '<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}' + 'gtag("config","X-1234");'.repeat(300) + '</script>' +
  '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Heat Works"}</script></head>';
function page(index) {
  const title = 'Heat Works – ' + (index === 0 ? 'Home' : 'Section ' + index);
  const parts = [head(title), '<body><header class="site-header"><div class="logo"><svg viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg>Heat Works</div>' + nav + '</header><main>'];
  let size = parts.join('').length + 2000;
  let block = 0;
  while (size < pageBytes - 8000) {
    let html;
    const kind = block % 9;
    if (kind === 0) html = '<section class="block"><h2>' + sentence() + '</h2><div class="card"><div class="card-body"><p>' + paragraph() + '</p></div></div></section>';
    else if (kind === 3) html = '<ul class="features">' + Array.from({ length: 5 }, () => '<li><span class="icon">&#10003;</span> ' + sentence() + '</li>').join('') + '</ul>';
    else if (kind === 6) html = '<table class="specs"><tr><th>Model</th><th>Output</th></tr>' + Array.from({ length: 4 }, (_, r) => '<tr><td>HP-' + r + '</td><td>' + Math.floor(random() * 900) + '&nbsp;kW</td></tr>').join('') + '</table>';
    else if (kind === 8) html = '<div class="promo"><script>track(' + block + ')</script><p>' + paragraph() + '</p></div>';
    else html = '<p>' + paragraph() + '</p>';
    if (index === 0 && block === 150) html = '<p>Heat Works was founded in 1987 in Graz by two heating engineers. Today it employs 240 people.</p>';
    parts.push(html);
    size += html.length;
    block++;
  }
  parts.push('</main><footer><p>Copyright Heat Works. All rights reserved.</p>' + nav + '</footer></body></html>');
  return Buffer.from(parts.join(''));
}
const built = Array.from({ length: pages }, (_, i) => page(i));
const server = createServer((request, response) => {
  const match = /^\\/(?:page-(\\d+))?$/.exec(request.url ?? '');
  if (!match) return void response.writeHead(404).end();
  const body = built[Number(match[1] ?? 0) % pages];
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port, sizes: built.map((b) => b.length) }));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;
const site = new Worker(siteSource, { eval: true, workerData: { pages, pageBytes } });
const { port: sitePort, sizes } = await new Promise((done) => site.once('message', done));

const secret = 'bench-qna-slices-secret-0123456789abcdef';
const stateDir = mkdtempSync(join(tmpdir(), 'orgindex-bench-qna-'));
const ledger = await QuotaLedger.open(stateDir);
const key = 'bench-qna-key-000000000000000001';
const app = await createServer({
  engine: { index: null, error: 'not needed for /v1/qna' },
  keys: new KeyRing({ keys: [{ key, tier: 'tier_2', admin: true }], tiers: { tier_2: { ratePerSecond: 10_000, burst: 10_000 } } }),
  quota: { ledger },
  logger: false,
  bearer: bearerVerifier({ secret }),
  allowPrivateFetch: true,
  fetchHosts: { 'heat-works.test': '127.0.0.1' },
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const token = await new SignJWT({ username: 'bench', 'idp:groups': ['analysts'] })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench')
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(secret));
const poller = new Worker(new URL('./health-poller.mjs', import.meta.url), { workerData: { url, key, intervalMs: 2 } });

async function ask() {
  const response = await fetch(`${url}/v1/qna`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ question: 'When was the company founded?', domain: `http://heat-works.test:${sitePort}/`, max_pages: pages }),
  });
  return response.json();
}

console.log(`lib: ${dist}\n${pages} pages of ${(Math.min(...sizes) / 1024).toFixed(0)}–${(Math.max(...sizes) / 1024).toFixed(0)} KiB each`);
await ask(); // warm-up: JIT, the embedder's tables, the tokenizer
const rows = [];
for (let run = 0; run < repeat; run++) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // Garbage-collection pauses of this thread: part of what the loop waits for, named apart.
  let gcMax = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMax = Math.max(gcMax, entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  let drift = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    drift = Math.max(drift, now - last);
    last = now;
  }, 1);
  const healthSamples = new Promise((done) => poller.once('message', done));
  poller.postMessage('start');
  histogram.enable();
  const started = performance.now();
  const body = await ask();
  const elapsed = performance.now() - started;
  histogram.disable();
  clearInterval(probe);
  gc.disconnect();
  poller.postMessage('stop');
  const health = (await healthSamples).sort((a, b) => a - b);
  const row = {
    elapsed,
    loopMax: histogram.max / 1e6,
    loopP99: histogram.percentile(99) / 1e6,
    drift,
    gcMax,
    healthMax: health.at(-1) ?? 0,
    polls: health.length,
    answer: body.can_answer ? body.data.answer.split('\n')[0].slice(0, 60) : `can_answer false: ${body.message ?? body.error}`,
  };
  rows.push(row);
  console.log(
    `run ${run + 1}: ${elapsed.toFixed(0)} ms; longest block ${row.loopMax.toFixed(1)} ms (loop-delay p99 ${row.loopP99.toFixed(1)} ms, setInterval(1) gap ${row.drift.toFixed(1)} ms, longest GC pause ${row.gcMax.toFixed(1)} ms); health max ${row.healthMax.toFixed(1)} ms over ${row.polls} polls; ${row.answer}`,
  );
}
const worst = (field) => Math.max(...rows.map((row) => row[field]));
console.log(`worst of ${repeat}: longest block ${worst('loopMax').toFixed(1)} ms, setInterval(1) gap ${worst('drift').toFixed(1)} ms, health max ${worst('healthMax').toFixed(1)} ms`);

poller.postMessage('exit');
site.postMessage('close');
await app.close();
await ledger.close();
rmSync(stateDir, { recursive: true, force: true });
await poller.terminate();
