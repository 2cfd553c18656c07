/**
 * The Connection form's address check and the connection `npm start` offers: the document built from
 * serve's arguments and state directory (scripts/addin/dev-connection.mjs, on a real loopback HTTP server)
 * and the pane's reading of it (src/ui/dev-connection.ts). The browser test drives both in the built pane.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { answerDevConnection, devConnectionOf, type DevConnection } from '../../scripts/addin/dev-connection.mjs';
import { DEFAULT_CONNECTION } from '../../src/sheet/connection.js';
import { addressProblem } from '../../src/ui/connection-form.js';
import { findSuggestedConnection, isUnsaved, readSuggestedConnection } from '../../src/ui/dev-connection.js';

describe('addressProblem', () => {
  test('an empty service URL asks for one; an empty language URL is fine', () => {
    expect(addressProblem('', true)).toBe("Enter the service's address, such as http://localhost:8787");
    expect(addressProblem('   ', true)).toBe("Enter the service's address, such as http://localhost:8787");
    expect(addressProblem('', false)).toBeNull();
  });

  test('an address without a scheme gets advice, with http for this machine and https elsewhere', () => {
    expect(addressProblem('localhost:8787', true)).toBe('Add http:// or https:// in front of the address, such as http://localhost:8787');
    expect(addressProblem('127.0.0.1:8787/v2', true)).toBe('Add http:// or https:// in front of the address, such as http://127.0.0.1:8787/v2');
    expect(addressProblem('api.example.com', true)).toBe('Add http:// or https:// in front of the address, such as https://api.example.com');
  });

  test('other schemes and malformed addresses are named', () => {
    expect(addressProblem('ftp://example.com', true)).toBe('The address must start with http:// or https://, not ftp://');
    expect(addressProblem('http:/localhost:8787', true)).toBe('"http:/localhost:8787" is not a web address: it should look like http://localhost:8787');
    expect(addressProblem('http://exa mple.com', true)).toMatch(/is not a web address/);
    expect(addressProblem('http://example.com/?key=1', true)).toMatch(/without spaces, \? or #/);
    expect(addressProblem('http://', true)).toMatch(/is not a web address/);
  });

  test('usable addresses pass', () => {
    for (const url of ['http://localhost:8787', 'https://api.example.com', 'https://api.example.com/v2/', 'http://[::1]:8787', ' http://127.0.0.1:8787 ']) expect(addressProblem(url, true)).toBeNull();
  });
});

describe("the pane's side", () => {
  test('reads only a document with a usable service URL', () => {
    expect(readSuggestedConnection({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'k', accessToken: 't' })).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'k', accessToken: 't' });
    expect(readSuggestedConnection({ serviceUrl: 'http://127.0.0.1:8787' })).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: '', accessToken: '' });
    for (const value of [null, 'text', [], {}, { serviceUrl: 'localhost:8787' }, { serviceUrl: 42 }]) expect(readSuggestedConnection(value)).toBeNull();
  });

  test('asks only from a page of this machine, and takes a 404 or a failure as nothing offered', async () => {
    const asked: string[] = [];
    const found = { ok: true, json: () => Promise.resolve({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'k' }) };
    const fetchDocument = (path: string) => {
      asked.push(path);
      return Promise.resolve(found);
    };
    expect(await findSuggestedConnection('addin.example.com', fetchDocument)).toBeNull();
    expect(asked).toEqual([]);
    expect(await findSuggestedConnection('localhost', fetchDocument)).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'k', accessToken: '' });
    expect(asked).toEqual(['dev-connection.json']);
    expect(await findSuggestedConnection('127.0.0.1', () => Promise.resolve({ ok: false, json: () => Promise.reject(new Error('not JSON')) }))).toBeNull();
    expect(await findSuggestedConnection('127.0.0.1', () => Promise.reject(new Error('offline')))).toBeNull();
  });

  test('nothing saved means exactly the defaults', () => {
    expect(isUnsaved({ ...DEFAULT_CONNECTION })).toBe(true);
    expect(isUnsaved({ ...DEFAULT_CONNECTION, cacheHours: 6 })).toBe(false);
    expect(isUnsaved({ ...DEFAULT_CONNECTION, serviceUrl: 'http://localhost:8787' })).toBe(false);
  });
});

describe('the document of npm start', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'orgindex-devconn-'));
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key: 'admin-key', tier: 'tier_2', admin: true, name: 'development key' }, { key: 'dev-key-0001', tier: 'tier_2', admin: false, name: 'development key' }] }));
    writeFileSync(join(dir, 'jwt-secret'), 'a-development-secret-of-at-least-32-bytes-0000\n');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test("on serve's development defaults: its URL, the development key and a fresh token signed with the state directory's secret", async () => {
    const offered = devConnectionOf([`--state-dir=${dir}`], { env: {} });
    expect(offered?.serviceUrl).toBe('http://127.0.0.1:8787');
    const document = await offered!.read();
    expect(document.serviceUrl).toBe('http://127.0.0.1:8787');
    expect(document.apiKey).toBe('dev-key-0001');
    const { payload } = await jwtVerify(document.accessToken!, new TextEncoder().encode('a-development-secret-of-at-least-32-bytes-0000'));
    expect(payload.sub).toBe('developer');
  });

  test('follows --host, --port and --public-url, as serve reads them', () => {
    expect(devConnectionOf(['--host', '0.0.0.0', '--port=9000'], { env: {} })?.serviceUrl).toBe('http://127.0.0.1:9000');
    expect(devConnectionOf(['--host', '::', '--port', '9001'], { env: {} })?.serviceUrl).toBe('http://[::1]:9001');
    expect(devConnectionOf(['--public-url', 'https://orgindex.example.com/'], { env: {} })?.serviceUrl).toBe('https://orgindex.example.com');
    // Any free port: only the server knows which, so nothing is offered.
    expect(devConnectionOf(['--port', '0'], { env: {} })).toBeNull();
  });

  test('no key with --keys, no token off the development defaults', async () => {
    expect(await devConnectionOf(['--state-dir', dir, '--keys', join(dir, 'keys.json')], { env: {} })!.read()).toEqual({ serviceUrl: 'http://127.0.0.1:8787' });
    expect(await devConnectionOf(['--state-dir', dir], { env: { ORGINDEX_JWT_SECRET: 'x'.repeat(40) } })!.read()).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'dev-key-0001' });
    expect(await devConnectionOf(['--state-dir', dir, '--jwks', 'keys.jwks'], { env: {} })!.read()).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'dev-key-0001' });
    // Before serve has created its state: the URL alone.
    expect(await devConnectionOf(['--state-dir', join(dir, 'not-yet')], { env: {} })!.read()).toEqual({ serviceUrl: 'http://127.0.0.1:8787' });
  });

  describe('over HTTP', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      const offered: DevConnection = { serviceUrl: 'http://127.0.0.1:8787', read: () => Promise.resolve({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'dev-key-0001' }) };
      server = createServer((request, response) => void answerDevConnection(request, response, offered));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const get = (headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
      new Promise((resolve, reject) => {
        const sent = httpRequest({ host: '127.0.0.1', port, path: '/dev-connection.json', headers }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
          });
        });
        sent.on('error', reject);
        sent.end();
      });

    test('answers pages of this machine, uncached and without CORS', async () => {
      const answer = await get({ host: `localhost:${port}` });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ serviceUrl: 'http://127.0.0.1:8787', apiKey: 'dev-key-0001' });
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      expect((await get({ host: `127.0.0.1:${port}`, origin: `https://localhost:3000` })).status).toBe(200);
    });

    test('refuses a request addressed to another name (a rebound DNS name) or sent from another origin', async () => {
      expect((await get({ host: `attacker.example:${port}` })).status).toBe(403);
      expect((await get({ host: `localhost:${port}`, origin: 'https://attacker.example' })).status).toBe(403);
      expect((await get({ host: `localhost:${port}`, origin: 'null' })).status).toBe(403);
    });
  });
});
