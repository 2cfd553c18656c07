/** v2 POST /stats: COUNT buckets over a filtered population, grouped by up to two dimensions. */
import * as z from 'zod';
import { ANSWER_FIELDS, boundedInt, DateSchema } from '../common.js';
import { addIssue, field, WHEN_FIELDS_VALID } from '../validation.js';
import { FilterValueWarningSchema, StatsFiltersSchema } from './filters.js';

/** Allowed group_by / group_by_secondary values, by family (spec table). */
export const STATS_GROUP_FAMILIES = {
  geographic: [
    'continent', 'country', 'country_code', 'state', 'state_code', 'region', 'region_code',
    'district', 'district_code', 'municipality', 'municipality_code',
  ],
  classification: ['nace_code', 'organization_type', 'organization_size', 'employee_class', 'revenue_class'],
  source: ['source'],
  array: ['summary_keywords'],
  registration: ['company_register_court', 'company_register_date'],
  date: ['company_register_date', 'created_at'],
} as const;

export const STATS_GROUP_BY = [
  ...new Set(Object.values(STATS_GROUP_FAMILIES).flat()),
] as (typeof STATS_GROUP_FAMILIES)[keyof typeof STATS_GROUP_FAMILIES][number][];
export type StatsGroupBy = (typeof STATS_GROUP_BY)[number];

export const DATE_GROUP_COLUMNS: readonly StatsGroupBy[] = STATS_GROUP_FAMILIES.date;
export const DATE_TRUNC_UNITS = ['year', 'month', 'week'] as const;
export type DateTrunc = (typeof DATE_TRUNC_UNITS)[number];
export const DATE_RANGE_FIELDS = ['company_register_date', 'created_at', 'updated_at'] as const;
export type DateRangeField = (typeof DATE_RANGE_FIELDS)[number];

export const STATS_LIMITS = { limitMin: 1, limitMax: 500, limitDefault: 100 } as const;

const DateRangeSchema = z
  .strictObject({
    field: z
      .enum(DATE_RANGE_FIELDS)
      .nullable()
      .optional()
      .meta(field('Date column', `The date the range applies to: ${DATE_RANGE_FIELDS.join(', ')} (default: the date column grouped by, else company_register_date)`)),
    from_date: DateSchema.nullable().optional().meta(field('From', 'First day of the range, YYYY-MM-DD, e.g. 2020-01-01')),
    to_date: DateSchema.nullable().optional().meta(field('To', 'Last day of the range, YYYY-MM-DD, e.g. 2024-12-31')),
  })
  .superRefine((range, ctx) => {
    if (range.from_date && range.to_date && range.from_date > range.to_date) {
      addIssue(ctx, 'from_date must be on or before to_date', ['to_date']);
    }
  }, WHEN_FIELDS_VALID);

const GroupBySchema = z.enum(STATS_GROUP_BY).nullable().optional().transform((g) => g ?? null);

/**
 * `date_range.field` is optional (the spec leaves it open): when omitted it is the active date grouping
 * column if there is one, else `company_register_date`.
 */
