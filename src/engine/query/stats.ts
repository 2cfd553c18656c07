/**
 * v2 stats: COUNT buckets by zero, one or two dimensions over the filtered population.
 *
 * The counting unit is the organization, except when a registration column is grouped: then every
 * registration is a unit carrying its organization's other values (an organization without registrations
 * is one unit with null registration values). `summary_keywords` gives one bucket per tag (no tag → null).
 * `nace_code` groups by section value (the filter's unit; detailed codes narrow through filters).
 * `date_range` on company_register_date keeps registrations dated within it (units, when registrations
 * are the unit; otherwise organizations with at least one such registration); on created_at / updated_at
 * it keeps organizations.
 */
import type { DateRange, DateTrunc, StatsGroupBy, StatsRequest, StatsResponse } from '../../contract/v2/stats.js';
import { isDateGrouping } from '../../contract/v2/stats.js';
import { NACE_SECTIONS, sectionOf } from '../../contract/nace.js';
import { dayOf, dayOfMs, formatDay, NO_DAY, truncateDay } from '../store/dates.js';
import type { CategoricalColumn, Dictionary } from '../store/dictionary.js';
import { CATEGORICAL_COLUMNS, type CategoricalKey, type ColumnStore, type DayColumn, type KeywordColumn } from '../store/store.js';
import { filterMask, registrationMask } from './filters.js';
import type { QueryContext } from './context.js';

const REGISTRATION_DIMENSIONS: readonly StatsGroupBy[] = ['company_register_court', 'company_register_date'];

/**
 * One grouping dimension as dense value ids 0 … cardinality − 1, 0 being null. A single-valued dimension
 * reads one code per unit — of the organization row, or of the registration when `perRegistration` — and
 * maps it to its id through `idOf`. `summary_keywords` is the one multi-valued dimension: `many` gives
 * the range of its tag ids (dense already) in the keyword column.
 */
interface Dimension {
  column: StatsGroupBy;
  isDate: boolean;
  cardinality: number;
  codes: ArrayLike<number>;
  idOf: ArrayLike<number>;
  perRegistration: boolean;
  many: KeywordColumn | null;
  label(id: number): string | null;
  /** The position of each id in label order, null last: the order buckets are sorted and tied by. */
  ranks(): Int32Array;
}

function byLabel(a: string | null, b: string | null): number {
  return a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
}

/** Ranks of labels (equal labels share a rank). */
function ranksOf(labels: readonly (string | null)[]): Int32Array {
  const order = labels.map((_, id) => id).sort((a, b) => byLabel(labels[a] ?? null, labels[b] ?? null));
  const ranks = new Int32Array(labels.length);
  order.forEach((id, position) => {
    const previous = order[position - 1];
    ranks[id] = previous !== undefined && labels[previous] === labels[id] ? (ranks[previous] ?? 0) : position;
  });
  return ranks;
}

/** Dictionaries do not change once the store is built: their label order is computed once. */
const dictionaryRanks = new WeakMap<Dictionary, Int32Array>();

function ranksOfDictionary(dict: Dictionary): Int32Array {
  let ranks = dictionaryRanks.get(dict);
  if (ranks?.length !== dict.size) {
    ranks = ranksOf(dict.values);
    dictionaryRanks.set(dict, ranks);
  }
  return ranks;
}

function identity(size: number): Int32Array {
  const ids = new Int32Array(size);
  for (let i = 0; i < size; i++) ids[i] = i;
  return ids;
}

function dictionaryDimension(column: StatsGroupBy, { codes, dict }: CategoricalColumn, perRegistration: boolean): Dimension {
  return {
    column,
    isDate: false,
    cardinality: dict.size,
    codes,
    idOf: identity(dict.size),
    perRegistration,
    many: null,
    label: (id) => dict.value(id),
    ranks: () => ranksOfDictionary(dict),
  };
}

/** Truncated days: `idOf` maps a day code to its bucket id (1 + index in `starts`, ascending). */
interface Truncation {
  idOf: Int32Array;
  starts: Int32Array;
}

const truncations = new WeakMap<DayColumn, Partial<Record<DateTrunc, Truncation>>>();

