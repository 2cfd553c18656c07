/**
 * A NUL character (U+0000, %00) in a request is a 400 naming where it is, in both server modes: no field
 * takes one, and PostgreSQL cannot store one in text (error 22021), which on a server on the database made
 * such requests 500s. The URL (path or query), any string or key of a JSON body, and a bearer token's sub,
 * username and groups are refused before any route or store sees them. So is a claim with a lone surrogate,
 * which PostgreSQL's UTF-8 turns into U+FFFD (two users' subs would be one there).
 */
import { SERVER_MODES, useModeServer, type ModeServer } from '../support/server-modes.js';
import { raw } from './support.js';

const refusal = (where: string) => ({ detail: `${where} holds a NUL character (\\u0000 or %00), which no field accepts` });
const URL_REFUSAL = refusal('The URL');
const BODY_REFUSAL = refusal('The body');
const TOKEN_REFUSAL = refusal("The token's sub, username or groups");
/** A valid v1 search (it opens a PIT: more hits than one page). */
const V1_SEARCH = { search_id: '00000000-0000-4000-8000-0000000000aa', locations: { country: ['Deutschland'] }, size: 2 };

describe.each(SERVER_MODES)('%s mode', (mode) => {
  const server = useModeServer(mode);
  const call = (target: ModeServer, method: string, path: string, options: { body?: string; key?: string; token?: string } = {}) =>
    raw(`${target.url}${path}`, {
      method,
      headers: {
        ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : { 'x-api-key': options.key ?? target.keys.tier2 }),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });

  test.each([
    ['DELETE', '/v1/close_pit?pit_id=%00'],
    ['DELETE', '/v1/close_pit?pit_id=abc%00def'],
    ['GET', '/v2/locations/search?q=M%00n'],
    ['GET', '/v2/locations/search?q=M%C3%BCn&location_type=state%00'],
    ['GET', '/v2/locations/de%00'],
    ['POST', '/v2/search%00'],
  ])('%s %s: 400, the URL holds a NUL', async (method, path) => {
    const answer = await call(server(), method, path, method === 'POST' ? { body: '{}' } : {});
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: URL_REFUSAL });
  });

  test('the URL is refused before the key is looked at: the same 400 without a valid key', async () => {
    const answer = await call(server(), 'DELETE', '/v1/close_pit?pit_id=%00', { key: 'not-a-key' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: URL_REFUSAL });
  });

  test.each([
    ['/v1/search', 'pit_id', { ...V1_SEARCH, pit_id: '\u0000' }],
    ['/v1/search', 'pit_id mid-string', { ...V1_SEARCH, pit_id: 'a\u0000b' }],
    ['/v1/close_pit', 'close_pit body', { pit_id: 'x\u0000' }],
    ['/v2/search', 'a keyword', { keywords: { must_any: ['bak\u0000ery'] } }],
    ['/v2/search', 'a filter value', { filters: { country: ['Deutschland\u0000'] } }],
    ['/v2/search', "a key's name", { keywords: { 'must_any\u0000': ['bakery'] } }],
    ['/v2/search', 'a nested key', { filters: { ['\u0000']: ['x'] } }],
    ['/v2/fetch', 'a domain', { domains: ['example.com\u0000'] }],
    ['/v1/download', 'a download id', { market_info: { market_id: 'm', market: ['example.com'] }, download_id: 'file\u0000' }],
  ])('POST %s with a NUL in %s: 400, the body holds a NUL', async (path, _where, body) => {
    const answer = await call(server(), path === '/v1/close_pit' ? 'DELETE' : 'POST', path, { body: JSON.stringify(body) });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: BODY_REFUSAL });
  });

  test('a raw NUL byte in the JSON text is a 400 too: JSON allows none, so the text is not valid JSON', async () => {
    const answer = await call(server(), 'POST', '/v2/search', { body: '{"keywords":{"must_any":["a\u0000b"]}}' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ detail: expect.stringMatching(/^Body is not valid JSON: /) });
  });

  test.each([
    ['sub', { sub: 'user\u0000one' }],
    ['username', { claims: { username: '\u0000' } }],
    ['a group', { claims: { 'idp:groups': ['analysts', 'ops\u0000'] } }],
  ])("a bearer token whose %s holds a NUL: 400 on v1 and the language routes", async (_claim, claims) => {
    const target = server();
    const token = await target.token(claims);
    const v1 = await call(target, 'POST', '/v1/search', { token, body: JSON.stringify(V1_SEARCH) });
    expect({ status: v1.status, body: v1.body }).toEqual({ status: 400, body: TOKEN_REFUSAL });
    const language = await call(target, 'POST', '/v1/generate-keywords', { token: await target.token(claims), body: JSON.stringify({ keywords: ['bakery'] }) });
    expect({ status: language.status, body: language.body }).toEqual({ status: 400, body: TOKEN_REFUSAL });
  });

  test("a token claim with a lone surrogate is a 400 too: on the database two such subs would be one user, sharing PITs", async () => {
    const target = server();
    const surrogate = { detail: "The token's sub, username or groups holds a lone surrogate (\\uD800 to \\uDFFF without its pair), which is not text" };
    for (const claims of [{ sub: '\uD800' }, { sub: 'user\uDBFF' }, { claims: { username: '\uDC00x' } }, { claims: { 'idp:groups': ['\uD83D'] } }]) {
      const answer = await call(target, 'POST', '/v1/search', { token: await target.token(claims), body: JSON.stringify(V1_SEARCH) });
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: surrogate });
    }
    // A pair is one character: a sub beyond the Basic Multilingual Plane is answered.
    const pair = await call(target, 'POST', '/v1/search', { token: await target.token({ sub: 'user \uD83D\uDE00' }), body: JSON.stringify(V1_SEARCH) });
    expect(pair.status).toBe(200);
  });

  test('the same requests without the NUL are answered (the refusal is the NUL alone)', async () => {
    const target = server();
    expect((await call(target, 'DELETE', '/v1/close_pit?pit_id=abcdef')).body).toEqual({ succeeded: false });
    expect((await call(target, 'POST', '/v2/search', { body: JSON.stringify({ keywords: { must_any: ['bakery'] }, size: 1 }) })).status).toBe(200);
    expect((await call(target, 'GET', '/v2/locations/search?q=M%C3%BCn')).status).toBe(200);
    expect((await call(target, 'POST', '/v1/search', { token: await target.token({ sub: 'user one' }), body: JSON.stringify(V1_SEARCH) })).status).toBe(200);
  });

  test('nothing was logged at error level', () => {
    expect(server().errorLines()).toEqual([]);
  });
});
