/**
 * Filters answered through the postings equal a plain reading of every organization: random filters over
 * random stores of several sizes (sparse values held as lists, dense ones as bitmaps), with a key's view,
 * excludes and dedup, in filter-mode pages followed to the end and as the masks the scored modes rank over.
 */
import fc from 'fast-check';
import { ColumnStore } from '../../src/engine/store/store.js';
import { FiltersSchema, ORGANIZATION_SIZES, ORGANIZATION_TYPES, type Filters } from '../../src/contract/v2/filters.js';
import { filterSet, naceMatches, rowMask } from '../../src/engine/query/filters.js';
import { search, searchFilterMode } from '../../src/engine/query/search.js';
import { fulltextRanker, hybridRanker, maskOfRows, semanticRanker, similarRanker, type Allowed } from '../../src/engine/query/rankers.js';
import { duplicateNameGroups } from '../../src/engine/store/name-groups.js';
import { searchableTextIndex } from '../../src/engine/relevance/store-relevance.js';
import { dayOf, NO_DAY } from '../../src/engine/store/dates.js';
import { intersect, listOfBits, setOfList, union, walkFrom, type PositionSet } from '../../src/engine/store/position-set.js';
import { SearchRequestSchema, type SearchRequest } from '../../src/contract/v2/search.js';
import { Random } from '../../src/engine/random.js';
import { record } from './fixtures.js';
import { sortedAscending } from '../../src/engine/store/radix-sort.js';
import type { QueryContext } from '../../src/engine/query/context.js';

const COUNTRIES = ['Deutschland', 'Deutschland', 'Deutschland', 'Österreich', 'Schweiz'];
const STATES = ['Bayern', 'Berlin', 'Hessen', 'Wien', 'Tirol', 'Zürich'];
const TOWNS = Array.from({ length: 40 }, (_, i) => `Ort ${String(i)}`);
const NACE = ['62.01', '62.02', '63.10', '41.00', '10.71', '10.72', '56.10', 'NACE L: Financial and insurance activities'];
const SOURCES = ['register', 'cache', 'request', 'dataset_03_2025'];
const TAGS = ['software', 'cloud', 'bakery', 'construction', 'banking', 'hosting', 'organic', 'erp'];
const COURTS = ['Amtsgericht München', 'Amtsgericht Augsburg', 'Amtsgericht Charlottenburg', 'Handelsgericht Wien'];
const WORDS = ['bread', 'software', 'roof', 'heating', 'bank', 'cloud', 'garden'];
const NAMES = Array.from({ length: 60 }, (_, i) => `Firma ${String(i % 45)}`);

function day(random: Random): string {
  return `${String(random.int(2000, 2025))}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`;
}

/** A store of `size` organizations whose values come from small pools, some skewed (dense) and some spread (sparse). */
function randomStore(size: number, seed: number): ColumnStore {
  const random = new Random(seed);
  const maybe = <T>(value: T, probability = 0.9): T | null => (random.chance(probability) ? value : null);
  const records = Array.from({ length: size }, (_, i) =>
    record({
      domain: `org-${String(i)}-${String(random.int(0, 999))}.de`,
      name: maybe(random.pick(NAMES), 0.95),
      summary: `${random.pick(WORDS)} and ${random.pick(WORDS)}`,
      country: maybe(random.pick(COUNTRIES)),
      state: maybe(random.pick(STATES)),
      region: maybe(`Region ${String(random.int(0, 4))}`, 0.6),
      district: maybe(`Kreis ${String(random.int(0, 9))}`, 0.7),
      // Town 0 holds half of the organizations, the others few each.
      municipality: maybe(random.chance(0.5) ? 'Ort 0' : random.pick(TOWNS)),
      organization_type: maybe(random.pick(ORGANIZATION_TYPES)),
      organization_size: maybe(random.pick(ORGANIZATION_SIZES)),
      nace_code: maybe(random.pick(NACE)),
      source: random.pick(SOURCES),
      summary_keywords: Array.from({ length: random.int(0, 3) }, () => random.pick(TAGS)),
      registrations: Array.from({ length: random.int(0, 3) }, (_, j) => ({ court: random.pick(COURTS), date: day(random), id: `HRB ${String(i)}-${String(j)}` })),
    }),
  );
  return ColumnStore.fromRecords(records);
}

const subset = <T>(pool: readonly T[]): fc.Arbitrary<T[]> => fc.subarray([...new Set(pool)], { minLength: 1, maxLength: 3 });

