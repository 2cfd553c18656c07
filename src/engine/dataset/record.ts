/**
 * The data file row: what the generator writes, what `--data` reads and what users bring. One JSON
 * object per line (or a CSV row with the same column names); keys are the spec's selectable columns plus
 * `registrations`, `source`, `updated_at` and an optional hidden `text`. Missing optional columns are null.
 */
import * as z from 'zod';
import { columnsOfKind, DateSchema, DomainSchema, SELECTABLE_COLUMNS, shapeOf } from '../../contract/common.js';
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

/** The selectable columns a data file holds numbers, true/false or a list in (read.ts reads CSV cells by them). */
export const NUMBER_COLUMNS = columnsOfKind('number', SELECTABLE_COLUMNS);
export const BOOLEAN_COLUMNS = columnsOfKind('boolean', SELECTABLE_COLUMNS);
export const LIST_COLUMNS = columnsOfKind('keywords', SELECTABLE_COLUMNS);

export const RegistrationSchema = z.strictObject({
  court: z.string().min(1),
  date: DateSchema,
  id: z.string().min(1),
});
export type Registration = z.output<typeof RegistrationSchema>;

/** The range of each number column: a coordinate out of it is a mistake in the file. */
const NUMBER_RANGES: Record<(typeof NUMBER_COLUMNS)[number], [min: number, max: number]> = { lat: [-90, 90], lon: [-180, 180] };

/** How a data file's value of each kind of column is read. */
const columnValues = shapeOf(SELECTABLE_COLUMNS, {
  domain: () => DomainSchema,
  text: () => text,
  category: () => text,
  keywords: () =>
    z
      .array(z.string().min(1))
      .nullish()
      .transform((k) => k ?? []),
  number: (column) => nullableNumber(...NUMBER_RANGES[column]),
  boolean: () =>
    z
      .boolean()
      .nullish()
      .transform((b) => b ?? null),
  date: () => DateSchema.nullish().transform((d) => d ?? null),
  timestamp: () => timestamp,
});

/** The selectable columns in their order (nace_code read as a NACE code), then what only a data file holds. */
export const OrganizationRecordSchema = z.strictObject({
  ...columnValues,
  nace_code: naceCode,
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
export const RECORD_KEYS = OrganizationRecordSchema.keyof().options;
