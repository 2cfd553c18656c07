/**
 * What reaches the server before any route: request ids, the JSON body parser, NUL characters refused,
 * and the errors Fastify or Node raise before a handler runs. Every one of them answers JSON `{"detail": …}`, like the routes.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { holdsNul, nulRefusal } from './problem.js';
import { messageOf } from '../contract/errors.js';
import { notFound } from './error-handler.js';

/** Deeper JSON is refused: no request needs it, and echoing it back in a 422 could overflow the stack. */
export const MAX_JSON_DEPTH = 64;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** An error Fastify's error handler turns into `{"detail": message}` with this status. */
export class ClientError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The caller's `x-request-id` when it is a plain token (letters, digits, `._:-`, at most 64) and not an
 * API key pasted by mistake (it would be logged); otherwise a fresh UUID.
 */
export function requestIdGenerator(isKey: (text: string) => boolean): NonNullable<FastifyServerOptions['genReqId']> {
  return (request) => {
    const header = request.headers['x-request-id'];
    const offered = Array.isArray(header) ? header[0] : header;
    if (offered && REQUEST_ID.test(offered) && !isKey(offered)) return offered;
    return randomUUID();
  };
}

/** The nesting depth of a parsed JSON value, stopping early past `limit` (iterative: no recursion). */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * JSON bodies: UTF-8 only (another declared charset is a 415 rather than silently misread text), at most
 * MAX_JSON_DEPTH deep (400), parsed by JSON.parse — which makes `__proto__` an ordinary key (the contract's
 * strict objects then name it as an extra field) instead of Fastify's "not valid JSON".
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ClientError(415, `Unsupported charset ${charset}: send the JSON body as UTF-8`));
      return;
    }
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      done(new ClientError(400, `Body is not valid JSON: ${messageOf(error)}`));
      return;
    }
    if (depthExceeds(parsed, MAX_JSON_DEPTH)) {
      done(new ClientError(400, `Body is nested more than ${MAX_JSON_DEPTH} levels deep`));
      return;
    }
    // Walked only when the text could hold one (an escape or the raw byte).
    if ((text.includes('\\u0000') || text.includes('\0')) && holdsNul(parsed)) {
      done(nulRefusal('The body'));
      return;
    }
    done(null, parsed);
  });
}

/** A request whose URL holds a NUL (`%00`, in the path or the query) is refused before any route or key is looked at. */
export function refuseNulInUrl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(/%00|\0/i.test(request.url) ? nulRefusal('The URL') : undefined);
  });
}

/**
 * A request target that is not a path — `*`, the asterisk form HTTP keeps for OPTIONS — reaches no route,
 * as a 404: the router would take it for `/`. OPTIONS goes on to CORS.
 */
export function refuseNonPathTargets(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/') || request.method === 'OPTIONS') {
      done();
      return;
    }
    notFound(request, reply);
  });
}

/** Errors Fastify meets before routing (a malformed URL, say): a 400 with a detail. */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, _request, reply) => {
  // Fastify's reply type here is generic over route schemas this server does not declare.
  const plain = reply as unknown as { code(status: number): { send(body: unknown): unknown } };
  void plain.code(400).send({ detail: error.message });
};

/** Errors Node's HTTP parser meets (headers too large, malformed requests): answered on the socket. */
/**
 * What a malformed request gets told. HTTP allows only ASCII in a URL: a client that sends `?q=Münch` as raw
 * UTF-8 (curl does, given it so) is refused by Node's parser before any route runs, so the answer says how
 * to send it instead.
 */
function malformedMessage(error: Error & { code?: string }): string {
  if (error.code === 'HPE_INVALID_URL') {
    return 'Malformed HTTP request: the URL holds characters that must be percent-encoded (letters such as ü, spaces). Encode them (q=M%C3%BCnch), or let curl do it: curl -G --data-urlencode "q=Münch" http://host/v2/locations/search';
  }
  return 'Malformed HTTP request';
}

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Headers or body too slow (timeouts.ts): 408, then close even while the client keeps sending.
    const body = JSON.stringify({ detail: 'Request Timeout: the request (headers and body) was not received in time' });
    if (!socket.writable) socket.destroy();
    else socket.end(`HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
    return;
  }
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ detail: tooLarge ? 'Request headers (or the query string) are too large' : malformedMessage(error) });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
