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
import type { DateRange, StatsGroupBy, StatsRequest, StatsResponse } from '../../contract/v2/stats.js';
import { isDateGrouping } from '../../contract/v2/stats.js';
import { NACE_SECTIONS, sectionOf } from '../../contract/nace.js';
import { dayOf, dayOfMs, formatDay, NO_DAY, truncateDay } from '../store/dates.js';
import { CATEGORICAL_COLUMNS, type CategoricalKey, type ColumnStore, type KeywordColumn } from '../store/store.js';
import { filterMask, registrationMask } from './filters.js';
import type { QueryContext } from './search.js';

const REGISTRATION_DIMENSIONS: readonly StatsGroupBy[] = ['company_register_court', 'company_register_date'];

/**
 * One grouping dimension. `id` gives the value id of a unit (an organization row, and the registration
 * index when registrations are the unit; -1 otherwise); 0 is null. `summary_keywords` is the one
 * multi-valued dimension: `many` gives the range of its tag ids in the keyword column instead.
 */
interface Dimension {
  column: StatsGroupBy;
  isDate: boolean;
  id(row: number, registration: number): number;
  many?: KeywordColumn;
  label(id: number): string | null;
}

/** Date ids are truncated day numbers shifted so that 0 stays null (and ids stay positive). */
const DATE_ID_OFFSET = 1_000_000;

function dateDimension(column: StatsGroupBy, unit: StatsRequest['date_trunc'], dayAt: (row: number, reg: number) => number): Dimension {
  // Many units share a day: truncate each distinct day once.
  const truncated = new Map<number, number>();
  return {
    column,
    isDate: true,
    id: (row, reg) => {
      const day = dayAt(row, reg);
      if (day === NO_DAY) return 0;
      let id = truncated.get(day);
      if (id === undefined) {
        id = truncateDay(day, unit) + DATE_ID_OFFSET;
        truncated.set(day, id);
      }
      return id;
    },
    label: (id) => (id === 0 ? null : formatDay(id - DATE_ID_OFFSET)),
  };
}

function dimension(store: ColumnStore, column: StatsGroupBy, unit: StatsRequest['date_trunc']): Dimension {
  switch (column) {
    case 'company_register_date': {
      const days = store.registrations.day;
      return dateDimension(column, unit, (_, reg) => (reg < 0 ? NO_DAY : (days[reg] ?? NO_DAY)));
    }
    case 'created_at': {
      const created = store.createdAt;
      return dateDimension(column, unit, (row) => {
        const ms = created[row] ?? Number.NaN;
        return Number.isNaN(ms) ? NO_DAY : dayOfMs(ms);
      });
    }
    case 'company_register_court': {
      const { codes, dict } = store.registrations.court;
      return { column, isDate: false, id: (_, reg) => (reg < 0 ? 0 : (codes[reg] ?? 0)), label: (id) => dict.value(id) };
    }
    case 'summary_keywords': {
      const keywords = store.keywords;
      return { column, isDate: false, id: () => 0, many: keywords, label: (id) => keywords.dict.value(id) };
    }
    case 'nace_code': {
      const nace = store.categorical.nace_code;
      const letters = Object.keys(NACE_SECTIONS) as (keyof typeof NACE_SECTIONS)[];
      // Section id = 1 + index of the letter, computed once per dictionary entry.
      const sectionId = Int32Array.from(nace.dict.values, (value) => {
        const letter = value === null ? null : sectionOf(value);
        return letter === null ? 0 : letters.indexOf(letter) + 1;
      });
      return {
        column,
        isDate: false,
        id: (row) => sectionId[nace.codes[row] ?? 0] ?? 0,
        label: (id) => (id === 0 ? null : NACE_SECTIONS[letters[id - 1] ?? 'A']),
      };
    }
    default: {
      const key = column as CategoricalKey;
      if (!CATEGORICAL_COLUMNS.includes(key)) throw new Error(`stats: no dimension for ${column}`);
      const { codes, dict } = store.categorical[key];
      return { column, isDate: false, id: (row) => codes[row] ?? 0, label: (id) => dict.value(id) };
    }
  }
}

