/**
 * What a new user meets first, on a real server on loopback: the description at / and /v2 (open, no quota
 * spent, listed by the OpenAPI document), and a 405 with Allow for a path asked with a method it does not
 * take — on every route of the three interfaces — while unknown paths stay 404.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENDPOINTS, servedPath } from '../../src/contract/endpoints.js';
import { ServiceDescriptionSchema } from '../../src/contract/v2/service.js';
import { KEYS, raw, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const packageVersion = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;

describe('the service description at / and /v2', () => {
  test.each(['/', '/v2'])('GET %s: name, version, the interfaces and their paths, links that answer', async (path) => {
    const answer = await raw(`${server.url}${path}`);
    expect(answer.status).toBe(200);
    const description = ServiceDescriptionSchema.parse(answer.body);
    expect(description).toMatchObject({ name: 'OrgIndex', version: packageVersion, server_url: server.url, links: { openapi: '/openapi.json', health: '/v2/health' } });
    expect(description.interfaces.map(({ name, base_path }) => [name, base_path])).toEqual([['v2', '/v2'], ['v1', '/'], ['language', '/']]);
    const listed = description.interfaces.flatMap((item) => item.endpoints).sort();
    expect(listed).toEqual(Object.values(ENDPOINTS).map((endpoint) => `${endpoint.method} ${servedPath(endpoint)}`).sort());
    expect(description.interfaces.find((item) => item.name === 'language')?.credentials).toEqual(['Authorization: Bearer JWT']);
    for (const link of [description.links.openapi, description.links.health]) expect([link, (await raw(`${description.server_url}${link}`)).status]).toEqual([link, 200]);
    // Named, not linked: pages of the repository, which the server does not serve.
    for (const page of description.docs) expect(readFileSync(join(__dirname, '../..', page), 'utf8').length).toBeGreaterThan(0);
  });

  test('needs no key and spends no quota, even when a key is sent', async () => {
    const remaining = async (): Promise<number> => Number((await raw(`${server.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier1 } })).headers.get('x-ratelimit-requests-remaining'));
    const before = await remaining();
    for (const path of ['/', '/v2', '/', '/v2']) {
      const answer = await raw(`${server.url}${path}`, { headers: { 'x-api-key': KEYS.tier1 } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-requests-remaining')).toBeNull();
    }
    expect(await remaining()).toBe(before - 1);
    expect((await raw(`${server.url}/v2`, { headers: { 'x-api-key': 'not-a-key-000000000000' } })).status).toBe(200);
  });

  test('the OpenAPI document lists both paths, open like health', async () => {
    const doc = (await raw(`${server.url}/openapi.json`)).body as { paths: Record<string, { get?: { security: unknown[]; responses: Record<string, unknown> } }> };
    for (const path of ['/', '/v2']) {
      expect(doc.paths[path]?.get?.security).toEqual([]);
      expect(Object.keys(doc.paths[path]?.get?.responses ?? {}).sort()).toEqual(['200', '400', '431', '500']);
    }
  });
});

describe('a method the path does not take is a 405 naming those it does', () => {
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  /** Every served path, its parameters filled in, with the methods it takes. */
  const served = new Map<string, Set<string>>();
  for (const endpoint of Object.values(ENDPOINTS)) {
    const path = servedPath(endpoint).replace(/\{\w+\}/g, 'x1');
    const methods = served.get(path) ?? new Set<string>();
    methods.add(endpoint.method);
    if (endpoint.method === 'GET') methods.add('HEAD');
    served.set(path, methods);
  }
  for (const path of ['/', '/v2', '/openapi.json', '/v1/files/downloads/a/b.xlsx']) served.set(path, new Set(['GET', 'HEAD']));

  test.each([...served].map(([path, methods]) => [path, [...methods]] as const))('%s takes %j', async (path, methods) => {
    const allow = METHODS.filter((method) => methods.includes(method)).join(', ');
    for (const method of METHODS.filter((other) => !methods.includes(other))) {
      const answer = await raw(`${server.url}${path}?a=1`, { method, headers: { 'x-api-key': KEYS.tier2 } });
      expect([method, answer.status, answer.headers.get('allow')]).toEqual([method, 405, allow]);
      if (method !== 'HEAD') expect(answer.body).toEqual({ detail: `Method Not Allowed: ${method} ${path} (this path takes ${allow})` });
    }
  });

  test('unknown paths stay 404 for every method', async () => {
    for (const path of ['/v2/nope', '/v2/search/', '/v3', '/v1']) {
      for (const method of METHODS) {
        const answer = await raw(`${server.url}${path}`, { method });
        expect([path, method, answer.status, answer.headers.get('allow')]).toEqual([path, method, 404, null]);
      }
    }
  });
});
