/**
 * The columnar store: one typed array (or string array) per column, dictionary-encoded categorical
 * columns, keyword tags and registrations in compressed-row form (offsets + values). No object per
 * organization survives the build; rows are materialised only for the columns a response asks for.
 */
import { columnsOfKind, SELECTABLE_COLUMNS, type SelectableColumn } from '../../contract/common.js';
import type { OrganizationRow } from '../../contract/v2/rows.js';
import type { OrganizationRecord } from '../dataset/record.js';
import { dayOf, dayOfMs, formatDay, formatInstant, NO_DAY } from './dates.js';
import { Dictionary, packCodes, type CategoricalColumn, type Codes } from './dictionary.js';
import { Utf8Column, Utf8ColumnBuilder, type Utf8ColumnParts } from './utf8-column.js';
import { ChunkedArray } from './chunked.js';
import { FNV1A_OFFSET, fnv1aStep } from '../../contract/hash.js';

/**
 * The physical layout, from the contract's column table: every `category` column a data file holds is
 * dictionary-encoded, and so is `source` (the data file's own, counted by stats but never returned). A
 * snapshot names each column, so this order decides only the order of its files.
 */
export const CATEGORICAL_COLUMNS = [...columnsOfKind('category', SELECTABLE_COLUMNS), 'source' as const];
export type CategoricalKey = (typeof CATEGORICAL_COLUMNS)[number];

/**
 * One reader per column: a fixed property access per function stays fast where `record[key]` does not
 * (its type holds it to CATEGORICAL_COLUMNS: a column missing or left over does not compile).
 */
const CATEGORICAL_READERS: Record<CategoricalKey, (record: OrganizationRecord) => string | null> = {
  organization_type: (r) => r.organization_type,
  organization_size: (r) => r.organization_size,
  employee_class: (r) => r.employee_class,
  revenue_class: (r) => r.revenue_class,
  nace_code: (r) => r.nace_code,
  continent: (r) => r.continent,
  country: (r) => r.country,
  country_code: (r) => r.country_code,
  state: (r) => r.state,
  state_code: (r) => r.state_code,
  region: (r) => r.region,
  region_code: (r) => r.region_code,
  district: (r) => r.district,
  district_code: (r) => r.district_code,
  municipality: (r) => r.municipality,
  municipality_code: (r) => r.municipality_code,
  source: (r) => r.source,
};

/** Free-text columns a data file holds, one string (or null) per row. */
export const TEXT_COLUMNS = columnsOfKind('text', SELECTABLE_COLUMNS);
type TextKey = (typeof TEXT_COLUMNS)[number];

/** Compressed rows: the values of row i are values[offsets[i] … offsets[i + 1]). */
export interface MultiValued {
  offsets: Uint32Array;
}

export interface KeywordColumn extends MultiValued {
  dict: Dictionary;
  ids: Codes;
}

export interface RegistrationColumns extends MultiValued {
  court: CategoricalColumn;
  day: Int32Array;
  /** `day` dictionary-encoded (stats truncate each distinct day once). */
  days: DayColumn;
  id: Utf8Column;
}

/**
 * A day column dictionary-encoded: `days` holds the distinct days in ascending order after a "no date"
 * slot at index 0, `codes` the index of each unit's day (0: no date).
 */
export interface DayColumn {
  days: Int32Array;
  codes: Codes;
}

/** A dictionary-encoded column as plain data: its dictionary's values (id 0: null) and its codes. */
export interface CategoricalParts {
  values: Utf8ColumnParts;
  codes: Codes;
}

/**
 * Everything a store is made of, as typed arrays and numbers: what an index snapshot writes and reads
 * back (snapshot.ts), with no rebuilding on load.
 */
