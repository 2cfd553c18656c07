/**
 * The Power Automate custom connector of the v2 interface (dist/connector/, written by `npm run build`):
 * an OpenAPI 2.0 definition generated from the same endpoint table and zod schemas as /openapi.json, so
 * a flow and the server cannot disagree, plus apiProperties.json (the API key as a secure string).
 *
 * Every field's label (`x-ms-summary`) and help (`description`) in the flow designer are the title and
 * description the contract gives it (`field()` in src/contract), so /openapi.json shows the same words.
 *
 * Power Automate's rules shape it: OpenAPI 2.0 only; unique, readable operationIds with summaries and
 * descriptions; no oneOf / anyOf (unions are flattened to their richest member, the others named in the
 * description — similar_to's "domain or object" becomes the object); `null` alternatives become
 * `x-nullable`; categorical filters get dropdowns fed by /filters/options (`x-ms-dynamic-values`); fields
 * a first-time user does not need are `x-ms-visibility: advanced`; responses are typed so flows get
 * output tokens.
 */
import * as z from 'zod';
import { ENDPOINTS, type Endpoint } from '../contract/endpoints.js';
import { documented } from './openapi.js';

type Schema = Record<string, unknown>;

/** The v2 operations a flow can use, in the order the connector lists them. */
const OPERATIONS: { id: keyof typeof ENDPOINTS; operationId: string; summary: string; description: string; important: readonly string[] }[] = [
  { id: 'v2.search', operationId: 'SearchOrganizations', summary: 'Search organizations', description: 'Finds organizations by filters (places, type, size, industry, dates), keywords, a description in plain words, or similarity to known domains. Returns up to 500 rows per call; follow search_after for more.', important: ['filters', 'keywords', 'describe', 'similar_to', 'size', 'columns'] },
  { id: 'v2.fetch', operationId: 'FetchOrganizations', summary: 'Get organizations by domain', description: 'Returns the current row of each known domain (up to 5,000 per call); unknown domains are listed separately.', important: ['domains', 'columns'] },
  { id: 'v2.stats', operationId: 'CountOrganizations', summary: 'Count organizations', description: 'Counts organizations by one or two dimensions (country, type, size, industry, founding date …) over a filtered population, in one request.', important: ['group_by', 'group_by_secondary', 'filters'] },
  { id: 'v2.filterOptions', operationId: 'GetFilterOptions', summary: 'Get filter values', description: 'The allowed values of each categorical filter, with how many organizations have each (feeds the dropdowns of the other actions).', important: [] },
  { id: 'v2.locationSearch', operationId: 'SearchLocations', summary: 'Search location names', description: 'Ranked search over the names of countries, states, regions, districts and municipalities, to find the exact name a filter needs.', important: ['q'] },
  { id: 'v2.locationList', operationId: 'ListLocations', summary: 'List locations', description: 'The children of a location, or all locations of one type.', important: [] },
  { id: 'v2.location', operationId: 'GetLocation', summary: 'Get a location', description: 'One location item by its id.', important: ['location_id'] },
  { id: 'v2.health', operationId: 'GetHealth', summary: 'Check the service', description: 'Whether the service is up and its index loaded.', important: [] },
];

/** Filters whose values /filters/options lists: a dropdown in the flow designer. */
const DYNAMIC_FILTERS = ['country', 'state', 'region', 'district', 'municipality', 'organization_type', 'organization_size', 'source', 'nace_code', 'company_register_court', 'summary_keywords'];

const UNSUPPORTED_KEYWORDS = ['$schema', '$id', 'propertyNames', 'patternProperties', 'if', 'then', 'else', 'not', 'examples', 'contentEncoding', 'contentMediaType', 'dependentRequired', 'unevaluatedProperties', '$comment', 'id'];

/** Lowers one JSON Schema (draft-7, from zod) to OpenAPI 2.0's schema object, hoisting definitions. */
class Lowering {
  readonly definitions: Record<string, Schema> = {};

