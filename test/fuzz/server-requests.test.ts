/**
 * Property: the real server on a loopback port, sent hostile and near-valid requests on every route, never
 * answers 5xx, never logs at error level, answers every refusal as JSON with a `detail`, and every 200 it
 * sends satisfies the contract's response schema.
 */
import * as fc from 'fast-check';
import { ENDPOINTS, type EndpointId } from '../../src/contract/endpoints.js';
import { SELECTABLE_COLUMNS } from '../../src/contract/common.js';
import { FiltersSchema } from '../../src/contract/v2/filters.js';
import { STATS_GROUP_BY } from '../../src/contract/v2/stats.js';
import { generateDataset } from '../../src/engine/index.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { hs256Token, KEYS, startTestServer, type TestServer } from '../server/support.js';
import { fieldNames, fuzzParameters, hostileBody, hostileString, nearValidBodies, type Pools } from './arbitraries.js';

/** Percent-encoding of any string, lone surrogates too (as the 3-byte sequences a careless encoder emits). */
function encodeAny(value: string): string {
  return Array.from(value, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      const code = ch.charCodeAt(0);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
  }).join('');
}

const SECRET = 'fuzz-secret-0123456789abcdef0123456789abcdef';
/** Statuses a refusal may have; anything else (a 5xx above all) fails the property. */
const ALLOWED = new Set([200, 400, 401, 403, 404, 405, 408, 413, 415, 422, 429]);

let server: TestServer;
let token: string;
const errorLines: string[] = [];
let pools: Pools;

beforeAll(async () => {
  server = await startTestServer({
    bearer: bearerVerifier({ secret: SECRET }) ?? undefined,
    logger: { level: 'error', stream: { write: (line: string) => void errorLines.push(line) } },
  });
  token = await hs256Token(SECRET, { expiresIn: '1h' });
  // The same generator and seed as the test server's index (test/server/support.ts).
  const records = generateDataset({ count: 3_000, seed: 7, asOf: '2026-11-01' });
  const sample = records.filter((_, i) => i % 30 === 0);
  pools = {
    domains: sample.map((r) => r.domain),
    words: [...new Set(sample.flatMap((r) => `${r.name} ${r.summary ?? ''}`.toLowerCase().split(/[^a-zäöüß]+/)).filter((w) => w.length > 2))].slice(0, 300),
    values: [...new Set(sample.flatMap((r) => [r.country, r.state, r.organization_size, r.organization_type, r.continent].filter((v): v is string => typeof v === 'string')))],
    columns: [...SELECTABLE_COLUMNS],
    filterNames: fieldNames(FiltersSchema),
    statsGroups: [...STATS_GROUP_BY],
  };
});

afterAll(async () => {
  await server.close();
});

interface Sent {
  status: number;
  body: unknown;
}

