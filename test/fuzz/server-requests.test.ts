/**
 * Property: the real server on a loopback port, sent hostile and near-valid requests on every route, never
 * answers 5xx, never logs at error level, answers every refusal as JSON with a `detail`, and every 200 it
 * sends satisfies the contract's response schema; a key confined to a country never gets a row of another;
 * a v1 walk (pages by pit_id, close_pit, downloads and their links) keeps each PIT to its owner and query;
 * a NUL put into any string of an otherwise valid request (body, query, token claim) is a 400 naming it.
 *
 * Every property runs in both server modes (test/support/server-modes.ts): "file" (keys file, quota
 * journal, in this process) and "database" (`orgindex serve --database` on a throwaway PostgreSQL, where
 * buckets, holds, counts, PITs and download files are rows). Requests alternate between an admin key and a
 * tier_2 key (by a hash of the request), so both the quota paths and the unmetered ones are walked.
 *
 * Runs per mode: 40 hostile and 80 near-valid per body route, 40 per query or path route, 150 paths,
 * 120 content types, 30 v1 walks, 60 scoped requests, 150 requests with a NUL — about 2,200 requests each,
 * the database mode's at the same counts: 18 s of it, its cluster's start included, on 2 cores at a load of 6
 * (the file mode's about 8 s). FUZZ_RUNS scales them all.
 */
import * as fc from 'fast-check';
import { ENDPOINTS, servedPath, type EndpointId } from '../../src/contract/endpoints.js';
import { SELECTABLE_COLUMNS } from '../../src/contract/common.js';
import { FiltersSchema } from '../../src/contract/v2/filters.js';
import { STATS_GROUP_BY } from '../../src/contract/v2/stats.js';
import { generateDataset, type OrganizationRecord } from '../../src/engine/index.js';
import { SCOPE } from '../server/support.js';
import { SERVER_MODES, useModeServer, type ModeServer } from '../support/server-modes.js';
import { fieldNames, fuzzParameters, hostileBody, hostileString, nearValidBodies, nulPlace, withNul, type Pools } from './arbitraries.js';

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