export interface StoreParts {
  size: number;
  domains: Utf8ColumnParts;
  /** The domain hash table's slots (DomainLookup). */
  domainSlots: Int32Array;
  byDomain: Uint32Array;
  domainRank: Uint32Array;
  categorical: Record<CategoricalKey, CategoricalParts>;
  text: Record<TextKey, Utf8ColumnParts>;
  /** Null when the store was loaded from a snapshot: the text index it feeds came with it. */
  indexText: Utf8ColumnParts | null;
  keywords: { values: Utf8ColumnParts; offsets: Uint32Array; ids: Codes };
  registrations: { offsets: Uint32Array; court: CategoricalParts; day: Int32Array; days: DayColumn; id: Utf8ColumnParts };
  lat: Float64Array;
  lon: Float64Array;
  newRegisterEntry: Int8Array;
  registerDay: Int32Array;
  createdAt: Float64Array;
  createdDays: DayColumn;
  updatedAt: Float64Array;
}

const categoricalParts = (column: CategoricalColumn): CategoricalParts => ({ values: Utf8Column.from(column.dict.values).parts(), codes: column.codes });
const categoricalOf = (parts: CategoricalParts): CategoricalColumn => ({ dict: Dictionary.of([...Utf8Column.fromParts(parts.values).values()]), codes: parts.codes });

export class ColumnStore {
  readonly size: number;
  /** Each row's domain (ASCII: IDN labels are punycode). */
  readonly domains: Utf8Column;
  /** Row ids in ascending domain order (the keyset order of filter mode). */
  readonly byDomain: Uint32Array;
  /** Position of each row in `byDomain`. */
  readonly domainRank: Uint32Array;
  readonly categorical: Record<CategoricalKey, CategoricalColumn>;
  readonly text: Record<TextKey, Utf8Column>;
  /** The hidden long text used only to build the keyword index (never returned; null in a store loaded from a snapshot). */
  readonly indexText: Utf8Column | null;
  readonly keywords: KeywordColumn;
  readonly registrations: RegistrationColumns;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  /** -1 unknown, 0 false, 1 true. */
  readonly newRegisterEntry: Int8Array;
  readonly registerDay: Int32Array;
  /** Epoch milliseconds; NaN when unknown. */
  readonly createdAt: Float64Array;
  /** The day of `createdAt`, dictionary-encoded. */
  readonly createdDays: DayColumn;
  readonly updatedAt: Float64Array;
  private readonly rowOfDomain: DomainLookup;

  constructor(parts: StoreParts) {
    this.size = parts.size;
    this.domains = Utf8Column.fromParts(parts.domains);
    this.rowOfDomain = new DomainLookup(this.domains, parts.domainSlots);
    this.byDomain = parts.byDomain;
    this.domainRank = parts.domainRank;
    this.categorical = {} as Record<CategoricalKey, CategoricalColumn>;
    for (const key of CATEGORICAL_COLUMNS) this.categorical[key] = categoricalOf(parts.categorical[key]);
    this.text = {} as Record<TextKey, Utf8Column>;
    for (const key of TEXT_COLUMNS) this.text[key] = Utf8Column.fromParts(parts.text[key]);
    this.indexText = parts.indexText ? Utf8Column.fromParts(parts.indexText) : null;
    const { keywords, registrations } = parts;
    this.keywords = { dict: Dictionary.of([...Utf8Column.fromParts(keywords.values).values()]), offsets: keywords.offsets, ids: keywords.ids };
    this.registrations = { offsets: registrations.offsets, court: categoricalOf(registrations.court), day: registrations.day, days: registrations.days, id: Utf8Column.fromParts(registrations.id) };
    this.lat = parts.lat;
    this.lon = parts.lon;
    this.newRegisterEntry = parts.newRegisterEntry;
    this.registerDay = parts.registerDay;
    this.createdAt = parts.createdAt;
    this.createdDays = parts.createdDays;
    this.updatedAt = parts.updatedAt;
  }

  /**
   * Builds the store of these records, one at a time (a generator of 20 million is never held whole; an
   * array's length sizes the buffers up front). A domain twice is an error.
   */
  /** `indexText: false` leaves the index text out (a keyword index built alongside takes it: store-relevance.ts). */
  static fromRecords(records: Iterable<OrganizationRecord>, options: { indexText?: boolean } = {}): ColumnStore {
    const builder = new StoreBuilder(Array.isArray(records) ? (records as readonly OrganizationRecord[]) : null, options.indexText !== false);
    for (const record of records) builder.add(record);
    return builder.finish();
  }

