/** v2 POST /fetch: current rows for known domains, no ranking. */
import * as z from 'zod';
import { ColumnsSchema, DomainSchema } from '../common.js';
import { OrganizationRowSchema } from './rows.js';

export const FETCH_MAX_DOMAINS = 5_000;

export const FetchRequestSchema = z.strictObject({
  domains: z.array(DomainSchema).min(1).max(FETCH_MAX_DOMAINS),
  columns: ColumnsSchema,
});
export type FetchRequestInput = z.input<typeof FetchRequestSchema>;
export type FetchRequest = z.output<typeof FetchRequestSchema>;

export const FetchResponseSchema = z.looseObject({
  data: z.array(OrganizationRowSchema),
  metadata: z.looseObject({
    requested: z.int().nonnegative(),
    found: z.int().nonnegative(),
    missing: z.array(z.string()),
  }),
});
export type FetchResponse = z.infer<typeof FetchResponseSchema>;
