/**
 * Bounded work for text inputs that reach the engine directly (a library caller skips the contract's
 * limits): the work done must grow linearly with the input. Asserted by counting work (array elements
 * copied, characters joined) where that is observable, and otherwise by running the call in a worker that
 * is stopped far above the expected time — a synchronous call cannot be interrupted in the test's own
 * thread. No assertion here is about how fast anything is.
 */
import punycode from 'punycode/punycode.js';
import { join } from 'node:path';
import { normalizeDomain } from '../../src/contract/domain.js';
import { createEngine } from '../../src/engine/index.js';
import { parseQuery } from '../../src/engine/language/query-parser.js';
import { STEM_WEIGHT, TextIndex } from '../../src/engine/relevance/text-index.js';
import { FIXTURE } from './fixtures.js';
import { runIsolated } from './isolated.js';

const SCENARIOS = join(__dirname, 'bounded-work.scenarios.ts');
/** Far above what any of these takes now (milliseconds); the old code took minutes. */
const GUARD_MS = 30_000;

/** Elements that pass through the array iterator (spread, for…of, Array.from) while `run` runs. */
function arrayIteratorSteps(run: () => void): number {
  const proto = Array.prototype as unknown as Record<symbol, (this: unknown[]) => Iterator<unknown>>;
  const original = proto[Symbol.iterator];
  if (!original) throw new Error('no array iterator');
  let steps = 0;
  proto[Symbol.iterator] = function (this: unknown[]) {
    const inner = original.call(this);
    const counted = {
      next: (): IteratorResult<unknown> => {
        steps++;
        return inner.next();
      },
      [Symbol.iterator]: () => counted,
    };
    return counted;
  };
  try {
    run();
  } finally {
    proto[Symbol.iterator] = original;
  }
  return steps;
}

/** Characters produced by Array.prototype.join while `run` runs. */
function joinedCharacters(run: () => void): number {
  const original = Array.prototype.join;
  let characters = 0;
  Array.prototype.join = function (this: unknown[], separator?: string) {
    const joined = original.call(this, separator);
    characters += joined.length;
    return joined;
  };
  try {
    run();
  } finally {
    Array.prototype.join = original;
  }
  return characters;
}

describe('keyword phrases', () => {
  const index = TextIndex.build({
    name: ['Dentist Bakery', 'Dentists Bakeries', 'Tax Advisor'],
    body: ['dentist bakery dentist bakery', 'bakeries dentists', 'tax advisors'],
  });
  const phraseOf = (words: number): string => Array.from({ length: words }, (_, i) => (i % 2 === 0 ? 'dentists' : 'bakeries')).join(' ');

  test('compiling a phrase copies a bounded number of elements per word', () => {
    const steps = [1_000, 2_000].map((words) => arrayIteratorSteps(() => index.match({ must_all: [phraseOf(words)] })));
    // Twice the words, twice the work (a prefix copied per word would be four times); 16 combinations of
    // `words` terms is the size of the result itself.
    expect(steps[1]).toBeLessThanOrEqual(2.1 * (steps[0] ?? 0));
    expect(steps[1]).toBeLessThan(40 * 2_000);
  });

  test('the form combinations are the first 16 in order, the words as typed first', () => {
    const details = index.explain({ must_all: ['dentists bakeries dentists bakeries dentists'] }, 1).details.filter((d) => d.field === 'name');
    const expected: string[][] = [];
    const forms = [['dentists', 'dentist'], ['bakeries', 'bakery']];
    const walk = (prefix: string[]): void => {
      if (prefix.length === 5) {
        expected.push(prefix);
        return;
      }
      for (const form of forms[prefix.length % 2] ?? []) walk([...prefix, form]);
    };
    walk([]);
    expect(details.map((d) => d.terms)).toEqual(expected.slice(0, 16));
    expect(details.map((d) => d.weight)).toEqual([1, ...Array.from({ length: 15 }, () => STEM_WEIGHT)]);
  });

  test('a phrase longer than every field matches nothing; a repeated word counts its overlapping runs', () => {
    const repeated = TextIndex.build({ name: ['a a a', 'b'], body: ['a', 'a b a a'] });
    expect(Array.from(repeated.match({ must_all: ['a a a a'] }))).toEqual([]);
    expect(Array.from(repeated.match({ must_all: ['a a a'] }))).toEqual([0]);
    expect(Array.from(repeated.match({ must_all: ['a a'] }))).toEqual([0, 1]);
    expect(repeated.explain({ must_all: ['a a'] }, 0).details.find((d) => d.field === 'name')?.tf).toBe(2);
    expect(Array.from(repeated.match({ must_all: ['a '.repeat(10_000)] }))).toEqual([]);
  });

  test('a 50,000-word phrase is answered in every kind of query', async () => {
    await expect(runIsolated(SCENARIOS, 'longPhrase', [50_000], GUARD_MS)).resolves.toEqual({ matched: 0, scored: 0, top: 2, explained: 32 });
  }, GUARD_MS + 10_000);
});

describe('natural-language queries', () => {
  const index = createEngine(FIXTURE);

  test('negated places are found with a bounded look-back, not by re-reading the query', () => {
    const queries = [1_000, 2_000].map((n) => 'bakeries not in Munich and butchers in Berlin '.repeat(n));
    const parsed: ReturnType<typeof parseQuery>[] = [];
    const characters = queries.map((query) =>
      joinedCharacters(() => {
        parsed.push(parseQuery(index.store, query, '2026-01-01'));
      }),
    );
    // Twice the query, twice the text joined (the prefix before every place would be four times).
    expect(characters[1]).toBeLessThanOrEqual(2.1 * (characters[0] ?? 0));
    expect(characters[1]).toBeLessThan(20 * (queries[1]?.length ?? 0));
    for (const result of parsed) {
      // The fixture's index knows neither word: both are named as not understood, once each.
      expect(result).toMatchObject({ keywords: { must_one: [], must_not: [] }, not_understood: ['bakeries', 'butchers'], locations: { municipality: [], state: ['Berlin'] } });
    }
  });

  test.each([
    ['places', 40_000, { places: 0, keywords: 1, excluded: 0 }],
    ['commas', 300_000, { places: 0, keywords: 2, excluded: 0 }],
    ['dots', 300_000, { places: 0, keywords: 1, excluded: 0 }],
    ['keywords', 200_000, { places: 0, keywords: 200_000, excluded: 0 }],
  ])('a query of %s (n = %d) is parsed', async (kind, n, expected) => {
    await expect(runIsolated(SCENARIOS, 'nlpQuery', [kind, n], GUARD_MS)).resolves.toEqual(expected);
  }, GUARD_MS + 10_000);
});

describe('domains', () => {
  test('a host too long for a domain name is refused before it is encoded', () => {
    const toAscii = jest.spyOn(punycode, 'toASCII');
    try {
      let host = '';
      for (let i = 0; i < 5_000; i++) host += String.fromCharCode(0x4e00 + i);
      const result = normalizeDomain(`https://${host}.com/path`);
      expect(result).toEqual({ ok: false, reason: expect.stringContaining('longer than 253 characters') });
      const encoded = toAscii.mock.calls.map(([input]) => input.length);
      expect(Math.max(0, ...encoded)).toBeLessThanOrEqual(253);
      // Still encoded and accepted at the edge: 63 letters a label.
      expect(normalizeDomain(`${'ä'.repeat(50)}.example.com`)).toEqual({ ok: true, domain: punycode.toASCII(`${'ä'.repeat(50)}.example.com`) });
    } finally {
      toAscii.mockRestore();
    }
  });
});
