/**
 * Hostile inputs for property-based tests: values a careless or malicious caller sends, shaped after the
 * contract (the field names of each endpoint's schema) so that generated bodies reach deep into validation
 * and the engine instead of failing at the first unknown key.
 *
 * Runs are reproducible: the seed is fixed (FUZZ_SEED picks another one to explore; fast-check prints the
 * seed and the shrunk counterexample of a failure), and FUZZ_RUNS scales the number of runs.
 */
import * as fc from 'fast-check';
import type * as z from 'zod';

export const FUZZ_RUNS_SCALE = Number(process.env.FUZZ_RUNS ?? '1');
const DEFAULT_SEED = 20_261_124;
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? String(DEFAULT_SEED));

export function fuzzParameters(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: Math.max(1, Math.round(numRuns * FUZZ_RUNS_SCALE)), seed: FUZZ_SEED, endOnFailure: true };
}

/** Strings spreadsheets and parsers trip over: formula prefixes, control characters, lone surrogates, look-alikes. */
const NASTY_STRINGS = [
  '', ' ', '\t', '\u0000', '\r\n', '=1+1', '+1', '-1', '@SUM(A1)', '=HYPERLINK("http://x","y")', '\uD800', 'a\uDC00b', '\uFEFF',
  'München', 'MÜNCHEN', 'ｅｘａｍｐｌｅ.com', 'xn--', 'xn--mnchen-3ya.de', 'example..com', '.example.com', 'example.com.',
  'http://127.0.0.1/', 'http://[::127.0.0.1]/', 'file:///etc/passwd', '../../etc/passwd', '%2e%2e%2f', '__proto__', 'constructor',
  'null', 'true', '1e309', '-0', 'NaN', '9007199254740993', '2026-02-30', '0000-00-00', '${7*7}', "'; DROP TABLE orgs; --",
  'a'.repeat(300), 'word '.repeat(100), '"', '\\', '<script>alert(1)</script>',
];

/** One UTF-16 code unit of any value, lone surrogates included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r'), fc.string({ maxLength: 10 })).map(([a, b]) => a + b) },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e21, -1e21, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, 2 ** 53, 1e308, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Every property name the schema knows, at any depth (so generated objects use real field names). */
export function fieldNames(schema: z.ZodType): string[] {
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    const shape = def.shape as Record<string, unknown> | undefined;
    if (shape) {
      for (const [name, child] of Object.entries(shape)) {
        names.add(name);
        walk(child);
      }
    }
    for (const part of ['in', 'out', 'innerType', 'element', 'valueType', 'keyType', 'left', 'right', 'schema']) walk(def[part]);
    for (const option of (def.options as unknown[] | undefined) ?? []) walk(option);
    if (typeof def.getter === 'function') walk((def.getter as () => unknown)());
  };
  walk(schema);
  return [...names];
}

/** JSON values built from hostile leaves, objects keyed by the given field names (and a few traps). */
export function hostileJson(names: readonly string[]): fc.Arbitrary<unknown> {
  const keys = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...(names.length > 0 ? names : ['x'])) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '', 'x') });
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      hostileNumber,
      hostileString,
      fc.array(tie('value'), { maxLength: 6 }),
      fc.dictionary(keys, tie('value'), { maxKeys: 6 }),
    ),
  }));
  return value;
}

/** A body of an endpoint: an object of its field names most of the time, any JSON value sometimes. */
export function hostileBody(schema: z.ZodType): fc.Arbitrary<unknown> {
  const names = fieldNames(schema);
  const json = hostileJson(names);
  const topKeys = fc.constantFrom(...(names.length > 0 ? names : ['x']));
  return fc.oneof({ weight: 5, arbitrary: fc.dictionary(topKeys, json, { maxKeys: 8 }) }, { weight: 1, arbitrary: json });
}

/** Real values of the dataset under test, so near-valid requests hit rows instead of empty answers. */
export interface Pools {
  domains: readonly string[];
  words: readonly string[];
  /** Values of categorical columns (countries, states, sizes …), any column. */
  values: readonly string[];
  columns: readonly string[];
  filterNames: readonly string[];
  statsGroups: readonly string[];
}

const pick = <T>(list: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...list);
const mostly = <T>(real: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ weight: 4, arbitrary: real }, { weight: 1, arbitrary: hostile });

/**
 * Requests that pass validation most of the time, with a hostile value here and there, per endpoint: these
 * reach the engine (ranking, counting, paging) with odd but allowed input.
 */
