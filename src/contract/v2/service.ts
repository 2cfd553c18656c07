/** v2 GET /filters/options, GET /health, and the service description a server answers at / and /v2. */
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

/** One interface of the service as its description names it. */
export const ServiceInterfaceSchema = z.looseObject({
  name: z.enum(['v2', 'v1', 'language']).meta(field('Interface', 'v2, the legacy v1, or language processing')),
  base_path: z.string().meta(field('Base path', 'Where a client of this interface points its base URL, below server_url: /v2 for v2, / for the others (their paths start with /v1)')),
  credentials: z.array(z.string()).meta(field('Credentials', 'What a request may authenticate with: the x-api-key header, a bearer JWT in Authorization')),
  endpoints: z.array(z.string()).meta(field('Endpoints', 'Method and path of each endpoint on this server, e.g. POST /v2/search')),
});

/**
 * What a server is, for someone who opens its root: no key needed, no quota spent. Links are paths below
 * `server_url`; the documentation lives in the OrgIndex repository (the server serves no pages of it).
 */
export const ServiceDescriptionSchema = z.looseObject({
  name: z.string().meta(field('Name', 'OrgIndex')),
  version: z.string().meta(field('Version', 'The release of the server, e.g. 0.1.0')),
  description: z.string().meta(field('Description', 'What the service does, in one sentence')),
  server_url: z.string().meta(field('Server URL', 'The public URL of the server, else the address and port the request reached')),
  interfaces: z.array(ServiceInterfaceSchema).meta(field('Interfaces', 'The three interfaces this server serves')),
  links: z
    .looseObject({
      openapi: z.string().meta(field('OpenAPI', 'The OpenAPI 3.1 document of all three interfaces')),
      health: z.string().meta(field('Health', 'Whether the service is up and its index loaded; no key needed')),
    })
    .meta(field('Links', 'Paths below server_url')),
  docs: z.array(z.string()).meta(field('Documentation', 'Pages of the OrgIndex repository that describe this API, e.g. docs/http-api.md')),
});
export type ServiceDescription = z.infer<typeof ServiceDescriptionSchema>;