  /** The store as plain data; without the index text when `withIndexText` is false (a snapshot keeps the text index instead). */
  parts(withIndexText = true): StoreParts {
    const text = {} as Record<TextKey, Utf8ColumnParts>;
    for (const key of TEXT_COLUMNS) text[key] = this.text[key].parts();
    const categorical = {} as Record<CategoricalKey, CategoricalParts>;
    for (const key of CATEGORICAL_COLUMNS) categorical[key] = categoricalParts(this.categorical[key]);
    const { keywords, registrations } = this;
    return {
      size: this.size,
      domains: this.domains.parts(),
      domainSlots: this.rowOfDomain.slots,
      byDomain: this.byDomain,
      domainRank: this.domainRank,
      categorical,
      text,
      indexText: withIndexText && this.indexText ? this.indexText.parts() : null,
      keywords: { values: Utf8Column.from(keywords.dict.values).parts(), offsets: keywords.offsets, ids: keywords.ids },
      registrations: { offsets: registrations.offsets, court: categoricalParts(registrations.court), day: registrations.day, days: registrations.days, id: registrations.id.parts() },
      lat: this.lat,
      lon: this.lon,
      newRegisterEntry: this.newRegisterEntry,
      registerDay: this.registerDay,
      createdAt: this.createdAt,
      createdDays: this.createdDays,
      updatedAt: this.updatedAt,
    };
  }

  /** The row of a normalised domain, or undefined. */
  rowOf(domain: string): number | undefined {
    return this.rowOfDomain.rowOf(domain);
  }

  /** rowOf() of each domain (−1 where there is none), faster than one at a time for many (see DomainLookup.rowsOf). */
  rowsOf(domains: readonly string[]): Int32Array {
    return this.rowOfDomain.rowsOf(domains);
  }

  /** The row's domain. */
  domain(row: number): string {
    return this.domains.get(row) ?? '';
  }

  /** The first position in domain order whose domain is greater than `domain`. */
  positionAfter(domain: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareStrings(this.domain(this.byDomain[mid] ?? 0), domain) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  keywordsOf(row: number): string[] {
    const { offsets, ids, dict } = this.keywords;
    const out: string[] = [];
    for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) out.push(dict.value(ids[j] ?? 0) ?? '');
    return out;
  }

  /**
   * Response rows: `domain` first, then the requested columns in their order. Every row is a copy of one
   * template holding the final keys, so it is allocated once with its final shape; each column is then
   * filled by its own loop. Rows are visited in ascending row order (and their objects allocated in it):
   * neighbouring reads then share cache lines, where the request's order would miss the cache at every
   * read of every column. `domains`, when given, are the rows' domains in `rows` order (not decoded again).
   */
  rows(rows: Iterable<number>, columns: readonly SelectableColumn[], domains?: readonly string[]): OrganizationRow[] {
    const list = Array.isArray(rows) ? (rows as readonly number[]) : Array.from(rows);
    const template = rowTemplate(columns);
    const order = ascendingOrder(list);
    const ascending: number[] = [];
    const objects: Record<string, unknown>[] = [];
    const out: Record<string, unknown>[] = list.map(() => template);
    for (const at of order) {
      const object = { ...template };
      ascending.push(list[at] ?? 0);
      objects.push(object);
      out[at] = object;
    }
    for (const key of Object.keys(template)) if (key !== 'domain' || !domains) this.fillColumn(objects, ascending, key as SelectableColumn);
    // Domains the caller already holds as strings (a fetch's) are not decoded again.
    if (domains) out.forEach((row, i) => (row.domain = domains[i]));
    return out as OrganizationRow[];
  }