/** Truncates each distinct day once; days ascend, so their truncations do too. */
function truncation(days: DayColumn, unit: DateTrunc): Truncation {
  let byUnit = truncations.get(days);
  if (!byUnit) {
    byUnit = {};
    truncations.set(days, byUnit);
  }
  let found = byUnit[unit];
  if (!found) {
    const idOf = new Int32Array(days.days.length);
    const starts: number[] = [];
    for (let code = 1; code < days.days.length; code++) {
      const start = truncateDay(days.days[code] ?? 0, unit);
      if (starts[starts.length - 1] !== start) starts.push(start);
      idOf[code] = starts.length;
    }
    found = { idOf, starts: Int32Array.from(starts) };
    byUnit[unit] = found;
  }
  return found;
}

/** Between these days, labels (YYYY-MM-DD) sort as the days do. */
const FIRST_FOUR_DIGIT_DAY = dayOf('0000-01-01');
const LAST_FOUR_DIGIT_DAY = dayOf('9999-12-31');

function dateDimension(column: StatsGroupBy, unit: DateTrunc, days: DayColumn, perRegistration: boolean): Dimension {
  const { idOf, starts } = truncation(days, unit);
  const label = (id: number): string | null => (id === 0 ? null : formatDay(starts[id - 1] ?? 0));
  return {
    column,
    isDate: true,
    cardinality: starts.length + 1,
    codes: days.codes,
    idOf,
    perRegistration,
    many: null,
    label,
    ranks: () => {
      const first = starts[0] ?? 0;
      const last = starts[starts.length - 1] ?? 0;
      if (first < FIRST_FOUR_DIGIT_DAY || last > LAST_FOUR_DIGIT_DAY) return ranksOf(Array.from({ length: starts.length + 1 }, (_, id) => label(id)));
      // Ids ascend with the day; null sorts last.
      const ranks = new Int32Array(starts.length + 1);
      for (let id = 1; id <= starts.length; id++) ranks[id] = id - 1;
      ranks[0] = starts.length;
      return ranks;
    },
  };
}

function dimension(store: ColumnStore, column: StatsGroupBy, unit: DateTrunc): Dimension {
  switch (column) {
    case 'company_register_date':
      return dateDimension(column, unit, store.registrations.days, true);
    case 'created_at':
      return dateDimension(column, unit, store.createdDays, false);
    case 'company_register_court':
      return dictionaryDimension(column, store.registrations.court, true);
    case 'summary_keywords': {
      const keywords = store.keywords;
      const { dict } = keywords;
      return {
        column,
        isDate: false,
        cardinality: dict.size,
        codes: keywords.ids,
        idOf: identity(dict.size),
        perRegistration: false,
        many: keywords,
        label: (id) => dict.value(id),
        ranks: () => ranksOfDictionary(dict),
      };
    }
    case 'nace_code': {
      const nace = store.categorical.nace_code;
      const letters = Object.keys(NACE_SECTIONS) as (keyof typeof NACE_SECTIONS)[];
      // Section id = 1 + index of the letter, computed once per dictionary entry.
      const sectionId = Int32Array.from(nace.dict.values, (value) => {
        const letter = value === null ? null : sectionOf(value);
        return letter === null ? 0 : letters.indexOf(letter) + 1;
      });
      const labels = [null, ...letters.map((letter) => NACE_SECTIONS[letter])];
      return {
        column,
        isDate: false,
        cardinality: labels.length,
        codes: nace.codes,
        idOf: sectionId,
        perRegistration: false,
        many: null,
        label: (id) => labels[id] ?? null,
        ranks: () => ranksOf(labels),
      };
    }
    default: {
      const key = column as CategoricalKey;
      if (!CATEGORICAL_COLUMNS.includes(key)) throw new Error(`stats: no dimension for ${column}`);
      return dictionaryDimension(column, store.categorical[key], false);
    }
  }
}

/**
 * The first `limit` buckets in answer order, kept while buckets are offered one by one (a bounded
 * max-heap: the root is the last bucket kept), and how many were offered. Answer order: chronological
 * first when a date is grouped, then count descending, then the labels (by their ranks).
 */
class Ranking {
  total = 0;
  private size = 0;
  private readonly first: Int32Array;
  private readonly second: Int32Array;
  private readonly count: Float64Array;

