// Search quality on a hand-written eval: nDCG@10 per mode (semantic, fulltext, hybrid) and per part (dev,
// heldout; the language set also dev2), over the hand-written organizations alone and mixed into 20,000
// generated organizations as distractors. Two sets:
//   independent (eval/independent/, the default): grades by domain, written by hand (see its README);
//   language    (eval/language/): queries in English and German, graded by intent (see its README); also
//               split by query language, and across languages (German queries against English-text
//               organizations only, English queries against German-text ones).
// Usage: npm run eval:independent [-- --verbose] [-- --expand]; npm run eval:language [-- --verbose]
//   --set=language  the bilingual set (what npm run eval:language runs)
//   --verbose  per-query nDCG@10 and the top results with their grades
//   --expand   also measure query expansion through related keywords (language/related-keywords.ts):
//              the related terms of the query's content words are added to `describe` and to must_any
//   --part=dev only print that part (while trying ideas, so that heldout stays unseen; dev2 too on the language set)
import { readFileSync } from 'node:fs';
import { createEngine, generateDataset, OrganizationRecordSchema } from '../dist/lib/index.js';
// Not exported from the package entry: deep import of the compiled module.
import { relatedKeywords } from '../dist/lib/engine/language/related-keywords.js';
import { queryKeywords } from './language-words.mjs';

const verbose = process.argv.includes('--verbose');
const expand = process.argv.includes('--expand');
const onlyPart = process.argv.find((a) => a.startsWith('--part='))?.slice('--part='.length);
const setName = process.argv.find((a) => a.startsWith('--set='))?.slice('--set='.length) ?? 'independent';
const DISTRACTORS = { count: 20_000, seed: 20261121 };
const EXPANSION_TERMS = 5;

const readJson = (dir, name) => JSON.parse(readFileSync(new URL(`../eval/${dir}/${name}`, import.meta.url), 'utf8'));

/** The words a user's query is searched with as keywords in the independent set: lower-cased, function words dropped. */
const STOP_WORDS = new Set([
  'a', 'about', 'after', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'for', 'from', 'i', 'in', 'into', 'is', 'it',
  'me', 'my', 'of', 'on', 'or', 'our', 'someone', 'that', 'the', 'to', 'we', 'where', 'which', 'who', 'with', 'within', 'you', 'your',
]);
const englishKeywordsOf = (text) => [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)))];

/**
 * A set: its organizations, its queries (each with `relevant`, domain → grade), the query's keywords, its
 * parts, and the slices reported per part. A slice takes some of the queries and may judge them against some of the
 * organizations only: `exclude(query)` is the set of hand-written domains taken out of the ranking and out
 * of the ideal.
 */
function independentSet() {
  const organizations = Object.values(readJson('independent', 'organizations.json').industries)
    .flat()
    .map((row) => OrganizationRecordSchema.parse(row));
  const { queries } = readJson('independent', 'queries.json');
  const count = (part) => queries.filter((q) => q.part === part).length;
  return {
    organizations,
    queries,
    keywordsOf: englishKeywordsOf,
    column: 'part',
    parts: ['dev', 'heldout'],
    slices: (part) => [{ label: part, take: (q) => q.part === part }],
    title: `Independent eval: ${queries.length} queries (dev ${count('dev')}, heldout ${count('heldout')}); ${organizations.length} hand-written organizations`,
  };
}