/** Statuses a refusal may have; anything else (a 5xx above all) fails the property. */
const ALLOWED = new Set([200, 400, 401, 403, 404, 405, 408, 413, 415, 422, 429]);
const NUL_DETAIL = /^The (URL|body|token's sub, username or groups) holds a NUL character \(\\u0000 or %00\), which no field accepts$/;

interface Sent {
  status: number;
  body: unknown;
}

type Credential = 'api-key' | 'bearer' | { key: string } | { token: string } | 'none';

interface Request {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/** A small string hash: which key a request is sent with, the same on every replay (shrinking included). */
function hashOf(text: string): number {
  let hash = 2_166_136_261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16_777_619);
  return hash >>> 0;
}

async function send(server: ModeServer, request: Request, credential: Credential = 'api-key'): Promise<Sent> {
  const headers: Record<string, string> = {};
  if (credential === 'api-key') headers['x-api-key'] = hashOf(`${request.path}\n${request.body ?? ''}`) % 2 === 0 ? server.keys.admin : server.keys.tier2;
  else if (credential === 'bearer') headers.authorization = `Bearer ${await server.token()}`;
  else if (typeof credential === 'object') {
    if ('key' in credential) headers['x-api-key'] = credential.key;
    else headers.authorization = `Bearer ${credential.token}`;
  }
  Object.assign(headers, request.headers);
  if (request.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${server.url}${request.path}`, { method: request.method, headers, body: request.body });
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
const bearerOnly = (endpoint: (typeof ENDPOINTS)[EndpointId]): boolean => endpoint.auth.length === 1 && endpoint.auth[0] === 'bearer';

function poolsOf(records: readonly OrganizationRecord[]): Pools {
  const sample = records.filter((_, i) => i % 30 === 0);
  return {
    domains: sample.map((r) => r.domain),
    words: [...new Set(sample.flatMap((r) => `${r.name} ${r.summary ?? ''}`.toLowerCase().split(/[^a-zäöüß]+/)).filter((w) => w.length > 2))].slice(0, 300),
    values: [...new Set(sample.flatMap((r) => [r.country, r.state, r.organization_size, r.organization_type, r.continent].filter((v): v is string => typeof v === 'string')))],
    columns: [...SELECTABLE_COLUMNS],
    filterNames: fieldNames(FiltersSchema),
    statsGroups: [...STATS_GROUP_BY],
  };
}

describe.each(SERVER_MODES)('%s mode', (mode) => {
  const server = useModeServer(mode);
  let records: OrganizationRecord[] = [];
  let pools: Pools;
  beforeAll(() => {
    // The records the server serves: near-valid requests use their real values.
    records = generateDataset(server().dataset);
    pools = poolsOf(records);
  });

  describe.each(routes)('%s under fuzzing', (id, endpoint) => {
    const credential: Credential = bearerOnly(endpoint) ? 'bearer' : 'api-key';

    it('hostile input: no 5xx, refusals carry a detail, answers keep the contract', async () => {
      let input: fc.Arbitrary<{ path: string; body?: string }>;
      if (endpoint.input === 'body') {
        input = hostileBody(endpoint.request).map((body) => ({ path: servedPath(endpoint), body: JSON.stringify(body) }));
      } else if (endpoint.input === 'path') {
        input = hostileString.map((value) => ({ path: servedPath(endpoint).replace(/\{\w+\}/, encodeAny(value)) }));
      } else {
        const names = endpoint.input === 'query' ? fieldNames(endpoint.request) : ['x'];
        input = fc.dictionary(fc.constantFrom(...names, 'x'), hostileString, { maxKeys: 4 }).map((query) => ({ path: `${servedPath(endpoint)}?${new URLSearchParams(query).toString()}` }));
      }
      await fc.assert(
        fc.asyncProperty(input, async (request) => {
          // A qna body that passes validation would fetch a website: only refusals are sent here.
          if (id === 'language.qna' && request.body !== undefined && ENDPOINTS[id].request.safeParse(JSON.parse(request.body)).success) return;
          expectWellFormed(id, await send(server(), { method: endpoint.method, ...request }, credential), request);
        }),
        fuzzParameters(40),
      );
    });

    const testNearValid = endpoint.input === 'body' && id !== 'language.qna' ? it : it.skip;
    testNearValid('near-valid input reaches the engine: no 5xx, answers keep the contract', async () => {
      const bodies = nearValidBodies(pools)[id];
      if (!bodies) throw new Error(`no near-valid bodies for ${id}: add them to nearValidBodies`);
      let answered = 0;
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const sent = await send(server(), { method: endpoint.method, path: servedPath(endpoint), body: JSON.stringify(body) }, credential);
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
        fc.constantFrom('v2', 'v1', 'search', 'fetch', 'stats', 'qna', 'nlp_search', 'locations', 'filters', 'options', 'files', 'downloads', 'close_pit', '..', '.', '', '%2e%2e', '%2F', '%00', '%c0%af', '%761', '%71na', 'V2', 'search%00'),
        hostileString.map(encodeAny),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('GET', 'POST', 'DELETE'), fc.boolean(), async (segments, method, withKey) => {
          const path = `/${segments.join('/')}`;
          const sent = await send(server(), { method, path, body: method === 'POST' ? '{}' : undefined, headers: withKey ? {} : { 'x-api-key': '' } });
          expectWellFormed(null, sent, `${method} ${path}`);
        }),
        fuzzParameters(150),
      );
    });

    it('odd content types and bodies are refused with a detail', async () => {
      const contentType = fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset="utf-8"', '');
      const raw = fc.oneof(fc.constantFrom('', '{', '[]', 'null', '"x"', '{"__proto__":{"admin":true}}', `${'['.repeat(5000)}${']'.repeat(5000)}`, '{"size":1e999}'), fc.string({ maxLength: 50 }));
      await fc.assert(
        fc.asyncProperty(contentType, raw, fc.constantFrom('/v2/search', '/v2/fetch', '/v2/stats', '/v1/search', '/v1/download'), async (type, body, path) => {
          const sent = await send(server(), { method: 'POST', path, body, headers: type ? { 'content-type': type } : {} });
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
      ['POST', '/v1/search', JSON.stringify({ search_id: '6b1d4f0e-7a55-4a3e-9d2c-3f1e2a4b5c6d', pit_id: '\uD800', search_after: [1, 'x'] })],
      ['DELETE', `/v1/close_pit?pit_id=${'%F0%9F%98%80'.repeat(20)}`, undefined],
      ['GET', '/v1/files/downloads/x/y.tsv?expires=99999999999&signature=00', undefined],
    ])('%s %s answers a well-formed status', async (method, path, body) => {
      expectWellFormed(null, await send(server(), { method, path, body }), `${method} ${path}`);
    });
    it('a long natural-language query answers a well-formed status', async () => {
      const sent = await send(server(), { method: 'POST', path: '/v1/nlp_search', body: JSON.stringify({ user_query: 'bakeries not in Berlin and '.repeat(10_000), search_id: 'x' }) }, 'bearer');
      expectWellFormed(null, sent, 'long user_query');
    });
  });

  it("a key confined to a country gets no row of another, whatever it asks", async () => {
    const bodies = nearValidBodies(pools);
    const confined = new Set(records.filter((r) => SCOPE.country.includes(r.country ?? '')).map((r) => r.domain));
    // Domains outside the scope are asked for by name too: a fetch must not find them.
    const outside = records.filter((r) => !confined.has(r.domain)).filter((_, i) => i % 40 === 0).map((r) => r.domain);
    const fetchOutside = fc.array(fc.constantFrom(...outside, ...[...confined].slice(0, 5)), { minLength: 1, maxLength: 10 });
    const asked = fc.oneof(
      bodies['v2.search']!.map((body) => ['v2.search', body] as const),
      bodies['v1.search']!.map((body) => ['v1.search', body] as const),
      fetchOutside.map((domains) => ['v2.fetch', { domains }] as const),
      fetchOutside.map((domains) => ['v1.fetchMarket', { domains }] as const),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(asked, async ([id, body]) => {
        const sent = await send(server(), { method: 'POST', path: servedPath(ENDPOINTS[id]), body: JSON.stringify(body) }, { key: server().keys.scoped });
        expectWellFormed(id, sent, body);
        if (sent.status !== 200) return;
        answered++;
        const rows = (sent.body as { data: { domain: string }[] }).data;
        const strangers = rows.map((row) => row.domain).filter((domain) => !confined.has(domain));
        if (strangers.length > 0) throw new Error(`${id} gave the confined key ${strangers.join(', ')} for ${JSON.stringify(body).slice(0, 300)}`);
      }),
      fuzzParameters(60),
    );
    expect(answered).toBeGreaterThan(0);
  });

  describe('v1 walks: pages by pit_id, close_pit, downloads', () => {
    type Step =
      | { kind: 'next' }
      | { kind: 'hostile'; pit: string; after: unknown }
      | { kind: 'other-query' }
      | { kind: 'other-owner'; bearer: boolean }
      | { kind: 'close'; via: 'query' | 'body'; byOwner: boolean }
      | { kind: 'download'; format: 'tsv' | 'xlsx' | 'parquet'; size: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'next' as const }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('hostile' as const), pit: hostileString, after: fc.oneof(fc.constant(null), fc.array(fc.oneof(hostileString, fc.integer(), fc.double()), { maxLength: 3 }), hostileString) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'other-query' as const }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('other-owner' as const), bearer: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('close' as const), via: fc.constantFrom('query' as const, 'body' as const), byOwner: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('download' as const), format: fc.constantFrom('tsv' as const, 'xlsx' as const, 'parquet' as const), size: fc.integer({ min: 1, max: 10 }) }) },
    );

    it('a PIT answers its owner and its query only, closes once, and downloads are read back by their link alone', async () => {
      const countries = ['Deutschland', 'Österreich', 'Schweiz'];
      await fc.assert(
        fc.asyncProperty(fc.uuid(), fc.constantFrom(...countries), fc.integer({ min: 1, max: 5 }), fc.boolean(), fc.array(step, { minLength: 1, maxLength: 7 }), async (searchId, country, size, ownerIsAdmin, steps) => {
          const target = server();
          const [owner, other] = ownerIsAdmin ? [target.keys.admin, target.keys.tier2] : [target.keys.tier2, target.keys.admin];
          const query = { search_id: searchId, locations: { country: [country] }, size };
          const search = (body: unknown, credential: Credential) => send(target, { method: 'POST', path: '/v1/search', body: JSON.stringify(body) }, credential);
          const first = await search(query, { key: owner });
          expectWellFormed('v1.search', first, query);
          if (first.status !== 200) throw new Error(`the walk's first page: ${first.status} ${JSON.stringify(first.body)}`);
          let { pit_id: pit, search_after: after } = (first.body as { metadata: { pit_id: string | null; search_after: unknown } }).metadata;
          let open = pit !== null;
          for (const next of steps) {
            const page = { ...query, pit_id: pit, search_after: after };
            if (next.kind === 'next') {
              const sent = await search(page, { key: owner });
              expectWellFormed('v1.search', sent, page);
              if (!open) {
                if (pit !== null) expect(sent.status).toBe(400);
                continue;
              }
              expect(sent.status).toBe(200);
              ({ pit_id: pit, search_after: after } = (sent.body as { metadata: { pit_id: string | null; search_after: unknown } }).metadata);
              open = pit !== null;
            } else if (next.kind === 'hostile') {
              const body = { ...query, pit_id: next.pit, search_after: next.after };
              expectWellFormed('v1.search', await search(body, { key: owner }), body);
            } else if (next.kind === 'other-query') {
              const body = { ...page, locations: { country: countries.filter((c) => c !== country) } };
              const sent = await search(body, { key: owner });
              expectWellFormed('v1.search', sent, body);
              if (pit !== null) expect(sent.status).toBe(400);
            } else if (next.kind === 'other-owner') {
              const sent = await search(page, next.bearer ? 'bearer' : { key: other });
              expectWellFormed('v1.search', sent, page);
              // Another caller never pages through this PIT: refused (the PIT is not theirs) or throttled.
              if (pit !== null) expect([400, 429]).toContain(sent.status);
            } else if (next.kind === 'close') {
              if (pit === null) continue;
              const request: Request = next.via === 'query' ? { method: 'DELETE', path: `/v1/close_pit?pit_id=${encodeURIComponent(pit)}` } : { method: 'DELETE', path: '/v1/close_pit', body: JSON.stringify({ pit_id: pit }) };
              const sent = await send(target, request, { key: next.byOwner ? owner : other });
              expectWellFormed('v1.closePit', sent, request);
              expect(sent).toEqual({ status: 200, body: { succeeded: next.byOwner && open } });
              if (next.byOwner) open = false;
            } else {
              const body = { search_info: { search_id: searchId, query: { locations: query.locations } }, size: next.size, download_format: next.format };
              const sent = await send(target, { method: 'POST', path: '/v1/download', body: JSON.stringify(body) }, { key: owner });
              expectWellFormed('v1.download', sent, body);
              if (sent.status !== 200) continue;
              const link = new URL((sent.body as { download_url: string }).download_url);
              const file = await fetch(link);
              expect(file.status).toBe(200);
              expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
              const signature = link.searchParams.get('signature') ?? '';
              link.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
              const forged = await send(target, { method: 'GET', path: `${link.pathname}${link.search}` }, 'none');
              expectWellFormed(null, forged, link.href);
              expect(forged.status).toBe(403);
            }
          }
        }),
        fuzzParameters(30),
      );
    });
  });

  it('a NUL put into any string of an otherwise valid request is a 400 naming it, never a 5xx', async () => {
    const bodies = nearValidBodies(pools);
    const bodyRoutes = (['v2.search', 'v2.fetch', 'v2.stats', 'v1.search', 'v1.fetchMarket', 'v1.download', 'v1.sublocations', 'language.generateKeywords', 'language.nlpSearch'] as const).map((id) =>
      bodies[id]!.filter((body) => ENDPOINTS[id].request.safeParse(body).success).map((body) => ({ id, body })),
    );
    const inBody = fc.tuple(fc.oneof(...bodyRoutes), nulPlace).map(([{ id, body }, place]) => ({ id, body: withNul(body, place) })).filter(({ body }) => body !== null);
    // Query strings of valid GET and DELETE requests, a NUL in a name or a value.
    const queries: [EndpointId, Record<string, string>][] = [
      ['v2.locationSearch', { q: 'Mün', location_type: 'state' }],
      ['v2.locationList', { location_type: 'state', limit: '5' }],
      ['v1.closePit', { pit_id: '00000000-0000-4000-8000-000000000001' }],
    ];
    const inQuery = fc.tuple(fc.constantFrom(...queries), nulPlace).map(([[id, query], place]) => ({ id, query: withNul(query, place) as Record<string, string> }));
    const inToken = fc.tuple(fc.constantFrom('sub', 'username', 'idp:groups'), fc.string({ maxLength: 8 }), fc.nat(), fc.constantFrom('language.generateKeywords' as const, 'v1.search' as const));
    type Case = { where: 'body'; id: EndpointId; body: unknown } | { where: 'query'; id: EndpointId; query: Record<string, string> } | { where: 'token'; claim: string; text: string; at: number; id: 'language.generateKeywords' | 'v1.search' };
    const cases: fc.Arbitrary<Case> = fc.oneof(
      { weight: 5, arbitrary: inBody.map((c) => ({ where: 'body' as const, ...c })) },
      { weight: 2, arbitrary: inQuery.map((c) => ({ where: 'query' as const, ...c })) },
      { weight: 2, arbitrary: inToken.map(([claim, text, at, id]) => ({ where: 'token' as const, claim, text, at, id })) },
    );
    const valid = { 'language.generateKeywords': { keywords: ['bakery'] }, 'v1.search': { search_id: '00000000-0000-4000-8000-000000000002', locations: { country: ['Deutschland'] }, size: 2 } };
    await fc.assert(
      fc.asyncProperty(cases, async (sample) => {
        const target = server();
        let sent: Sent;
        if (sample.where === 'token') {
          const at = sample.at % (sample.text.length + 1);
          const value = `${sample.text.slice(0, at)}\u0000${sample.text.slice(at)}`;
          const token = sample.claim === 'sub' ? await target.token({ sub: value }) : await target.token({ claims: { [sample.claim]: sample.claim === 'idp:groups' ? ['analysts', value] : value } });
          sent = await send(target, { method: 'POST', path: servedPath(ENDPOINTS[sample.id]), body: JSON.stringify(valid[sample.id]) }, { token });
        } else if (sample.where === 'query') {
          const endpoint = ENDPOINTS[sample.id];
          sent = await send(target, { method: endpoint.method, path: `${servedPath(endpoint)}?${new URLSearchParams(sample.query).toString()}` }, bearerOnly(endpoint) ? 'bearer' : 'api-key');
        } else {
          const endpoint = ENDPOINTS[sample.id];
          sent = await send(target, { method: endpoint.method, path: servedPath(endpoint), body: JSON.stringify(sample.body) }, bearerOnly(endpoint) ? 'bearer' : 'api-key');
        }
        if (sent.status !== 400 || !NUL_DETAIL.test((sent.body as { detail?: unknown }).detail as string)) {
          throw new Error(`${JSON.stringify(sample).slice(0, 400)} answered ${sent.status} ${JSON.stringify(sent.body).slice(0, 300)}`);
        }
      }),
      fuzzParameters(150),
    );
  });

  it('nothing was logged at error level', () => {
    expect(server().errorLines()).toEqual([]);
  });
});
