/**
 * The add-in dev server (scripts/addin/dev-server.mjs) in its own process, as `npm run dev:addin` and
 * `npm start` run it, over HTTPS with a certificate made for the test: no request stops it. A path that is
 * not valid percent-encoding is a 400, a request whose handling throws is a 500 that shows nothing of the
 * error, a path out of its folder is a 404, and it serves on after each.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const scratch = mkdtempSync(join(tmpdir(), 'orgindex-dev-server-'));
const dir = join(scratch, 'addin');
let server: ChildProcess | undefined;
let port = 0;
let stderr = '';

beforeAll(async () => {
  mkdirSync(dir);
  writeFileSync(join(dir, 'taskpane.html'), '<p>task pane</p>');
  // Past the 2 GiB one read may take: reading it throws (a sparse file: no disk is used).
  writeFileSync(join(dir, 'huge.bin'), '');
  truncateSync(join(dir, 'huge.bin'), 2 ** 31 + 1);
  // A folder beside it whose name starts with the served folder's.
  mkdirSync(`${dir}-private`);
  writeFileSync(join(`${dir}-private`, 'secret.txt'), 'secret');
  const started = spawn(process.execPath, [join(__dirname, '../../scripts/addin/dev-server.mjs'), '--port', '0', '--dir', dir, '--cert-dir', join(scratch, 'certs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  server = started;
  started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  port = await new Promise<number>((resolve, reject) => {
    let out = '';
    started.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const served = /served at https:\/\/localhost:(\d+)\//.exec(out);
      if (served) resolve(Number(served[1]));
    });
    started.once('exit', (code) => { reject(new Error(`the dev server exited (${String(code)}): ${stderr}`)); });
  });
}, 60_000);

afterAll(() => {
  server?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/** GET with the path sent as it is (fetch would normalise it), the dev certificate not checked. */
function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request({ host: 'localhost', port, path, rejectUnauthorized: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => { resolve({ status: response.statusCode ?? 0, body }); });
    });
    call.on('error', reject);
    call.end();
  });
}

test('a path that is not valid percent-encoding is a 400; the server serves on', async () => {
  expect(await get('/%zz')).toEqual({ status: 400, body: 'malformed path: not valid percent-encoding' });
  expect(await get('/taskpane.html?x=%zz')).toEqual({ status: 200, body: '<p>task pane</p>' });
  expect(await get('/%E0%A4%A')).toMatchObject({ status: 400 });
  expect(await get('/')).toEqual({ status: 200, body: '<p>task pane</p>' });
  expect(server?.exitCode).toBeNull();
}, 30_000);

test('a request whose handling throws is a 500 naming nothing of the error; the server serves on', async () => {
  expect(await get('/huge.bin')).toEqual({ status: 500, body: 'internal error' });
  // Logged by the server (its stderr reaches this process a moment after the answer).
  for (const deadline = Date.now() + 10_000; !stderr.includes('a request failed') && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(stderr).toContain('add-in dev server: a request failed: RangeError');
  expect(await get('/taskpane.html')).toEqual({ status: 200, body: '<p>task pane</p>' });
  expect(server?.exitCode).toBeNull();
}, 30_000);

test('a path out of the served folder is a 404, a folder whose name starts with its name too', async () => {
  expect(await get(`/..%2f${basename(dir)}-private%2fsecret.txt`)).toEqual({ status: 404, body: 'not found' });
  expect(await get('/..%2f..%2fetc%2fhostname')).toEqual({ status: 404, body: 'not found' });
  expect(await get('/missing.js')).toEqual({ status: 404, body: 'not found' });
}, 30_000);
