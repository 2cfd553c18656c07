/**
 * The columnar store: one typed array (or string array) per column, dictionary-encoded categorical
 * columns, keyword tags and registrations in compressed-row form (offsets + values). No object per
 * organization survives the build; rows are materialised only for the columns a response asks for.
 */
import type { SelectableColumn } from '../../contract/common.js';
import type { OrganizationRow } from '../../contract/v2/rows.js';
import type { OrganizationRecord } from '../dataset/record.js';
import { dayOf, dayOfMs, formatDay, formatInstant, NO_DAY } from './dates.js';
import { Dictionary, encodeColumn, packCodes, type CategoricalColumn, type Codes } from './dictionary.js';
import { Utf8Column, type Utf8ColumnParts } from './utf8-column.js';

/** Columns held dictionary-encoded (categorical and geographic). */
export const CATEGORICAL_COLUMNS = [
  'organization_type',
  'organization_size',
  'employee_class',
  'revenue_class',
  'nace_code',
  'continent',
  'country',
  'country_code',
  'state',
  'state_code',
  'region',
  'region_code',
  'district',
  'district_code',
  'municipality',
  'municipality_code',
  'source',
] as const;
export type CategoricalKey = (typeof CATEGORICAL_COLUMNS)[number];

/** One reader per column: a fixed property access per function stays fast where `record[key]` does not. */
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

