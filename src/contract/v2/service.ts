/** v2 GET /filters/options and GET /health. */
import * as z from 'zod';
import { ANSWER_FIELDS } from '../common.js';
import { field } from '../validation.js';

/**
 * Filter options (layout not in the spec; ours): for each categorical filter key, the values the calling
 * key may use, with how many organizations carry each, most frequent first.
 */
export const FilterOptionSchema = z.looseObject({
  value: z.string().meta(field('Value', 'A value the filter takes, e.g. Deutschland')),
  count: z.int().nonnegative().meta(field('Organizations', 'How many organizations have this value')),
});
export type FilterOption = z.infer<typeof FilterOptionSchema>;

export const FilterOptionsResponseSchema = z.looseObject({
  options: z
    .record(z.string(), z.array(FilterOptionSchema))
    .meta(field('Options', 'For each filter (country, organization_type, nace_code …) its values, most frequent first')),
  metadata: z
    .looseObject({ elapsed_ms: z.number().nonnegative().meta(ANSWER_FIELDS.elapsed_ms) })
    .optional()
    .meta(field('Details', 'About the answer')),
});
export type FilterOptionsResponse = z.infer<typeof FilterOptionsResponseSchema>;

export const HealthResponseSchema = z.looseObject({
  healthy: z.boolean().meta(field('Healthy', 'True when the service is up and its data is loaded')),
  error: z.string().optional().meta(field('Problem', 'What is wrong, when the service is not healthy')),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