/** Filters over the pools' values, with values no organization holds now and then. */
const filtersArbitrary: fc.Arbitrary<Filters> = fc
  .record(
    {
      country: subset([...COUNTRIES, 'Atlantis']),
      state: subset(STATES),
      region: subset(['Region 0', 'Region 1', 'Region 3']),
      district: subset(['Kreis 0', 'Kreis 5', 'Kreis 9']),
      municipality: subset([...TOWNS.slice(0, 12), 'Nowhere']),
      organization_type: subset(ORGANIZATION_TYPES),
      organization_size: subset(ORGANIZATION_SIZES),
      nace_code: subset(['62', '62.01', '10.7', '41.00', 'K', 'J', 'C']),
      source: subset(SOURCES),
      company_register_court: subset(COURTS),
      dates: fc.tuple(fc.option(fc.integer({ min: 2000, max: 2026 })), fc.option(fc.integer({ min: 0, max: 8 }))),
      summary_keywords: subset([...TAGS, 'unknown tag']),
      text_keywords: fc.record({ must_any: subset(WORDS) }),
    },
    { requiredKeys: [] },
  )
  // One to three keys at a time, so that most filters match something.
  .chain((all) => fc.subarray(Object.keys(all), { minLength: 0, maxLength: Math.min(3, Object.keys(all).length) }).map((keys) => Object.fromEntries(keys.map((key) => [key, all[key as keyof typeof all]])) as typeof all))
  .map(({ dates, ...rest }) => {
    const [fromYear, span] = dates ?? [null, null];
    const raw: Record<string, unknown> = { ...rest };
    if (fromYear !== null) raw.register_date_from = `${String(fromYear)}-03-01`;
    if (span !== null) raw.register_date_to = `${String((fromYear ?? 2000) + span)}-06-30`;
    return FiltersSchema.parse(raw);
  });

/** Does the organization satisfy the filters? Read from its columns one by one. */
function matches(store: ColumnStore, row: number, filters: Filters): boolean {
  const valueOf = (key: keyof ColumnStore['categorical']): string | null => store.categorical[key].dict.value(store.categorical[key].codes[row] ?? 0);
  for (const key of ['country', 'state', 'region', 'district', 'municipality', 'organization_type', 'organization_size', 'source'] as const) {
    const wanted = filters[key];
    if (wanted && !wanted.includes(valueOf(key) ?? '\u0000')) return false;
  }
  const nace = valueOf('nace_code');
  if (filters.nace_code && (nace === null || !filters.nace_code.some((wanted) => naceMatches(nace, wanted)))) return false;
  const tags = store.keywordsOf(row);
  if (filters.summary_keywords && !filters.summary_keywords.every((tag) => tags.includes(tag))) return false;
  if (filters.company_register_court || filters.register_date_from || filters.register_date_to) {
    const { offsets, court, day: days } = store.registrations;
    const from = filters.register_date_from ? dayOf(filters.register_date_from) : -Infinity;
    const to = filters.register_date_to ? dayOf(filters.register_date_to) : Infinity;
    let any = false;
    for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) {
      const d = days[j] ?? NO_DAY;
      const dated = !filters.register_date_from && !filters.register_date_to ? true : d !== NO_DAY && d >= from && d <= to;
      if (dated && (!filters.company_register_court || filters.company_register_court.includes(court.dict.value(court.codes[j] ?? 0) ?? ''))) any = true;
    }
    if (!any) return false;
  }
  return true;
}

/** The matching rows in domain order, by reading every organization. */
function reference(store: ColumnStore, filters: Filters, visible: Uint8Array | null, excludes: readonly string[]): number[] {
  const text = filters.text_keywords ? new Set(searchableTextIndex(store, filters.text_keywords, ['text_keywords']).match(filters.text_keywords)) : null;
  const excluded = new Set(excludes);
  const rows: number[] = [];
  for (let p = 0; p < store.size; p++) {
    const row = store.byDomain[p] ?? 0;
    if (visible && !visible[row]) continue;
    if (excluded.has(store.domain(row)) || (text && !text.has(row))) continue;
    if (matches(store, row, filters)) rows.push(row);
  }
  return rows;
}

function positionsOf(set: PositionSet): number[] {
  const out: number[] = [];
  walkFrom(set, 0, (p) => out.push(p) > 0);
  return out;
}

const SIZES = [1, 45, 700, 4_000];
const stores = SIZES.map((size, i) => randomStore(size, 7 + i));

