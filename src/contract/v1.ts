/**
 * Legacy v1 search interface (paths under /v1 on the legacy base URL).
 * Where the spec leaves layouts open, our choices (documented in docs/http-api.md, Legacy v1):
 *   - `custom_filters` takes the v2 filters object (OR inside a key, AND across keys);
 *   - columns are the v2 selectable columns plus v1's own `description`, `main_contact_mail`,
 *     `main_contact_number`; omitted → `domain, name, country`;
 *   - search size is 1–500 (the spec leaves the maximum open), download size 1–10;
 *   - download needs exactly one of `search_info` and `market_info`;
 *   - close_pit accepts `pit_id` in the query string or the body.
 * The contract reports bad input in the FastAPI layout like every schema here; the v1 routes turn it into
 * the 400 `{"detail": "message"}` the v1 document specifies (src/engine/v1/v1-service.ts).
 */
import * as z from 'zod';
import { CursorSchema, CursorValueSchema, DomainSchema, GEO_LEVELS, SELECTABLE_COLUMNS, UuidSchema, type GeoLevel } from './common.js';
import { boundedString, KeywordTermListSchema, TEXT_LIMITS } from './limits.js';
import { addIssue, integer, WHEN_FIELDS_VALID } from './validation.js';
import { FiltersSchema } from './v2/filters.js';
import { DescribeSchema } from './v2/search.js';

export const V1_DEFAULT_INDEX = 'organizations-*';
export const V1_EXTRA_COLUMNS = ['description', 'main_contact_mail', 'main_contact_number'] as const;
export const V1_COLUMNS = [...SELECTABLE_COLUMNS, ...V1_EXTRA_COLUMNS] as const;
export type V1Column = (typeof V1_COLUMNS)[number];
export const V1_LIMITS = { searchSizeDefault: 25, searchSizeMax: 500, downloadSizeDefault: 10, downloadSizeMax: 10 } as const;

const termList = KeywordTermListSchema.default([]);
const stringList = z.array(boundedString(TEXT_LIMITS.filterValueLength)).max(TEXT_LIMITS.filterValues).default([]);

export const V1KeywordsSchema = z.strictObject({ must_one: termList, must_all: termList, must_not: termList });
export type V1Keywords = z.output<typeof V1KeywordsSchema>;

export const V1LocationsSchema = z.strictObject({
  country: stringList,
  state: stringList,
  region: stringList,
  district: stringList,
  municipality: stringList,
} satisfies Record<GeoLevel, unknown>);
export type V1Locations = z.output<typeof V1LocationsSchema>;

const V1ColumnsSchema = z
  .array(z.enum(V1_COLUMNS))
  .optional()
  .transform((cols): V1Column[] => [...new Set<V1Column>(['domain', ...(cols ?? ['name', 'country'])])]);

const IndexSchema = z.string().min(1).default(V1_DEFAULT_INDEX);

export const V1SearchRequestSchema = z.strictObject({
  search_id: UuidSchema,
  domains: z.array(DomainSchema).max(TEXT_LIMITS.referenceDomains).default([]),
  excludes: z.array(DomainSchema).max(TEXT_LIMITS.excludes).default([]),
  keywords: V1KeywordsSchema.optional(),
  locations: V1LocationsSchema.optional(),
  custom_filters: FiltersSchema.nullable().optional().transform((f) => f ?? null),
  index: IndexSchema,
  size: integer().min(1).max(V1_LIMITS.searchSizeMax).default(V1_LIMITS.searchSizeDefault),
  columns: V1ColumnsSchema,
  pit_id: z.string().max(TEXT_LIMITS.idLength).nullable().optional().transform((p) => p ?? null),
  search_after: CursorSchema.transform((c) => c ?? null),
  semantic_input: DescribeSchema,
});
export type V1SearchRequestInput = z.input<typeof V1SearchRequestSchema>;
export type V1SearchRequest = z.output<typeof V1SearchRequestSchema>;

