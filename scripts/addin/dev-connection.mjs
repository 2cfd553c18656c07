// The connection `npm start` offers its task pane: the add-in dev server answers GET /dev-connection.json
// with the API server's URL and, when `serve` runs on its development defaults, the development key of
// `<state dir>/keys.json` and a sign-in token signed with `<state dir>/jwt-secret` — the key and token
// `serve` prints. The document is built on each request from serve's arguments and its state directory,
// so no secret is ever written into the bundle or any file; a production host has no such document
// (404) and the pane then offers nothing.
//
// Only this machine's pages can read it: it answers only requests addressed to localhost (a rebound DNS
// name is refused), carries no CORS header (another origin's script cannot read it) and is never cached.
// Other local users can still fetch it, as they can reach the API server itself: it is development
// material for the sample data, not a production credential.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

export const DEV_CONNECTION_PATH = '/dev-connection.json';

/** The value of `--name value` or `--name=value` among serve's arguments; the last one wins, as in commander. */
function optionValue(args, name) {
  let value;
  args.forEach((arg, i) => {
    if (arg === name && i + 1 < args.length) value = args[i + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

/** The URL a browser on this machine reaches serve at, for its --host / --port / --public-url (src/cli/main.ts defaults). */
function serviceUrlOf(args) {
  const publicUrl = optionValue(args, '--public-url');
  if (publicUrl !== undefined) return /^https?:\/\/[^/\s]+/i.test(publicUrl) ? publicUrl.replace(/\/+$/, '') : null;
  const port = Number(optionValue(args, '--port') ?? '8787');
  // Port 0 (any free port) is known only to the server itself: nothing is offered rather than a wrong address.
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return null;
  const host = optionValue(args, '--host') ?? '127.0.0.1';
  // A server on every interface is reached here through loopback.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The development key of a keys file, as serve picks the one it prints (src/cli/serve.ts). */
async function developmentKey(path) {
  try {
    const { developmentKeyOf } = await import('../../dist/lib/server/keys.js');
    const file = JSON.parse(await readFile(path, 'utf8'));
    return Array.isArray(file?.keys) ? developmentKeyOf(file) : null;
  } catch {
    // Not created yet (serve writes it as it starts) or not readable: the pane asks for a key instead.
    return null;
  }
}

/** A fresh token with the claims of the one serve prints, from the state directory's development secret. */
async function developmentToken(stateDir) {
  try {
    const { developmentSecret, signToken } = await import('../../dist/lib/cli/dev-token.js');
    const secret = developmentSecret(stateDir, false);
    return secret ? await signToken(secret) : null;
  } catch {
    return null;
  }
}

/**
 * What to offer for a `serve` started with `args` (the arguments after `npm start --`) from `cwd` with
 * `env`: null when its address cannot be known (--port 0), else the URL and a reader of the document.
 * Key and token only on serve's development defaults (no --keys, --jwt-secret, ORGINDEX_JWT_SECRET or
 * --jwks), where serve itself prints them.
 */
export function devConnectionOf(args, { cwd = process.cwd(), env = process.env } = {}) {
  const serviceUrl = serviceUrlOf(args);
  if (serviceUrl === null) return null;
  const stateDir = resolve(cwd, optionValue(args, '--state-dir') ?? '.orgindex');
  const ownKeys = optionValue(args, '--keys') !== undefined;
  const developmentDefaults = !ownKeys && optionValue(args, '--jwt-secret') === undefined && env.ORGINDEX_JWT_SECRET === undefined && optionValue(args, '--jwks') === undefined;
  return {
    serviceUrl,
    async read() {
      const apiKey = ownKeys ? null : await developmentKey(resolve(stateDir, 'keys.json'));
      const accessToken = developmentDefaults ? await developmentToken(stateDir) : null;
      return { serviceUrl, ...(apiKey ? { apiKey } : {}), ...(accessToken ? { accessToken } : {}) };
    },
  };
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host or Origin header value, lower-cased, without its port. */
function hostNameOf(value) {
  const bare = value.replace(/^[a-z][a-z\d+.-]*:\/\//i, '').toLowerCase();
  return bare.startsWith('[') ? bare.slice(0, bare.indexOf(']') + 1) : bare.replace(/:\d*$/, '');
}

/** Answers GET /dev-connection.json with `connection.read()`; 403 to anything not addressed from and to this machine. */
export async function answerDevConnection(request, response, connection) {
  const origin = request.headers.origin;
  if (!LOOPBACK_NAMES.has(hostNameOf(request.headers.host ?? '')) || (origin !== undefined && !LOOPBACK_NAMES.has(hostNameOf(origin)))) {
    response.writeHead(403, { 'content-type': 'text/plain' }).end('only for pages of this machine');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  try {
    const body = JSON.stringify(await connection.read());
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(request.method === 'HEAD' ? undefined : body);
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : String(error));
  }
}