  /**
   * The court of the registration that `company_register_date` and `company_register_id` describe: the
   * one on that day, else the newest; null without registrations.
   */
  private courtOf(row: number): string | null {
    const { offsets, court, day } = this.registrations;
    const start = offsets[row] ?? 0;
    const end = offsets[row + 1] ?? 0;
    if (start === end) return null;
    const wanted = this.registerDay[row] ?? NO_DAY;
    let best = start;
    for (let reg = start; reg < end; reg++) {
      const d = day[reg] ?? NO_DAY;
      if (d === wanted) {
        best = reg;
        break;
      }
      if (d > (day[best] ?? NO_DAY)) best = reg;
    }
    return court.dict.values[court.codes[best] ?? 0] ?? null;
  }

  /** Writes one column of the response rows (`out[i]` is the row `rows[i]`). */
  private fillColumn(out: Record<string, unknown>[], rows: readonly number[], column: SelectableColumn): void {
    const n = rows.length;
    switch (column) {
      case 'domain': {
        const values = this.domains;
        for (let i = 0; i < n; i++) setValue(out, i, column, values.get(rows[i] ?? 0));
        return;
      }
      case 'name':
      case 'summary':
      case 'address':
      case 'company_register_id': {
        const values = this.text[column];
        for (let i = 0; i < n; i++) setValue(out, i, column, values.get(rows[i] ?? 0));
        return;
      }
      case 'summary_keywords':
        for (let i = 0; i < n; i++) setValue(out, i, column, this.keywordsOf(rows[i] ?? 0));
        return;
      case 'lat':
      case 'lon': {
        const values = this[column];
        for (let i = 0; i < n; i++) {
          const v = values[rows[i] ?? 0] ?? Number.NaN;
          setValue(out, i, column, Number.isNaN(v) ? null : v);
        }
        return;
      }
      case 'new_register_entry': {
        const values = this.newRegisterEntry;
        for (let i = 0; i < n; i++) {
          const v = values[rows[i] ?? 0];
          setValue(out, i, column, v === -1 || v === undefined ? null : v === 1);
        }
        return;
      }
      case 'company_register_date': {
        const values = this.registerDay;
        for (let i = 0; i < n; i++) {
          const day = values[rows[i] ?? 0] ?? NO_DAY;
          setValue(out, i, column, day === NO_DAY ? null : formatDay(day));
        }
        return;
      }
      case 'company_register_court':
        for (let i = 0; i < n; i++) setValue(out, i, column, this.courtOf(rows[i] ?? 0));
        return;
      case 'created_at': {
        const values = this.createdAt;
        for (let i = 0; i < n; i++) {
          const ms = values[rows[i] ?? 0] ?? Number.NaN;
          setValue(out, i, column, Number.isNaN(ms) ? null : formatInstant(ms));
        }
        return;
      }
      default: {
        const { codes, dict } = this.categorical[column];
        const values = dict.values;
        for (let i = 0; i < n; i++) setValue(out, i, column, values[codes[rows[i] ?? 0] ?? 0] ?? null);
      }
    }
  }
}

/** Positions of `rows` by ascending row (ties in position order). */
function ascendingOrder(rows: readonly number[]): Int32Array {
  const n = rows.length;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = (rows[i - 1] ?? 0) <= (rows[i] ?? 0);
  if (sorted) return Int32Array.from({ length: n }, (_, i) => i);
  // One numeric sort of row × 2^k + position: positions below 2^k, and exact while rows × 2^k < 2^53.
  const scale = 2 ** Math.ceil(Math.log2(n + 1));
  const keys = Float64Array.from(rows, (row, i) => row * scale + i).sort();
  return Int32Array.from(keys, (key) => key % scale);
}

function setValue(out: Record<string, unknown>[], i: number, column: string, value: unknown): void {
  const row = out[i];
  if (row) row[column] = value;
}

/** Row templates by column list (a request's `columns` comes from a small set in practice). */
const templates = new Map<string, Readonly<Record<string, null>>>();
const MAX_TEMPLATES = 256;