function languageSet() {
  const entries = readJson('language', 'organizations.json').organizations;
  const organizations = entries.map((entry) => OrganizationRecordSchema.parse(entry.record));
  const written = entries.map((entry, i) => ({ ...entry, domain: organizations[i].domain }));
  const textIn = (language) => new Set(written.filter((e) => e.language === language).map((e) => e.domain));
  const inLanguage = { en: textIn('en'), de: textIn('de') };
  // An organization of intent X gets the query's grade for X; traps (intent "none") get none.
  const queries = readJson('language', 'queries.json').queries.map((query) => ({
    ...query,
    relevant: Object.fromEntries(written.filter((e) => (query.grades[e.intent] ?? 0) > 0).map((e) => [e.domain, query.grades[e.intent]])),
  }));
  const count = (key, value) => queries.filter((q) => q[key] === value).length;
  const traps = written.filter((e) => e.intent === 'none').length;
  return {
    organizations,
    queries,
    keywordsOf: queryKeywords,
    column: 'queries',
    parts: ['dev', 'dev2', 'heldout'],
    slices: (part) => [
      { label: `${part}`, take: (q) => q.part === part },
      { label: `${part} en`, take: (q) => q.part === part && q.language === 'en' },
      { label: `${part} de`, take: (q) => q.part === part && q.language === 'de' },
      // Across languages: the organizations whose text is in the query's own language are left out.
      { label: `${part} de → en-text`, take: (q) => q.part === part && q.language === 'de', exclude: () => inLanguage.de },
      { label: `${part} en → de-text`, take: (q) => q.part === part && q.language === 'en', exclude: () => inLanguage.en },
    ],
    title: `Language eval: ${queries.length} queries (dev ${count('part', 'dev')}, dev2 ${count('part', 'dev2')}, heldout ${count('part', 'heldout')}; en ${count('language', 'en')}, de ${count('language', 'de')}); `
      + `${organizations.length} hand-written organizations (en-text ${inLanguage.en.size}, de-text ${inLanguage.de.size}; ${traps} traps)`,
  };
}

const SETS = { independent: independentSet, language: languageSet };
if (!SETS[setName]) throw new Error(`--set=${setName}: expected one of ${Object.keys(SETS).join(', ')}`);
const { organizations, queries, keywordsOf, column, parts, slices: slicesOf, title } = SETS[setName]();
if (onlyPart && !parts.includes(onlyPart)) throw new Error(`--part=${onlyPart}: expected one of ${parts.join(', ')}`);
const NONE = new Set();
/** The slices of a part; a slice without `exclude` judges its queries against every organization. */
const slices = (part) => slicesOf(part).map((slice) => ({ exclude: () => NONE, ...slice }));

const dcg = (gains) => gains.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);

/** nDCG@10 of ranked domains; the ideal ranking is the graded organizations, best first. */
function ndcg(relevant, domains) {
  const ideal = dcg(Object.values(relevant).sort((a, b) => b - a).slice(0, 10));
  return dcg(domains.slice(0, 10).map((d) => relevant[d] ?? 0)) / ideal;
}

function bodiesOf(query, index) {
  const words = keywordsOf(query.query);
  const bodies = {
    semantic: { describe: query.query },
    fulltext: { keywords: { must_any: words } },
    hybrid: { describe: query.query, keywords: { must_any: words } },
  };
  if (!expand) return bodies;
  const related = relatedKeywords(index.store, words, EXPANSION_TERMS);
  const describe = [query.query, ...related].join(', ');
  const anyOf = [...words, ...related];
  return {
    ...bodies,
    'semantic+expand': { describe },
    'fulltext+expand': { keywords: { must_any: anyOf } },
    'hybrid+expand': { describe, keywords: { must_any: anyOf } },
  };
}

/** Results fetched per query: enough to find where the hand-written organizations fall among the distractors. */
const DEPTH = 500;

/** The search's answer, or null when it is refused with a 422 (a description without a known word): the user finds nothing. */
function searchOrRefused(index, body) {
  try {
    return index.search(body);
  } catch (error) {
    if (error?.status === 422) return null;
    throw error;
  }
}

