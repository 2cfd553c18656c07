/**
 * v2 location endpoints. The spec gives the item shape and the search endpoint; query parameters and the
 * sibling endpoints are ours (documented in docs/http-api.md, v2 → locations):
 *   GET /locations/search?q=…&location_type=…&parent_id=…&limit=…   ranked name search
 *   GET /locations?parent_id=…&location_type=…&limit=…&offset=…       listing (children of a parent, or all of a type)
 *   GET /locations/{location_id}                                       one item
 * Query values arrive as strings: integers are parsed strictly here (`int_parsing` otherwise), and unknown
 * query parameters are ignored, as FastAPI does (a cache-buster `_=…` must not fail a request).
 */
import * as z from 'zod';
import { boundedString, TEXT_LIMITS } from '../limits.js';
import { addIssue, documentedAs, field, INT_TYPE_MESSAGE, integer } from '../validation.js';

export const LOCATION_TYPES = ['continent', 'country', 'state', 'region', 'district', 'municipality'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

export const LOCATION_LIMITS = {
  searchLimitDefault: 10,
  searchLimitMax: 100,
  listLimitDefault: 100,
  listLimitMax: 1_000,
} as const;

const LOCATION_ID_EXAMPLE = 'Europe/Deutschland/Bayern';

export const LocationItemSchema = z.looseObject({
  location_id: z.string().meta(field('Location id', `The location's id, the names from the continent down, e.g. ${LOCATION_ID_EXAMPLE}`)),
  name: z.string().meta(field('Name', 'The name, as filters take it, e.g. Bayern')),
  location_type: z.string().meta(field('Location type', `What kind of place it is: ${LOCATION_TYPES.join(', ')}`)),
  parent_id: z.string().nullable().meta(field('Parent id', 'The id of the location it lies in, e.g. Europe/Deutschland; empty for a continent')),
  path: z.string().meta(field('Path', 'The names from the continent down, for reading, e.g. Europe / Deutschland / Bayern')),
  doc_count: z.int().nonnegative().meta(field('Organizations', 'How many organizations (that your key may see) are in it')),
});
export type LocationItem = z.infer<typeof LocationItemSchema>;

/** An integer query parameter: a number (from code) or a decimal string (from a URL), within bounds. */
function queryInt(min: number, max: number, fallback: number) {
  const fromText = z.string().transform((text, ctx) => {
    if (/^\s*[+-]?\d+\s*$/.test(text)) return Number(text);
    addIssue(ctx, 'Input should be a valid integer, unable to parse string as an integer', [], { type: 'int_parsing' });
    return z.NEVER;
  });
  return documentedAs(
    z
      .union([z.number(), fromText], { error: INT_TYPE_MESSAGE })
      .pipe(integer().min(min).max(max))
      .default(fallback),
    { type: 'integer', minimum: min, maximum: max, default: fallback },
  );
}
const optionalId = z
  .string()
  .max(TEXT_LIMITS.idLength)
  .optional()
  .transform((s) => (s?.trim() ? s.trim() : null));
const ParentParameter = optionalId.meta(field('Within location', `Only locations inside this one, by its id, e.g. ${LOCATION_ID_EXAMPLE}`));
const LocationTypeParameter = z
  .enum(LOCATION_TYPES)
  .optional()
  .transform((t) => t ?? null)
  .meta(field('Location type', `Only locations of this type: ${LOCATION_TYPES.join(', ')}`));

export const LocationSearchQuerySchema = z.object({
  q: z
    .string()
    .transform((s) => s.trim())
    .pipe(boundedString(TEXT_LIMITS.locationQueryLength, undefined, z.string().min(1, 'q must not be blank')))
    .meta(field('Location name', 'All or part of a place name, e.g. Mün or Bayern')),
  location_type: LocationTypeParameter,
  parent_id: ParentParameter,
  limit: queryInt(1, LOCATION_LIMITS.searchLimitMax, LOCATION_LIMITS.searchLimitDefault).meta(
    field('Maximum', `How many locations at most, 1 to ${LOCATION_LIMITS.searchLimitMax} (default ${LOCATION_LIMITS.searchLimitDefault})`),
  ),
});
export type LocationSearchQueryInput = z.input<typeof LocationSearchQuerySchema>;
export type LocationSearchQuery = z.output<typeof LocationSearchQuerySchema>;

export const LocationListQuerySchema = z
  .object({
    parent_id: ParentParameter,
    location_type: LocationTypeParameter,
    limit: queryInt(1, LOCATION_LIMITS.listLimitMax, LOCATION_LIMITS.listLimitDefault).meta(
      field('Maximum', `How many locations at most, 1 to ${LOCATION_LIMITS.listLimitMax.toLocaleString('en')} (default ${LOCATION_LIMITS.listLimitDefault})`),
    ),
    offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0).meta(field('Skip', 'How many locations to skip, for the next page (default 0)')),
  });
export type LocationListQueryInput = z.input<typeof LocationListQuerySchema>;
export type LocationListQuery = z.output<typeof LocationListQuerySchema>;

export const LocationPathParamsSchema = z.object({
  location_id: z.string().min(1).max(TEXT_LIMITS.idLength).meta(field('Location id', `The id of a location from another location answer, e.g. ${LOCATION_ID_EXAMPLE}`)),
});

/** Search and listing answer the same shape; `count` is the number of items in this response. */
export const LocationListResponseSchema = z.looseObject({
  items: z.array(LocationItemSchema).meta(field('Locations', 'The locations found, best match first')),
  count: z.int().nonnegative().meta(field('Count', 'How many locations this answer holds')),
});
export type LocationListResponse = z.infer<typeof LocationListResponseSchema>;
