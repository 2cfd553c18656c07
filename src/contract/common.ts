/** Small schemas shared by the three interfaces: domains, dates, columns, cursors. */
import * as z from 'zod';
import { normalizeDomain } from './domain.js';
import { TEXT_LIMITS } from './limits.js';
import { addIssue, documentedAs, field, integer } from './validation.js';

/** A domain, URL or e-mail address, normalised to the index key (see domain.ts). */
export const DomainSchema = z.string().max(TEXT_LIMITS.domainLength, { abort: true }).transform((raw, ctx) => {
  const result = normalizeDomain(raw);
  if (result.ok) return result.domain;
  addIssue(ctx, result.reason, [], { type: 'domain_parsing', ctx: { reason: result.reason } });
  return z.NEVER;
});

export const DomainListSchema = z.array(DomainSchema);

/**
 * A web address whose pages are read (QnA's `domain`, "the URL whose text is fetched"): a bare domain or
 * an http(s) URL. Its host must be a valid domain; the address itself is kept as given (trimmed), so a
 * path such as `/careers` is not lost.
 */
export const PageAddressSchema = z.string().max(TEXT_LIMITS.domainLength, { abort: true }).transform((raw, ctx) => {
  const address = raw.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(address);
  const result = normalizeDomain(address);
  if (scheme && !/^https?$/i.test(scheme[1] ?? '')) {
    addIssue(ctx, `"${raw}" is not a web address; use http(s):// or a bare domain`, [], { type: 'url_scheme', ctx: { expected_schemes: "'http', 'https'" } });
    return z.NEVER;
  }
  if (result.ok) return address;
  addIssue(ctx, result.reason, [], { type: 'domain_parsing', ctx: { reason: result.reason } });
  return z.NEVER;
});

/**
 * A UUID as Python's `uuid.UUID` reads it: any version, hyphenated or not, in braces or as a URN;
 * normalised to lower-case hyphenated form.
 */
export const UuidSchema = z.string().transform((raw, ctx) => {
  const hex = raw
    .trim()
    .replace(/^urn:uuid:/i, '')
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/-/g, '');
  if (/^[0-9a-f]{32}$/i.test(hex)) {
    const h = hex.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  const error = 'expected 32 hexadecimal digits, optionally hyphenated, in braces or after urn:uuid:';
  addIssue(ctx, `Input should be a valid UUID, ${error}`, [], { type: 'uuid_parsing', ctx: { error } });
  return z.NEVER;
});

/** A calendar date `YYYY-MM-DD` (checked against the real calendar). */
export const DateSchema = z.iso.date();

/** A non-empty search term or name: trimmed; blank strings are rejected, not silently dropped. */
export const TermSchema = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1, 'must not be blank'));

/**
 * What a column holds. It decides the column's type in a response row (v2/rows.ts), how a data file's
 * value is read (engine/dataset/record.ts) and how the engine keeps it (engine/store/store.ts): free
 * `text` as strings, a `category` (one of few values, counted by stats) dictionary-encoded.
 */
export type ColumnKind = 'domain' | 'text' | 'category' | 'keywords' | 'number' | 'boolean' | 'date' | 'timestamp';

interface ColumnSpec {
  kind: ColumnKind;
  title: string;
  description: string;
  /** Served beyond the interface's table (see EXTENSION_COLUMNS). */
  extension?: true;
}

/**
 * The columns of an organization row, in the order rows and documents show them: the one list the row
 * schema, the `columns` lists of v1 and v2, the data file's row and the engine's store derive from.
 * Titles and descriptions are what /openapi.json and the Power Automate connector show.
 */