  schemaOf(zodSchema: z.ZodType, io: 'input' | 'output', name: string): Schema {
    const raw = z.toJSONSchema(zodSchema, { io, unrepresentable: 'any', target: 'draft-7', override: documented }) as Schema;
    const defs = (raw.definitions ?? {}) as Record<string, Schema>;
    delete raw.definitions;
    const refs = new Map(Object.keys(defs).map((key) => [`#/definitions/${key}`, `#/definitions/${name}_${key.replace(/^_+/, '')}`]));
    for (const [key, def] of Object.entries(defs)) this.definitions[`${name}_${key.replace(/^_+/, '')}`] = this.lower(def, refs);
    return this.lower(raw, refs);
  }

  lower(input: Schema, refs: Map<string, string>): Schema {
    let schema: Schema = { ...input };
    if (typeof schema.$ref === 'string') {
      const target = refs.get(schema.$ref) ?? schema.$ref;
      // A definition lowered to "any value" (a JSON union) is inlined: no reference to a schema that says nothing.
      const definition = this.definitions[target.replace('#/definitions/', '')];
      return definition && definition.type === undefined && !definition.properties ? { ...definition } : { $ref: target };
    }
    for (const keyword of UNSUPPORTED_KEYWORDS) Reflect.deleteProperty(schema, keyword);
    schema = this.flattenUnion(schema, refs);
    if (Array.isArray(schema.type)) {
      const types = (schema.type as string[]).filter((type) => type !== 'null');
      if (types.length < (schema.type as string[]).length) schema['x-nullable'] = true;
      schema.type = types[0] ?? 'string';
    }
    if (schema.const !== undefined) {
      schema.enum = [schema.const];
      delete schema.const;
    }
    if (Array.isArray(schema.enum) && schema.enum.includes(null)) {
      schema.enum = schema.enum.filter((value) => value !== null);
      schema['x-nullable'] = true;
    }
    // zod's safe-integer bounds say nothing to a flow author.
    if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
    if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
    for (const bound of ['Minimum', 'Maximum'] as const) {
      const exclusive = schema[`exclusive${bound}`];
      if (typeof exclusive === 'number') {
        schema[bound.toLowerCase()] = exclusive;
        schema[`exclusive${bound}`] = true;
      }
    }
    if (schema.properties) schema.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).map(([key, value]) => [key, this.lower(value, refs)]));
    if (Array.isArray(schema.items)) schema.items = schema.items[0] ?? {};
    if (schema.items && typeof schema.items === 'object') schema.items = this.lower(schema.items as Schema, refs);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') schema.additionalProperties = this.lower(schema.additionalProperties as Schema, refs);
    if (schema.type === 'array' && !schema.items) schema.items = {};
    return schema;
  }

  /**
   * anyOf / oneOf → one member, since OpenAPI 2.0 has no unions: a union of every JSON type (a cursor, say)
   * becomes an untyped schema (any value passes through); else the member matching the default, else the
   * richest (an object over a scalar). `null` members → x-nullable. The description says what the
   * connector cannot send, so a flow author is not promised it.
   */
  private flattenUnion(schema: Schema, refs: Map<string, string>): Schema {
    const members = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (!members) return schema;
    const { anyOf: _any, oneOf: _one, ...rest } = schema;
    const nonNull = members.filter((member) => member.type !== 'null');
    const nullable = nonNull.length < members.length;
    const resolved = (member: Schema): Schema => (typeof member.$ref === 'string' ? (this.definitions[(refs.get(member.$ref) ?? member.$ref).replace('#/definitions/', '')] ?? member) : member);
    const typeOf = (member: Schema): string => {
      const type = resolved(member).type;
      return typeof type === 'string' ? type : resolved(member).properties ? 'object' : 'value';
    };
    const types = new Set(nonNull.map(typeOf));
    if (['string', 'number', 'boolean', 'object', 'array'].every((type) => types.has(type) || (type === 'number' && types.has('integer')))) {
      return { ...rest, ...(nullable ? { 'x-nullable': true } : {}) };
    }
    const rank = (member: Schema): number => (typeOf(member) === 'object' ? 2 : typeOf(member) === 'array' ? 1 : 0);
    const typeOfDefault = rest.default === undefined || rest.default === null ? null : typeof rest.default;
    const chosen = nonNull.find((member) => typeOfDefault !== null && typeOf(member) === typeOfDefault) ?? [...nonNull].sort((a, b) => rank(b) - rank(a))[0] ?? {};
    const others = nonNull.filter((member) => member !== chosen).map(typeOf);
    const description = [rest.description, others.length > 0 ? `(The service also takes a ${others.join(' or a ')} here; this connector sends the ${typeOf(chosen)} form.)` : ''].filter(Boolean).join(' ');
    const lowered = this.lower(chosen, refs);
    return { ...lowered, ...rest, ...(description ? { description } : {}), ...(nullable ? { 'x-nullable': true } : {}) };
  }

  /** Definitions no schema refers to any more (a flattened union's members) are left out. */
  referenced(document: unknown): Record<string, Schema> {
    const used = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) {
          if (key === '$ref' && typeof item === 'string') {
            const name = item.replace('#/definitions/', '');
            if (!used.has(name)) {
              used.add(name);
              visit(this.definitions[name]);
            }
          } else visit(item);
        }
      }
    };
    visit(document);
    return Object.fromEntries(Object.entries(this.definitions).filter(([name]) => used.has(name)));
  }
}

