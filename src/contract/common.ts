/** Small schemas shared by the three interfaces: domains, dates, columns, cursors. */
import * as z from 'zod';
import { normalizeDomain } from './domain.js';
import { addIssue, integer } from './validation.js';

/** A domain, URL or e-mail address, normalised to the index key (see domain.ts). */
export const DomainSchema = z.string().transform((raw, ctx) => {
  const result = normalizeDomain(raw);
  if (result.ok) return result.domain;
  addIssue(ctx, result.reason, [], { type: 'domain_parsing', ctx: { reason: result.reason } });
  return z.NEVER;
});

export const DomainListSchema = z.array(DomainSchema);

/** A calendar date `YYYY-MM-DD` (checked against the real calendar). */
export const DateSchema = z.iso.date();

/** A non-empty search term or name: trimmed; blank strings are rejected, not silently dropped. */
export const TermSchema = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1, 'must not be blank'));

/** A list of strings where null means "not given" (the spec's `array of string or null`). */
export const NullableStringListSchema = z.array(z.string()).nullable().optional();

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
export type SelectableColumn = (typeof SELECTABLE_COLUMNS)[number];

export const DEFAULT_COLUMNS: readonly SelectableColumn[] = ['domain', 'name', 'country'];

/**
 * `columns` of v2 search and fetch: selectable names only (unknown → 422 at its index); `domain` is
 * always returned, so it is put first when missing; repeated names collapse. Omitted → the defaults.
 */
export const ColumnsSchema = z
  .array(z.enum(SELECTABLE_COLUMNS))
  .optional()
  .transform((columns): SelectableColumn[] => {
    const chosen = columns ?? DEFAULT_COLUMNS;
    return [...new Set<SelectableColumn>(['domain', ...chosen])];
  });

/** A `search_after` cursor: opaque JSON scalars copied from the previous response. */
export const CursorSchema = z
  .array(z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'Input should be a string, number, boolean or null' }))
  .nullable()
  .optional();

export const GEO_LEVELS = ['country', 'state', 'region', 'district', 'municipality'] as const;
export type GeoLevel = (typeof GEO_LEVELS)[number];

/** Integer with inclusive bounds and a default, as the spec's tables write them. */
export function boundedInt(min: number, max: number, fallback: number) {
  return integer().min(min).max(max).default(fallback);
}

/** Number with inclusive bounds and a default. */
export function boundedNumber(min: number, max: number, fallback: number) {
  return z.number().min(min).max(max).default(fallback);
}
