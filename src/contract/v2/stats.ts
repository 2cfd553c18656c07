/** v2 POST /stats: COUNT buckets over a filtered population, grouped by up to two dimensions. */
import * as z from 'zod';
import { boundedInt, DateSchema } from '../common.js';
import { addIssue, WHEN_FIELDS_VALID } from '../validation.js';
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
    field: z.enum(DATE_RANGE_FIELDS).nullable().optional(),
    from_date: DateSchema.nullable().optional(),
    to_date: DateSchema.nullable().optional(),
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
    group_by: GroupBySchema,
    group_by_secondary: GroupBySchema,
    date_trunc: z.enum(DATE_TRUNC_UNITS).default('month'),
    filters: StatsFiltersSchema.nullable().optional().transform((f) => f ?? null),
    date_range: DateRangeSchema.nullable().optional(),
    limit: boundedInt(STATS_LIMITS.limitMin, STATS_LIMITS.limitMax, STATS_LIMITS.limitDefault),
    explain: z.boolean().default(false),
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
  });

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
export const StatsBucketSchema = z.object({ count: z.int().nonnegative() }).catchall(
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
);

export const StatsResponseSchema = z.looseObject({
  data: z.array(StatsBucketSchema),
  elapsed_ms: z.number().nonnegative(),
  metadata: z.looseObject({
    group_by: z.string().nullable(),
    group_by_secondary: z.string().nullable(),
    date_trunc: z.string().nullable(),
    filters_applied: z.record(z.string(), z.unknown()).nullable(),
    date_range_applied: z.record(z.string(), z.unknown()).nullable(),
    total_buckets: z.int().nonnegative(),
    elapsed_ms: z.number().nonnegative(),
    explain_plan: z.array(z.string()).nullable(),
    warnings: z.array(FilterValueWarningSchema).optional(),
  }),
});
export type StatsResponse = z.infer<typeof StatsResponseSchema>;