describe.each(stores.map((store) => [store.size, store] as const))('filters through postings, %d organizations', (_size, store) => {
  const context = (visible: Uint8Array | null): QueryContext => ({ store, visible, now: () => 0 });
  const viewArbitrary = fc.option(fc.uint8Array({ minLength: store.size, maxLength: store.size, min: 0, max: 1 }), { freq: 2 });
  const excludesArbitrary = fc.subarray(
    Array.from({ length: Math.min(store.size, 30) }, (_, i) => store.domain(i)),
    { maxLength: Math.min(4, store.size) },
  );

  it('the matching set equals a reading of every organization, with a view and excludes', () => {
    let found = 0;
    let runs = 0;
    fc.assert(
      fc.property(filtersArbitrary, viewArbitrary, (filters, visible) => {
        const expected = reference(store, filters, visible, []).map((row) => store.domainRank[row] ?? 0);
        runs++;
        if (expected.length > 0) found++;
        const set = filterSet(store, filters, visible);
        expect(positionsOf(set)).toEqual(expected);
        expect(set.count).toBe(expected.length);
        // The mask the scored modes rank over.
        const mask = rowMask(store, set);
        expect(Array.from(mask.bits).flatMap((bit, row) => (bit ? [store.domainRank[row] ?? 0] : [])).sort((a, b) => a - b)).toEqual(expected);
      }),
      { numRuns: store.size > 1_000 ? 150 : 300 },
    );
    // The filters are not all empty-handed.
    if (store.size > 100) expect(found / runs).toBeGreaterThan(0.3);
  });

  it('filter-mode pages followed to the end list the matches in domain order, with exact totals, excludes and dedup', () => {
    const { groupOf } = duplicateNameGroups(store);
    fc.assert(
      fc.property(filtersArbitrary, viewArbitrary, excludesArbitrary, fc.integer({ min: 1, max: 60 }), fc.boolean(), (filters, visible, excludes, size, dedup) => {
        const matching = reference(store, filters, visible, excludes);
        const seen = new Set<number>();
        const shown = dedup ? matching.filter((row) => (groupOf[row] ?? 0) === 0 || (!seen.has(groupOf[row] ?? 0) && seen.add(groupOf[row] ?? 0))) : matching;
        const domains: string[] = [];
        let cursor: unknown[] | null = null;
        for (let page = 0; page <= shown.length + 1; page++) {
          const request = SearchRequestSchema.parse({ filters, excludes, size, dedup, columns: ['name'], search_after: cursor });
          const answer = searchFilterMode(context(visible), request);
          expect(answer.metadata.total_hits).toBe(matching.length);
          domains.push(...answer.data.map((row) => row.domain));
          cursor = answer.metadata.search_after;
          if (cursor === null) break;
        }
        expect(cursor).toBeNull();
        expect(domains).toEqual(shown.map((row) => store.domain(row)));
      }),
      { numRuns: store.size > 1_000 ? 60 : 150 },
    );
  });
});

describe("the scored modes rank over a filter's rows alike, as a list or as a mask", () => {
  const store = stores[3] as ColumnStore;
  const context: QueryContext = { store, visible: null, now: () => 0 };
  const modes = [
    ['fulltext', { keywords: { must_any: ['software', 'bread'] } }, (c: QueryContext, r: SearchRequest, a: Allowed) => fulltextRanker(c, r.keywords ?? { must_all: [], must_any: [], must_not: [] }, a)],
    ['semantic', { describe: 'software and cloud hosting' }, semanticRanker],
    ['vector_similarity', { similar_to: [{ domain: store.domain(store.byDomain[0] ?? 0) }] }, similarRanker],
    ['hybrid', { keywords: { must_any: ['roof'] }, describe: 'heating and roof repairs' }, hybridRanker],
  ] as const;

  it.each(modes)('%s', (_mode, query, ranker) => {
    let listed = 0;
    fc.assert(
      fc.property(filtersArbitrary, (filters) => {
        const request = SearchRequestSchema.parse({ ...query, filters, size: 50, min_score: 0 });
        const rows = reference(store, filters, null, []);
        const mask = maskOfRows(store.size, rows);
        // Through the engine: a sparse filter's rows reach the ranker as a list.
        const answer = search(context, request);
        if (rows.length * 32 <= store.size) listed++;
        const expected = ranker(context, request, { rows: null, mask: () => mask })(51);
        expect(answer.data.map((row) => row.domain)).toEqual(Array.from(expected.rows).slice(0, 50).map((row) => store.domain(row)));
        expect(answer.metadata.total_hits).toBe(expected.total);
      }),
      { numRuns: 120 },
    );
    // Some of the filters are sparse enough to be ranked as a list (others as a mask).
    expect(listed).toBeGreaterThan(5);
  });
});

describe('position sets', () => {
  const universe = 5_000;
  const sortedSet = fc.uniqueArray(fc.integer({ min: 0, max: universe - 1 }), { maxLength: 1_500 }).map((values) => Uint32Array.from(values).sort());

  it('intersections of lists and bitmaps equal those of plain sets', () => {
    fc.assert(
      fc.property(fc.array(sortedSet, { minLength: 1, maxLength: 4 }), (lists) => {
        const expected = [...(lists[0] ?? [])].filter((p) => lists.every((list) => list.includes(p)));
        const sets = lists.map((list) => setOfList(list, universe));
        const set = intersect(sets, universe);
        expect(positionsOf(set)).toEqual(expected);
        expect(set.count).toBe(expected.length);
        if (set.bits) expect(Array.from(listOfBits(set.bits, set.count))).toEqual(expected);
      }),
    );
  });

  it('the radix sort sorts as the built-in sort does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 3_000 }), (values) => {
        const array = Uint32Array.from(values);
        expect(sortedAscending(array)).toEqual(array.slice().sort());
      }),
    );
  });

  it('unions of disjoint sets and walks from any start', () => {
    fc.assert(
      fc.property(sortedSet, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: universe }), (all, parts, start) => {
        const pieces = Array.from({ length: parts }, (_, k) => setOfList(all.filter((p) => p % parts === k), universe));
        const united = union(pieces, universe, true);
        expect(positionsOf(united)).toEqual(Array.from(all));
        const from: number[] = [];
        walkFrom(united, start, (p) => from.push(p) > 0);
        expect(from).toEqual(Array.from(all).filter((p) => p >= start));
      }),
    );
  });
});