/** Calls `visit` with each value id of a dimension for one unit (a multi-valued dimension may give several). */
function eachId(dim: Dimension | undefined, row: number, reg: number, visit: (id: number) => void): void {
  if (!dim) { visit(0); return; }
  const many = dim.many;
  if (!many) { visit(dim.id(row, reg)); return; }
  const start = many.offsets[row] ?? 0;
  const end = many.offsets[row + 1] ?? 0;
  if (start === end) { visit(0); return; }
  for (let j = start; j < end; j++) visit(many.ids[j] ?? 0);
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

interface Bucket {
  first: string | null;
  second: string | null;
  count: number;
}

export function computeStats(context: QueryContext, request: StatsRequest): StatsResponse {
  const started = context.now();
  const { store } = context;
  const mask = filterMask(store, request.filters, context.visible ?? undefined);
  // Registrations counted when registrations are the unit: those passing the register filters and the range.
  const regInRange = intersect(registrationMask(store, request.filters), applyDateRange(store, mask.bits, request.date_range));

  const dims = [request.group_by, request.group_by_secondary]
    .filter((c): c is StatsGroupBy => c !== null)
    .map((c) => dimension(store, c, request.date_trunc));
  const byRegistration = dims.some((d) => REGISTRATION_DIMENSIONS.includes(d.column));
  const [d1, d2] = dims;

  const counts = new Map<number, number>();
  const width = 0x1000000; // ids stay below 2^24: a pair packs into one exact double
  const add = (key: number): void => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const tally = (row: number, reg: number): void => {
    if (!d1?.many && !d2?.many) {
      add((d1 ? d1.id(row, reg) : 0) * width + (d2 ? d2.id(row, reg) : 0));
      return;
    }
    eachId(d1, row, reg, (a) => {
      eachId(d2, row, reg, (b) => {
        add(a * width + b);
      });
    });
  };
  const { offsets } = store.registrations;
  for (let row = 0; row < store.size; row++) {
    if (!mask.bits[row]) continue;
    const start = offsets[row] ?? 0;
    const end = offsets[row + 1] ?? 0;
    if (!byRegistration || start === end) {
      tally(row, -1);
      continue;
    }
    for (let reg = start; reg < end; reg++) if (!regInRange || regInRange[reg]) tally(row, reg);
  }

  // Labels are resolved once per bucket: sorting compares them many times.
  // Without grouping the answer is one total, also when nothing matches.
  if (dims.length === 0 && counts.size === 0) counts.set(0, 0);
  const buckets: Bucket[] = [...counts].map(([key, count]) => {
    const first = Math.floor(key / width);
    const second = key % width;
    return { count, first: d1 ? d1.label(first) : null, second: d2 ? d2.label(second) : null };
  });
  const dateDim = dims.findIndex((d) => d.isDate);
  const byLabel = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  buckets.sort((x, y) => {
    if (dateDim >= 0) {
      const order = dateDim === 0 ? byLabel(x.first, y.first) : byLabel(x.second, y.second);
      if (order !== 0) return order;
    }
    return y.count - x.count || byLabel(x.first, y.first) || byLabel(x.second, y.second);
  });

  const data = buckets.slice(0, request.limit).map((b) => {
    const bucket: Record<string, string | number | null> = {};
    if (d1) bucket[d1.column] = b.first;
    if (d2) bucket[d2.column] = b.second;
    bucket.count = b.count;
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
      total_buckets: buckets.length,
      elapsed_ms: elapsed,
      explain_plan: request.explain
        ? [
            `population: ${mask.count} of ${store.size} organizations after filters${request.date_range ? ` and date_range on ${request.date_range.field}` : ''}`,
            `unit: ${byRegistration ? 'registration (a registration column is grouped)' : 'organization'}`,
            `dimensions: ${dims.map((d) => (d.isDate ? `${d.column} by ${request.date_trunc}` : d.column)).join(' × ') || 'none (one total)'}`,
            `buckets: ${buckets.length}, returned ${data.length} (limit ${request.limit}), ordered ${dateDim >= 0 ? 'chronologically' : 'by count descending'}`,
          ]
        : [],
    },
  };
}
