/**
 * /v1/qna's bounds in time: one deadline for the whole request (every page, robots.txt, redirects,
 * bodies), an answer from the pages read before it, and every upstream connection closed as soon as the
 * caller leaves. The fixture site is served on loopback; its pages drip one byte at a time and never end.
 */
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerOptions } from '../../src/server/app.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { fetchSite } from '../../src/server/web-fetch.js';
import { hs256Token, raw, startTestServer, type TestServer } from './support.js';

const SECRET = 'qna-deadline-secret-0000000000001';
const HOME = `<html><head><title>Drip Co</title></head><body>
  <p>Drip Co sells watering cans. The company was founded in 1999 in Leipzig.</p>
  ${Array.from({ length: 9 }, (_, i) => `<a href="/drip/${i + 1}">Page ${i + 1}</a>`).join(' ')}
</body></html>`;

/** The fixture site: a fast home page linking to pages that never finish (on `dripping.test` the home page drips too). */
let site: Server;
let sitePort = 0;
/** Upstream responses still open, and who waits for them all to close. */
const open = new Set<ServerResponse>();
let onAllClosed: (() => void) | null = null;
let onDripTestServer: (() => void) | null = null;

function drip(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/html' });
  response.write('<html><body><p>');
  const timer = setInterval(() => response.write('x'), 20);
  open.add(response);
  onDripTestServer?.();
  response.on('close', () => {
    clearInterval(timer);
    open.delete(response);
    if (open.size === 0) onAllClosed?.();
  });
}

/** Resolves when no upstream response is open any more; rejects after `ms` naming how many still are. */
function allUpstreamClosed(ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (open.size === 0) {
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      reject(new Error(`${open.size} upstream connection(s) still open ${ms} ms later`));
    }, ms);
    onAllClosed = () => {
      clearTimeout(timer);
      onAllClosed = null;
      resolve();
    };
  });
}

function serveSite(request: IncomingMessage, response: ServerResponse): void {
  const path = request.url ?? '/';
  const host = request.headers.host ?? '';
  if (path === '/robots.txt') response.writeHead(404).end();
  else if (path === '/' && !host.startsWith('dripping.test')) response.writeHead(200, { 'content-type': 'text/html' }).end(HOME);
  else drip(response);
}

function startServer(options: Partial<ServerOptions>): Promise<TestServer> {
  return startTestServer({
    engine: { index: null, error: 'not needed for /v1/qna' },
    bearer: bearerVerifier({ secret: SECRET })!,
    allowPrivateFetch: true,
    fetchHosts: { 'drip.test': '127.0.0.1', 'dripping.test': '127.0.0.1' },
    server: options,
  });
}

beforeAll(async () => {
  site = createHttpServer(serveSite);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});
afterEach(() => {
  site.closeAllConnections();
  onAllClosed = null;
  onDripTestServer = null;
});

/** Time past a deadline a loaded 2-core machine may add (an answer without the deadline takes ≥ 10 s). */
const LOADED_SLACK_MS = 4_000;

const body = (domain: string, maxPages: number): string => JSON.stringify({ question: 'When was the company founded?', domain, max_pages: maxPages });

describe('/v1/qna: one deadline for the whole request', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ qnaDeadlineMs: 1_000 });
  });
  afterAll(async () => {
    await server.close();
  });

  test('ten pages that never finish: answered from the pages read, within the deadline, upstream closed', async () => {
    const started = Date.now();
    const response = await raw(`${server.url}/v1/qna`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await hs256Token(SECRET)}` },
      body: body(`http://drip.test:${sitePort}/`, 10),
    });
    const elapsed = Date.now() - started;
    // The deadline and a busy machine's slack; without the deadline, one page alone waits its 10 s timeout.
    expect(elapsed).toBeLessThan(1_000 + LOADED_SLACK_MS);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      can_answer: true,
      message: expect.stringMatching(/^Answered from 1 of 1 page\(s\); the other pages were not read within the 1 s time limit$/),
      data: { answer: expect.stringContaining('founded in 1999 in Leipzig'), sources: ['Drip Co'] },
    });
    await allUpstreamClosed(1_000);
  }, 8_000);

  test('no page read within the deadline: the error envelope naming the limit', async () => {
    const started = Date.now();
    const domain = `http://dripping.test:${sitePort}/`;
    const response = await raw(`${server.url}/v1/qna`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await hs256Token(SECRET)}` },
      body: body(domain, 3),
    });
    expect(Date.now() - started).toBeLessThan(1_000 + LOADED_SLACK_MS);
    expect([response.status, response.body]).toEqual([
      200,
      { success: false, can_answer: false, message: `Could not read ${domain}`, error: `no page of dripping.test:${sitePort} was read within the 1 s time limit` },
    ]);
    await allUpstreamClosed(1_000);
  }, 8_000);
});

describe('/v1/qna: a caller who leaves cancels the fetching', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The default deadline (20 s) is far away: only the disconnect can end the upstream requests in time.
    server = await startServer({});
  });
  afterAll(async () => {
    await server.close();
  });

  test('the upstream connection closes as soon as the client disconnects', async () => {
    const dripping = new Promise<void>((resolve) => {
      onDripTestServer = resolve;
    });
    const token = await hs256Token(SECRET);
    const { port } = new URL(server.url);
    const client = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/qna', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    client.on('error', () => undefined); // destroyed on purpose below
    client.end(body(`http://drip.test:${sitePort}/`, 10));
    await dripping; // the server is now reading a page that never ends
    client.destroy();
    await allUpstreamClosed(1_500);
  }, 8_000);
});

describe('fetchSite: the deadline covers name resolution too', () => {
  test('a resolver that never answers meets the deadline', async () => {
    const started = Date.now();
    const never = (): Promise<string[]> => new Promise<string[]>(() => undefined);
    await expect(fetchSite('https://silent.test/', 3, { resolve: never, deadlineMs: 300 })).rejects.toThrow('no page of silent.test was read within the 0.3 s time limit');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('fetchSite with an abort signal', () => {
  test('aborting rejects at once and closes the connection', async () => {
    const controller = new AbortController();
    const dripping = new Promise<void>((resolve) => {
      onDripTestServer = () => {
        resolve();
      };
    });
    const fetching = fetchSite(`http://dripping.test:${sitePort}/`, 1, { hosts: { 'dripping.test': '127.0.0.1' }, allowPrivate: true, signal: controller.signal });
    await dripping;
    const started = Date.now();
    controller.abort(new Error('the caller left'));
    await expect(fetching).rejects.toThrow(/the caller left/);
    expect(Date.now() - started).toBeLessThan(2_000);
    await allUpstreamClosed(1_000);
  }, 8_000);
});
