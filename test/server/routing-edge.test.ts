/**
 * Request paths as an attacker writes them: percent-encoded route prefixes, dot segments, doubled or
 * trailing slashes, NUL, overlong UTF-8, another case. Each is answered by the interface the router
 * chose for it (or a 4xx when it chose none) — never a 500, never an error-level log line — and whether a
 * missing credential is a 401 or a 403 depends on that interface alone, not on how the path was spelled.
 * Requests go over a raw socket: fetch would normalise the dot segments before sending.
 */
import { connect } from 'node:net';
import { bearerVerifier } from '../../src/server/bearer.js';
import { hs256Token, KEYS, startTestServer, type TestServer } from './support.js';

const SECRET = 'routing-edge-test-secret-00000001';
const lines: string[] = [];
let server: TestServer;
beforeAll(async () => {
  const stream = { write: (line: string) => void lines.push(line) };
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })!, logger: { level: 'info', stream } });
});
afterAll(async () => {
  await server.close();
});

/** One request with the request target exactly as given; its status and JSON body. */
function send(target: string, headers: Record<string, string> = {}, method = 'POST', body = '{}'): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const all: Record<string, string> = { host: `${hostname}:${port}`, connection: 'close', ...(method === 'GET' ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }), ...headers };
      const head = Object.entries(all).map(([name, value]) => `${name}: ${value}`).join('\r\n');
      // Not half-closed: a server may take the end of the request stream for a caller that left.
      socket.write(`${method} ${target} HTTP/1.1\r\n${head}\r\n\r\n${method === 'GET' ? '' : body}`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown = payload;
      try {
        parsed = JSON.parse(payload);
      } catch {
        // not JSON: keep the text
      }
      resolve({ status, body: parsed });
    });
  });
}

/** Log records at error level or above (pino: 50 error, 60 fatal) since `from`. */
const errorsLogged = (from: number): unknown[] => lines.slice(from).map((line) => JSON.parse(line) as { level: number }).filter((record) => record.level >= 50);

describe('percent-encoded route prefixes are the routes they decode to', () => {
  test('/%761/search is /v1/search: its 400 for a bad body, its 403 for a bad credential — no 500', async () => {
    const from = lines.length;
    const bad = await send('/%761/search', { 'x-api-key': KEYS.tier2 });
    expect(bad).toEqual({ status: 400, body: { detail: expect.stringMatching(/search_id/) } });
    const badToken = await send('/%761/search', { authorization: 'Bearer not.a.jwt' });
    expect(badToken).toEqual({ status: 403, body: { detail: expect.stringMatching(/^Invalid token/) } });
    const badKey = await send('/%761/search', { 'x-api-key': 'not-a-key-000000000000' });
    expect(badKey).toEqual({ status: 403, body: { detail: 'Invalid API key' } });
    const none = await send('/%761/search');
    expect(none.status).toBe(403);
    // Encoded or not, the answers are the same.
    const credentials: Record<string, string>[] = [{ 'x-api-key': KEYS.tier2 }, { authorization: 'Bearer not.a.jwt' }, { 'x-api-key': 'not-a-key-000000000000' }, {}];
    for (const headers of credentials) {
      expect(await send('/v1/search', headers)).toEqual(await send('/%76%31/%73earch', headers));
    }
    expect(errorsLogged(from)).toEqual([]);
  });

  test('/v1/%71na is /v1/qna: a missing or invalid token is its 401, as on the plain path', async () => {
    const from = lines.length;
    for (const target of ['/v1/%71na', '/v1/qna', '/%76%31/%71%6e%61', '/v1/%67enerate-keywords', '/v1/nlp%5fsearch']) {
      expect(await send(target)).toEqual({ status: 401, body: { detail: expect.stringMatching(/^Not authenticated/) } });
      expect(await send(target, { authorization: 'Bearer not.a.jwt' })).toEqual({ status: 401, body: { detail: expect.stringMatching(/^Invalid token/) } });
      // An API key is no credential here.
      expect((await send(target, { 'x-api-key': KEYS.tier2 })).status).toBe(401);
    }
    const valid = await hs256Token(SECRET);
    expect((await send('/v1/%71na', { authorization: `Bearer ${valid}` }, 'POST', '{"question": 5}')).status).toBe(400);
    expect(errorsLogged(from)).toEqual([]);
  });

  test('/%76%32/search is /v2/search: 401 without a key, 422 for a bad body', async () => {
    expect((await send('/%76%32/search')).status).toBe(401);
    expect((await send('/v2/%73earch', { 'x-api-key': KEYS.tier2 })).status).toBe(422);
  });
});

