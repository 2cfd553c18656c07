/**
 * Fetching a website's pages for /v1/qna, safely: the Node I/O around the portable page choice, robots.txt
 * rules, address policy and page text of src/engine/language/site-reading.ts (which the Google Sheets
 * runtime drives with UrlFetchApp instead).
 *
 * - No server-side request forgery: only globally routable unicast addresses are connected to (see
 *   `isPublicAddress`), unless the server runs with `--allow-private-fetch` (tests, intranets). Every
 *   connection resolves the host itself, checks every record and connects to a checked one — so the check
 *   holds on every redirect, and a DNS answer that changes between check and connect cannot slip through.
 * - Bounded: one deadline for the whole site (20 s by default: robots.txt, every page, DNS, connects,
 *   redirects and bodies), 10 s and 2 MB per page, 5 redirects, HTML or text only; robots.txt (its first
 *   500 KiB) honoured for our agent. When the deadline passes, the pages read so far are the result (with
 *   a note saying so); an abort signal (the caller left) ends every connection at once.
 * - Read while it arrives, in slices of 32 KB with a turn of the event loop between them (a page is
 *   parsed by htmlparser2, a streaming parser), so that no large page holds the server's one event loop.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';
import { linkPriority } from '../engine/language/question-kind.js';
import { crawlSteps, FetchError, isPublicAddress, MAX_PAGE_BYTES, MAX_REDIRECTS, startAddress, USER_AGENT, type BodyReader, type FetchAnswer, type FetchedPage, type ReaderFor } from '../engine/language/site-reading.js';
import { nextTurn } from './slices.js';

export { FetchError, isPublicAddress, MAX_PAGE_BYTES, PageReader, USER_AGENT, type FetchedPage, type PageContent } from '../engine/language/site-reading.js';

/** The time one site's fetching may take, all pages together. */
export const SITE_DEADLINE_MS = 20_000;
const TIMEOUT_MS = 10_000;

export interface FetchedSite {
  pages: FetchedPage[];
  /** Set when the deadline ended the fetching before `maxPages` pages were read: why there are not more. */
  note: string | null;
}

export interface FetchOptions {
  /** Allow loopback and private addresses (tests, intranets). */
  allowPrivate?: boolean;
  /** Fixed addresses for host names, like /etc/hosts (tests name a loopback fixture site this way). */
  hosts?: Readonly<Record<string, string>>;
  /** Which resolved addresses may be connected to (default: public ones, or any with allowPrivate). */
  allowAddress?: (address: string) => boolean;
  /** Time a page (headers and body) may take, in ms (default 10 s). */
  timeoutMs?: number;
  /** Time the whole site may take, in ms (default `SITE_DEADLINE_MS`). */
  deadlineMs?: number;
  /** Ends the fetching at once, every open connection closed; `fetchSite` rejects with its reason. */
  signal?: AbortSignal;
  /** All addresses of a host name not in `hosts` (default: the system resolver, A and AAAA). */
  resolve?: (hostname: string) => Promise<readonly string[]>;
  /** The question the pages are read for: the links likely to answer it are read first (default: breadth first). */
  question?: string;
}

/** The system resolver: every A and AAAA record of a name. */
function systemResolve(hostname: string): Promise<readonly string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((a) => a.address));
    });
  });
}

/**
 * The lookup of every connection: resolves the name once, drops every record the policy refuses, and hands
 * the socket only the checked addresses — the socket connects to one of them and resolves nothing itself.
 */
function guardedLookup(options: Required<FetchOptions>): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const answer = (records: readonly string[]): void => {
      const usable: LookupAddress[] = records.filter((address) => options.allowAddress(address)).map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
      const first = usable[0];
      if (!first) {
        callback(new FetchError(`${hostname} resolves to a private or local address; fetching it is refused`), '', 4);
        return;
      }
      if (lookupOptions.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      else callback(null, first.address, first.family);
    };
    const fixed = options.hosts[hostname.toLowerCase()];
    const resolving = fixed ? Promise.resolve([fixed]) : options.resolve(hostname);
    resolving.then(answer, (error: unknown) => {
      callback(error as NodeJS.ErrnoException, '', 4);
    });
  };
}