async function send(method: string, path: string, options: { body?: string; bearer?: boolean; headers?: Record<string, string> } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...(options.bearer ? { authorization: `Bearer ${token}` } : { 'x-api-key': KEYS.admin }), ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  // Signed-in users share tier_2's token bucket: the test clock moves a second so the fuzzer is never throttled.
  if (options.bearer) server.clock.advance(1_000);
  const response = await fetch(`${server.url}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the assertion below reports it
  }
  return { status: response.status, body };
}

function expectWellFormed(id: EndpointId | null, sent: Sent, request: unknown): void {
  if (!ALLOWED.has(sent.status)) throw new Error(`status ${sent.status} for ${JSON.stringify(request).slice(0, 500)}: ${JSON.stringify(sent.body).slice(0, 500)}`);
  if (sent.status >= 400) {
    expect(sent.body).toEqual(expect.objectContaining({ detail: expect.anything() }));
    return;
  }
  if (id) {
    const parsed = ENDPOINTS[id].response.safeParse(sent.body);
    if (!parsed.success) throw new Error(`a 200 of ${id} breaks its response schema for ${JSON.stringify(request).slice(0, 500)}: ${parsed.error.message.slice(0, 500)}`);
  }
}

const routes = (Object.entries(ENDPOINTS) as [EndpointId, (typeof ENDPOINTS)[EndpointId]][]).filter(([id]) => id !== 'v2.health');
const pathOf = (endpoint: (typeof ENDPOINTS)[EndpointId]): string => (endpoint.api === 'v2' ? `/v2${endpoint.path}` : endpoint.path);

describe.each(routes)('%s on the real server under fuzzing', (id, endpoint) => {
  const bearer = endpoint.auth.length === 1 && endpoint.auth[0] === 'bearer';

  it('hostile input: no 5xx, refusals carry a detail, answers keep the contract', async () => {
    let input: fc.Arbitrary<{ path: string; body?: string }>;
    if (endpoint.input === 'body') {
      input = hostileBody(endpoint.request).map((body) => ({ path: pathOf(endpoint), body: JSON.stringify(body) }));
    } else if (endpoint.input === 'path') {
      input = hostileString.map((value) => ({ path: pathOf(endpoint).replace(/\{\w+\}/, encodeAny(value)) }));
    } else {
      const names = endpoint.input === 'query' ? fieldNames(endpoint.request) : ['x'];
      input = fc.dictionary(fc.constantFrom(...names, 'x'), hostileString, { maxKeys: 4 }).map((query) => ({ path: `${pathOf(endpoint)}?${new URLSearchParams(query).toString()}` }));
    }
    await fc.assert(
      fc.asyncProperty(input, async (request) => {
        // A qna body that passes validation would fetch a website: only refusals are sent here.
        if (id === 'language.qna' && request.body !== undefined && ENDPOINTS[id].request.safeParse(JSON.parse(request.body)).success) return;
        expectWellFormed(id, await send(endpoint.method, request.path, { body: request.body, bearer }), request);
      }),
      fuzzParameters(40),
    );
  });

  const nearValid = () => nearValidBodies(pools)[id];
  const testNearValid = endpoint.input === 'body' && id !== 'language.qna' ? it : it.skip;
  testNearValid('near-valid input reaches the engine: no 5xx, answers keep the contract', async () => {
    const bodies = nearValid();
    if (!bodies) return;
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const sent = await send(endpoint.method, pathOf(endpoint), { body: JSON.stringify(body), bearer });
        expectWellFormed(id, sent, body);
        if (sent.status === 200) answered++;
        else if (process.env.FUZZ_DEBUG) console.log(sent.status, JSON.stringify(sent.body).slice(0, 200));
      }),
      fuzzParameters(80),
    );
    // The generator is worth its runs only if many bodies get past validation.
    expect(answered).toBeGreaterThan(0);
  });
});

describe('paths and headers under fuzzing', () => {
  it('any path under the interfaces answers a JSON 4xx or a 200, never a 5xx', async () => {
    const segment = fc.oneof(
      fc.constantFrom('v2', 'v1', 'search', 'fetch', 'stats', 'qna', 'nlp_search', 'locations', 'filters', 'options', '..', '.', '', '%2e%2e', '%2F', '%00', '%c0%af', '%761', '%71na', 'V2', 'search%00'),
      hostileString.map(encodeAny),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('GET', 'POST', 'DELETE'), fc.boolean(), async (segments, method, withKey) => {
        const path = `/${segments.join('/')}`;
        const sent = await send(method, path, { body: method === 'POST' ? '{}' : undefined, headers: withKey ? {} : { 'x-api-key': '' } });
        expectWellFormed(null, sent, `${method} ${path}`);
      }),
      fuzzParameters(150),
    );
  });

  it('odd content types and bodies are refused with a detail', async () => {
    const contentType = fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset="utf-8"', '');
    const raw = fc.oneof(fc.constantFrom('', '{', '[]', 'null', '"x"', '{"__proto__":{"admin":true}}', `${'['.repeat(5000)}${']'.repeat(5000)}`, '{"size":1e999}'), fc.string({ maxLength: 50 }));
    await fc.assert(
      fc.asyncProperty(contentType, raw, fc.constantFrom('/v2/search', '/v2/fetch', '/v2/stats', '/v1/search'), async (type, body, path) => {
        const sent = await send('POST', path, { body, headers: type ? { 'content-type': type } : {} });
        expectWellFormed(null, sent, `${type} ${body.slice(0, 80)}`);
      }),
      fuzzParameters(120),
    );
  });

  // Inputs that once stalled or crashed a server of this kind: each answers promptly with a JSON status.
  const longPhrase = Array.from({ length: 20_000 }, (_, i) => `word${i % 50}s`).join(' ');
  it.each([
    ['POST', '/%761/search', '{}'],
    ['POST', '/v1/%71na', '{}'],
    ['POST', '/v2/search%00', '{}'],
    ['POST', '//v2/search', '{}'],
    ['POST', '/v2/%2e%2e/v1/qna', '{}'],
    ['GET', '/v2/locations/search?q=%ED%A0%80', undefined],
    ['POST', '/v2/search', JSON.stringify({ keywords: { must_any: [longPhrase] } })],
    ['POST', '/v2/search', JSON.stringify({ filters: { text_keywords: { must_all: [longPhrase] } } })],
    ['POST', '/v1/search', JSON.stringify({ search_id: '6b1d4f0e-7a55-4a3e-9d2c-3f1e2a4b5c6d', keywords: { must_one: [longPhrase] } })],
    ['POST', '/v2/fetch', JSON.stringify({ domains: ['a\uD800b.com'] })],
    ['POST', '/v2/search', `{"keywords":${'['.repeat(20_000)}${']'.repeat(20_000)}}`],
  ])('%s %s answers a well-formed status', async (method, path, body) => {
    expectWellFormed(null, await send(method, path, { body }), `${method} ${path}`);
  });
  it('a long natural-language query answers a well-formed status', async () => {
    const sent = await send('POST', '/v1/nlp_search', { body: JSON.stringify({ user_query: 'bakeries not in Berlin and '.repeat(10_000), search_id: 'x' }), bearer: true });
    expectWellFormed(null, sent, 'long user_query');
  });

  it('nothing was logged at error level', () => {
    expect(errorLines).toEqual([]);
  });
});
