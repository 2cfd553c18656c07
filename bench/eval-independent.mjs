// Search quality on the independent, hand-written eval (eval/independent/): nDCG@10 per mode (semantic,
// fulltext, hybrid) and per part (dev, heldout), over the hand-written organizations alone and mixed into
// 20,000 generated organizations as distractors. Grades are by domain, written by hand (see the README).
// Usage: npm run eval:independent [-- --verbose] [-- --expand]
//   --verbose  per-query nDCG@10 and the top results with their grades
//   --expand   also measure query expansion through related keywords (language/related-keywords.ts):
//              the related terms of the query's content words are added to `describe` and to must_any
//   --part=dev only print that part (while trying ideas, so that heldout stays unseen)
import { readFileSync } from 'node:fs';
import { createLocalIndex, generateDataset, OrganizationRecordSchema } from '../dist/lib/index.js';
// Not exported from the package entry: deep import of the compiled module.
import { relatedKeywords } from '../dist/lib/engine/language/related-keywords.js';

const verbose = process.argv.includes('--verbose');
const expand = process.argv.includes('--expand');
const onlyPart = process.argv.find((a) => a.startsWith('--part='))?.slice('--part='.length);
const DISTRACTORS = { count: 20_000, seed: 20261121 };
const EXPANSION_TERMS = 5;

const readJson = (name) => JSON.parse(readFileSync(new URL(`../eval/independent/${name}`, import.meta.url), 'utf8'));
const organizations = Object.values(readJson('organizations.json').industries)
  .flat()
  .map((row) => OrganizationRecordSchema.parse(row));
const { queries } = readJson('queries.json');

/** The words a user's query is searched with as keywords: lower-cased, function words dropped. */
const STOP_WORDS = new Set([
  'a', 'about', 'after', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'for', 'from', 'i', 'in', 'into', 'is', 'it',
  'me', 'my', 'of', 'on', 'or', 'our', 'someone', 'that', 'the', 'to', 'we', 'where', 'which', 'who', 'with', 'within', 'you', 'your',
]);
const keywordsOf = (text) => [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)))];

const dcg = (gains) => gains.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);

/** nDCG@10 of ranked domains; the ideal ranking is the query's graded organizations, best first. */
function ndcg(query, domains) {
  const ideal = dcg(Object.values(query.relevant).sort((a, b) => b - a).slice(0, 10));
  return dcg(domains.slice(0, 10).map((d) => query.relevant[d] ?? 0)) / ideal;
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

function evaluate(label, index) {
  const scores = []; // { mode, part, id, ndcg, condensed, found }
  for (const query of queries) {
    for (const [mode, body] of Object.entries(bodiesOf(query, index))) {
      const result = index.search({ ...body, size: DEPTH, columns: ['name'] });
      const expected = mode.replace('+expand', '');
      if (result.metadata.mode !== expected) throw new Error(`${query.id}: expected mode ${expected}, got ${result.metadata.mode}`);
      const domains = result.data.map((row) => row.domain);
      // Strict: every generated organization counts as irrelevant (some are in truth relevant: a lower bound).
      // Condensed: generated organizations taken out of the ranking (the usual treatment of unjudged results).
      const top100 = new Set(domains.slice(0, 100));
      const exact = Object.keys(query.relevant).filter((d) => query.relevant[d] === 3);
      const score = {
        mode, part: query.part, id: query.id,
        ndcg: ndcg(query, domains),
        condensed: ndcg(query, domains.filter((d) => own.has(d))),
        found: exact.filter((d) => top100.has(d)).length / exact.length,
      };
      scores.push(score);
      if (verbose && (!onlyPart || query.part === onlyPart)) {
        console.log(`${label.padEnd(12)} ${query.part.padEnd(7)} ${mode.padEnd(16)} ${query.id.padEnd(20)} nDCG@10 ${score.ndcg.toFixed(3)} condensed ${score.condensed.toFixed(3)}  "${query.query}"`);
        for (const row of result.data.slice(0, 5)) console.log(`      ${own.has(row.domain) ? (query.relevant[row.domain] ?? 0) : '-'}  ${row.domain}  ${row.name}`);
      }
    }
  }
  return scores;
}

const mean = (list, key = 'ndcg') => (list.length ? list.reduce((s, x) => s + x[key], 0) / list.length : NaN);

const own = new Set(organizations.map((r) => r.domain));
const alone = createLocalIndex(organizations);
const generated = generateDataset(DISTRACTORS).filter((r) => !own.has(r.domain));
const mixed = createLocalIndex([...generated, ...organizations]);

const settings = [
  ['alone', `${organizations.length} organizations`, evaluate('alone', alone)],
  ['with distractors', `+ ${generated.length.toLocaleString('en')} generated`, evaluate('distractors', mixed)],
];

const modes = [...new Set(settings[0][2].map((s) => s.mode))];
const count = (part) => queries.filter((q) => q.part === part).length;
const cell = (scores, mode, part, key) => mean(scores.filter((s) => s.mode === mode && s.part === part), key).toFixed(3);
const [[, , aloneScores], [, , mixedScores]] = settings;
console.log(`\nIndependent eval: ${queries.length} queries (dev ${count('dev')}, heldout ${count('heldout')}); ${organizations.length} hand-written organizations; distractors: ${generated.length.toLocaleString('en')} generated (seed ${DISTRACTORS.seed})\n`);
console.log('| mode | part | alone: nDCG@10 | with distractors: nDCG@10 (strict) | with distractors: nDCG@10 (condensed) | with distractors: grade-3 in top 100 |');
console.log('|---|---|---|---|---|---|');
for (const mode of modes) {
  for (const part of onlyPart ? [onlyPart] : ['dev', 'heldout']) {
    console.log(`| ${mode} | ${part} | ${cell(aloneScores, mode, part, 'ndcg')} | ${cell(mixedScores, mode, part, 'ndcg')} | ${cell(mixedScores, mode, part, 'condensed')} | ${cell(mixedScores, mode, part, 'found')} |`);
  }
}
console.log('\nstrict: every generated organization in the top 10 counts as irrelevant (the generator makes bakeries and roofers too, unjudged: a lower bound).');
console.log('condensed: generated organizations removed from the ranking before the top 10 is taken (top 500 fetched).');