/** Advanced fields and dropdowns on a request body's top-level properties. */
function decorate(body: Schema, important: readonly string[]): Schema {
  const properties = (body.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(properties)) {
    property['x-ms-visibility'] = important.includes(name) ? 'important' : 'advanced';
    if (name === 'filters' && property.properties) {
      for (const [filter, values] of Object.entries(property.properties as Record<string, Schema>)) {
        if (DYNAMIC_FILTERS.includes(filter) && values.type === 'array' && values.items) {
          (values.items as Schema)['x-ms-dynamic-values'] = { operationId: 'GetFilterOptions', 'value-collection': `options/${filter}`, 'value-path': 'value', 'value-title': 'value' };
        }
      }
    }
  }
  return body;
}

/** The contract's title of every schema becomes its label in the flow designer (Swagger 2.0 has `title`, Power Automate shows `x-ms-summary`). */
function labelled(value: unknown): void {
  if (Array.isArray(value)) value.forEach(labelled);
  else if (value && typeof value === 'object') {
    const schema = value as Schema;
    if (typeof schema.title === 'string') {
      schema['x-ms-summary'] = schema.title;
      delete schema.title;
    }
    Object.values(schema).forEach(labelled);
  }
}

function parametersOf(lowering: Lowering, endpoint: Endpoint, name: string, important: readonly string[]): Schema[] {
  if (endpoint.input === 'body') {
    const schema = decorate(lowering.schemaOf(endpoint.request, 'input', `${name}Request`), important);
    return [{ name: 'body', in: 'body', required: true, 'x-ms-summary': 'Request', description: schema.description, schema }];
  }
  if (endpoint.input !== 'query' && endpoint.input !== 'path') return [];
  const object = lowering.schemaOf(endpoint.request, 'input', `${name}Parameters`);
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries((object.properties ?? {}) as Record<string, Schema>).map(([parameter, schema]) => {
    const { description, title, default: fallback, ...rest } = schema;
    const type = rest.type === 'object' || rest.type === undefined ? 'string' : rest.type;
    return {
      name: parameter,
      in: endpoint.input,
      required: endpoint.input === 'path' || required.has(parameter),
      type,
      ...(type === 'array' ? { items: rest.items ?? { type: 'string' }, collectionFormat: 'multi' } : {}),
      ...(rest.enum ? { enum: rest.enum } : {}),
      ...(rest.format ? { format: rest.format } : {}),
      ...(typeof rest.minimum === 'number' ? { minimum: rest.minimum } : {}),
      ...(typeof rest.maximum === 'number' ? { maximum: rest.maximum } : {}),
      ...(fallback !== undefined && fallback !== null ? { default: fallback } : {}),
      description,
      'x-ms-summary': title,
      'x-ms-visibility': important.includes(parameter) || endpoint.input === 'path' ? 'important' : 'advanced',
    };
  });
}

/** The categories Power Automate lists connectors under (a connector names one or two). */
export const CONNECTOR_CATEGORIES = [
  'AI', 'Business Management', 'Business Intelligence', 'Collaboration', 'Commerce', 'Communication', 'Content and Files', 'Finance', 'Data',
  'Human Resources', 'Internet of Things', 'IT Operations', 'Lifestyle and Entertainment', 'Marketing', 'Productivity', 'Sales and CRM', 'Security',
  'Social Media', 'Website',
] as const;