/**
 * An object with the keys of a response row (`domain`, then `columns`, each once), all null. It comes
 * from JSON.parse because an object grown key by key past a dozen keys turns into a slow dictionary-mode
 * object in V8, and so would every copy of it; a parsed object keeps a fixed shape that copies share.
 */
function rowTemplate(columns: readonly SelectableColumn[]): Readonly<Record<string, null>> {
  const signature = columns.join(',');
  let template = templates.get(signature);
  if (!template) {
    const keys = [...new Set<string>(['domain', ...columns])];
    template = JSON.parse(`{${keys.map((key) => `${JSON.stringify(key)}:null`).join(',')}}`) as Record<string, null>;
    if (templates.size >= MAX_TEMPLATES) templates.clear();
    templates.set(signature, template);
  }
  return template;
}

/** Code-unit order, the same in every JavaScript engine (and what a keyset cursor compares with). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Wider spans (dates thousands of years apart) take a sort of the distinct days instead of a slot per day. */
const MAX_DAY_SPAN = 1 << 22;

/** Dictionary-encodes day numbers (NO_DAY → code 0), distinct days in ascending order. */
export function encodeDays(values: Int32Array): DayColumn {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const day of values) {
    if (day === NO_DAY) continue;
    if (day < min) min = day;
    if (day > max) max = day;
  }
  if (min > max) return { days: Int32Array.of(NO_DAY), codes: packCodes(new Uint32Array(values.length), 1) };
  const days: number[] = [NO_DAY];
  const codes = new Uint32Array(values.length);
  if (max - min < MAX_DAY_SPAN) {
    // Real dates span a few tens of thousands of days: a slot per day of the span.
    const slot = new Int32Array(max - min + 1);
    for (const day of values) if (day !== NO_DAY) slot[day - min] = 1;
    for (let k = 0; k < slot.length; k++) {
      if (slot[k] === 0) continue;
      slot[k] = days.length;
      days.push(min + k);
    }
    for (let i = 0; i < values.length; i++) {
      const day = values[i] ?? NO_DAY;
      codes[i] = day === NO_DAY ? 0 : (slot[day - min] ?? 0);
    }
  } else {
    const distinct = Int32Array.from(new Set(values)).filter((day) => day !== NO_DAY).sort();
    const codeOf = new Map<number, number>();
    for (const day of distinct) {
      codeOf.set(day, days.length);
      days.push(day);
    }
    for (let i = 0; i < values.length; i++) codes[i] = codeOf.get(values[i] ?? NO_DAY) ?? 0;
  }
  return { days: Int32Array.from(days), codes: packCodes(codes, days.length) };
}

/** Appends organizations one at a time into the store's columns; `finish` makes the store. */
class StoreBuilder {
  private readonly domains: Utf8ColumnBuilder;
  private readonly categorical: Record<CategoricalKey, { dict: Dictionary; ids: ChunkedArray<Uint32Array> }>;
  private readonly text: Record<TextKey, Utf8ColumnBuilder>;
  private readonly indexText: Utf8ColumnBuilder | null;
  private readonly keywordDict = new Dictionary();
  private readonly keywordIds: ChunkedArray<Uint32Array>;
  private readonly keywordOffsets: ChunkedArray<Uint32Array>;
  private readonly courts = new Dictionary();
  private readonly courtIds: ChunkedArray<Uint32Array>;
  private readonly registrationDays: ChunkedArray<Int32Array>;
  private readonly registrationIds: Utf8ColumnBuilder;
  private readonly registrationOffsets: ChunkedArray<Uint32Array>;
  private readonly lat: ChunkedArray<Float64Array>;
  private readonly lon: ChunkedArray<Float64Array>;
  private readonly newRegisterEntry: ChunkedArray<Int8Array>;
  private readonly registerDay: ChunkedArray<Int32Array>;
  private readonly createdAt: ChunkedArray<Float64Array>;
  private readonly updatedAt: ChunkedArray<Float64Array>;
  private size = 0;

