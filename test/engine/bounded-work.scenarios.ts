/**
 * Inputs far beyond the contract's limits, given straight to the engine (as a library caller may): run in
 * a worker by bounded-work.test.ts, which stops them if they do not return.
 */
import { normalizeDomain } from '../../src/contract/domain.js';
import { createEngine } from '../../src/engine/index.js';
import { parseQuery } from '../../src/engine/language/query-parser.js';
import { TextIndex } from '../../src/engine/relevance/text-index.js';
import { FIXTURE } from './fixtures.js';

/** A phrase of `words` words, each with a plural form in the index, in every place a phrase is used. */
export function longPhrase(words: number): { matched: number; scored: number; top: number; explained: number } {
  const index = TextIndex.build({
    name: ['Dentist Bakery', 'Dentists Bakeries', 'Tax Advisor'],
    body: ['dentist bakery dentist bakery', 'bakeries dentists', 'tax advisors'],
  });
  const phrase = Array.from({ length: words }, (_, i) => (i % 2 === 0 ? 'dentists' : 'bakeries')).join(' ');
  const query = { must_all: [phrase], must_not: [phrase] };
  return {
    matched: index.match({ must_any: [phrase] }).length,
    scored: index.score(query).docs.length,
    top: index.top({ must_any: ['bakery', phrase] }, 10).total,
    explained: index.explain({ must_all: [phrase] }, 0).details.length,
  };
}

const QUERIES: Record<string, (n: number) => string> = {
  /** Many place names, each after a long prefix. */
  places: (n) => 'bakeries not in Munich '.repeat(n),
  /** Long runs of punctuation at a word's end. */
  commas: (n) => `x${','.repeat(n)}y`,
  dots: (n) => `x${'.'.repeat(n)}y`,
  quotes: (n) => `x${"'".repeat(n)} y`,
  /** Many distinct keywords (each added once). */
  keywords: (n) => Array.from({ length: n }, (_, i) => `x${i}`).join(' '),
};

export function nlpQuery(kind: string, n: number): { places: number; keywords: number; excluded: number } {
  const index = createEngine(FIXTURE);
  const make = QUERIES[kind];
  if (!make) throw new Error(`no query kind ${kind}`);
  const parsed = parseQuery(index.store, make(n), '2026-01-01');
  return {
    places: Object.values(parsed.locations).flat().length,
    // The words it made something of, or named as not understood (the fixture knows few words).
    keywords: parsed.keywords.must_one.length + parsed.keywords.must_not.length + (parsed.not_understood?.length ?? 0),
    excluded: parsed.keywords.must_not.length,
  };
}

/** A host of `n` distinct non-ASCII letters: refused for its length. */
export function longUnicodeHost(n: number): string {
  let host = '';
  for (let i = 0; i < n; i++) host += String.fromCharCode(0x4e00 + i);
  const result = normalizeDomain(`${host}.com`);
  return result.ok ? result.domain : result.reason;
}
