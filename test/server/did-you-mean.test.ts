/**
 * A misspelt key at the HTTP edge, on a real server on loopback: v2 keeps FastAPI's 422 layout and type
 * (`extra_forbidden`, its `loc`) and names the close key in `msg` and `ctx.did_you_mean`; v1 and the language
 * routes, whose refusals are a 400 with one message, carry the same words.
 */
import { bearerVerifier } from '../../src/server/bearer.js';
import { hs256Token, KEYS, raw, startTestServer, type TestServer } from './support.js';

const SECRET = 'did-you-mean-test-secret-0000001';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })! });
});
afterAll(async () => {
  await server.close();
});

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