/** Free-text columns, one string (or null) per row. */
const TEXT_COLUMNS = ['name', 'summary', 'address', 'company_register_id'] as const;
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

  /** Builds the store of these records (a domain twice is an error). */
  static fromRecords(records: readonly OrganizationRecord[]): ColumnStore {
    const n = records.length;
    const domainStrings = records.map((r) => r.domain);
    const domains = Utf8Column.from(domainStrings);
    const lookup = new DomainLookup(domains);

    // The default sort compares strings by UTF-16 code units natively, much faster than a comparator.
    const sorted = domainStrings.sort();
    const byDomain = new Uint32Array(n);
    const domainRank = new Uint32Array(n);
    sorted.forEach((domain, rank) => {
      const row = lookup.rowOf(domain) ?? 0;
      byDomain[rank] = row;
      domainRank[row] = rank;
    });

    const categorical = {} as Record<CategoricalKey, CategoricalParts>;
    for (const key of CATEGORICAL_COLUMNS) categorical[key] = categoricalParts(encodeColumn(records.map(CATEGORICAL_READERS[key])));
    const text = {} as Record<TextKey, Utf8ColumnParts>;
    for (const key of TEXT_COLUMNS) text[key] = Utf8Column.from(records.map((r) => r[key])).parts();
    const keywords = encodeKeywords(records);
    const registrations = encodeRegistrations(records);
    const createdAt = Float64Array.from(records, (r) => (r.created_at ? Date.parse(r.created_at) : Number.NaN));
    return new ColumnStore({
      size: n,
      domains: domains.parts(),
      domainSlots: lookup.slots,
      byDomain,
      domainRank,
      categorical,
      text,
      indexText: Utf8Column.from(records.map((r) => r.text)).parts(),
      keywords: { values: Utf8Column.from(keywords.dict.values).parts(), offsets: keywords.offsets, ids: keywords.ids },
      registrations: { offsets: registrations.offsets, court: categoricalParts(registrations.court), day: registrations.day, days: registrations.days, id: registrations.id.parts() },
      lat: Float64Array.from(records, (r) => r.lat ?? Number.NaN),
      lon: Float64Array.from(records, (r) => r.lon ?? Number.NaN),
      newRegisterEntry: Int8Array.from(records, (r) => (r.new_register_entry === null ? -1 : r.new_register_entry ? 1 : 0)),
      registerDay: Int32Array.from(records, (r) => (r.company_register_date ? dayOf(r.company_register_date) : NO_DAY)),
      createdAt,
      createdDays: encodeDays(Int32Array.from(createdAt, (ms) => (Number.isNaN(ms) ? NO_DAY : dayOfMs(ms)))),
      updatedAt: Float64Array.from(records, (r) => (r.updated_at ? Date.parse(r.updated_at) : Number.NaN)),
    });
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
   * read of every column.
   */
  rows(rows: Iterable<number>, columns: readonly SelectableColumn[]): OrganizationRow[] {
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
    for (const key of Object.keys(template)) this.fillColumn(objects, ascending, key as SelectableColumn);
    return out as OrganizationRow[];
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

function encodeKeywords(records: readonly OrganizationRecord[]): KeywordColumn {
  const dict = new Dictionary();
  const offsets = new Uint32Array(records.length + 1);
  const ids: number[] = [];
  records.forEach((record, i) => {
    for (const keyword of new Set(record.summary_keywords)) ids.push(dict.intern(keyword));
    offsets[i + 1] = ids.length;
  });
  return { dict, offsets, ids: packCodes(ids, dict.size) };
}

function encodeRegistrations(records: readonly OrganizationRecord[]): RegistrationColumns {
  const offsets = new Uint32Array(records.length + 1);
  const courts: string[] = [];
  const days: number[] = [];
  const ids: string[] = [];
  records.forEach((record, i) => {
    for (const registration of record.registrations) {
      courts.push(registration.court);
      days.push(dayOf(registration.date));
      ids.push(registration.id);
    }
    offsets[i + 1] = courts.length;
  });
  const day = Int32Array.from(days);
  return { offsets, court: encodeColumn(courts), day, days: encodeDays(day), id: Utf8Column.from(ids) };
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

/**
 * Rows by domain: an open-addressing hash table of row numbers over the domain column's bytes (a Map
 * holds at most 2^24 entries, and its 20 million string keys would sit on the heap). Load at most 2/3.
 */
class DomainLookup {
  readonly slots: Int32Array;
  private readonly mask: number;
  private readonly scratch = new Uint8Array(1024);

  /** Over `slots` as built before (a snapshot's), else built here: then a domain twice is an error. */
  constructor(
    private readonly domains: Utf8Column,
    slots?: Int32Array,
  ) {
    if (slots) {
      this.slots = slots;
      this.mask = slots.length - 1;
      return;
    }
    let size = 16;
    while (size < domains.size * 1.5) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    const { bytes, offsets } = domains;
    for (let row = 0; row < domains.size; row++) {
      const start = offsets[row] ?? 0;
      const other = this.find(bytes, start, (offsets[row + 1] ?? 0) - start);
      if (other.row !== -1) throw new Error(`ColumnStore: the domain ${domains.get(row) ?? ''} appears twice (rows ${other.row} and ${row})`);
      this.slots[other.slot] = row;
    }
  }

  rowOf(domain: string): number | undefined {
    // Domains are ASCII (IDN labels in punycode) and at most 253 characters: text that is not is in no row.
    const length = domain.length;
    if (length > this.scratch.length) return undefined;
    for (let i = 0; i < length; i++) {
      const code = domain.charCodeAt(i);
      if (code >= 0x80) return undefined;
      this.scratch[i] = code;
    }
    const { row } = this.find(this.scratch, 0, length);
    return row === -1 ? undefined : row;
  }

  /** The row whose domain is `key[start … start + length)` (-1: none), and the slot where it is or would go. */
  private find(key: Uint8Array, start: number, length: number): { row: number; slot: number } {
    const { bytes, offsets } = this.domains;
    let hash = 0x811c9dc5;
    for (let i = 0; i < length; i++) hash = Math.imul(hash ^ (key[start + i] ?? 0), 0x01000193);
    let slot = (hash >>> 0) & this.mask;
    for (let row = this.slots[slot] ?? -1; row !== -1; row = this.slots[slot] ?? -1) {
      const at = offsets[row] ?? 0;
      if ((offsets[row + 1] ?? 0) - at === length) {
        let same = true;
        for (let i = 0; i < length && same; i++) same = bytes[at + i] === key[start + i];
        if (same) return { row, slot };
      }
      slot = (slot + 1) & this.mask;
    }
    return { row: -1, slot };
  }
}
