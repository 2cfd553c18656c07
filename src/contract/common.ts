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

/** The selectable columns of an organization row (v2 spec, "Selectable columns"). */
export const SELECTABLE_COLUMNS = [
  'domain',
  'name',
  'summary',
  'summary_keywords',
  'address',
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
  'lat',
  'lon',
  'new_register_entry',
  'company_register_date',
  'company_register_id',
  'created_at',
] as const;

/**
 * Columns OrgIndex serves beyond the interface's table (the organization card needs them). They are
 * accepted wherever `columns` is, but an unknown column's error lists the interface's columns only, so
 * a client written against the interface sees the same 422 as before.
 */
export const EXTENSION_COLUMNS = ['company_register_court'] as const;

export type SelectableColumn = (typeof SELECTABLE_COLUMNS)[number] | (typeof EXTENSION_COLUMNS)[number];

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