  /** `sample`: the records when they are all at hand (their count and text lengths size the buffers). */
  constructor(sample: readonly OrganizationRecord[] | null, withIndexText: boolean) {
    const rows = sample?.length ?? 1 << 16;
    // Sized up front where the text is known: every growth of a large buffer makes V8 collect garbage over the whole heap.
    const bytesOf = (read: (record: OrganizationRecord) => string | null): number | undefined => {
      if (!sample) return undefined;
      let chars = 0;
      for (const record of sample) chars += read(record)?.length ?? 0;
      return Math.ceil(chars * 1.06) + 64;
    };
    const utf8 = (read: (record: OrganizationRecord) => string | null): Utf8ColumnBuilder => new Utf8ColumnBuilder({ rows, bytes: bytesOf(read) });
    this.domains = utf8((r) => r.domain);
    this.categorical = {} as Record<CategoricalKey, { dict: Dictionary; ids: ChunkedArray<Uint32Array> }>;
    for (const key of CATEGORICAL_COLUMNS) this.categorical[key] = { dict: new Dictionary(), ids: new ChunkedArray((n) => new Uint32Array(n), rows) };
    this.text = {} as Record<TextKey, Utf8ColumnBuilder>;
    for (const key of TEXT_COLUMNS) this.text[key] = utf8((r) => r[key]);
    this.indexText = withIndexText ? utf8((r) => r.text) : null;
    this.keywordIds = new ChunkedArray((n) => new Uint32Array(n), rows * 6);
    this.keywordOffsets = new ChunkedArray((n) => new Uint32Array(n), rows + 1);
    this.keywordOffsets.push(0);
    this.courtIds = new ChunkedArray((n) => new Uint32Array(n), rows);
    this.registrationDays = new ChunkedArray((n) => new Int32Array(n), rows);
    this.registrationIds = new Utf8ColumnBuilder({ rows });
    this.registrationOffsets = new ChunkedArray((n) => new Uint32Array(n), rows + 1);
    this.registrationOffsets.push(0);
    this.lat = new ChunkedArray((n) => new Float64Array(n), rows);
    this.lon = new ChunkedArray((n) => new Float64Array(n), rows);
    this.newRegisterEntry = new ChunkedArray((n) => new Int8Array(n), rows);
    this.registerDay = new ChunkedArray((n) => new Int32Array(n), rows);
    this.createdAt = new ChunkedArray((n) => new Float64Array(n), rows);
    this.updatedAt = new ChunkedArray((n) => new Float64Array(n), rows);
  }

  add(r: OrganizationRecord): void {
    this.size++;
    this.domains.push(r.domain);
    for (const key of CATEGORICAL_COLUMNS) {
      const column = this.categorical[key];
      column.ids.push(column.dict.intern(CATEGORICAL_READERS[key](r)));
    }
    for (const key of TEXT_COLUMNS) this.text[key].push(r[key]);
    this.indexText?.push(r.text);
    for (const keyword of new Set(r.summary_keywords)) this.keywordIds.push(this.keywordDict.intern(keyword));
    this.keywordOffsets.push(this.keywordIds.length);
    for (const registration of r.registrations) {
      this.courtIds.push(this.courts.intern(registration.court));
      this.registrationDays.push(dayOf(registration.date));
      this.registrationIds.push(registration.id);
    }
    this.registrationOffsets.push(this.courtIds.length);
    this.lat.push(r.lat ?? Number.NaN);
    this.lon.push(r.lon ?? Number.NaN);
    this.newRegisterEntry.push(r.new_register_entry === null ? -1 : r.new_register_entry ? 1 : 0);
    this.registerDay.push(r.company_register_date ? dayOf(r.company_register_date) : NO_DAY);
    this.createdAt.push(r.created_at ? Date.parse(r.created_at) : Number.NaN);
    this.updatedAt.push(r.updated_at ? Date.parse(r.updated_at) : Number.NaN);
  }