interface Response<T> {
  status: number;
  contentType: string;
  /** What the reader made of the body; null when the body was not read. */
  body: T | null;
  location: string | null;
}

/**
 * Bytes handed to a reader at once: a page is parsed while it arrives, and one slice (well under 10 ms of
 * parsing) is the longest the event loop waits for it. Loopback and fast links deliver 64 KB and more per
 * network chunk; such a chunk is read in several slices.
 */
export const READ_SLICE_BYTES = 32 * 1024;

function request<T>(url: URL, options: Required<FetchOptions>, readerFor: ReaderFor<T, URL>): Promise<Response<T>> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const client = url.protocol === 'https:' ? https : http;
    // The first reason this request was ended for (a limit, an abort): what it rejects with, whichever of the
    // request and the body reading reports the end first.
    let failure: Error | null = null;
    const fail = (error: Error): void => {
      failure ??= error;
      req.destroy(error);
    };
    // agent: false — a pooled socket would skip the guarded lookup (a connection opened under another policy),
    // and destroying the request closes its socket.
    const limit = options.timeoutMs;
    const req = client.get(url, { agent: false, lookup: guardedLookup(options), headers: { 'user-agent': USER_AGENT, accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' }, timeout: limit }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location ?? null;
      const contentType = res.headers['content-type'] ?? '';
      const reader = status >= 300 && status < 400 && location ? null : readerFor(url, status, contentType);
      if (!reader) {
        // A redirect's body, or one nobody reads: close the connection instead of downloading it.
        resolve({ status, contentType, body: null, location });
        req.destroy();
        return;
      }
      readBody(url, res, reader, () => failure).then(
        (body) => {
          resolve({ status, contentType, body, location });
        },
        (error: unknown) => {
          fail(error instanceof Error ? error : new FetchError(String(error)));
          reject(failure ?? (error as Error));
        },
      );
    });
    // `timeout` only measures idle time; a page dripping one byte at a time meets this deadline instead.
    const deadline = setTimeout(() => {
      fail(new FetchError(`${url.href} did not arrive within ${limit / 1000} s`));
    }, limit);
    // Whatever stage the request is in (DNS, connect, headers, body), an abort ends it and its socket.
    const abort = (): void => {
      fail(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
    req.on('close', () => {
      clearTimeout(deadline);
      signal.removeEventListener('abort', abort);
    });
    req.on('timeout', () => {
      fail(new FetchError(`${url.href} did not answer within ${limit / 1000} s`));
    });
    req.on('error', (error) => {
      reject(failure ?? error);
    });
  });
}

/**
 * Feeds the body to `reader` while it arrives, in slices of at most `READ_SLICE_BYTES` with a turn of the
 * event loop after each, so that parsing a large page never holds the loop for long. Stops at
 * `MAX_PAGE_BYTES`, and as soon as the request was ended (`ended()` says why).
 */
async function readBody<T>(url: URL, res: IncomingMessage, reader: BodyReader<T>, ended: () => Error | null): Promise<T> {
  const decoder = new StringDecoder('utf8');
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PAGE_BYTES) throw new FetchError(`${url.href} is larger than ${MAX_PAGE_BYTES / 1024 / 1024} MB`);
    for (let at = 0; at < chunk.length; at += READ_SLICE_BYTES) {
      reader.write(decoder.write(chunk.subarray(at, at + READ_SLICE_BYTES)));
      await nextTurn();
      const reason = ended();
      if (reason) throw reason;
    }
  }
  reader.write(decoder.end());
  return reader.end();
}