export const DEFAULT_CONNECTOR_HOST = 'api.orgindex.example';
export const DEFAULT_CONNECTOR_CATEGORIES: readonly string[] = ['Data', 'Sales and CRM'];

export interface ConnectorOptions {
  /** Where the service is reached (host[:port]); the connector's users change it in the wizard when self-hosting. */
  host?: string;
  /** The service's website, shown on the connector's page (default https://<host>). */
  website?: string;
  /** The service's privacy policy (default: the website). */
  privacyPolicy?: string;
  /** One or two of CONNECTOR_CATEGORIES (default Data, Sales and CRM). */
  categories?: readonly string[];
}

/** An absolute http(s) address, or an error naming the setting. */
function webAddress(setting: string, text: string): string {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  if (!url || !/^https?:$/.test(url.protocol)) throw new Error(`The connector's ${setting} must be an http(s) address such as https://orgindex.example.com; got "${text}"`);
  return text;
}

/** x-ms-connector-metadata: what the connector's page in Power Automate shows beside its actions. */
function connectorMetadata(host: string, options: ConnectorOptions): Schema[] {
  const website = webAddress('website', options.website ?? `https://${host}`);
  const privacyPolicy = webAddress('privacy policy', options.privacyPolicy ?? website);
  const categories = options.categories ?? DEFAULT_CONNECTOR_CATEGORIES;
  const unknown = categories.filter((category) => !(CONNECTOR_CATEGORIES as readonly string[]).includes(category));
  if (categories.length < 1 || categories.length > 2 || unknown.length > 0) {
    throw new Error(`The connector needs one or two categories of: ${CONNECTOR_CATEGORIES.join(', ')}; got ${categories.length === 0 ? 'none' : categories.map((category) => `"${category}"`).join(', ')}`);
  }
  return [
    { propertyName: 'Website', propertyValue: website },
    { propertyName: 'Privacy policy', propertyValue: privacyPolicy },
    { propertyName: 'Categories', propertyValue: categories.join(';') },
  ];
}

/** apiDefinition.swagger.json. */
export function connectorDefinition(options: ConnectorOptions = {}): Schema {
  const host = options.host ?? DEFAULT_CONNECTOR_HOST;
  const metadata = connectorMetadata(host, options);
  const lowering = new Lowering();
  const paths: Record<string, Record<string, Schema>> = {};
  for (const { id, operationId, summary, description, important } of OPERATIONS) {
    const endpoint = ENDPOINTS[id] as Endpoint;
    const path = (paths[endpoint.path] ??= {});
    path[endpoint.method.toLowerCase()] = {
      operationId,
      summary,
      description,
      'x-ms-visibility': id === 'v2.health' || id === 'v2.location' ? 'advanced' : 'important',
      parameters: parametersOf(lowering, endpoint, operationId, important),
      responses: {
        '200': { description: 'OK', schema: lowering.schemaOf(endpoint.response, 'output', `${operationId}Response`) },
        default: { description: 'An error: 401 bad key, 422 invalid input (detail says which field), 429 rate limit or monthly quota (Retry-After says when)' },
      },
    };
  }
  const definitions = lowering.referenced(paths);
  labelled(paths);
  labelled(definitions);
  return {
    swagger: '2.0',
    info: { title: 'OrgIndex', version: '2.0.0', description: 'Search, enrich and count organizations identified by their web domain.', contact: { name: 'OrgIndex' } },
    host,
    basePath: '/v2',
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json'],
    paths,
    definitions,
    securityDefinitions: { api_key: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    security: [{ api_key: [] }],
    'x-ms-connector-metadata': metadata,
  };
}

/** apiProperties.json: the connection asks for the API key, kept as a secure string. */
export function connectorProperties(): Schema {
  return {
    properties: {
      connectionParameters: {
        api_key: {
          type: 'securestring',
          uiDefinition: { displayName: 'API key', description: 'Your OrgIndex API key (sent as x-api-key)', tooltip: 'Find it in your OrgIndex account, or ask the administrator of your OrgIndex server', constraints: { tabIndex: 2, clearText: false, required: 'true' } },
        },
      },
      iconBrandColor: '#0F6CBD',
      capabilities: [],
      publisher: 'OrgIndex',
      stackOwner: 'OrgIndex',
    },
  };
}
