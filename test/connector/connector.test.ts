/**
 * The Power Automate custom connector (src/server/connector.ts → dist/connector/): validated as OpenAPI 2.0
 * by @apidevtools/swagger-parser (the Swagger 2.0 JSON Schema and every $ref), then Power Automate's own
 * rules, which a generic validator does not know, checked one by one. The build script is run too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { CONNECTOR_CATEGORIES, connectorDefinition, connectorProperties } from '../../src/server/connector.js';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import { TEXT_LIMITS } from '../../src/contract/limits.js';

type Json = Record<string, unknown>;
const definition = connectorDefinition() as Json & { paths: Record<string, Record<string, Json>>; definitions: Record<string, Json> };
const operations = Object.entries(definition.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

/** Every schema object reachable from the document, with where it is. */
function* walk(value: unknown, where: string): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* walk(item, `${where}[${String(i)}]`);
  } else if (value && typeof value === 'object') {
    yield [where, value as Json];
    for (const [key, item] of Object.entries(value)) yield* walk(item, `${where}.${key}`);
  }
}

test('a valid OpenAPI 2.0 document (swagger-parser: schema and references)', async () => {
  expect(definition.swagger).toBe('2.0');
  await expect(SwaggerParser.validate(structuredClone(definition) as never)).resolves.toBeDefined();
});

test('Power Automate rules: unique readable operationIds with summaries and descriptions, every v2 route, typed responses', () => {
  const ids = operations.map(({ operation }) => operation.operationId as string);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.sort()).toEqual(['CountOrganizations', 'FetchOrganizations', 'GetFilterOptions', 'GetHealth', 'GetLocation', 'ListLocations', 'SearchLocations', 'SearchOrganizations']);
  for (const { operation } of operations) {
    expect(operation.operationId).toMatch(/^[A-Z][A-Za-z]+$/);
    expect(String(operation.summary).length).toBeGreaterThan(5);
    // Power Automate shows the summary as the action's name: no trailing period, at most 80 characters.
    expect(String(operation.summary)).toMatch(/^[^.]{1,80}$/);
    expect(String(operation.description).length).toBeGreaterThan(20);
    const ok = (operation.responses as Record<string, Json>)['200'] as Json;
    expect((ok.schema as Json).type).toBe('object');
    expect(Object.keys((ok.schema as Json).properties as Json).length).toBeGreaterThan(0);
  }
  const v2Paths = Object.values(ENDPOINTS).filter((endpoint) => endpoint.api === 'v2').map((endpoint) => `${endpoint.method.toLowerCase()} ${endpoint.path}`);
  expect(operations.map(({ path, method }) => `${method} ${path}`).sort()).toEqual(v2Paths.sort());
});

test('no oneOf / anyOf / allOf or other keywords OpenAPI 2.0 lacks; unions flattened (similar_to takes the object form)', () => {
  for (const [where, schema] of walk(definition, '$')) {
    for (const keyword of ['oneOf', 'anyOf', 'allOf', 'const', 'nullable', 'prefixItems', '$defs', 'propertyNames']) expect([where, keyword in schema]).toEqual([where, false]);
    if (Array.isArray(schema.type)) throw new Error(`${where}: a type list`);
  }
  const body = ((definition.paths['/search']?.post?.parameters as Json[])[0]?.schema as Json).properties as Record<string, Json>;
  const similar = body.similar_to as Json;
  expect(similar.type).toBe('array');
  expect(((similar.items as Json).properties as Json).domain).toMatchObject({ type: 'string', maxLength: TEXT_LIMITS.domainLength });
  // The description does not promise what the connector cannot send.
  expect(String((similar.items as Json).description)).toContain('The service also takes a string here; this connector sends the object form.');
  // A cursor (any JSON value) passes through untyped, so a search_after from one answer can be sent back.
  const cursor = body.search_after as Json;
  expect([cursor.type, cursor.items]).toEqual(['array', { 'x-nullable': true }]);
  expect(JSON.stringify(definition)).not.toContain('9007199254740991');
});

