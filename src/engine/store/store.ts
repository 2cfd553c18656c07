/**
 * The columnar store: one typed array (or string array) per column, dictionary-encoded categorical
 * columns, keyword tags and registrations in compressed-row form (offsets + values). No object per
 * organization survives the build; rows are materialised only for the columns a response asks for.
 */
import type { SelectableColumn } from '../../contract/common.js';
import type { OrganizationRow } from '../../contract/v2/rows.js';
import type { OrganizationRecord } from '../dataset/record.js';
import { dayOf, formatDay, NO_DAY } from './dates.js';
import { Dictionary, encodeColumn, packCodes, type CategoricalColumn, type Codes } from './dictionary.js';

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
  id: string[];
}

export class ColumnStore {
  readonly size: number;
  readonly domains: string[];
  /** Row ids in ascending domain order (the keyset order of filter mode). */
  readonly byDomain: Uint32Array;
  /** Position of each row in `byDomain`. */
  readonly domainRank: Uint32Array;
  readonly categorical: Record<CategoricalKey, CategoricalColumn>;
  readonly text: Record<TextKey, (string | null)[]>;
  /** The hidden long text used only for indexing (never returned). */
  readonly indexText: (string | null)[];
  readonly keywords: KeywordColumn;
  readonly registrations: RegistrationColumns;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  /** -1 unknown, 0 false, 1 true. */
  readonly newRegisterEntry: Int8Array;
  readonly registerDay: Int32Array;
  /** Epoch milliseconds; NaN when unknown. */
  readonly createdAt: Float64Array;
  readonly updatedAt: Float64Array;
  private readonly rowOfDomain: Map<string, number>;

  constructor(records: readonly OrganizationRecord[]) {
    const n = records.length;
    this.size = n;
    this.domains = records.map((r) => r.domain);
    this.rowOfDomain = new Map();
    for (let i = 0; i < n; i++) {
      const domain = this.domains[i] ?? '';
      if (this.rowOfDomain.has(domain)) throw new Error(`ColumnStore: the domain ${domain} appears twice (rows ${this.rowOfDomain.get(domain) ?? 0} and ${i})`);
      this.rowOfDomain.set(domain, i);
    }

    // The default sort compares strings by UTF-16 code units natively, much faster than a comparator.
    const sorted = this.domains.slice().sort();
    this.byDomain = new Uint32Array(n);
    this.domainRank = new Uint32Array(n);
    sorted.forEach((domain, rank) => {
      const row = this.rowOfDomain.get(domain) ?? 0;
      this.byDomain[rank] = row;
      this.domainRank[row] = rank;
    });

    this.categorical = {} as Record<CategoricalKey, CategoricalColumn>;
    for (const key of CATEGORICAL_COLUMNS) this.categorical[key] = encodeColumn(records.map(CATEGORICAL_READERS[key]));
    this.text = {} as Record<TextKey, (string | null)[]>;
    for (const key of TEXT_COLUMNS) this.text[key] = records.map((r) => r[key]);
    this.indexText = records.map((r) => r.text);

    this.keywords = encodeKeywords(records);
    this.registrations = encodeRegistrations(records);

    this.lat = Float64Array.from(records, (r) => r.lat ?? Number.NaN);
    this.lon = Float64Array.from(records, (r) => r.lon ?? Number.NaN);
    this.newRegisterEntry = Int8Array.from(records, (r) => (r.new_register_entry === null ? -1 : r.new_register_entry ? 1 : 0));
    this.registerDay = Int32Array.from(records, (r) => (r.company_register_date ? dayOf(r.company_register_date) : NO_DAY));
    this.createdAt = Float64Array.from(records, (r) => (r.created_at ? Date.parse(r.created_at) : Number.NaN));
    this.updatedAt = Float64Array.from(records, (r) => (r.updated_at ? Date.parse(r.updated_at) : Number.NaN));
  }

  /** The row of a normalised domain, or undefined. */
  rowOf(domain: string): number | undefined {
    return this.rowOfDomain.get(domain);
  }

  /** The first position in domain order whose domain is greater than `domain`. */
  positionAfter(domain: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareStrings(this.domains[this.byDomain[mid] ?? 0] ?? '', domain) <= 0) lo = mid + 1;
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

  /** How to read one selectable column, as the API returns it (resolved once per request, not per row). */
  reader(column: SelectableColumn): (row: number) => unknown {
    switch (column) {
      case 'domain':
        return (row) => this.domains[row];
      case 'name':
      case 'summary':
      case 'address':
      case 'company_register_id': {
        const values = this.text[column];
        return (row) => values[row] ?? null;
      }
      case 'summary_keywords':
        return (row) => this.keywordsOf(row);
      case 'lat':
      case 'lon': {
        const values = this[column];
        return (row) => {
          const v = values[row] ?? Number.NaN;
          return Number.isNaN(v) ? null : v;
        };
      }
      case 'new_register_entry':
        return (row) => {
          const v = this.newRegisterEntry[row];
          return v === -1 || v === undefined ? null : v === 1;
        };
      case 'company_register_date':
        return (row) => {
          const day = this.registerDay[row] ?? NO_DAY;
          return day === NO_DAY ? null : formatDay(day);
        };
      case 'created_at':
        return (row) => {
          const ms = this.createdAt[row] ?? Number.NaN;
          return Number.isNaN(ms) ? null : new Date(ms).toISOString();
        };
      default: {
        const { codes, dict } = this.categorical[column];
        return (row) => dict.values[codes[row] ?? 0] ?? null;
      }
    }
  }

  /** Response rows: `domain` first, then the requested columns in their order. */
  rows(rows: Iterable<number>, columns: readonly SelectableColumn[]): OrganizationRow[] {
    const readers = columns.map((column) => [column, this.reader(column)] as const);
    const out: OrganizationRow[] = [];
    for (const row of rows) {
      const record: Record<string, unknown> = { domain: this.domains[row] };
      for (const [column, read] of readers) record[column] = read(row);
      out.push(record as OrganizationRow);
    }
    return out;
  }
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
  return { offsets, court: encodeColumn(courts), day: Int32Array.from(days), id: ids };
}