  constructor(
    private readonly limit: number,
    private readonly firstRank: Int32Array,
    private readonly secondRank: Int32Array,
    /** Which dimension is a date (0 or 1), -1 for none. */
    private readonly dateDim: number,
  ) {
    this.first = new Int32Array(limit);
    this.second = new Int32Array(limit);
    this.count = new Float64Array(limit);
  }

  /** Negative when bucket (f1, s1, c1) comes before bucket (f2, s2, c2). */
  private compare(f1: number, s1: number, c1: number, f2: number, s2: number, c2: number): number {
    // Most offered buckets lose on their count alone: ranks are read only when needed.
    if (this.dateDim < 0 && c1 !== c2) return c2 - c1;
    const first = (this.firstRank[f1] ?? 0) - (this.firstRank[f2] ?? 0);
    const second = (this.secondRank[s1] ?? 0) - (this.secondRank[s2] ?? 0);
    if (this.dateDim === 0 && first !== 0) return first;
    if (this.dateDim === 1 && second !== 0) return second;
    return c2 - c1 || first || second;
  }

  private compareAt(i: number, j: number): number {
    return this.compare(this.first[i] ?? 0, this.second[i] ?? 0, this.count[i] ?? 0, this.first[j] ?? 0, this.second[j] ?? 0, this.count[j] ?? 0);
  }

  private swap(i: number, j: number): void {
    const { first, second, count } = this;
    [first[i], first[j]] = [first[j] ?? 0, first[i] ?? 0];
    [second[i], second[j]] = [second[j] ?? 0, second[i] ?? 0];
    [count[i], count[j]] = [count[j] ?? 0, count[i] ?? 0];
  }

  offer(first: number, second: number, count: number): void {
    this.total++;
    let at: number;
    if (this.size < this.limit) {
      at = this.size++;
    } else if (this.compare(first, second, count, this.first[0] ?? 0, this.second[0] ?? 0, this.count[0] ?? 0) < 0) {
      at = 0;
    } else {
      return;
    }
    this.first[at] = first;
    this.second[at] = second;
    this.count[at] = count;
    // Up while the bucket comes after its parent, then down while a child comes after it.
    while (at > 0 && this.compareAt(at, (at - 1) >> 1) > 0) {
      this.swap(at, (at - 1) >> 1);
      at = (at - 1) >> 1;
    }
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const child = left + 1 < this.size && this.compareAt(left + 1, left) > 0 ? left + 1 : left;
      if (this.compareAt(child, at) <= 0) break;
      this.swap(at, child);
      at = child;
    }
  }

  /** The kept buckets in answer order. */
  buckets(): { first: number; second: number; count: number }[] {
    const order = Array.from({ length: this.size }, (_, i) => i).sort((i, j) => this.compareAt(i, j));
    return order.map((i) => ({ first: this.first[i] ?? 0, second: this.second[i] ?? 0, count: this.count[i] ?? 0 }));
  }
}

/** Where counted buckets go: the ranking, in request order of the dimensions. */
interface Sink {
  ranking: Ranking;
  /** The multi-valued dimension was the secondary one: p is the second id, q the first. */
  swapped: boolean;
}

function offer(sink: Sink, p: number, q: number, count: number): void {
  if (sink.swapped) sink.ranking.offer(q, p, count);
  else sink.ranking.offer(p, q, count);
}

/** Receives the id pair (p, q) of every counted unit. */
interface Tally {
  add(p: number, q: number): void;
}

/**
 * Work arrays kept from one request to the next. A large typed array lives outside the JavaScript heap,
 * and allocating such arrays request after request makes V8 collect the whole heap for "external memory
 * pressure": seconds of pause over millions of rows. Stats run synchronously, so one set serves every call.
 */
const scratch = { table: new Uint32Array(0), tableClean: true, units: new Int32Array(0) };
/** Unit lists longer than this are allocated per request rather than kept. */
const MAX_KEPT_UNITS = 1 << 23;

function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

