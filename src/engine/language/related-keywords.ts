/**
 * `/v1/generate-keywords` without a hosted model: terms related to the input keywords, from the data.
 *
 * Candidates are the corpus's own vocabulary — the distinct `summary_keywords` tags — so every suggestion
 * is a term the index can find. Each candidate scores, against each input keyword, the mean of
 *   co-occurrence  how strongly the tag concentrates among the organizations that mention the keyword
 *                  anywhere (name, summary, tags, text: the keyword engine's matching, plurals included):
 *                  n(tag ∧ keyword) / √(n(tag) · n(keyword)), the cosine of the two document sets;
 *   meaning        the cosine of the two phrases' SIF word vectors (the semantic engine's embedder).
 * A candidate keeps its best score over the inputs; inputs themselves (also in another case, accent or
 * plural form) and duplicates are left out; best first, ties alphabetical; at most RELATED_LIMIT.
 */
import { foldForMatch } from '../store/name-groups.js';
import { sifGloveEmbedder } from '../relevance/embedder.js';
import { textIndexOf } from '../relevance/store-relevance.js';
import { stemMinimalEnglish } from '../relevance/tokenize.js';
import type { ColumnStore } from '../store/store.js';

export const RELATED_LIMIT = 15;
/** Candidates below this score are noise (an unrelated tag that shares one organization, say). */
const MIN_SCORE = 0.2;

interface TagTable {
  names: string[];
  /** Organizations carrying each tag. */
  counts: Uint32Array;
  /** Each tag's SIF vector (null for the null slot and for tags without a known word). */
  vectors: (Float32Array | null)[];
}

const tables = new WeakMap<ColumnStore, TagTable>();

function tagTable(store: ColumnStore): TagTable {
  let table = tables.get(store);
  if (!table) {
    const { dict, ids } = store.keywords;
    const names = dict.values.map((value) => value ?? '');
    const counts = new Uint32Array(names.length);
    for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
    const embedder = sifGloveEmbedder();
    table = { names, counts, vectors: names.map((name, id) => (id === 0 ? null : embedder.embed(name))) };
    tables.set(store, table);
  }
  return table;
}

/** A phrase's identity for "is this the input again": folded, each word's plural stem. */
function identity(phrase: string): string {
  return foldForMatch(phrase)
    .split(/\s+/)
    .filter(Boolean)
    .map(stemMinimalEnglish)
    .join(' ');
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let d = 0; d < a.length; d++) dot += (a[d] ?? 0) * (b[d] ?? 0);
  return dot; // both unit length
}

/** Related terms for the input keywords, best first. */
export function relatedKeywords(store: ColumnStore, keywords: readonly string[], limit = RELATED_LIMIT): string[] {
  const table = tagTable(store);
  const { offsets, ids } = store.keywords;
  const index = textIndexOf(store);
  const embedder = sifGloveEmbedder();
  const excluded = new Set(keywords.map(identity));
  const best = new Float64Array(table.names.length);
  for (const keyword of keywords) {
    const docs = index.positiveClauseCount({ must_all: [keyword] }) > 0 ? index.match({ must_all: [keyword] }) : new Uint32Array(0);
    const together = new Uint32Array(table.names.length);
    for (const doc of docs) for (let j = offsets[doc] ?? 0; j < (offsets[doc + 1] ?? 0); j++) together[ids[j] ?? 0] = (together[ids[j] ?? 0] ?? 0) + 1;
    const vector = embedder.embed(keyword);
    for (let id = 1; id < table.names.length; id++) {
      const both = together[id] ?? 0;
      const cooccurrence = both === 0 ? 0 : both / Math.sqrt((table.counts[id] ?? 1) * docs.length);
      const tagVector = table.vectors[id];
      const meaning = vector && tagVector ? Math.max(0, cosine(vector, tagVector)) : 0;
      const score = (cooccurrence + meaning) / 2;
      if (score > (best[id] ?? 0)) best[id] = score;
    }
  }
  const seen = new Set<string>();
  return Array.from({ length: table.names.length }, (_, id) => id)
    .filter((id) => id > 0 && (best[id] ?? 0) >= MIN_SCORE)
    .sort((a, b) => (best[b] ?? 0) - (best[a] ?? 0) || (table.names[a] ?? '').localeCompare(table.names[b] ?? ''))
    .map((id) => table.names[id] ?? '')
    .filter((name) => {
      const key = identity(name);
      if (excluded.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, limit);
}