export const ORGANIZATION_COLUMNS = {
  domain: { kind: 'domain', title: 'Domain', description: "The organization's web domain, its key in OrgIndex, e.g. acme-solar.de" },
  name: { kind: 'text', title: 'Name', description: "The organization's name, e.g. Acme Solar GmbH" },
  summary: { kind: 'text', title: 'Summary', description: 'A few sentences on what the organization does' },
  summary_keywords: { kind: 'keywords', title: 'Tags', description: 'Short tags for what the organization does, e.g. solar installation, heat pumps' },
  address: { kind: 'text', title: 'Address', description: 'Street address, e.g. Hauptstraße 1, 80331 München' },
  organization_type: { kind: 'category', title: 'Organization type', description: 'Company, Startup, Public, Academic or Other' },
  organization_size: { kind: 'category', title: 'Size', description: 'Size by employees: Micro (0-9), Small (10-49), Medium-sized (50-249) or Large enterprise (250+)' },
  employee_class: { kind: 'category', title: 'Employees', description: 'Number of employees as a range, e.g. 10-19' },
  revenue_class: { kind: 'category', title: 'Revenue', description: 'Yearly revenue as a range, e.g. 2-10 Mio. EUR' },
  nace_code: { kind: 'category', title: 'Industry code', description: 'Industry as a NACE Rev. 2.1 code, e.g. 62.10 (computer programming)' },
  continent: { kind: 'category', title: 'Continent', description: 'e.g. Europe' },
  country: { kind: 'category', title: 'Country', description: 'Country name as OrgIndex spells it, e.g. Deutschland' },
  country_code: { kind: 'category', title: 'Country code', description: 'Two-letter ISO country code, e.g. DE' },
  state: { kind: 'category', title: 'State', description: 'State or province, e.g. Bayern' },
  state_code: { kind: 'category', title: 'State code', description: 'ISO code of the state, e.g. DE-BY' },
  region: { kind: 'category', title: 'Region', description: 'Region within the state (in Germany the Regierungsbezirk), e.g. Oberbayern' },
  region_code: { kind: 'category', title: 'Region code', description: 'Official code of the region, e.g. 091' },
  district: { kind: 'category', title: 'District', description: 'District (in Germany the Landkreis or kreisfreie Stadt), e.g. Landkreis Starnberg' },
  district_code: { kind: 'category', title: 'District code', description: 'Official code of the district, e.g. 09188' },
  municipality: { kind: 'category', title: 'Municipality', description: 'Town or city, e.g. München' },
  municipality_code: { kind: 'category', title: 'Municipality code', description: 'Official municipality key, e.g. 09162000' },
  lat: { kind: 'number', title: 'Latitude', description: 'Latitude of the place in degrees, e.g. 48.137' },
  lon: { kind: 'number', title: 'Longitude', description: 'Longitude of the place in degrees, e.g. 11.575' },
  new_register_entry: { kind: 'boolean', title: 'New register entry', description: 'True when the newest company register entry is less than a year old' },
  company_register_date: { kind: 'date', title: 'Register date', description: 'Date of the company register entry, YYYY-MM-DD, e.g. 2019-05-27' },
  company_register_id: { kind: 'text', title: 'Register number', description: 'Number of the company register entry, e.g. HRB 12345' },
  company_register_court: { kind: 'text', extension: true, title: 'Register court', description: 'The court that keeps the register entry, e.g. Amtsgericht München' },
  created_at: { kind: 'timestamp', title: 'Added', description: 'When the organization was added to OrgIndex, ISO 8601 date and time, e.g. 2024-03-15T12:02:59Z' },
} as const satisfies Record<string, ColumnSpec>;

/** Any column a request may name: the interface's and the extension columns. */
export type SelectableColumn = keyof typeof ORGANIZATION_COLUMNS;
type SpecOf<C extends SelectableColumn> = (typeof ORGANIZATION_COLUMNS)[C];
type KindOf<C extends SelectableColumn> = SpecOf<C>['kind'];
type ExtensionColumn = { [C in SelectableColumn]: SpecOf<C> extends { extension: true } ? C : never }[SelectableColumn];
/** A column of the interface's table (v2 spec, "Selectable columns"). */
export type InterfaceColumn = Exclude<SelectableColumn, ExtensionColumn>;

const isColumn = (key: string): key is SelectableColumn => key in ORGANIZATION_COLUMNS;
const isExtension = (column: SelectableColumn): column is ExtensionColumn => 'extension' in ORGANIZATION_COLUMNS[column];

/** Every column, in the table's order (the order of a row's keys in documents). */
export const ORGANIZATION_COLUMN_NAMES: readonly SelectableColumn[] = Object.keys(ORGANIZATION_COLUMNS).filter(isColumn);

/** The selectable columns of an organization row (v2 spec, "Selectable columns"), in the table's order. */
export const SELECTABLE_COLUMNS: readonly InterfaceColumn[] = ORGANIZATION_COLUMN_NAMES.filter((column): column is InterfaceColumn => !isExtension(column));

/**
 * Columns OrgIndex serves beyond the interface's table (the organization card needs them). They are
 * accepted wherever `columns` is, but an unknown column's error lists the interface's columns only, so
 * a client written against the interface sees the same 422 as before.
 */
export const EXTENSION_COLUMNS: readonly ExtensionColumn[] = ORGANIZATION_COLUMN_NAMES.filter(isExtension);

type ColumnOfKind<K extends ColumnKind> = { [C in SelectableColumn]: KindOf<C> extends K ? C : never }[SelectableColumn];

/** The columns of `among` that hold `kind`, in their order. */
export function columnsOfKind<K extends ColumnKind, C extends SelectableColumn>(kind: K, among: readonly C[]): Extract<C, ColumnOfKind<K>>[] {
  return among.filter((column): column is Extract<C, ColumnOfKind<K>> => ORGANIZATION_COLUMNS[column].kind === kind);
}

/** For each kind of column, what a shape holds for a column of that kind (shapeOf). */
type MakersByKind<C extends SelectableColumn> = { [K in ColumnKind]: (column: Extract<C, ColumnOfKind<K>>) => unknown };

/**
 * An object with a value for each of `columns`, in their order, made by the maker of its kind: the
 * shapes of the response row (v2/rows.ts) and of the data file's row (engine/dataset/record.ts).
 */
