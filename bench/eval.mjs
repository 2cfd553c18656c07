// Search quality on the labelled evaluation set (eval/queries.json): nDCG@10 per query and per mode,
// over the default dataset. Relevance grades come from the generator's ground truth (NACE class).
// Usage: npm run eval [-- --verbose]
import { readFileSync } from 'node:fs';
import { createDefaultEngine, generateDataset, DEFAULT_DATASET } from '../dist/lib/index.js';
// Not exported from the package entry: deep import of the compiled module.
import { buildTextIndex } from '../dist/lib/engine/relevance/store-relevance.js';

const verbose = process.argv.includes('--verbose');
const { queries } = JSON.parse(readFileSync(new URL('../eval/queries.json', import.meta.url), 'utf8'));
const records = generateDataset(DEFAULT_DATASET);
const classOf = new Map(records.map((r) => [r.domain, r.nace_code]));
const index = createDefaultEngine();

/** Content words of a text, lower-cased (to report whether a query shares words with its relevant organizations). */
const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'by', 'for', 'from', 'in', 'into', 'is', 'of', 'on', 'or', 'the', 'to', 'who', 'while', 'with']);
const words = (text) => new Set(((text ?? '').toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)));

function dcg(gains) {
  return gains.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);
}

/** nDCG@10 of ranked domains for a query (ideal: the best 10 grades in the whole dataset, references excluded). */
function ndcgOf(query, body, domains) {
  const gains = domains.map((domain) => query.relevant[classOf.get(domain)] ?? 0);
  const available = records
    .filter((r) => !(body.similar_to ?? []).includes(r.domain))
    .map((r) => query.relevant[r.nace_code] ?? 0)
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, 10);
  return available.length === 0 ? 0 : dcg(gains) / dcg(available);
}

const byMode = new Map();
for (const query of queries) {
  let body = query.body ?? {};
  if (query.similar_to_class) {
    const reference = records.filter((r) => r.nace_code === query.similar_to_class).map((r) => r.domain).sort()[0];
    body = { similar_to: [reference] };
  }
  const result = index.search({ ...body, size: 10, columns: ['nace_code', 'name'] });
  if (result.metadata.mode !== query.mode) throw new Error(`${query.id}: expected mode ${query.mode}, got ${result.metadata.mode}`);
  const ndcg = ndcgOf(query, body, result.data.map((row) => row.domain));
  const queryWords = words(`${body.describe ?? ''} ${(body.keywords?.must_all ?? []).join(' ')} ${(body.keywords?.must_any ?? []).join(' ')}`);
  const relevantTexts = records.filter((r) => (query.relevant[r.nace_code] ?? 0) >= 3).slice(0, 400);
  const shared = [...queryWords].filter((w) => relevantTexts.some((r) => words(`${r.name} ${r.summary} ${r.text} ${r.summary_keywords.join(" ")}`).has(w)));
  const list = byMode.get(query.mode) ?? [];
  list.push({ id: query.id, ndcg, shared });
  byMode.set(query.mode, list);
  if (verbose) {
    console.log(`${query.id.padEnd(24)} nDCG@10 ${ndcg.toFixed(3)}  hits ${result.metadata.total_hits}  ${shared.length ? `shares: ${shared.join(', ')}` : 'shares no word'}`);
    for (const row of result.data.slice(0, 3)) console.log(`    ${row.nace_code} ${row.name}`);
  }
}

console.log('\n| mode | queries | mean nDCG@10 | queries sharing no word with their relevant organizations |');
console.log('|---|---|---|---|');
for (const [mode, list] of byMode) {
  const mean = list.reduce((s, q) => s + q.ndcg, 0) / list.length;
  const disjoint = list.filter((q) => q.shared.length === 0);
  const disjointMean = disjoint.length ? ` (nDCG ${(disjoint.reduce((s, q) => s + q.ndcg, 0) / disjoint.length).toFixed(3)})` : '';
  console.log(`| ${mode} | ${list.length} | ${mean.toFixed(3)} | ${disjoint.length}${disjointMean} |`);
}

// The keyword analyzer with and without the plural stemmer, on the fulltext queries (BM25 alone: the
// same ranking as fulltext search, which has no other signal).
const { store } = index;
const fulltext = queries.filter((q) => q.mode === 'fulltext');
console.log('\n| keyword analyzer (fulltext queries) | mean nDCG@10 | queries without any result | per query (nDCG@10) |');
console.log('|---|---|---|---|');
for (const stemmer of ['none', 'english-minimal', 'english-german']) {
  const text = buildTextIndex(store, { stemmer });
  const scores = fulltext.map((query) => {
    const top = text.top(query.body.keywords, 10, undefined, store.domainRank);
    return { id: query.id, ndcg: ndcgOf(query, query.body, Array.from(top.docs, (row) => store.domain(row))), empty: top.total === 0 };
  });
  const mean = scores.reduce((s, q) => s + q.ndcg, 0) / scores.length;
  const empty = scores.filter((q) => q.empty).map((q) => q.id);
  const detail = scores.filter((q) => q.ndcg < 0.999).map((q) => `${q.id} ${q.ndcg.toFixed(2)}`).join(', ');
  console.log(`| ${stemmer} | ${mean.toFixed(3)} | ${empty.length}${empty.length ? ` (${empty.join(', ')})` : ''} | below 1: ${detail || 'none'} |`);
}
