/**
 * The data file row: what the generator writes, what `--data` reads and what users bring. One JSON
 * object per line (or a CSV row with the same column names); keys are the spec's selectable columns plus
 * `registrations`, `source`, `updated_at` and an optional hidden `text`. Missing optional columns are null.
 */
import * as z from 'zod';
import { DateSchema, DomainSchema, SELECTABLE_COLUMNS } from '../../contract/common.js';
import { normalizeNaceCode } from '../../contract/nace.js';
import { addIssue } from '../../contract/validation.js';

const text = z
  .string()
  .nullish()
  .transform((s) => (s === undefined || s === null || s.trim() === '' ? null : s));

const nullableNumber = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .nullish()
    .transform((n) => n ?? null);

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * ISO 8601 date-time with `Z` or an offset — never read in the host's time zone, so a stats bucket does
 * not depend on the machine; the calendar date must exist. A bare date means midnight UTC.
 */
const timestamp = z
  .string()
  .nullish()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === null || raw.trim() === '') return null;
    const value = /^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) ? `${raw.trim()}T00:00:00Z` : raw.trim();
    const match = DATE_TIME.exec(value);
    const ms = Date.parse(value);
    if (!match || !DateSchema.safeParse(match[1]).success || !Number.isFinite(ms)) {
      addIssue(ctx, `"${raw}" is not an ISO 8601 date-time with a time zone, such as 2025-03-01T12:00:00Z`, [], { type: 'datetime_parsing' });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });

/** A NACE code as the data holds it: a detailed code (`62.01`) or a section value, normalised. */
const naceCode = z
  .string()
  .nullish()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === null || raw.trim() === '') return null;
    const result = normalizeNaceCode(raw);
    if (result.ok) return result.value;
    addIssue(ctx, result.reason, [], { type: 'nace_code' });
    return z.NEVER;
  });

export const RegistrationSchema = z.strictObject({
  court: z.string().min(1),
  date: DateSchema,
  id: z.string().min(1),
});
export type Registration = z.output<typeof RegistrationSchema>;

export const OrganizationRecordSchema = z.strictObject({
  domain: DomainSchema,
  name: text,
  summary: text,
  summary_keywords: z
    .array(z.string().min(1))
    .nullish()
    .transform((k) => k ?? []),
  address: text,
  organization_type: text,
  organization_size: text,
  employee_class: text,
  revenue_class: text,
  nace_code: naceCode,
  continent: text,
  country: text,
  country_code: text,
  state: text,
  state_code: text,
  region: text,
  region_code: text,
  district: text,
  district_code: text,
  municipality: text,
  municipality_code: text,
  lat: nullableNumber(-90, 90),
  lon: nullableNumber(-180, 180),
  new_register_entry: z
    .boolean()
    .nullish()
    .transform((b) => b ?? null),
  company_register_date: DateSchema.nullish().transform((d) => d ?? null),
  company_register_id: text,
  created_at: timestamp,
  registrations: z
    .array(RegistrationSchema)
    .nullish()
    .transform((r) => r ?? []),
  source: text,
  updated_at: timestamp,
  text: text,
});

/** A row as the engine holds it after validation: every key present, nulls for what is unknown. */
export type OrganizationRecord = z.output<typeof OrganizationRecordSchema>;
/** A row as written in a data file (optional keys may be absent). */
export type OrganizationRecordInput = z.input<typeof OrganizationRecordSchema>;

/** Every key a data row may carry, in file order (the extension columns are derived, not read). */
export const RECORD_KEYS = [...SELECTABLE_COLUMNS, 'registrations', 'source', 'updated_at', 'text'] as const;