/** GET with bounded redirects; every hop goes through the guarded lookup. */
async function get<T>(start: URL, options: Required<FetchOptions>, readerFor: ReaderFor<T, URL>): Promise<{ url: URL; response: Response<T> }> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`only http and https are fetched, not ${url.protocol}`);
    // Node does not call the lookup for an address literal (the URL parser already turned 2130706433 or
    // [::ffff:7f00:1] into one): check it here, on every hop.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if ((isIP(literal) !== 0 || ipaddr.isValid(literal)) && !options.allowAddress(literal)) throw new FetchError(`${url.host} is a private or local address; fetching it is refused`);
    if (url.username || url.password) throw new FetchError('URLs with credentials are not fetched');
    const response = await request(url, options, readerFor);
    if (response.status >= 300 && response.status < 400 && response.location) {
      url = new URL(response.location, url);
      continue;
    }
    return { url, response };
  }
  throw new FetchError(`${start.href} redirects more than ${MAX_REDIRECTS} times`);
}

/** Where fetching starts: a bare domain → https://domain/; a URL as given. */
export function startUrl(domain: string): URL {
  return new URL(startAddress(domain));
}

/** What the site's deadline aborts with: the pages read until then are the result. */
class DeadlinePassed extends FetchError {}

/**
 * Up to `maxPages` pages of the site with text, from the start page breadth first (the links likely to
 * answer `fetchOptions.question` first), within the deadline:
 * when it passes, every connection is closed and the pages read so far are the result (none: a
 * FetchError naming the limit). When `signal` aborts, every connection is closed and this rejects.
 */
export async function fetchSite(domain: string, maxPages: number, fetchOptions: FetchOptions = {}): Promise<FetchedSite> {
  const deadlineMs = fetchOptions.deadlineMs ?? SITE_DEADLINE_MS;
  const limit = `the ${deadlineMs / 1000} s time limit`;
  const start = startUrl(domain);
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DeadlinePassed(`no page of ${start.host} was read within ${limit}`));
  }, deadlineMs);
  const outer = fetchOptions.signal;
  const forward = (): void => {
    controller.abort(outer?.reason);
  };
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  const allowPrivate = fetchOptions.allowPrivate ?? false;
  const options: Required<FetchOptions> = {
    allowPrivate,
    hosts: fetchOptions.hosts ?? {},
    allowAddress: fetchOptions.allowAddress ?? (allowPrivate ? () => true : isPublicAddress),
    timeoutMs: fetchOptions.timeoutMs ?? TIMEOUT_MS,
    deadlineMs,
    signal: controller.signal,
    resolve: fetchOptions.resolve ?? systemResolve,
    question: fetchOptions.question ?? '',
  };
  try {
    const pages = await crawl(start, maxPages, options);
    if (!controller.signal.aborted || pages.length >= maxPages) return { pages, note: null };
    const reason: unknown = controller.signal.reason;
    if (reason instanceof DeadlinePassed && pages.length > 0) return { pages, note: `the other pages were not read within ${limit}` };
    throw reason;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  }
}

/** A URL resolved as Node resolves it, or null. */
function parseUrl(href: string, base?: URL): URL | null {
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

/** The pages read until `maxPages`, the end of the site's links, or the abort of `options.signal`. */
async function crawl(start: URL, maxPages: number, options: Required<FetchOptions>): Promise<FetchedPage[]> {
  const steps = crawlSteps(start, maxPages, { parse: parseUrl, stopped: () => options.signal.aborted, priority: options.question ? linkPriority(options.question) : undefined });
  let answer: FetchAnswer<URL> | undefined;
  for (;;) {
    const step = steps.next(answer);
    if (step.done) return step.value;
    answer = undefined;
    if (step.value.kind === 'turn') {
      await nextTurn();
      continue;
    }
    try {
      const { url, response } = await get(step.value.url, options, step.value.readerFor);
      answer = { ok: true, url, status: response.status, contentType: response.contentType, body: response.body };
    } catch (error) {
      answer = { ok: false, error: error as Error };
    }
  }
}