export const V1SearchResponseSchema = z.looseObject({
  data: z.array(z.looseObject({ domain: z.string() })),
  metadata: z.looseObject({
    search_id: z.string(),
    index: z.string(),
    size: z.int(),
    columns: z.array(z.string()),
    query: z.unknown(),
    total_hits: z.int().nonnegative(),
    total_fetched: z.int().nonnegative(),
    query_type: z.string(),
    pit_id: z.string().nullable(),
    search_after: z.array(CursorValueSchema).nullable(),
  }),
});
export type V1SearchResponse = z.infer<typeof V1SearchResponseSchema>;

export const V1_PARENT_LEVELS = ['all', ...GEO_LEVELS] as const;

export const V1SublocationsRequestSchema = z.strictObject({
  parent_level: z.enum(V1_PARENT_LEVELS),
  parent_value: boundedString(TEXT_LIMITS.locationQueryLength),
  index: IndexSchema,
});
export type V1SublocationsRequestInput = z.input<typeof V1SublocationsRequestSchema>;

export const V1SublocationsResponseSchema = z.looseObject({
  locations: z.array(z.string()),
  level: z.string(),
  total_count: z.int().nonnegative(),
});
export type V1SublocationsResponse = z.infer<typeof V1SublocationsResponseSchema>;

export const V1FetchMarketRequestSchema = z.strictObject({
  index: IndexSchema,
  columns: V1ColumnsSchema,
  domains: z.array(DomainSchema).min(1).max(5_000),
});
export type V1FetchMarketRequestInput = z.input<typeof V1FetchMarketRequestSchema>;

export const V1FetchMarketResponseSchema = z.looseObject({
  data: z.array(z.looseObject({ domain: z.string() })),
  metadata: z.looseObject({
    total_fetched: z.int().nonnegative(),
    index: z.string(),
    columns: z.array(z.string()),
    domains_requested: z.int().nonnegative(),
    domains_found: z.int().nonnegative(),
    missing_domains: z.array(z.string()),
    timestamp: z.string(),
  }),
});
export type V1FetchMarketResponse = z.infer<typeof V1FetchMarketResponseSchema>;

export const DOWNLOAD_FORMATS = ['tsv', 'xlsx', 'parquet'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export const V1DownloadRequestSchema = z
  .strictObject({
    download_id: z.string().min(1).optional(),
    index: IndexSchema,
    size: integer().min(1).max(V1_LIMITS.downloadSizeMax).default(V1_LIMITS.downloadSizeDefault),
    columns: V1ColumnsSchema,
    search_info: z
      .strictObject({ search_id: z.string().min(1), query: z.record(z.string(), z.unknown()) })
      .optional(),
    market_info: z.strictObject({ market_id: z.string().min(1), market: z.array(DomainSchema).min(1).max(5_000) }).optional(),
    download_format: z.enum(DOWNLOAD_FORMATS).default('tsv'),
  })
  .superRefine((req, ctx) => {
    if (!req.search_info === !req.market_info) {
      addIssue(ctx, 'exactly one of search_info and market_info must be given', []);
    }
  }, WHEN_FIELDS_VALID);
export type V1DownloadRequestInput = z.input<typeof V1DownloadRequestSchema>;
export type V1DownloadRequest = z.output<typeof V1DownloadRequestSchema>;

export const V1DownloadResponseSchema = z.looseObject({
  download_url: z.string(),
  metadata: z.looseObject({
    download_id: z.string(),
    user_id: z.string().nullable(),
    file_path: z.string(),
    total_hits: z.int().nonnegative(),
    total_fetched: z.int().nonnegative(),
    index: z.string(),
    timestamp: z.string(),
    download_format: z.enum(DOWNLOAD_FORMATS),
    query_type: z.string(),
  }),
});
export type V1DownloadResponse = z.infer<typeof V1DownloadResponseSchema>;

export const V1ClosePitRequestSchema = z.strictObject({ pit_id: z.string().min(1).max(TEXT_LIMITS.idLength) });
export const V1ClosePitResponseSchema = z.looseObject({ succeeded: z.boolean() });
export type V1ClosePitResponse = z.infer<typeof V1ClosePitResponseSchema>;

/** v1 and language-processing errors other than 422: `{"detail": "message"}`. */
export const DetailMessageSchema = z.looseObject({ detail: z.string() });