test('dropdowns from /filters/options, advanced fields hidden, the API key a secure string sent as x-api-key', () => {
  const body = ((definition.paths['/search']?.post?.parameters as Json[])[0]?.schema as Json).properties as Record<string, Json>;
  const filters = (body.filters as Json).properties as Record<string, Json>;
  expect((filters.organization_type?.items as Json)['x-ms-dynamic-values']).toEqual({ operationId: 'GetFilterOptions', 'value-collection': 'options/organization_type', 'value-path': 'value', 'value-title': 'value' });
  for (const [where, schema] of walk(definition, '$')) {
    const dynamic = schema['x-ms-dynamic-values'] as Json | undefined;
    if (dynamic) expect([where, operations.some(({ operation }) => operation.operationId === dynamic.operationId)]).toEqual([where, true]);
    if ('x-ms-visibility' in schema) expect(['important', 'advanced', 'internal']).toContain(schema['x-ms-visibility']);
  }
  expect([body.describe?.['x-ms-visibility'], body.search_after?.['x-ms-visibility'], body.explain?.['x-ms-visibility']]).toEqual(['important', 'advanced', 'advanced']);
  expect(definition.securityDefinitions).toEqual({ api_key: { type: 'apiKey', in: 'header', name: 'x-api-key' } });
  const properties = connectorProperties() as { properties: { connectionParameters: Record<string, { type: string }> } };
  expect(properties.properties.connectionParameters).toEqual({ api_key: expect.objectContaining({ type: 'securestring' }) as unknown });
});

/** Every parameter, and every property of every schema (recursively, definitions too), with where it is. */
function* fields(document: Json): Generator<[string, Json]> {
  for (const { path, method, operation } of operations) {
    for (const parameter of operation.parameters as Json[]) yield [`${method} ${path} parameter ${String(parameter.name)}`, parameter];
  }
  for (const [where, schema] of walk(document, '$')) {
    const properties = schema.properties;
    // A schema's properties (an object named "properties" inside a properties map is a field, not a schema).
    if (properties && typeof properties === 'object' && !Array.isArray(properties) && !where.endsWith('.properties')) {
      for (const [name, property] of Object.entries(properties as Record<string, Json>)) yield [`${where}.properties.${name}`, property];
    }
  }
}

test('every parameter and every schema property has a label (x-ms-summary) and help (description) for the flow designer', () => {
  const seen = [...fields(definition)];
  // The three body requests and their answers, the location parameters: well over a hundred fields.
  expect(seen.length).toBeGreaterThan(150);
  const lacking = seen.filter(([, field]) => !(typeof field.description === 'string' && field.description.trim().length > 0 && typeof field['x-ms-summary'] === 'string' && field['x-ms-summary'].trim().length > 0)).map(([where]) => where);
  expect(lacking).toEqual([]);
  for (const [where, field] of seen) {
    const label = field['x-ms-summary'] as string;
    const help = field.description as string;
    // A label is a few words, not a sentence or a field name; the help says more than the label.
    expect([where, label.length <= 30 && !label.includes('_') && !label.endsWith('.')]).toEqual([where, true]);
    expect([where, help.length > label.length && help !== label]).toEqual([where, true]);
    // Swagger 2.0 parameters have no title; schemas carry the label only once.
    expect([where, 'title' in field]).toEqual([where, false]);
  }
  // The body parameters of the three POST actions are explained too.
  for (const path of ['/search', '/fetch', '/stats']) {
    const body = (definition.paths[path]?.post?.parameters as Json[])[0]!;
    expect([path, body.in, String(body.description).length > 20]).toEqual([path, 'body', true]);
  }
});

test('the words come from the contract: /openapi.json shows the same title and description', async () => {
  const { openApiDocument } = await import('../../src/server/openapi.js');
  const openapi = openApiDocument() as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Json }> } }>> };
  const filters = (openapi.paths['/v2/search']!.post!.requestBody.content['application/json']!.schema.properties as Record<string, Json>).filters!;
  // OpenAPI 3.1 writes "filters or null" as a union: the object member holds the filters.
  const country = ((filters.anyOf as Json[]).find((member) => member.properties)!.properties as Record<string, Json>).country!;
  expect([filters.title, country.title]).toEqual(['Filters', 'Country']);
  const connectorCountry = (((definition.paths['/search']?.post?.parameters as Json[])[0]!.schema as Json).properties as Record<string, Json>).filters!.properties as Record<string, Json>;
  expect([country.title, country.description]).toEqual([connectorCountry.country!['x-ms-summary'], connectorCountry.country!.description]);
});