/** A zeroed table of at least `size` cells (harvesting zeroes it again). */
function zeroedTable(size: number): Uint32Array {
  if (scratch.table.length < size) scratch.table = new Uint32Array(nextPowerOfTwo(size));
  else if (!scratch.tableClean) scratch.table.fill(0);
  scratch.tableClean = false;
  return scratch.table;
}

function unitList(size: number): Int32Array {
  if (scratch.units.length >= size) return scratch.units;
  const units = new Int32Array(nextPowerOfTwo(size));
  if (units.length <= MAX_KEPT_UNITS) scratch.units = units;
  return units;
}

/** Counts in a dense p × q table: for bounded products. */
class DenseTally implements Tally {
  constructor(
    private readonly counts: Uint32Array,
    private readonly width: number,
  ) {}

  add(p: number, q: number): void {
    const key = p * this.width + q;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  /** Offers the buckets of the first `cells` cells, zeroing them for the next request. */
  harvest(cells: number, sink: Sink): void {
    const { counts, width } = this;
    for (let key = 0; key < cells; key++) {
      const n = counts[key] ?? 0;
      if (n === 0) continue;
      counts[key] = 0;
      const p = Math.floor(key / width);
      offer(sink, p, key - p * width, n);
    }
    scratch.tableClean = true;
  }
}

/** First pass of grouped counting: units per p, at starts[p + 1]. */
class UnitsPerP implements Tally {
  constructor(readonly starts: Int32Array) {}

  add(p: number, _q: number): void {
    this.starts[p + 1] = (this.starts[p + 1] ?? 0) + 1;
  }
}

/** Second pass: each unit's q, grouped by p (`next[p]` is where p's next unit goes). */
class QByP implements Tally {
  constructor(
    readonly next: Int32Array,
    readonly grouped: Int32Array,
  ) {}

