// Serves the built add-in (dist/addin) over HTTPS on https://localhost:3000, the origin of the dev
// manifest, with the localhost certificate of office-addin-dev-certs (~/.office-addin-dev-certs). The
// certificate is generated when missing; trusting its CA is a one-time step the README shows
// (`npx office-addin-dev-certs install`), because it changes the machine's trust store. Started by
// `npm start`, it also answers /dev-connection.json (dev-connection.mjs) so the task pane can offer the API
// server running beside it; started alone (`npm run dev:addin`) it has no such document.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import { homedir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import devCerts from 'office-addin-dev-certs';
import { answerDevConnection, DEV_CONNECTION_PATH } from './dev-connection.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.json': 'application/json', '.png': 'image/png', '.xml': 'application/xml', '.txt': 'text/plain' };

/** Where office-addin-dev-certs keeps them (its defaults; the CLI commands in the README use the same place). */
const CERT_DIR = join(homedir(), '.office-addin-dev-certs');

async function certificate() {
  const cert = join(CERT_DIR, 'localhost.crt');
  const key = join(CERT_DIR, 'localhost.key');
  if (!existsSync(cert) || !existsSync(key)) await devCerts.generateCertificates(join(CERT_DIR, 'ca.crt'), cert, key);
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

/** Starts the server; resolves with its URL. `devConnection` (devConnectionOf's answer) is what /dev-connection.json offers. */
export async function startAddinDevServer({ port = 3000, dir = join(ROOT, 'dist/addin'), devConnection = null } = {}) {
  if (!existsSync(join(dir, 'taskpane.html'))) throw new Error(`${dir} has no taskpane.html: run npm run build first`);
  const server = createServer(await certificate(), (request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    // Before the files, and without their CORS header: the document may hold the development key.
    if (path === DEV_CONNECTION_PATH && devConnection) {
      void answerDevConnection(request, response, devConnection);
      return;
    }
    const file = normalize(join(dir, path === '/' ? 'taskpane.html' : path));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end('not found');
      return;
    }
    // Office caches add-in files aggressively; during development every load should see the last build.
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', 'access-control-allow-origin': '*' }).end(readFileSync(file));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, 'localhost', resolve);
  });
  return { url: `https://localhost:${port}`, server };
}

export const SIDELOAD_HELP = `Sideload the add-in (manifest: dist/addin/manifest.xml):
  Excel on the web: Home > Add-ins > More add-ins > My add-ins > Upload my add-in, choose the manifest.
  Excel desktop (Windows/Mac): npx office-addin-debugging@5.1.6 start dist/addin/manifest.xml desktop
  First time only: trust the dev certificate with  npx office-addin-dev-certs install`;

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const { url } = await startAddinDevServer();
  console.log(`Add-in files served at ${url}/taskpane.html\n${SIDELOAD_HELP}`);
}