export function nearValidBodies(pools: Pools): Record<string, fc.Arbitrary<unknown>> {
  const word = mostly(pick(pools.words), hostileString);
  const term = fc.oneof(word, fc.array(pick(pools.words), { minLength: 2, maxLength: 6 }).map((words) => words.join(' ')));
  const terms = fc.array(term, { maxLength: 5 });
  const domain = mostly(pick(pools.domains), hostileString);
  const keywords = fc.record({ must_all: terms, must_any: terms, must_not: terms }, { requiredKeys: [] });
  const filters = fc.dictionary(pick(pools.filterNames), fc.oneof(fc.array(mostly(pick(pools.values), hostileString), { maxLength: 4 }), keywords, fc.constant(null)), { maxKeys: 3 });
  const columns = fc.array(mostly(pick(pools.columns), hostileString), { maxLength: 6 });
  const size = mostly(fc.integer({ min: 1, max: 500 }), fc.integer({ min: -5, max: 600 }));
  const unit = mostly(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -0.5, max: 1.5, noNaN: true }));
  const describe = fc.array(word, { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));
  const weight = mostly<unknown>(fc.constantFrom('weak', 'normal', 'strong'), fc.oneof(fc.constant('huge'), fc.double({ min: -1, max: 3, noNaN: true })));
  const entry = fc.oneof(domain, fc.record({ domain, boost: terms, penalize: terms, weight }, { requiredKeys: ['domain'] }));
  const similar = mostly(fc.array(entry, { minLength: 1, maxLength: 3 }), fc.array(entry, { minLength: 4, maxLength: 5 }));
  const base = fc.record({ keywords, filters, columns, size, min_score: unit, search_balance: unit, dedup: fc.boolean(), excludes: fc.array(domain, { maxLength: 3 }) }, { requiredKeys: [] });
  // describe and similar_to exclude each other (rule 2): one of them, or neither, most of the time.
  const mode = fc.oneof(fc.constant({}), describe.map((text) => ({ describe: text })), similar.map((list) => ({ similar_to: list })), fc.record({ describe, similar_to: similar }));
  const search = fc.tuple(base, mode).map(([a, b]) => ({ ...a, ...b }));
  return {
    'v2.search': search,
    'v2.fetch': fc.record({ domains: fc.array(domain, { minLength: 1, maxLength: 40 }), columns }, { requiredKeys: ['domains'] }),
    'v2.stats': fc.record(
      { filters, group_by: mostly(pick(pools.statsGroups), hostileString), group_by_secondary: fc.option(mostly(pick(pools.statsGroups), hostileString)), date_trunc: mostly(fc.constantFrom('year', 'month', 'week'), fc.constant('day')), limit: size, date_range: fc.record({ field: fc.constantFrom('created_at', 'updated_at', 'company_register_date'), from_date: mostly(fc.constantFrom('2000-01-01', '2020-02-29'), fc.constant('2026-13-01')), to_date: fc.constantFrom('2026-11-01', '1999-01-01') }, { requiredKeys: ['field'] }) },
      { requiredKeys: [] },
    ),
    'v1.search': fc.record(
      { search_id: fc.uuid(), keywords: fc.record({ must_one: terms, must_all: terms, must_not: terms }, { requiredKeys: [] }), domains: fc.array(domain, { maxLength: 3 }), excludes: fc.array(domain, { maxLength: 3 }), size, semantic_input: fc.option(describe), custom_filters: fc.option(filters) },
      { requiredKeys: ['search_id'] },
    ),
    'v1.fetchMarket': fc.record({ domains: fc.array(domain, { minLength: 1, maxLength: 40 }) }),
    'v1.sublocations': fc.record({ parent_level: mostly<unknown>(fc.constantFrom('all', 'country', 'state', 'region', 'district'), hostileString), parent_value: mostly(pick(pools.values), hostileString) }),
    // Downloads are written to the store (a directory, or the database's table) and linked.
    'v1.download': fc.tuple(
      fc.record({ size: mostly(fc.integer({ min: 1, max: 10 }), fc.integer({ min: -1, max: 12 })), download_format: mostly<unknown>(fc.constantFrom('tsv', 'xlsx', 'parquet'), hostileString), columns }, { requiredKeys: [] }),
      fc.oneof(
        fc.record({ search_id: fc.uuid(), query: fc.record({ keywords: fc.record({ must_one: terms, must_all: terms }, { requiredKeys: [] }), custom_filters: filters, excludes: fc.array(domain, { maxLength: 3 }) }, { requiredKeys: [] }) }).map((search_info) => ({ search_info })),
        fc.record({ market_id: fc.constantFrom('fuzz'), market: fc.array(domain, { minLength: 1, maxLength: 10 }) }).map((market_info) => ({ market_info })),
      ),
    ).map(([a, b]) => ({ ...a, ...b })),
    'language.generateKeywords': fc.record({ keywords: fc.array(word, { minLength: 1, maxLength: 8 }) }),
    'language.nlpSearch': fc.record({ user_query: fc.oneof(describe, fc.array(fc.oneof(word, fc.constantFrom('in', 'not in', 'near', 'outside', 'Berlin', 'Bayern', 'München', 'Wien', 'except')), { minLength: 1, maxLength: 20 }).map((w) => w.join(' '))), search_id: fc.constantFrom('fuzz') }),
  };
}

/** Where a NUL goes: the `which`-th string or key of a JSON value (in a fixed walk order), before character `at`. */
export interface NulPlace {
  which: number;
  at: number;
}

export const nulPlace: fc.Arbitrary<NulPlace> = fc.record({ which: fc.nat(), at: fc.nat() });

/** The value with a NUL inserted into one of its strings or keys; null when it holds none. */
export function withNul(value: unknown, place: NulPlace): unknown {
  let count = 0;
  const countStrings = (node: unknown): void => {
    if (typeof node === 'string') count++;
    else if (Array.isArray(node)) node.forEach(countStrings);
    else if (node !== null && typeof node === 'object') {
      for (const child of Object.values(node)) {
        count++;
        countStrings(child);
      }
    }
  };
  countStrings(value);
  if (count === 0) return null;
  const target = place.which % count;
  let seen = 0;
  const insert = (text: string): string => {
    const at = place.at % (text.length + 1);
    return `${text.slice(0, at)}\u0000${text.slice(at)}`;
  };
  const rebuild = (node: unknown): unknown => {
    if (typeof node === 'string') return seen++ === target ? insert(node) : node;
    if (Array.isArray(node)) return node.map(rebuild);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, child]) => {
          const name = seen++ === target ? insert(key) : key;
          return [name, rebuild(child)];
        }),
      );
    }
    return node;
  };
  return rebuild(value);
}
