/**
 * Every endpoint of the three interfaces as data: which API (base URL) it lives on, method, path, where
 * its input travels, the schema of that input and of the 200 body, and the accepted credentials.
 * The client builds requests from this table, the server mounts routes from it, and the OpenAPI document
 * and the Power Automate connector are generated from it.
 */
import * as z from 'zod';
import { ValidationError } from './errors.js';
import * as language from './language.js';
import * as v1 from './v1.js';
import { FetchRequestSchema, FetchResponseSchema } from './v2/fetch.js';
import {
  LocationItemSchema,
  LocationListQuerySchema,
  LocationListResponseSchema,
  LocationPathParamsSchema,
  LocationSearchQuerySchema,
} from './v2/locations.js';
import { SearchRequestSchema, SearchResponseSchema } from './v2/search.js';
import { FilterOptionsResponseSchema, HealthResponseSchema } from './v2/service.js';
import { StatsRequestSchema, StatsResponseSchema } from './v2/stats.js';
import { validate, type InputLocation } from './validation.js';

/** The three base URLs: v2 root, legacy root (paths start with /v1), language-processing root (/v1 too). */
export type ApiName = 'v2' | 'v1' | 'language';
export type AuthScheme = 'apiKey' | 'bearer';
export type HttpMethod = 'GET' | 'POST' | 'DELETE';
/** Where the endpoint's input travels: a JSON body, the query string, a path parameter, or nothing. */
export type InputKind = 'body' | 'query' | 'path' | 'none';

export interface Endpoint<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  readonly api: ApiName;
  readonly method: HttpMethod;
  /** Relative to the API's base URL; `{name}` marks a path parameter. */
  readonly path: string;
  readonly input: InputKind;
  readonly request: Input;
  readonly response: Output;
  /** Credentials the endpoint accepts (any one of them suffices). */
  readonly auth: readonly AuthScheme[];
  readonly summary: string;
}

function endpoint<I extends z.ZodType, O extends z.ZodType>(e: Endpoint<I, O>): Endpoint<I, O> {
  return e;
}

const V2_AUTH = ['apiKey'] as const;
const V1_AUTH = ['apiKey', 'bearer'] as const;
const LANGUAGE_AUTH = ['bearer'] as const;
const NoInput = z.undefined();

