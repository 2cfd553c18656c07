/** v2 GET /filters/options and GET /health. */
import * as z from 'zod';

/**
 * Filter options (layout not in the spec; ours): for each categorical filter key, the values the calling
 * key may use, with how many organizations carry each, most frequent first.
 */
export const FilterOptionSchema = z.looseObject({ value: z.string(), count: z.int().nonnegative() });
export type FilterOption = z.infer<typeof FilterOptionSchema>;

export const FilterOptionsResponseSchema = z.looseObject({
  options: z.record(z.string(), z.array(FilterOptionSchema)),
  metadata: z.looseObject({ elapsed_ms: z.number().nonnegative() }).optional(),
});
export type FilterOptionsResponse = z.infer<typeof FilterOptionsResponseSchema>;

export const HealthResponseSchema = z.looseObject({
  healthy: z.boolean(),
  error: z.string().optional(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
