/**
 * The OpenAPI 3.1 document of the served interfaces, generated from the contract's endpoint table and its
 * zod schemas (zod's own JSON Schema output, draft 2020-12, which OpenAPI 3.1 uses as is): the server and
 * this document cannot disagree. Request bodies describe what a client may send (zod's input side),
 * responses what it receives (output side).
 */
import * as z from 'zod';
import { ENDPOINTS, SERVED_BASE_PATHS, servedPath, type ApiName, type Endpoint } from '../contract/endpoints.js';
import { ValidationErrorBodySchema } from '../contract/validation.js';
import { ServiceDescriptionSchema } from '../contract/v2/service.js';

type JsonSchema = Record<string, unknown>;

/** Where the server answers this document. */
export const OPENAPI_PATH = '/openapi.json';
/** Where the server describes itself (routes/service.ts): its root, and the v2 root that `orgindex serve` prints. */
export const DESCRIPTION_PATHS = ['/', SERVED_BASE_PATHS.v2] as const;

/**
 * Where the contract says how a schema is to be documented (`documentedAs`), that replaces zod's rendering;
 * the field's title and description (its `.meta`) stay.
 */
export function documented(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const meta = z.globalRegistry.get(ctx.zodSchema as z.ZodType) as { openapi?: JsonSchema; title?: string; description?: string } | undefined;
  if (!meta?.openapi) return;
  for (const key of Object.keys(ctx.jsonSchema)) Reflect.deleteProperty(ctx.jsonSchema, key);
  const { title, description } = meta;
  Object.assign(ctx.jsonSchema, meta.openapi, title === undefined ? {} : { title }, description === undefined ? {} : { description });
}

/**
 * Shared definitions hoisted out of the generated schemas: zod puts reused and recursive parts (the
 * JSON cursor, for one) under the schema's own `$defs`, whose `#/$defs/…` pointers would resolve against
 * the document root inside OpenAPI. They move to `components/schemas` under a unique name.
 */
class Definitions {
  readonly schemas: Record<string, JsonSchema> = {};

  add(schema: z.ZodType, io: 'input' | 'output', name: string): JsonSchema {
    const { $schema: _dialect, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', override: documented }) as JsonSchema;
    const defs = ($defs ?? {}) as Record<string, JsonSchema>;
    const renamed = new Map(Object.keys(defs).map((key) => [`#/$defs/${key}`, `#/components/schemas/${name}_${key.replace(/^_+/, '')}`]));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? (renamed.get(v) ?? v) : rewrite(v)]));
      }
      return value;
    };
    for (const [key, def] of Object.entries(defs)) this.schemas[`${name}_${key.replace(/^_+/, '')}`] = rewrite(def) as JsonSchema;
    return rewrite(rest) as JsonSchema;
  }
}

const errorResponse = (description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
});

const RATE_LIMIT_HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Requests-Limit': { description: 'Monthly request quota of the key', schema: { type: 'integer' } },
  'X-RateLimit-Requests-Remaining': { description: 'Requests a new request can use now: the monthly quota less the requests counted and those in flight (0: the next request is refused)', schema: { type: 'integer' } },
  'X-RateLimit-Results-Limit': { description: 'Monthly quota of rows from /search and /fetch', schema: { type: 'integer' } },
  'X-RateLimit-Results-Remaining': { description: 'Rows available now: the monthly quota less the rows counted and those held by requests in flight', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the monthly quotas reset (ISO 8601, UTC)', schema: { type: 'string', format: 'date-time' } },
};

/** Query or path parameters from an object schema's properties. */
function parameters(defs: Definitions, name: string, schema: z.ZodType, where: 'query' | 'path'): JsonSchema[] {
  const object = defs.add(schema, 'input', name);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: where, required: where === 'path' || required.has(name), schema: property }));
}

/** Node's HTTP parser answers these before any route runs (http-edge.ts), so every operation may give them. */
const MALFORMED = 'malformed request (a URL with characters that must be percent-encoded, say)';
const HEADERS_TOO_LARGE = { '431': errorResponse('Request headers (or the query string) are too large') };

