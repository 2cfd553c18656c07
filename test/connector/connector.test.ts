/**
 * The Power Automate custom connector (src/server/connector.ts → dist/connector/): validated as OpenAPI 2.0
 * by @apidevtools/swagger-parser (the Swagger 2.0 JSON Schema and every $ref), then Power Automate's own
 * rules, which a generic validator does not know, checked one by one. The build script is run too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { connectorDefinition, connectorProperties } from '../../src/server/connector.js';
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
  expect(((similar.items as Json).properties as Json).domain).toEqual({ type: 'string', maxLength: TEXT_LIMITS.domainLength });
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

test('the build writes dist/connector-style files: definition, properties, icon, README with the paconn and pac commands', () => {
  const out = mkdtempSync(join(tmpdir(), 'orgindex-connector-'));
  try {
    execFileSync(process.execPath, ['scripts/connector/build.mjs', '--out', out], { env: { ...process.env, CONNECTOR_HOST: 'orgindex.test:8443' }, stdio: 'pipe' });
    expect(readdirSync(out).sort()).toEqual(['README.md', 'apiDefinition.swagger.json', 'apiProperties.json', 'icon.png']);
    expect((JSON.parse(readFileSync(join(out, 'apiDefinition.swagger.json'), 'utf8')) as Json).host).toBe('orgindex.test:8443');
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('paconn create --api-def apiDefinition.swagger.json --api-prop apiProperties.json --icon icon.png');
    expect(readme).toContain('pac connector create');
    expect(readFileSync(join(out, 'icon.png')).subarray(1, 4).toString()).toBe('PNG');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
