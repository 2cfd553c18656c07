// Question answering on small-company websites (eval/ask/): every question of eval/ask/questions.json is
// asked of the built-in engine exactly as POST /v1/qna asks it (the server's provider, its page fetching,
// tokenizer and step runner), against the set's sites served on loopback, and scored.
// Usage: npm run eval:ask [-- --verbose] [-- --part=dev] [-- --max-pages=N]
//   --verbose      one line per question: id, part, kind, correct, the start of the answer
//   --part=dev     only the dev questions (while trying ideas, so that heldout stays unseen)
//   --max-pages=N  pages read per site (default: the set's max_pages)
//
// Correct: the set expects no answer and the engine gives none, or the set expects one, the engine gives
// one, and one of the question's `any_of` strings occurs in it (case-insensitive; the labels of the pages
// it cites are removed from the answer first, so that a page title alone does not count).
import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Not exported from the package entry: deep import of the compiled module. The provider /v1/qna answers with.
import { siteReadingProvider } from '../dist/lib/server/routes/language.js';

const verbose = process.argv.includes('--verbose');
const onlyPart = process.argv.find((a) => a.startsWith('--part='))?.slice('--part='.length);
const pagesArgument = process.argv.find((a) => a.startsWith('--max-pages='))?.slice('--max-pages='.length);

const setDir = fileURLToPath(new URL('../eval/ask/', import.meta.url));
const sitesDir = path.join(setDir, 'sites');
const set = JSON.parse(readFileSync(path.join(setDir, 'questions.json'), 'utf8'));
const maxPages = pagesArgument === undefined ? set.max_pages : Number(pagesArgument);
if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > 10) throw new Error(`--max-pages must be a whole number from 1 to 10 (got ${pagesArgument})`);
if (onlyPart !== undefined && !['dev', 'heldout'].includes(onlyPart)) throw new Error(`--part must be dev or heldout (got ${onlyPart})`);
const questions = set.questions.filter((q) => onlyPart === undefined || q.part === onlyPart);

// ---------------------------------------------------------------------------------------------------------
// The sites: one loopback server, the site chosen by the Host header (eval/ask/sites/<host>/).

const TYPES = { '.html': 'text/html; charset=utf-8', '.txt': 'text/plain; charset=utf-8' };

/** The file a request names: `/` and `/dir/` are their index.html; null when the site has no such file. */
function fileFor(host, urlPath) {
  const site = path.join(sitesDir, host);
  let relative;
  try {
    relative = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (relative.endsWith('/')) relative += 'index.html';
  const file = path.join(site, path.normalize(relative));
  if (!file.startsWith(site + path.sep) || !existsSync(file) || !statSync(file).isFile()) return null;
  return file;
}

const server = createServer((request, response) => {
  const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  const file = fileFor(host, request.url ?? '/');
  const type = file ? TYPES[path.extname(file)] : undefined;
  if (!file || !type) {
    response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
    return;
  }
  response.writeHead(200, { 'content-type': type }).end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

// The sites' names resolve to the loopback server (like /etc/hosts), which the server's fetching is allowed
// to reach: the same switches the server's tests use (--allow-private-fetch, --resolve).
const domains = [...new Set(set.questions.map((q) => q.domain))];
const provider = siteReadingProvider({ index: null, error: null }, Date.now, {
  allowPrivateFetch: true,
  fetchHosts: Object.fromEntries(domains.map((domain) => [domain, '127.0.0.1'])),
});

// ---------------------------------------------------------------------------------------------------------
// Asking and scoring

/** The answer's text without the labels of the pages it cites. */
function answerText(data) {
  let text = data.answer;
  for (const label of data.sources ?? []) if (label) text = text.split(label).join(' ');
  return text;
}

/**
 * The outcome of one question: `right`, or why not — `silent` (no answer where the site has one), `wrong`
 * (an answer without any expected string), `invented` (an answer where the site has none), `error` (the
 * site could not be read: a fault of the set or the harness, never of the answer).
 */
function judge(question, result) {
  if (!result.success) return 'error';
  const answered = result.can_answer && result.data !== null;
  if (!question.expect.can_answer) return answered ? 'invented' : 'right';
  if (!answered) return 'silent';
  const text = answerText(result.data).toLowerCase();
  return question.expect.any_of.some((expected) => text.includes(expected.toLowerCase())) ? 'right' : 'wrong';
}

/** How an outcome is shown (the table's column names). */
const SAID = { right: 'correct', silent: 'no answer', wrong: 'wrong answer', invented: 'answer where none', error: 'error' };
const flat = (text) => text.replace(/\s+/g, ' ').trim();
const started = performance.now();
const outcomes = [];
for (const question of questions) {
  const result = await provider.qna(question.question, `http://${question.domain}:${port}/`, maxPages);
  const outcome = judge(question, result);
  outcomes.push({ question, outcome });
  if (verbose) {
    const shown = result.success && result.can_answer && result.data ? flat(result.data.answer).slice(0, 160) : `(no answer) ${result.error ?? ''}`.trim();
    console.log(`${question.id.padEnd(28)} ${question.part.padEnd(7)} ${question.kind.padEnd(12)} ${SAID[outcome].padEnd(17)} ${shown}`);
  }
}
server.close();
const seconds = (performance.now() - started) / 1000;

// ---------------------------------------------------------------------------------------------------------
// The table

const FAILURES = ['silent', 'wrong', 'invented', 'error'];
function row(label, list) {
  const right = list.filter((o) => o.outcome === 'right').length;
  const counts = FAILURES.map((failure) => list.filter((o) => o.outcome === failure).length);
  const share = list.length ? `${((100 * right) / list.length).toFixed(0)} %` : '–';
  return `| ${label} | ${right} / ${list.length} | ${share} | ${counts.join(' | ')} |`;
}
const by = (key) => [...new Set(outcomes.map((o) => o.question[key]))].sort();

console.log(`\n${questions.length} questions, ${new Set(questions.map((q) => q.domain)).size} sites, max_pages ${maxPages}, ${seconds.toFixed(1)} s\n`);
console.log('| slice | correct | share | no answer | wrong answer | answer where none | error |');
console.log('|---|---|---|---|---|---|---|');
console.log(row('all', outcomes));
for (const part of by('part')) console.log(row(`part ${part}`, outcomes.filter((o) => o.question.part === part)));
for (const language of by('language')) console.log(row(`asked in ${language}`, outcomes.filter((o) => o.question.language === language)));
// Across languages: a question in one language of a site in the other.
const siteLanguage = (question) => set.sites[question.domain]?.language;
for (const language of by('language')) {
  for (const site of [...new Set(Object.values(set.sites).map((s) => s.language))].sort()) {
    const list = outcomes.filter((o) => o.question.language === language && siteLanguage(o.question) === site);
    if (list.length > 0) console.log(row(`asked in ${language} of a site in ${site}`, list));
  }
}
for (const kind of by('kind')) console.log(row(`kind ${kind}`, outcomes.filter((o) => o.question.kind === kind)));
const errors = outcomes.filter((o) => o.outcome === 'error');
if (errors.length > 0) {
  console.error(`\n${errors.length} question(s) could not be asked: ${errors.map((o) => o.question.id).join(', ')}`);
  process.exitCode = 1;
}
