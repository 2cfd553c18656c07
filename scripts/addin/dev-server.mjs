// Serves the built add-in (dist/addin) over HTTPS on https://localhost:3000, the origin of the dev
// manifest, with the localhost certificate of office-addin-dev-certs (~/.office-addin-dev-certs). The
// certificate is generated when missing; trusting its CA is a one-time step the README shows
// (`npx office-addin-dev-certs install`), because it changes the machine's trust store. Started by
// `npm start`, it also answers /dev-connection.json (dev-connection.mjs) so the task pane can offer the API
// server running beside it; started alone (`npm run dev:addin`) it has no such document.
//
// No request can stop it: a path that is not valid percent-encoding is a 400, and anything a request
// throws is a 500 (logged here, not shown to the page): any web page the developer opens can send it
// requests (an <img> pointing at https://localhost:3000/…).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import { homedir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import devCerts from 'office-addin-dev-certs';
import { answerDevConnection, DEV_CONNECTION_PATH, devConnectionOf } from './dev-connection.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.json': 'application/json', '.png': 'image/png', '.xml': 'application/xml', '.txt': 'text/plain' };

/** Where office-addin-dev-certs keeps them (its defaults; the CLI commands in the README use the same place). */
const CERT_DIR = join(homedir(), '.office-addin-dev-certs');

async function certificate(certDir) {
  const cert = join(certDir, 'localhost.crt');
  const key = join(certDir, 'localhost.key');
  if (!existsSync(cert) || !existsSync(key)) await devCerts.generateCertificates(join(certDir, 'ca.crt'), cert, key);
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

/**
 * A request handler that never throws: an error it throws (or a promise it returns rejects with) is logged
 * and answered 500 without its details, and the server goes on.
 */
export function answering(handle, log = (line) => console.error(line)) {
  const failed = (response, error) => {
    log(`add-in dev server: a request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    // Headers already on their way: the answer can only be cut short.
    if (response.headersSent) response.destroy();
    else response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
  };
  return (request, response) => {
    try {
      const pending = handle(request, response);
      if (pending instanceof Promise) pending.catch((error) => failed(response, error));
    } catch (error) {
      failed(response, error);
    }
  };
}

/** The request's path, percent-decoded; null when it is not valid percent-encoding (`/%zz`). */
function decodedPath(url) {
  try {
    return decodeURIComponent(url.split('?')[0] ?? '/');
  } catch {
    return null;
  }
}

/**
 * Starts the server; resolves with its URL. `devConnection` (devConnectionOf's answer) is what
 * /dev-connection.json offers; `certDir` holds (or gets) the localhost certificate.
 */
export async function startAddinDevServer({ port = 3000, dir = join(ROOT, 'dist/addin'), devConnection = null, certDir = CERT_DIR } = {}) {
  const root = resolve(dir);
  if (!existsSync(join(root, 'taskpane.html'))) throw new Error(`${root} has no taskpane.html: run npm run build first`);
  const handle = async (request, response) => {
    const path = decodedPath(request.url ?? '/');
    if (path === null) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('malformed path: not valid percent-encoding');
      return;
    }
    // Before the files, and without their CORS header: the document may hold the development key.
    if (path === DEV_CONNECTION_PATH && devConnection) {
      await answerDevConnection(request, response, devConnection);
      return;
    }
    const file = normalize(join(root, path === '/' ? 'taskpane.html' : path));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end('not found');
      return;
    }
    const body = readFileSync(file);
    // Office caches add-in files aggressively; during development every load should see the last build.
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', 'access-control-allow-origin': '*' }).end(body);
  };
  const server = createServer(await certificate(certDir), answering(handle));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, 'localhost', resolve);
  });
  // An error of the listening socket after the start: reported, never thrown out of the process.
  server.on('error', (error) => console.error(`add-in dev server: ${error.message}`));
  return { url: `https://localhost:${server.address().port}`, server };
}

export const SIDELOAD_HELP = `Sideload the add-in (manifest: dist/addin/manifest.xml):
  Excel on the web: Home > Add-ins > More Settings > Upload My Add-in, choose the manifest.
  Excel desktop (Windows/Mac): npx office-addin-debugging@5.1.6 start dist/addin/manifest.xml desktop
  First time only: trust the dev certificate with  npx office-addin-dev-certs install  (then restart)
  Every step, per platform: docs/excel.md`;

/**
 * `node dev-server.mjs [--port N] [--dir DIR] [--cert-dir DIR]`, or as `npm start` runs it beside the API
 * server: `--with-serve -- <serve's arguments>` (the Connection tab offers that server; stops when its
 * standard input closes, that is when `npm start` is gone).
 */
async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, dir: { type: 'string' }, 'cert-dir': { type: 'string' }, 'with-serve': { type: 'boolean' } },
    allowPositionals: true,
  });
  const withServe = values['with-serve'] === true;
  if (withServe) {
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
  }
  const devConnection = withServe ? devConnectionOf(positionals) : null;
  const port = values.port === undefined ? 3000 : Number(values.port);
  try {
    const { url } = await startAddinDevServer({ port, devConnection, ...(values.dir !== undefined ? { dir: values.dir } : {}), ...(values['cert-dir'] !== undefined ? { certDir: values['cert-dir'] } : {}) });
    if (withServe) {
      const offered = devConnection ? `\nIts Connection tab offers ${devConnection.serviceUrl} until a connection is saved.` : '';
      console.log(`\nExcel add-in served at ${url}/taskpane.html (functions ORG.SEARCH, ORG.FETCH, ORG.STATS, ORG.ASK)${offered}\nTry it in a browser first: open ${url} (the task pane on the built-in sample; past the certificate warning until the certificate is trusted)\n${SIDELOAD_HELP}\n`);
    } else {
      console.log(`Add-in files served at ${url}/taskpane.html\n${SIDELOAD_HELP}`);
    }
  } catch (error) {
    console.error(`The add-in dev server did not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) await main(process.argv.slice(2));