/** The ranking of every query in every mode: { query, mode, domains }. */
function rank(label, index) {
  const runs = [];
  for (const query of queries) {
    for (const [mode, body] of Object.entries(bodiesOf(query, index))) {
      const result = searchOrRefused(index, { ...body, size: DEPTH, columns: ['name'] });
      const expected = mode.replace('+expand', '');
      if (result && result.metadata.mode !== expected) throw new Error(`${query.id}: expected mode ${expected}, got ${result.metadata.mode}`);
      const domains = result ? result.data.map((row) => row.domain) : [];
      runs.push({ query, mode, domains });
      if (verbose && (!onlyPart || query.part === onlyPart)) {
        const ndcgAll = ndcg(query.relevant, domains);
        const condensed = ndcg(query.relevant, domains.filter((d) => own.has(d)));
        console.log(`${label.padEnd(12)} ${query.part.padEnd(7)} ${mode.padEnd(16)} ${query.id.padEnd(20)} nDCG@10 ${ndcgAll.toFixed(3)} condensed ${condensed.toFixed(3)}  "${query.query}"`);
        for (const row of result?.data.slice(0, 5) ?? []) console.log(`      ${own.has(row.domain) ? (query.relevant[row.domain] ?? 0) : '-'}  ${row.domain}  ${row.name}`);
      }
    }
  }
  return runs;
}

/**
 * A run's scores, with the `excluded` hand-written domains taken out of the ranking and of the ideal.
 * Strict: every generated organization counts as irrelevant (some are in truth relevant: a lower bound).
 * Condensed: generated organizations taken out of the ranking (the usual treatment of unjudged results).
 */
function score({ query, domains }, excluded) {
  const relevant = Object.fromEntries(Object.entries(query.relevant).filter(([d]) => !excluded.has(d)));
  const ranking = domains.filter((d) => !excluded.has(d));
  const top100 = new Set(ranking.slice(0, 100));
  const exact = Object.keys(relevant).filter((d) => relevant[d] === 3);
  return {
    ndcg: ndcg(relevant, ranking),
    condensed: ndcg(relevant, ranking.filter((d) => own.has(d))),
    found: exact.filter((d) => top100.has(d)).length / exact.length,
  };
}

const mean = (list, key) => (list.length ? list.reduce((s, x) => s + x[key], 0) / list.length : NaN);

/** The mean of a score over a slice's queries in one mode. */
function cell(runs, mode, slice, key) {
  const scores = runs.filter((r) => r.mode === mode && slice.take(r.query)).map((r) => score(r, slice.exclude(r.query)));
  return mean(scores, key).toFixed(3);
}

const own = new Set(organizations.map((r) => r.domain));
const alone = createEngine(organizations);
const generated = generateDataset(DISTRACTORS).filter((r) => !own.has(r.domain));
const mixed = createEngine([...generated, ...organizations]);

const aloneRuns = rank('alone', alone);
const mixedRuns = rank('distractors', mixed);

const modes = [...new Set(aloneRuns.map((r) => r.mode))];
console.log(`\n${title}; distractors: ${generated.length.toLocaleString('en')} generated (seed ${DISTRACTORS.seed})\n`);
console.log(`| mode | ${column} | alone: nDCG@10 | with distractors: nDCG@10 (strict) | with distractors: nDCG@10 (condensed) | with distractors: grade-3 in top 100 |`);
console.log('|---|---|---|---|---|---|');
for (const mode of modes) {
  for (const part of onlyPart ? [onlyPart] : parts) {
    for (const slice of slices(part)) {
      console.log(`| ${mode} | ${slice.label} | ${cell(aloneRuns, mode, slice, 'ndcg')} | ${cell(mixedRuns, mode, slice, 'ndcg')} | ${cell(mixedRuns, mode, slice, 'condensed')} | ${cell(mixedRuns, mode, slice, 'found')} |`);
    }
  }
}
console.log('\nstrict: every generated organization in the top 10 counts as irrelevant (the generator makes bakeries and roofers too, unjudged: a lower bound).');
console.log('condensed: generated organizations removed from the ranking before the top 10 is taken (top 500 fetched).');
if (setName === 'language') {
  console.log('de → en-text, en → de-text: the organizations whose text is in the query\'s own language are removed from the ranking and from the ideal, so only the other language\'s can score.');
}
