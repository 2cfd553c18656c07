/** v2 POST /fetch: current rows for known domains, no ranking. */
import * as z from 'zod';
import { ColumnsSchema, DomainSchema } from '../common.js';
import { field } from '../validation.js';
import { OrganizationRowSchema } from './rows.js';

export const FETCH_MAX_DOMAINS = 5_000;

export const FetchRequestSchema = z.strictObject({
  domains: z
    .array(DomainSchema)
    .min(1)
    .max(FETCH_MAX_DOMAINS)
    .meta(field('Domains', `1 to ${FETCH_MAX_DOMAINS.toLocaleString('en')} web domains to look up (web addresses and e-mail addresses work too), e.g. acme-solar.de`)),
  columns: ColumnsSchema,
}).meta({ description: 'The domains to look up, and the columns to return' });
export type FetchRequestInput = z.input<typeof FetchRequestSchema>;
export type FetchRequest = z.output<typeof FetchRequestSchema>;

export const FetchResponseSchema = z.looseObject({
  data: z.array(OrganizationRowSchema).meta(field('Organizations', 'One row for each domain OrgIndex knows, in the order asked')),
  metadata: z
    .looseObject({
      requested: z.int().nonnegative().meta(field('Requested', 'How many different domains were asked for')),
      found: z.int().nonnegative().meta(field('Found', 'How many of them OrgIndex knows')),
      missing: z.array(z.string()).meta(field('Not found', 'The domains OrgIndex does not know')),
    })
    .meta(field('Details', 'How many domains were asked for and found, and which were not')),
});
export type FetchResponse = z.infer<typeof FetchResponseSchema>;