/** The answers other than 200 a route may give: v2's statuses, v1's (400 / 403) and the language interface's (400 / 401 / 403). */
function errorResponses(id: string, endpoint: Endpoint): JsonSchema {
  const open = id === 'v2.health';
  const body = endpoint.input === 'body';
  if (endpoint.api === 'v1' || endpoint.api === 'language') {
    return {
      '400': errorResponse(`${body ? 'Invalid parameters, a body that is not valid JSON' : 'Invalid parameters'}, or a ${MALFORMED}`),
      ...(endpoint.api === 'language' ? { '401': errorResponse('Missing or invalid bearer token') } : {}),
      '403': errorResponse(endpoint.api === 'v1' ? 'Missing or invalid API key or token' : 'The token\'s groups do not give access'),
      ...(body ? { '413': errorResponse('The body is too large'), '415': errorResponse('The body is not UTF-8 JSON') } : {}),
      ...(endpoint.api === 'v1' ? { '429': errorResponse(id === 'v1.download' ? 'Rate limit or monthly quota of the API key exceeded, or the caller already keeps 20 download files' : 'Rate limit or monthly quota of the API key exceeded') } : {}),
      '500': errorResponse('Unexpected server error'),
      ...(id === 'v1.search' ? { '503': { ...errorResponse('Every point-in-time context the service keeps is live; Retry-After says when one expires'), headers: { 'Retry-After': { schema: { type: 'integer' } } } } } : {}),
      ...(id === 'v1.download' ? { '503': { ...errorResponse('The download store is full (files or bytes); Retry-After says when a file expires'), headers: { 'Retry-After': { schema: { type: 'integer' } } } } } : {}),
      ...HEADERS_TOO_LARGE,
    };
  }
  return {
    '400': errorResponse(body ? `The body is not valid JSON or nested too deeply, or a ${MALFORMED}` : `A ${MALFORMED}`),
    ...(body
      ? {
          '413': errorResponse('The body is too large'),
          '415': errorResponse('The body is not UTF-8 JSON'),
        }
      : {}),
    ...(open ? {} : { '401': errorResponse('Missing or invalid API key') }),
    ...(id === 'v2.stats' ? { '403': errorResponse('Not allowed for the key (explain needs an admin key)') } : {}),
    ...(id === 'v2.location' ? { '404': errorResponse('No such location (or none the key may see)') } : {}),
    ...(endpoint.input === 'none' ? {} : { '422': { description: 'Validation error', content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } } } }),
    ...(open ? {} : { '429': { ...errorResponse('Rate limit or monthly quota exceeded; Retry-After says when to retry'), headers: { 'Retry-After': { schema: { type: 'integer' } } } } }),
    '500': errorResponse('Unexpected server error'),
    ...(open ? {} : { '503': errorResponse('The index is not loaded') }),
    ...HEADERS_TOO_LARGE,
  };
}

const SECURITY: Record<string, JsonSchema[]> = {
  v2: [{ ApiKeyHeader: [] }],
  v1: [{ ApiKeyHeader: [] }, { BearerToken: [] }],
  language: [{ BearerToken: [] }],
};

function operation(defs: Definitions, id: string, endpoint: Endpoint): JsonSchema {
  const open = id === 'v2.health';
  const operationId = id.replace('.', '_');
  const limited = !open && endpoint.api !== 'language';
  const op: JsonSchema = {
    operationId,
    summary: endpoint.summary,
    tags: [endpoint.api],
    security: open ? [] : SECURITY[endpoint.api],
    responses: {
      '200': {
        description: 'OK',
        ...(limited ? { headers: RATE_LIMIT_HEADERS } : {}),
        content: { 'application/json': { schema: defs.add(endpoint.response, 'output', `${operationId}_response`) } },
      },
      ...errorResponses(id, endpoint),
    },
  };
  if (endpoint.input === 'body') {
    op.requestBody = { required: true, content: { 'application/json': { schema: defs.add(endpoint.request, 'input', `${operationId}_request`) } } };
  } else if (endpoint.input === 'query' || endpoint.input === 'path') {
    op.parameters = parameters(defs, `${operationId}_${endpoint.input}`, endpoint.request, endpoint.input);
  }
  return op;
}

/** The description at one of its paths: open to all, like health. */
function descriptionOperation(path: string): JsonSchema {
  return {
    operationId: path === '/' ? 'service_description' : `service_description_${path.replace(/\W/g, '')}`,
    summary: 'What this server is: name, version, interfaces and their paths, links',
    tags: ['service'],
    security: [],
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/ServiceDescription' } } } },
      '400': errorResponse(`A ${MALFORMED}`),
      '500': errorResponse('Unexpected server error'),
      ...HEADERS_TOO_LARGE,
    },
  };
}

export interface OpenApiOptions {
  /** The interfaces described (default all three). */
  apis?: readonly ApiName[];
  /**
   * Where clients reach the server, without a trailing slash (the server passes its public URL, else the
   * origin the request's connection reached); default "/", the document's own origin.
   */
  serverUrl?: string;
}

/**
 * The terms of use of the service: OrgIndex is not released under a public licence, so its document names
 * none ("LicenseRef-" marks a licence that is not on the SPDX list).
 */
export const API_LICENSE = { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-OrgIndex-Proprietary' } as const;

/** The document for the interfaces this server serves: v2, the legacy v1 and language processing. */
export function openApiDocument({ apis = ['v2', 'v1', 'language'], serverUrl = '/' }: OpenApiOptions = {}): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = Object.fromEntries(DESCRIPTION_PATHS.map((path) => [path, { get: descriptionOperation(path) }]));
  const defs = new Definitions();
  for (const [id, endpoint] of Object.entries(ENDPOINTS) as [string, Endpoint][]) {
    if (!apis.includes(endpoint.api)) continue;
    const path = servedPath(endpoint);
    paths[path] ??= {};
    paths[path][endpoint.method.toLowerCase()] = operation(defs, id, endpoint);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'OrgIndex',
      version: '2.0.0',
      description: 'Search, fetch and count organizations identified by their web domain: the v2 interface, the legacy v1 search interface and the language-processing interface, served by OrgIndex.',
      license: API_LICENSE,
    },
    servers: [{ url: serverUrl, description: 'This OrgIndex server' }],
    paths,
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        BearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: {
        ErrorDetail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
        HTTPValidationError: defs.add(ValidationErrorBodySchema, 'output', 'HTTPValidationError'),
        ServiceDescription: defs.add(ServiceDescriptionSchema, 'output', 'ServiceDescription'),
        ...defs.schemas,
      },
    },
  };
}