export function shapeOf<C extends SelectableColumn, M extends MakersByKind<C>>(columns: readonly C[], makers: M): { [K in C]: ReturnType<M[KindOf<K>]> };
// The loop gives every column its kind's value: the signature above says so, as a mapped type cannot follow a loop.
export function shapeOf(columns: readonly SelectableColumn[], makers: Record<ColumnKind, (column: SelectableColumn) => unknown>): Partial<Record<SelectableColumn, unknown>> {
  const shape: Partial<Record<SelectableColumn, unknown>> = {};
  for (const column of columns) shape[column] = makers[ORGANIZATION_COLUMNS[column].kind](column);
  return shape;
}

const ACCEPTED_COLUMNS: ReadonlySet<unknown> = new Set([...SELECTABLE_COLUMNS, ...EXTENSION_COLUMNS]);

/** One name in a `columns` list: a selectable or extension column; anything else is a literal_error naming the selectable ones. */
const ColumnNameSchema = documentedAs(
  z.unknown().transform((value, ctx) => {
    if (!ACCEPTED_COLUMNS.has(value)) {
      ctx.issues.push({ code: 'invalid_value', values: [...SELECTABLE_COLUMNS], input: value });
      return z.NEVER;
    }
    return value as SelectableColumn;
  }),
  { type: 'string', enum: [...SELECTABLE_COLUMNS, ...EXTENSION_COLUMNS] },
);

export const DEFAULT_COLUMNS: readonly SelectableColumn[] = ['domain', 'name', 'country'];

/**
 * `columns` of v2 search and fetch: selectable names only (unknown → 422 at its index); `domain` is
 * always returned, so it is put first when missing; repeated names collapse. Omitted → the defaults.
 */
export const ColumnsSchema = z
  .array(ColumnNameSchema)
  .optional()
  .transform((columns): SelectableColumn[] => {
    const chosen = columns ?? DEFAULT_COLUMNS;
    return [...new Set<SelectableColumn>(['domain', ...chosen])];
  })
  .meta(field('Columns', `The columns each row has, e.g. name, nace_code, municipality (domain always comes first); default: ${DEFAULT_COLUMNS.join(', ')}`));

/**
 * A `search_after` cursor: opaque JSON values copied unchanged from the previous response. Request and
 * response accept the same values, so whatever a server hands out can be sent back; a request's cursor
 * holds at most TEXT_LIMITS.cursorValues values nested at most TEXT_LIMITS.cursorDepth levels.
 */
export const CursorValueSchema = z.json();

/** Whether a value nests arrays and objects at most `depth` levels (walked without recursion). */
function nestedWithin(value: unknown, depth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, level] = top;
    if (item === null || typeof item !== 'object') continue;
    if (level >= depth) return false;
    for (const inner of Object.values(item)) stack.push([inner, level + 1]);
  }
  return true;
}

/** Any JSON value, as documents show it (zod's own rendering of JSON refers to itself). */
const ANY_JSON = {
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, { type: 'array', items: {} }, { type: 'object', additionalProperties: {} }],
};

const CursorRequestValueSchema = documentedAs(
  z
    .custom<z.core.util.JSONType>((value) => nestedWithin(value, TEXT_LIMITS.cursorDepth), {
      error: `search_after values may nest at most ${TEXT_LIMITS.cursorDepth} levels: send metadata.search_after of the previous page unchanged`,
      params: { ctx: { max_depth: TEXT_LIMITS.cursorDepth } },
    })
    .pipe(CursorValueSchema),
  ANY_JSON,
);
export const CursorSchema = z.array(CursorRequestValueSchema).max(TEXT_LIMITS.cursorValues).nullable().optional();

export const GEO_LEVELS = ['country', 'state', 'region', 'district', 'municipality'] as const;
export type GeoLevel = (typeof GEO_LEVELS)[number];

/** The levels whose counts can be drawn on a map (a place per bucket, with coordinates). */
export const MAP_LEVELS = ['country', 'state', 'municipality'] as const satisfies readonly GeoLevel[];
export type MapLevel = (typeof MAP_LEVELS)[number];

/** Latitude and longitude in degrees. */
export type Coordinates = readonly [number, number];

/** Fields several v2 answers share, named and explained once. */
export const ANSWER_FIELDS = {
  elapsed_ms: field('Time (ms)', 'How long the service took, in milliseconds'),
  explain_plan: field('Explanation', 'How the request ran, step by step (only when Explain was set)'),
  filters_applied: field('Filters applied', 'The filters as the service applied them, values in its spelling (Germany → Deutschland)'),
  warnings: field('Warnings', 'Filter values that match no organization, each with the closest values OrgIndex knows; absent when there are none'),
};

/** Integer with inclusive bounds and a default, as the spec's tables write them. */
export function boundedInt(min: number, max: number, fallback: number) {
  return integer().min(min).max(max).default(fallback);
}

/** Number with inclusive bounds and a default. */
export function boundedNumber(min: number, max: number, fallback: number) {
  return z.number().min(min).max(max).default(fallback);
}