  finish(): ColumnStore {
    const n = this.size;
    const domains = this.domains.finish();
    const lookup = new DomainLookup(domains);
    const { byDomain, domainRank } = domainOrder(domains, lookup);
    const categorical = {} as Record<CategoricalKey, CategoricalParts>;
    for (const key of CATEGORICAL_COLUMNS) {
      const { dict, ids } = this.categorical[key];
      categorical[key] = categoricalParts({ dict, codes: packCodes(ids.finish(), dict.size) });
    }
    const text = {} as Record<TextKey, Utf8ColumnParts>;
    for (const key of TEXT_COLUMNS) text[key] = this.text[key].finish().parts();
    const day = this.registrationDays.finish();
    const createdAt = this.createdAt.finish();
    return new ColumnStore({
      size: n,
      domains: domains.parts(),
      domainSlots: lookup.slots,
      byDomain,
      domainRank,
      categorical,
      text,
      indexText: this.indexText?.finish().parts() ?? null,
      keywords: { values: Utf8Column.from(this.keywordDict.values).parts(), offsets: this.keywordOffsets.finish(), ids: packCodes(this.keywordIds.finish(), this.keywordDict.size) },
      registrations: {
        offsets: this.registrationOffsets.finish(),
        court: categoricalParts({ dict: this.courts, codes: packCodes(this.courtIds.finish(), this.courts.size) }),
        day,
        days: encodeDays(day),
        id: this.registrationIds.finish().parts(),
      },
      lat: this.lat.finish(),
      lon: this.lon.finish(),
      newRegisterEntry: this.newRegisterEntry.finish(),
      registerDay: this.registerDay.finish(),
      createdAt,
      createdDays: encodeDays(Int32Array.from(createdAt, (ms) => (Number.isNaN(ms) ? NO_DAY : dayOfMs(ms)))),
      updatedAt: this.updatedAt.finish(),
    });
  }
}

/** Rows in ascending domain order, and each row's place in it. */
function domainOrder(domains: Utf8Column, lookup: DomainLookup): { byDomain: Uint32Array; domainRank: Uint32Array } {
  const n = domains.size;
  // The strings for the moment of the sort: the default sort compares them by UTF-16 code units natively,
  // much faster than a comparator over the bytes.
  const sorted = Array.from({ length: n }, (_, row) => domains.get(row) ?? '').sort();
  const byDomain = new Uint32Array(n);
  const domainRank = new Uint32Array(n);
  sorted.forEach((domain, rank) => {
    const row = lookup.rowOf(domain) ?? 0;
    byDomain[rank] = row;
    domainRank[row] = rank;
  });
  return { byDomain, domainRank };
}

/**
 * Rows by domain: an open-addressing hash table of row numbers over the domain column's bytes (a Map
 * holds at most 2^24 entries, and its 20 million string keys would sit on the heap). Load at most 2/3.
 */
class DomainLookup {
  readonly slots: Int32Array;
  private readonly mask: number;
  /** The domains' bytes: always in memory (every lookup reads them). */
  private readonly domainBytes: Uint8Array;

  /** Over `slots` as built before (a snapshot's), else built here: then a domain twice is an error. */
  constructor(
    private readonly domains: Utf8Column,
    slots?: Int32Array,
  ) {
    this.domainBytes = domains.inMemory();
    if (slots) {
      this.slots = slots;
      this.mask = slots.length - 1;
      return;
    }
    let size = 16;
    while (size < domains.size * 1.5) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    const { offsets } = domains;
    const bytes = this.domainBytes;
    for (let row = 0; row < domains.size; row++) {
      const start = offsets[row] ?? 0;
      const length = (offsets[row + 1] ?? 0) - start;
      let slot = hashOfBytes(bytes, start, length) & this.mask;
      for (let other = this.slots[slot] ?? -1; other !== -1; other = this.slots[slot] ?? -1) {
        const at = offsets[other] ?? 0;
        if ((offsets[other + 1] ?? 0) - at === length && bytes.subarray(at, at + length).every((byte, i) => byte === bytes[start + i])) {
          throw new Error(`ColumnStore: the domain ${domains.get(row) ?? ''} appears twice (rows ${other} and ${row})`);
        }
        slot = (slot + 1) & this.mask;
      }
      this.slots[slot] = row;
    }
  }