export const ENDPOINTS = {
  'v2.search': endpoint({ api: 'v2', method: 'POST', path: '/search', input: 'body', request: SearchRequestSchema, response: SearchResponseSchema, auth: V2_AUTH, summary: 'Search organizations by filters, keywords, description or similar domains' }),
  'v2.fetch': endpoint({ api: 'v2', method: 'POST', path: '/fetch', input: 'body', request: FetchRequestSchema, response: FetchResponseSchema, auth: V2_AUTH, summary: 'Current rows for known domains' }),
  'v2.stats': endpoint({ api: 'v2', method: 'POST', path: '/stats', input: 'body', request: StatsRequestSchema, response: StatsResponseSchema, auth: V2_AUTH, summary: 'COUNT buckets over a filtered population' }),
  'v2.filterOptions': endpoint({ api: 'v2', method: 'GET', path: '/filters/options', input: 'none', request: NoInput, response: FilterOptionsResponseSchema, auth: V2_AUTH, summary: 'Allowed categorical filter values' }),
  'v2.health': endpoint({ api: 'v2', method: 'GET', path: '/health', input: 'none', request: NoInput, response: HealthResponseSchema, auth: V2_AUTH, summary: 'Service health' }),
  'v2.locationSearch': endpoint({ api: 'v2', method: 'GET', path: '/locations/search', input: 'query', request: LocationSearchQuerySchema, response: LocationListResponseSchema, auth: V2_AUTH, summary: 'Ranked search over location names' }),
  'v2.locationList': endpoint({ api: 'v2', method: 'GET', path: '/locations', input: 'query', request: LocationListQuerySchema, response: LocationListResponseSchema, auth: V2_AUTH, summary: 'Children of a location, or all locations of a type' }),
  'v2.location': endpoint({ api: 'v2', method: 'GET', path: '/locations/{location_id}', input: 'path', request: LocationPathParamsSchema, response: LocationItemSchema, auth: V2_AUTH, summary: 'One location item' }),
  'v1.search': endpoint({ api: 'v1', method: 'POST', path: '/v1/search', input: 'body', request: v1.V1SearchRequestSchema, response: v1.V1SearchResponseSchema, auth: V1_AUTH, summary: 'Legacy search' }),
  'v1.sublocations': endpoint({ api: 'v1', method: 'POST', path: '/v1/sublocations', input: 'body', request: v1.V1SublocationsRequestSchema, response: v1.V1SublocationsResponseSchema, auth: V1_AUTH, summary: 'Child locations of a parent location' }),
  'v1.fetchMarket': endpoint({ api: 'v1', method: 'POST', path: '/v1/fetch-market', input: 'body', request: v1.V1FetchMarketRequestSchema, response: v1.V1FetchMarketResponseSchema, auth: V1_AUTH, summary: 'Records for a list of domains' }),
  'v1.download': endpoint({ api: 'v1', method: 'POST', path: '/v1/download', input: 'body', request: v1.V1DownloadRequestSchema, response: v1.V1DownloadResponseSchema, auth: V1_AUTH, summary: 'Results as a downloadable file' }),
  'v1.closePit': endpoint({ api: 'v1', method: 'DELETE', path: '/v1/close_pit', input: 'query', request: v1.V1ClosePitRequestSchema, response: v1.V1ClosePitResponseSchema, auth: V1_AUTH, summary: 'Close a point-in-time context' }),
  'language.generateKeywords': endpoint({ api: 'language', method: 'POST', path: '/v1/generate-keywords', input: 'body', request: language.KeywordRequestSchema, response: language.BatchKeywordSchema, auth: LANGUAGE_AUTH, summary: 'Alternative keywords for a list of keywords' }),
  'language.qna': endpoint({ api: 'language', method: 'POST', path: '/v1/qna', input: 'body', request: language.QnaRequestSchema, response: language.QnaResultSchema, auth: LANGUAGE_AUTH, summary: "Answer a question from a domain's pages" }),
  'language.nlpSearch': endpoint({ api: 'language', method: 'POST', path: '/v1/nlp_search', input: 'body', request: language.QueryRequestSchema, response: language.QueryResponseSchema, auth: LANGUAGE_AUTH, summary: 'Natural-language query to search parameters' }),
} as const;

export type EndpointId = keyof typeof ENDPOINTS;

/**
 * Where an OrgIndex server mounts each interface on its one origin: v2 under `/v2`; the v1 and language
 * paths are whole already (they start with `/v1`). Other hosts of an interface may put it elsewhere: a
 * client takes a base URL per interface.
 */
export const SERVED_BASE_PATHS: Readonly<Record<ApiName, string>> = { v2: '/v2', v1: '', language: '' };

/** The path a request to the endpoint takes on an OrgIndex server (`/v2/search`, `/v1/qna`); `{name}` marks a path parameter. */
export function servedPath(endpoint: Pick<Endpoint, 'api' | 'path'>): string {
  return `${SERVED_BASE_PATHS[endpoint.api]}${endpoint.path}`;
}
export type RequestInput<Id extends EndpointId> = z.input<(typeof ENDPOINTS)[Id]['request']>;
export type RequestOutput<Id extends EndpointId> = z.output<(typeof ENDPOINTS)[Id]['request']>;
export type ResponseBody<Id extends EndpointId> = z.output<(typeof ENDPOINTS)[Id]['response']>;

/**
 * An endpoint's input parsed with its schema (defaults applied, values normalised), or the ValidationError
 * of its 422, located where the input travels. The engine checks its callers' inputs with it; the server
 * parses each request with it once, at its edge.
 */
export function parseRequest<Id extends EndpointId>(id: Id, input: unknown): RequestOutput<Id> {
  const endpoint = ENDPOINTS[id];
  const result = validate(endpoint.request, input, endpoint.input as InputLocation);
  if (!result.ok) throw new ValidationError(result.error.detail, 422);
  return result.value as RequestOutput<Id>;
}