export const StatsRequestSchema = z
  .strictObject({
    group_by: GroupBySchema.meta(field('Group by', 'Count by this column, e.g. country, organization_size, nace_code or company_register_date; empty: one total')),
    group_by_secondary: GroupBySchema.meta(field('Then group by', 'A second column to count by within each group, e.g. organization_type (needs Group by)')),
    date_trunc: z
      .enum(DATE_TRUNC_UNITS)
      .default('month')
      .meta(field('Date unit', 'When counting by a date column: one group per year, month (the default) or week')),
    filters: StatsFiltersSchema.nullable()
      .optional()
      .transform((f) => f ?? null)
      .meta(field('Filters', 'Which organizations to count: place, type, size, industry, source, register data; the values of one filter are alternatives, and every filter given must hold')),
    date_range: DateRangeSchema.nullable().optional().meta(field('Date range', 'Count only within these dates')),
    limit: boundedInt(STATS_LIMITS.limitMin, STATS_LIMITS.limitMax, STATS_LIMITS.limitDefault).meta(
      field('Number of groups', `At most this many groups, ${STATS_LIMITS.limitMin} to ${STATS_LIMITS.limitMax} (default ${STATS_LIMITS.limitDefault}), largest first`),
    ),
    explain: z.boolean().default(false).meta(field('Explain', 'Add to the answer how the count ran, step by step (admin keys only)')),
  })
  .superRefine((req, ctx) => {
    if (req.group_by_secondary !== null && req.group_by === null) {
      addIssue(ctx, 'group_by_secondary requires group_by', ['group_by_secondary']);
    }
    if (req.group_by_secondary !== null && req.group_by_secondary === req.group_by) {
      addIssue(ctx, 'group_by_secondary must differ from group_by', ['group_by_secondary']);
    }
  }, WHEN_FIELDS_VALID)
  .transform((req) => {
    const { date_range, ...rest } = req;
    const dateGroup = [req.group_by, req.group_by_secondary].find((g) => g !== null && DATE_GROUP_COLUMNS.includes(g));
    const range: DateRange | null =
      date_range && (date_range.from_date || date_range.to_date)
        ? {
            field: date_range.field ?? (dateGroup as DateRangeField | undefined) ?? 'company_register_date',
            from_date: date_range.from_date ?? null,
            to_date: date_range.to_date ?? null,
          }
        : null;
    return { ...rest, date_range: range };
  })
  .meta({ description: 'What to count by, and which organizations to count' });

export interface DateRange {
  field: DateRangeField;
  from_date: string | null;
  to_date: string | null;
}

export type StatsRequestInput = z.input<typeof StatsRequestSchema>;
export type StatsRequest = z.output<typeof StatsRequestSchema>;

/** True when a grouping column is a date column (so date_trunc applies and buckets sort chronologically). */
export function isDateGrouping(column: StatsGroupBy | null): boolean {
  return column !== null && DATE_GROUP_COLUMNS.includes(column);
}

/** A bucket: the grouping value(s) under the grouping column names, and `count`. */
export const StatsBucketSchema = z
  .object({ count: z.int().nonnegative().meta(field('Count', 'How many organizations are in the group')) })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .meta({ description: 'One group: its value under the name of each column grouped by (country: Deutschland), and its count' });

export const StatsResponseSchema = z.looseObject({
  data: z.array(StatsBucketSchema).meta(field('Groups', 'The groups with their counts, largest first (in date order when counting by a date)')),
  elapsed_ms: z.number().nonnegative().meta(ANSWER_FIELDS.elapsed_ms),
  metadata: z
    .looseObject({
      group_by: z.string().nullable().meta(field('Grouped by', 'The column counted by')),
      group_by_secondary: z.string().nullable().meta(field('Then grouped by', 'The second column counted by')),
      date_trunc: z.string().nullable().meta(field('Date unit', 'year, month or week when a date column was counted by')),
      filters_applied: z.record(z.string(), z.unknown()).nullable().meta(ANSWER_FIELDS.filters_applied),
      date_range_applied: z.record(z.string(), z.unknown()).nullable().meta(field('Date range applied', 'The date range as the service applied it: column, from and to')),
      total_buckets: z.int().nonnegative().meta(field('Number of groups', 'How many groups this answer holds')),
      elapsed_ms: z.number().nonnegative().meta(ANSWER_FIELDS.elapsed_ms),
      explain_plan: z.array(z.string()).nullable().meta(ANSWER_FIELDS.explain_plan),
      warnings: z.array(FilterValueWarningSchema).optional().meta(ANSWER_FIELDS.warnings),
    })
    .meta(field('Details', 'About the answer: what was counted by, the filters and date range applied')),
});
export type StatsResponse = z.infer<typeof StatsResponseSchema>;
