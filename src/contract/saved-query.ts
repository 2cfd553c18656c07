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