test('connector metadata: website, privacy policy and categories, with defaults and set at build', () => {
  expect(definition['x-ms-connector-metadata']).toEqual([
    { propertyName: 'Website', propertyValue: 'https://api.orgindex.example' },
    { propertyName: 'Privacy policy', propertyValue: 'https://api.orgindex.example' },
    { propertyName: 'Categories', propertyValue: 'Data;Sales and CRM' },
  ]);
  const configured = connectorDefinition({ host: 'orgindex.example.com', website: 'https://www.example.com/orgindex', privacyPolicy: 'https://www.example.com/privacy', categories: ['Business Intelligence'] });
  expect(configured['x-ms-connector-metadata']).toEqual([
    { propertyName: 'Website', propertyValue: 'https://www.example.com/orgindex' },
    { propertyName: 'Privacy policy', propertyValue: 'https://www.example.com/privacy' },
    { propertyName: 'Categories', propertyValue: 'Business Intelligence' },
  ]);
  // The host alone moves the defaults with it.
  expect((connectorDefinition({ host: 'orgindex.example.com' })['x-ms-connector-metadata'] as Json[])[0]).toEqual({ propertyName: 'Website', propertyValue: 'https://orgindex.example.com' });
  // Power Automate's list of categories, at most two; web addresses only.
  expect(() => connectorDefinition({ categories: ['Data', 'AI', 'Finance'] })).toThrow(/one or two categories of: AI, Business Management/);
  expect(() => connectorDefinition({ categories: ['Databases'] })).toThrow(/got "Databases"/);
  expect(() => connectorDefinition({ categories: [] })).toThrow(/got none/);
  expect(() => connectorDefinition({ privacyPolicy: 'ftp://example.com/privacy' })).toThrow(/privacy policy must be an http\(s\) address/);
  expect(() => connectorDefinition({ website: 'orgindex' })).toThrow(/website must be an http\(s\) address/);
  expect(CONNECTOR_CATEGORIES).toContain('Sales and CRM');
});

test('the build writes dist/connector-style files: definition, properties, icon, README with the paconn and pac commands', () => {
  const out = mkdtempSync(join(tmpdir(), 'orgindex-connector-'));
  try {
    const settings = { CONNECTOR_HOST: 'orgindex.test:8443', CONNECTOR_WEBSITE: 'https://orgindex.test/about', CONNECTOR_PRIVACY_POLICY: 'https://orgindex.test/privacy', CONNECTOR_CATEGORIES: 'Data; Business Intelligence' };
    execFileSync(process.execPath, ['scripts/connector/build.mjs', '--out', out], { env: { ...process.env, ...settings }, stdio: 'pipe' });
    expect(readdirSync(out).sort()).toEqual(['README.md', 'apiDefinition.swagger.json', 'apiProperties.json', 'icon.png']);
    const written = JSON.parse(readFileSync(join(out, 'apiDefinition.swagger.json'), 'utf8')) as Json;
    expect(written.host).toBe('orgindex.test:8443');
    expect(written['x-ms-connector-metadata']).toEqual([
      { propertyName: 'Website', propertyValue: 'https://orgindex.test/about' },
      { propertyName: 'Privacy policy', propertyValue: 'https://orgindex.test/privacy' },
      { propertyName: 'Categories', propertyValue: 'Data;Business Intelligence' },
    ]);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('paconn create --api-def apiDefinition.swagger.json --api-prop apiProperties.json --icon icon.png');
    expect(readme).toContain('pac connector create');
    expect(readFileSync(join(out, 'icon.png')).subarray(1, 4).toString()).toBe('PNG');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the build refuses a category Power Automate does not have, saying which settings there are, and writes nothing', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'orgindex-connector-')), 'connector');
  try {
    const run = spawnSync(process.execPath, ['scripts/connector/build.mjs', '--out', out], { env: { ...process.env, CONNECTOR_CATEGORIES: 'Data;Spreadsheets' }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('connector not written: The connector needs one or two categories of: AI,');
    expect(run.stderr).toContain('got "Data", "Spreadsheets" (CONNECTOR_WEBSITE, CONNECTOR_PRIVACY_POLICY, CONNECTOR_CATEGORIES)');
    expect(run.stderr).not.toMatch(/\bat \S+ \(/);
    expect(existsSync(out)).toBe(false);
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
});
