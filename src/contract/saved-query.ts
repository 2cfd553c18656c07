/**
 * A saved query: a request whose answer is written as values into a sheet and refreshed later — by the
 * Sheets project's trigger, the Excel add-in's "Refresh saved queries", or `orgindex refresh` on a
 * workbook. One JSON shape for every host (stored in document properties, a hidden worksheet, …). The
 * request body is checked by the contract when it is run, so an invalid one is reported for that query
 * while the others still refresh.
 */
import * as z from 'zod';
import { SEARCH_LIMITS } from './v2/search.js';

const BodySchema = z.record(z.string(), z.unknown());

export const SavedQueryRequestSchema = z.discriminatedUnion('route', [
  z.strictObject({
    interface: z.literal('v2'),
    route: z.literal('search'),
    body: BodySchema,
    /** Rows to write; above one page (500) the search_after pages are walked, up to the scored-mode depth cap. */
    rows: z.int().min(1).max(SEARCH_LIMITS.scoredDepthCap).optional(),
  }),
  z.strictObject({ interface: z.literal('v2'), route: z.literal('fetch'), body: BodySchema }),
  z.strictObject({ interface: z.literal('v2'), route: z.literal('stats'), body: BodySchema }),
]);

export const SavedQuerySchema = z.strictObject({
  id: z.string().min(1).max(64),
  /** The worksheet's name and the top-left cell of the written table. */
  sheet: z.string().min(1),
  cell: z.string().regex(/^[A-Z]{1,3}[1-9]\d{0,6}$/, 'Input should be a cell such as B2'),
  request: SavedQueryRequestSchema,
  /**
   * The v2 base URL the query was saved against, or null for the embedded sample. A refresh running on
   * another connection fails the query instead of writing another service's (or the sample's) data.
   */
  service: z.string().nullable().default(null),
  output: z
    .strictObject({ headers: z.boolean().default(true), layout: z.enum(['crosstab', 'long']).default('crosstab') })
    .default({ headers: true, layout: 'crosstab' }),
  /** The rows × columns written last time: a refresh clears that extent before writing (the answer may shrink). */
  extent: z.strictObject({ rows: z.int().nonnegative(), columns: z.int().nonnegative() }).nullable().default(null),
  last_refreshed: z.iso.datetime().nullable().default(null),
  /** "ok", or why the last refresh failed. */
  status: z.string().nullable().default(null),
});

export type SavedQueryInput = z.input<typeof SavedQuerySchema>;
export type SavedQuery = z.output<typeof SavedQuerySchema>;

export type SavedQueryRequest = z.output<typeof SavedQueryRequestSchema>;
export type SavedQueryOutput = SavedQuery['output'];

export const REFRESH_FREQUENCIES = ['off', 'hourly', 'daily', 'weekly'] as const;
export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

/**
 * When a host refreshes its saved queries on its own (the Sheets project's time-driven trigger): how
 * often, at which hour of the spreadsheet's time zone (daily, weekly), on which day (weekly), and whom
 * to e-mail when a query fails.
 */
export const RefreshScheduleSchema = z.strictObject({
  frequency: z.enum(REFRESH_FREQUENCIES).default('off'),
  hour: z.int().min(0).max(23).default(6),
  weekday: z.enum(WEEKDAYS).default('MONDAY'),
  email: z.email().nullable().default(null),
});

export type RefreshScheduleInput = z.input<typeof RefreshScheduleSchema>;
export type RefreshSchedule = z.output<typeof RefreshScheduleSchema>;

/** What one refresh run did: queries refreshed, each failure with its target, or why the run was skipped. */
export interface RefreshReport {
  at: string;
  refreshed: number;
  failed: { id: string; target: string; message: string }[];
  /** Queries left for the next run (this one reached its time budget); they go first next time. */
  postponed: number;
  /** Set when the run did nothing (another refresh of the same document was running). */
  skipped: string | null;
}