  /**
   * rowOf() of many domains (−1 where there is none), one step at a time over all of them: each one's
   * slot, the row there, that row's offset, its bytes. Within a step the reads of different domains do
   * not wait on each other, so the processor overlaps their cache misses (at millions of rows each read
   * is one; one after another, a lookup waited for three in a row). A domain whose slot holds another
   * row moves to the next slot and goes round again with the others left (at 20,000,000 rows, about half
   * of them once).
   */
  rowsOf(domains: readonly string[]): Int32Array {
    const n = domains.length;
    const { offsets } = this.domains;
    const { slots, mask } = this;
    const rows = new Int32Array(n).fill(-1);
    const slotOf = new Int32Array(n);
    // The domains still looked for (their indices), each round's row in their slot, and its offset.
    const pending = new Int32Array(n);
    const seen = new Int32Array(n);
    const starts = new Float64Array(n);
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < n */
    for (let i = 0; i < n; i++) {
      slotOf[i] = hashOfString(domains[i]!) & mask;
      pending[i] = i;
    }
    for (let count = n; count > 0; ) {
      for (let j = 0; j < count; j++) seen[j] = slots[slotOf[pending[j]!]!] ?? -1;
      for (let j = 0; j < count; j++) starts[j] = seen[j]! >= 0 ? (offsets[seen[j]!] ?? 0) : 0;
      let left = 0;
      for (let j = 0; j < count; j++) {
        const i = pending[j]!;
        const row = seen[j]!;
        // An empty slot: the domain is not there.
        if (row < 0) continue;
        if (this.holds(row, starts[j]!, domains[i]!)) {
          rows[i] = row;
        } else {
          slotOf[i] = (slotOf[i]! + 1) & mask;
          pending[left++] = i;
        }
      }
      count = left;
    }
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
    return rows;
  }

  rowOf(domain: string): number | undefined {
    const { offsets } = this.domains;
    const { slots, mask } = this;
    for (let slot = hashOfString(domain) & mask; ; slot = (slot + 1) & mask) {
      const row = slots[slot] ?? -1;
      if (row === -1) return undefined;
      if (this.holds(row, offsets[row] ?? 0, domain)) return row;
    }
  }

  /** Whether row `row`, whose bytes start at `at`, is `domain`. */
  private holds(row: number, at: number, domain: string): boolean {
    const bytes = this.domainBytes;
    const length = domain.length;
    if ((this.domains.offsets[row + 1] ?? 0) - at !== length) return false;
    // Domains are ASCII (IDN labels in punycode): a character equals its byte, and text that is not ASCII matches no row.
    let i = 0;
    while (i < length && bytes[at + i] === domain.charCodeAt(i)) i++;
    return i === length;
  }
}

// The domain hash: FNV-1a over the length, the first 8 and the last 8 characters. Domains differ at their
// start or their end (name, place, number, TLD), and hashing 16 characters instead of every one halves a
// lookup (a 5,000-domain fetch makes 5,000). The same function over bytes and over a string's char codes.

function hashOfBytes(bytes: Uint8Array, start: number, length: number): number {
  let hash = fnv1aStep(FNV1A_OFFSET, length);
  const head = Math.min(length, 8);
  for (let i = 0; i < head; i++) hash = fnv1aStep(hash, bytes[start + i] ?? 0);
  for (let i = Math.max(head, length - 8); i < length; i++) hash = fnv1aStep(hash, bytes[start + i] ?? 0);
  return hash >>> 0;
}

function hashOfString(text: string): number {
  const length = text.length;
  let hash = fnv1aStep(FNV1A_OFFSET, length);
  const head = Math.min(length, 8);
  for (let i = 0; i < head; i++) hash = fnv1aStep(hash, text.charCodeAt(i));
  for (let i = Math.max(head, length - 8); i < length; i++) hash = fnv1aStep(hash, text.charCodeAt(i));
  return hash >>> 0;
}