describe('malformed and non-canonical paths', () => {
  // [request target, status for POST, status for GET]; no dot segment is resolved, no case folded.
  const cases: [string, number, number][] = [
    ['//v2/search', 404, 404],
    ['/v2//search', 404, 404],
    ['/v2/./search', 404, 404],
    ['/v2/%2e/search', 404, 404],
    ['/v2/../v2/search', 404, 404],
    ['/v2/%2e%2e/v1/qna', 404, 404],
    ['/v2/%2E%2E/v1/search', 404, 404],
    // The download route takes any file path (GET only: a POST is a 405); the signature check refuses it (no file is read).
    ['/v1/files/%2e%2e/%2e%2e/etc/passwd', 405, 403],
    // A NUL anywhere in a URL is refused before routing (no field takes one).
    ['/v2/search%00', 400, 400],
    ['/v2/search%2f', 404, 404],
    ['/v2%2fsearch', 404, 404],
    ['/%2fv2/search', 404, 404],
    ['/v2/%c0%af', 400, 400],
    ['/%c0%afv2/search', 400, 400],
    ['/v2/search%c0%af', 400, 400],
    ['/v2/%ff', 400, 400],
    ['/v2/%', 400, 400],
    ['/v2/%zz', 400, 400],
    ['/V2/search', 404, 404],
    ['/v2/SEARCH', 404, 404],
    ['/v2/search/', 404, 404],
    ['/v1/qna/', 404, 404],
    ['/v2/search;a=b', 404, 404],
    ['/v2/search%20', 404, 404],
    ['/v2/search%09', 404, 404],
    // The asterisk form is for OPTIONS: no route, though the router would take it for "/".
    ['*', 404, 404],
  ];

  test.each(cases)('%s: POST %i, GET %i, with a JSON detail, whatever the credentials; nothing at error level', async (target, post, get) => {
    const from = lines.length;
    const valid = await hs256Token(SECRET);
    const credentials: Record<string, string>[] = [{}, { 'x-api-key': KEYS.tier2 }, { 'x-api-key': 'not-a-key-000000000000' }, { authorization: 'Bearer not.a.jwt' }, { authorization: `Bearer ${valid}` }];
    for (const headers of credentials) {
      for (const [method, status] of [['POST', post], ['GET', get]] as const) {
        expect(await send(target, headers, method)).toEqual({ status, body: { detail: expect.any(String) } });
      }
    }
    expect(errorsLogged(from)).toEqual([]);
  });

  test('a location id that is a NUL: a 400 naming it, with a key or without', async () => {
    const refused = { status: 400, body: { detail: 'The URL holds a NUL character (\\u0000 or %00), which no field accepts' } };
    expect(await send('/v2/locations/%00', {}, 'GET')).toEqual(refused);
    expect(await send('/v2/locations/%00', { 'x-api-key': KEYS.tier2 }, 'GET')).toEqual(refused);
  });
});

test('a URL with raw UTF-8 (as curl sends "?q=Münch") is a 400 saying how to encode it', async () => {
  const answer = await send('/v2/locations/search?q=Münch', { 'x-api-key': KEYS.tier2 }, 'GET');
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ detail: expect.stringMatching(/must be percent-encoded .*q=M%C3%BCnch.*curl -G --data-urlencode "q=Münch"/) });
  const encoded = await send('/v2/locations/search?q=M%C3%BCnch', { 'x-api-key': KEYS.tier2 }, 'GET');
  expect(encoded.status).toBe(200);
});
