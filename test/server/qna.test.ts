/**
 * /v1/qna end to end against a fixture website served on loopback by this test (never the internet):
 * fetching (same-site links, robots.txt, max_pages), extractive answers, "cannot answer", and the
 * server-side-request-forgery guard that refuses loopback and private addresses unless allowed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '../../src/index.js';
import { answerQuestion, MAX_CONTEXT_TOKENS } from '../../src/engine/language/qna.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { fetchSite, isPublicAddress } from '../../src/server/web-fetch.js';
import { hs256Token, raw, startTestServer, type TestServer } from './support.js';

const SECRET = 'qna-test-secret-00000000000000001';
const PAGES: Record<string, string> = {
  '/': `<html><head><title>Acme Solar GmbH</title><script>var tracking = "founded 1850";</script></head><body>
    <nav><a href="/">Home</a></nav>
    <h1>Acme Solar</h1><p>We plan and install photovoltaic systems for homeowners and farms.</p>
    <p><a href="/about">About us</a> · <a href="/contact#form">Contact</a> · <a href="/private/salaries">Staff</a> · <a href="https://elsewhere.example/">Partner</a></p>
  </body></html>`,
  '/about': `<html><head><title>About us</title></head><body>
    <p>Acme Solar was founded in 2009 by Jane Doe in Munich. Since then the company has installed more than 4,000 solar systems.</p>
    <p>Our team of 35 electricians and engineers works across Bavaria.</p></body></html>`,
  '/contact': `<html><head><title>Contact</title></head><body><p>Call us on +49 89 123456 or write to info@acme-solar.example.</p>
    <p>Our office is open Monday to Friday from 8 am to 5 pm.</p></body></html>`,
  '/private/salaries': `<html><head><title>Salaries</title></head><body><p>The chief executive earns a secret salary.</p></body></html>`,
  '/robots.txt': 'User-agent: *\nDisallow: /private\n',
};

let site: Server;
let siteUrl: string;
const requested: string[] = [];
let server: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  site = createServer((request, response) => {
    requested.push(request.url ?? '');
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === '/go') {
      response.writeHead(302, { location: 'http://metadata.test/latest/meta-data/' }).end();
      return;
    }
    const page = PAGES[path];
    if (page === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<p>not found</p>');
      return;
    }
    response.writeHead(200, { 'content-type': path === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // The fixture site answers on loopback under a reserved name (RFC 2606 .test), pinned like /etc/hosts.
  siteUrl = `http://acme-solar.test:${(site.address() as AddressInfo).port}/`;
  const fetchHosts = { 'acme-solar.test': '127.0.0.1' };
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })!, allowPrivateFetch: true, fetchHosts });
  guarded = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })!, fetchHosts });
});
afterAll(async () => {
  await server.close();
  await guarded.close();
  await new Promise((resolve) => site.close(resolve));
});

const token = (): Promise<string> => hs256Token(SECRET);

async function ask(target: TestServer, question: string, domain: string, maxPages?: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await raw(`${target.url}/v1/qna`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
    body: JSON.stringify({ question, domain, ...(maxPages ? { max_pages: maxPages } : {}) }),
  });
  return { status: response.status, body: response.body as Record<string, unknown> };
}

describe('POST /v1/qna', () => {
  test('answers from the page that says it, quoted, with its source, confidence and follow-up questions', async () => {
    const { status, body } = await ask(server, 'When was the company founded?', siteUrl, 3);
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, can_answer: true });
    const data = body.data as { answer: string; sources: string[]; confidence: number; follow_up_questions: string[]; can_answer: boolean };
    expect(data.answer).toContain('Acme Solar was founded in 2009 by Jane Doe in Munich.');
    expect(data.sources).toEqual(['About us']);
    // OrgIndex's extension: each source's address, in the order of the labels.
    expect(body.data).toMatchObject({ source_urls: [`${siteUrl}about`] });
    expect(data.confidence).toBeGreaterThanOrEqual(0.35);
    expect(data.confidence).toBeLessThanOrEqual(1);
    expect(data.can_answer).toBe(true);
    expect(data.follow_up_questions.length).toBeGreaterThan(0);
    // Script text is not page text ("founded 1850" lives in a <script>).
    expect(data.answer).not.toContain('1850');
  });

  test('through the remote client: an answer, and the error envelope as a ServiceError', async () => {
    const answered = await server.client(null, { accessToken: await token() }).language.qna({ question: 'Where is the office and when is it open?', domain: siteUrl, max_pages: 3 });
    expect(answered.can_answer).toBe(true);
    const error: unknown = await guarded.client(null, { accessToken: await token() }).language.qna({ question: 'When was it founded?', domain: siteUrl }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toMatch(/refused/);
  });

  test('follows same-site links up to max_pages; honours robots.txt; never leaves the site', async () => {
    requested.length = 0;
    const phone = await ask(server, 'What is the phone number of the office?', siteUrl, 5);
    expect((phone.body.data as { answer: string }).answer).toContain('+49 89 123456');
    expect(requested).toContain('/robots.txt');
    expect(requested.some((path) => path.startsWith('/private'))).toBe(false);
    const salary = await ask(server, 'How much does the chief executive earn?', siteUrl, 5);
    expect(salary.body).toMatchObject({ success: true, can_answer: false, data: null });
    // One page only: the home page does not say when the company was founded.
    const onePage = await ask(server, 'When was the company founded?', siteUrl, 1);
    expect(onePage.body).toMatchObject({ can_answer: false, message: expect.stringMatching(/another question/) });
  });

  test('a question the site does not answer: can_answer false with the message asking for another question', async () => {
    const { body } = await ask(server, 'What is the capital of France?', siteUrl, 3);
    expect(body).toEqual({ success: true, can_answer: false, message: expect.stringMatching(/Please ask another question, or give more context/), data: null });
  });

  test('loopback and private addresses are refused unless the server allows them (the error envelope)', async () => {
    const { status, body } = await ask(guarded, 'When was the company founded?', siteUrl, 3);
    expect(status).toBe(200);
    expect(body).toEqual({ success: false, can_answer: false, message: `Could not read ${siteUrl}`, error: expect.stringMatching(/private or local address; fetching it is refused/) });
    const localhost = await ask(guarded, 'Who are you?', 'localhost', 1);
    expect([localhost.status, localhost.body]).toEqual([400, { detail: expect.stringMatching(/no top-level domain/) }]);
    // The guard holds on every redirect: the fixture may be reached, a redirect to a metadata address not.
    const policy = (address: string) => address === '127.0.0.1' || isPublicAddress(address);
    const hosts = { 'acme-solar.test': '127.0.0.1', 'metadata.test': '169.254.169.254' };
    await expect(fetchSite(`${siteUrl}go`, 1, { hosts, allowAddress: policy })).rejects.toThrow(/metadata\.test resolves to a private or local address; fetching it is refused/);
    await expect(fetchSite(`${siteUrl}about`, 1, { hosts, allowAddress: policy })).resolves.toMatchObject({ pages: [{ label: 'About us' }], note: null });
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.9', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
    for (const address of ['8.8.8.8', '93.184.216.34', '2a00:1450:4001:80b::200e']) expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });

  test('401 without a token; 400 for a bad domain or max_pages', async () => {
    const missing = await raw(`${server.url}/v1/qna`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'x', domain: 'a.de' }) });
    expect(missing.status).toBe(401);
    for (const body of [{ question: 'x', domain: 'not a domain' }, { question: 'x', domain: 'a.de', max_pages: 11 }, { domain: 'a.de' }, { question: 'x', domain: 'a\uD800b.com' }]) {
      const response = await raw(`${server.url}/v1/qna`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` }, body: JSON.stringify(body) });
      expect([response.status, response.body]).toEqual([400, { detail: expect.any(String) }]);
    }
  });
});

describe('answerQuestion (the extractive answerer, portable)', () => {
  const pages = [
    { url: 'https://a.example/', label: 'Home', text: 'We repair bicycles and e-bikes.\nOpening hours are Monday to Saturday.' },
    { url: 'https://a.example/team', label: 'Team', text: 'The workshop was founded in 1998. Twelve mechanics work here.' },
  ];
  const words = (text: string) => text.split(/\s+/).length;

  test('the context stops at the token budget (40,000 by default)', () => {
    expect(MAX_CONTEXT_TOKENS).toBe(40_000);
    const tight = answerQuestion('When was the workshop founded?', pages, { countTokens: words, maxContextTokens: 12 });
    expect(tight.can_answer).toBe(false); // the Team page no longer fits
    const roomy = answerQuestion('When was the workshop founded?', pages, { countTokens: words });
    expect(roomy).toMatchObject({ can_answer: true, data: { sources: ['Team'] } });
  });

  test('pages cut short by a time limit: the message says so, answered or not', () => {
    const incomplete = 'the other pages were not read within the 20 s time limit';
    expect(answerQuestion('When was the workshop founded?', pages, { countTokens: words, incomplete })).toMatchObject({ can_answer: true, message: `Answered from 1 of 2 page(s); ${incomplete}` });
    expect(answerQuestion('What is the capital of France?', pages, { countTokens: words, incomplete })).toMatchObject({ can_answer: false, message: `The website does not seem to answer this question. Please ask another question, or give more context. Only 2 page(s) were read: ${incomplete}.` });
  });

  test('deterministic', () => {
    expect(answerQuestion('What are the opening hours?', pages, { countTokens: words })).toEqual(answerQuestion('What are the opening hours?', pages, { countTokens: words }));
  });
});

describe('the fetch guard on every hop, and its deadline', () => {
  let other: Server;
  let otherPort = 0;
  beforeAll(async () => {
    // A second loopback address stands for a public host; it redirects to address literals of 127.0.0.1.
    other = createServer((request, response) => {
      const target: Record<string, string> = {
        '/ip': `http://127.0.0.1:${otherPort}/`,
        '/mapped': `http://[::ffff:7f00:1]:${otherPort}/`,
        '/decimal': `http://2130706433:${otherPort}/`,
        '/userinfo': `http://user:secret@public.test:${otherPort}/`,
      };
      const location = target[request.url ?? ''];
      if (location) response.writeHead(302, { location }).end();
      else if (request.url === '/slow') {
        response.writeHead(200, { 'content-type': 'text/html' });
        const drip = setInterval(() => response.write('<p>x</p>'), 50);
        response.on('close', () => { clearInterval(drip); });
      } else response.writeHead(200, { 'content-type': 'text/html' }).end('<p>the internal page</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    otherPort = (other.address() as AddressInfo).port;
  });
  afterAll(async () => {
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
  });

  const options = () => ({ hosts: { 'public.test': '127.0.0.2' }, allowAddress: (address: string) => address === '127.0.0.2', timeoutMs: 500 });

  test('redirects to an address literal (plain, IPv4-mapped IPv6, decimal) or with credentials are refused', async () => {
    for (const path of ['/ip', '/mapped', '/decimal']) {
      await expect(fetchSite(`http://public.test:${otherPort}${path}`, 1, options())).rejects.toThrow(/is a private or local address; fetching it is refused/);
    }
    await expect(fetchSite(`http://public.test:${otherPort}/userinfo`, 1, options())).rejects.toThrow(/credentials/);
    await expect(fetchSite(`http://public.test:${otherPort}/`, 1, options())).resolves.toMatchObject({ pages: [{ text: 'the internal page' }], note: null });
  });

  test('a page that drips its body is cut at the deadline, not read for ever', async () => {
    // The page never ends: only the deadline can end this (jest's own timeout would fail the test).
    await expect(fetchSite(`http://public.test:${otherPort}/slow`, 1, options())).rejects.toThrow(/did not arrive within 0.5 s/);
  });
});