  add(p: number, q: number): void {
    const at = this.next[p] ?? 0;
    this.grouped[at] = q;
    this.next[p] = at + 1;
  }
}

/** Products up to this size are always counted in a table … */
const DENSE_ALWAYS = 1 << 16;
/** … and up to this one when the units are at least a quarter of the cells (the table is scanned whole). */
const DENSE_MAX = 1 << 21;

interface Units {
  bits: Uint8Array;
  /** Registrations counted when registrations are the unit (null: all). */
  regOk: Uint8Array | null;
  byRegistration: boolean;
}

/**
 * Feeds the (p, q) ids of every unit to the tally, p and q single-valued (q may be absent). An
 * organization without registrations is one unit with null registration values.
 */
function countSingle(store: ColumnStore, units: Units, p: Dimension, q: Dimension | null, tally: Tally): void {
  const { bits, regOk, byRegistration } = units;
  const offsets = store.registrations.offsets;
  const pCodes = p.codes;
  const pIdOf = p.idOf;
  const pPerReg = p.perRegistration;
  const qCodes = q ? q.codes : pCodes;
  const qIdOf = q ? q.idOf : pIdOf;
  const qRowLevel = q !== null && !q.perRegistration;
  const qPerReg = q !== null && q.perRegistration;
  for (let row = 0; row < store.size; row++) {
    if (bits[row] === 0) continue;
    const pRow = pPerReg ? 0 : (pIdOf[pCodes[row] ?? 0] ?? 0);
    const qRow = qRowLevel ? (qIdOf[qCodes[row] ?? 0] ?? 0) : 0;
    const start = byRegistration ? (offsets[row] ?? 0) : 0;
    const end = byRegistration ? (offsets[row + 1] ?? 0) : 0;
    if (start === end) {
      tally.add(pRow, qRow);
      continue;
    }
    for (let reg = start; reg < end; reg++) {
      if (regOk !== null && regOk[reg] === 0) continue;
      tally.add(pPerReg ? (pIdOf[pCodes[reg] ?? 0] ?? 0) : pRow, qPerReg ? (qIdOf[qCodes[reg] ?? 0] ?? 0) : qRow);
    }
  }
}

/** As countSingle with p the multi-valued keyword dimension: one unit per tag (no tag: null). */
function countMany(store: ColumnStore, units: Units, keywords: KeywordColumn, q: Dimension | null, tally: Tally): void {
  const { bits, regOk, byRegistration } = units;
  const offsets = store.registrations.offsets;
  const { offsets: tagOffsets, ids: tags } = keywords;
  const qCodes = q ? q.codes : tags;
  const qIdOf = q ? q.idOf : tags;
  const qRowLevel = q !== null && !q.perRegistration;
  const qPerReg = q !== null && q.perRegistration;
  for (let row = 0; row < store.size; row++) {
    if (bits[row] === 0) continue;
    const tagStart = tagOffsets[row] ?? 0;
    const tagEnd = tagOffsets[row + 1] ?? 0;
    const qRow = qRowLevel ? (qIdOf[qCodes[row] ?? 0] ?? 0) : 0;
    const start = byRegistration ? (offsets[row] ?? 0) : 0;
    const end = byRegistration ? (offsets[row + 1] ?? 0) : 0;
    if (start === end) {
      if (tagStart === tagEnd) tally.add(0, qRow);
      for (let j = tagStart; j < tagEnd; j++) tally.add(tags[j] ?? 0, qRow);
      continue;
    }
    for (let reg = start; reg < end; reg++) {
      if (regOk !== null && regOk[reg] === 0) continue;
      const qUnit = qPerReg ? (qIdOf[qCodes[reg] ?? 0] ?? 0) : qRow;
      if (tagStart === tagEnd) tally.add(0, qUnit);
      for (let j = tagStart; j < tagEnd; j++) tally.add(tags[j] ?? 0, qUnit);
    }
  }
}

/**
 * Counts the units by (p, q) and offers every bucket to the sink. A bounded product is counted in a
 * table; a larger one in two passes over the units — how many per p, then their q values grouped by p —
 * and each p's group is counted in one q-sized table: work and memory follow the units, not the product.
 */
function countBuckets(store: ColumnStore, units: Units, population: number, p: Dimension, q: Dimension | null, sink: Sink): void {
  const qCardinality = q ? q.cardinality : 1;
  const product = p.cardinality * qCardinality;
  const count = (tally: Tally): void => {
    if (p.many) countMany(store, units, p.many, q, tally);
    else countSingle(store, units, p, q, tally);
  };
  // Roughly how many units the population holds (tags and registrations per organization on average).
  const perRow = (total: number): number => 1 + total / Math.max(1, store.size);
  const estimate = population * (p.many ? perRow(p.many.ids.length) : 1) * (units.byRegistration ? perRow(store.registrations.day.length) : 1);
  if (product <= DENSE_ALWAYS || (product <= DENSE_MAX && product <= 4 * estimate)) {
    const tally = new DenseTally(zeroedTable(product), qCardinality);
    count(tally);
    tally.harvest(product, sink);
    return;
  }

  const starts = new Int32Array(p.cardinality + 1);
  count(new UnitsPerP(starts));
  for (let id = 1; id <= p.cardinality; id++) starts[id] = (starts[id] ?? 0) + (starts[id - 1] ?? 0);
  const grouped = unitList(starts[p.cardinality] ?? 0);
  count(new QByP(starts.slice(0, p.cardinality), grouped));

  const counts = new Int32Array(qCardinality);
  const seen = new Int32Array(qCardinality);
  for (let id = 0; id < p.cardinality; id++) {
    const end = starts[id + 1] ?? 0;
    let distinct = 0;
    for (let k = starts[id] ?? 0; k < end; k++) {
      const qId = grouped[k] ?? 0;
      const n = counts[qId] ?? 0;
      if (n === 0) seen[distinct++] = qId;
      counts[qId] = n + 1;
    }
    for (let k = 0; k < distinct; k++) {
      const qId = seen[k] ?? 0;
      offer(sink, id, qId, counts[qId] ?? 0);
      counts[qId] = 0;
    }
  }
}

/** Keeps rows (and marks registrations) that satisfy `date_range`. */
function applyDateRange(store: ColumnStore, bits: Uint8Array, range: DateRange | null): Uint8Array | null {
  if (!range) return null;
  const from = range.from_date ? dayOf(range.from_date) : Number.NEGATIVE_INFINITY;
  const to = range.to_date ? dayOf(range.to_date) : Number.POSITIVE_INFINITY;
  const within = (day: number): boolean => day !== NO_DAY && day >= from && day <= to;
  if (range.field === 'company_register_date') {
    const { offsets, day } = store.registrations;
    const regOk = new Uint8Array(day.length);
    for (let i = 0; i < bits.length; i++) {
      if (!bits[i]) continue;
      let any = false;
      for (let j = offsets[i] ?? 0; j < (offsets[i + 1] ?? 0); j++) {
        if (within(day[j] ?? NO_DAY)) {
          regOk[j] = 1;
          any = true;
        }
      }
      if (!any) bits[i] = 0;
    }
    return regOk;
  }
  const times = range.field === 'created_at' ? store.createdAt : store.updatedAt;
  for (let i = 0; i < bits.length; i++) {
    const ms = times[i] ?? Number.NaN;
    if (bits[i] && !within(Number.isNaN(ms) ? NO_DAY : dayOfMs(ms))) bits[i] = 0;
  }
  return null;
}

function intersect(a: Uint8Array | null, b: Uint8Array | null): Uint8Array | null {
  if (!a || !b) return a ?? b;
  for (let j = 0; j < a.length; j++) a[j] = a[j] === 1 && b[j] === 1 ? 1 : 0;
  return a;
}

export function computeStats(context: QueryContext, request: StatsRequest): StatsResponse {
  const started = context.now();
  const { store } = context;
  const mask = filterMask(store, request.filters, context.visible ?? undefined);
  // Registrations counted when registrations are the unit: those passing the register filters and the range.
  const regOk = intersect(registrationMask(store, request.filters), applyDateRange(store, mask.bits, request.date_range));

  const dims = [request.group_by, request.group_by_secondary]
    .filter((c): c is StatsGroupBy => c !== null)
    .map((c) => dimension(store, c, request.date_trunc));
  const byRegistration = dims.some((d) => REGISTRATION_DIMENSIONS.includes(d.column));
  const [d1, d2] = dims;

  const dateDim = dims.findIndex((d) => d.isDate);
  const ranking = new Ranking(request.limit, d1 ? d1.ranks() : new Int32Array(1), d2 ? d2.ranks() : new Int32Array(1), dateDim);
  if (!d1) {
    // Without grouping the answer is one total, also when nothing matches (a date range narrows the mask).
    let population = mask.count;
    if (request.date_range) {
      population = 0;
      for (const bit of mask.bits) population += bit;
    }
    ranking.offer(0, 0, population);
  } else {
    // The multi-valued dimension, if any, is counted as p.
    const swapped = d2 !== undefined && d2.many !== null;
    const [p, q] = swapped ? [d2, d1] : [d1, d2 ?? null];
    countBuckets(store, { bits: mask.bits, regOk, byRegistration }, mask.count, p, q, { ranking, swapped });
  }
  const total = ranking.total;

  const data = ranking.buckets().map(({ first, second, count }) => {
    const bucket: Record<string, string | number | null> = {};
    if (d1) bucket[d1.column] = d1.label(first);
    if (d2) bucket[d2.column] = d2.label(second);
    bucket.count = count;
    return bucket as StatsResponse['data'][number];
  });
  const elapsed = Math.round(context.now() - started);
  const dateApplies = dims.some((d) => isDateGrouping(d.column));
  return {
    data,
    elapsed_ms: elapsed,
    metadata: {
      group_by: request.group_by,
      group_by_secondary: request.group_by_secondary,
      date_trunc: dateApplies ? request.date_trunc : null,
      filters_applied: request.filters,
      date_range_applied: request.date_range ? { ...request.date_range } : null,
      total_buckets: total,
      elapsed_ms: elapsed,
      explain_plan: request.explain
        ? [
            `population: ${mask.count} of ${store.size} organizations after filters${request.date_range ? ` and date_range on ${request.date_range.field}` : ''}`,
            `unit: ${byRegistration ? 'registration (a registration column is grouped)' : 'organization'}`,
            `dimensions: ${dims.map((d) => (d.isDate ? `${d.column} by ${request.date_trunc}` : d.column)).join(' × ') || 'none (one total)'}`,
            `buckets: ${total}, returned ${data.length} (limit ${request.limit}), ordered ${dateDim >= 0 ? 'chronologically' : 'by count descending'}`,
          ]
        : [],
    },
  };
}
