/**
 * The answers that show a caller the way, on a real server on loopback: the description at / and /v2 (open,
 * no quota spent, listed by the OpenAPI document); a 405 with Allow for a path asked with a method it does
 * not take — on every route of the three interfaces — while unknown paths stay 404; and a misspelt key,
 * where v2 keeps FastAPI's 422 layout and type (`extra_forbidden`, its `loc`) and names the close key in
 * `msg` and `ctx.did_you_mean`, and v1 and the language routes, whose refusals are a 400 with one message,
 * carry the same words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENDPOINTS, servedPath } from '../../src/contract/endpoints.js';
import { ServiceDescriptionSchema } from '../../src/contract/v2/service.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { hs256Token, KEYS, raw, startTestServer, type TestServer } from './support.js';

const SECRET = 'edge-help-test-secret-0000000001';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })! });
});
afterAll(() => server.close());

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

describe('a misspelt key names the close one', () => {
  const post = (path: string, body: unknown, headers: Record<string, string>) => raw(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const hint = (key: string) => ({ msg: `Extra inputs are not permitted; did you mean "${key}"?`, ctx: { did_you_mean: key } });

  test('v2: filters, keywords and the top-level fields of search, stats and fetch', async () => {
    const key = { 'x-api-key': KEYS.tier2 };
    expect(await post('/v2/search', { filters: { contry: 'DE' } }, key)).toMatchObject({
      status: 422,
      body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'filters', 'contry'], input: 'DE', ...hint('country') }] },
    });
    expect((await post('/v2/search', { keywords: { must_al: ['cloud'] }, sise: 5 }, key)).body).toEqual({
      detail: [
        { type: 'extra_forbidden', loc: ['body', 'keywords', 'must_al'], input: ['cloud'], ...hint('must_all') },
        { type: 'extra_forbidden', loc: ['body', 'sise'], input: 5, ...hint('size') },
      ],
    });
    expect((await post('/v2/stats', { group_by: 'country', filter: {} }, key)).body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'filter'], input: {}, ...hint('filters') }] });
    expect((await post('/v2/fetch', { domains: ['example.com'], colums: ['name'] }, key)).body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'colums'], input: ['name'], ...hint('columns') }] });
    // Nothing close: the plain message, no ctx.
    expect((await post('/v2/search', { filters: { xyzzy: 'DE' } }, key)).body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'filters', 'xyzzy'], msg: 'Extra inputs are not permitted', input: 'DE' }] });
  });

  test('v1 and the language routes: the hint in their 400 message', async () => {
    const v1 = await post('/v1/sublocations', { parent_level: 'country', parent_valeu: 'Deutschland' }, { 'x-api-key': KEYS.tier2 });
    expect(v1.status).toBe(400);
    expect(v1.body).toEqual({ detail: expect.stringContaining('parent_valeu: Extra inputs are not permitted; did you mean "parent_value"?') as unknown });
    const token = await hs256Token(SECRET);
    const qna = await post('/v1/qna', { question: 'Who runs it?', domian: 'example.com' }, { authorization: `Bearer ${token}` });
    expect(qna.status).toBe(400);
    expect(qna.body).toEqual({ detail: expect.stringContaining('domian: Extra inputs are not permitted; did you mean "domain"?') as unknown });
  });
});
