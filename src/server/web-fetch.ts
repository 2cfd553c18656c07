/**
 * Fetching a website's pages for /v1/qna, safely.
 *
 * - Start: a bare domain starts at `https://<domain>/`; a URL where it points. Then same-site links (same
 *   host, http or https), breadth first, until `maxPages` pages with text.
 * - No server-side request forgery: every connection resolves the host itself and refuses loopback,
 *   private, link-local, unique-local, carrier-grade NAT, multicast, reserved and cloud-metadata addresses
 *   (checked on the resolved address, at connect time, so on every redirect and against DNS rebinding),
 *   unless the server runs with `--allow-private-fetch` (tests, intranets).
 * - Bounded: 10 s per request, 2 MB per page, 5 redirects, HTML only; robots.txt honoured for our agent.
 * - Text with node-html-parser: scripts, styles and navigation dropped; the page label is its title.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parse } from 'node-html-parser';
import robotsModule from 'robots-parser';

interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
}
/** robots-parser is CommonJS: its function is the module itself (its typings call it `default`). */
const robotsParser = robotsModule as unknown as (url: string, robotsTxt: string) => Robots;

export const USER_AGENT = 'OrgIndexBot/1.0 (+https://github.com/orgindex)';
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface FetchedPage {
  url: string;
  /** How the answer cites the page: its title, else its path. */
  label: string;
  text: string;
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
}

/** A failure to fetch, with a message for the caller (the language envelope's `error`). */
export class FetchError extends Error {}

const BLOCKED_RANGES = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'private', 'reserved', 'uniqueLocal', 'carrierGradeNat', 'ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** Whether an address may be connected to (public unicast only). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // ::ffff:10.0.0.1 → 10.0.0.1
  return !BLOCKED_RANGES.has(parsed.range());
}

/** DNS lookup that refuses non-public addresses (used by every connection). */
function guardedLookup(allowAddress: (address: string) => boolean, hosts: Readonly<Record<string, string>>): LookupFunction {
  return (hostname, options, callback) => {
    const resolve = (done: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void): void => {
      const fixed = hosts[hostname.toLowerCase()];
      if (fixed) done(null, [{ address: fixed, family: fixed.includes(':') ? 6 : 4 }]);
      else dnsLookup(hostname, { ...options, all: true }, done);
    };
    resolve((error, addresses) => {
      if (error) {
        callback(error, '', 4);
        return;
      }
      const usable = addresses.filter((a) => allowAddress(a.address));
      const first = usable[0];
      if (!first) {
        callback(new FetchError(`${hostname} resolves to a private or local address; fetching it is refused`), '', 4);
        return;
      }
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}

interface Response {
  status: number;
  contentType: string;
  body: string;
  location: string | null;
}

function request(url: URL, options: Required<FetchOptions>): Promise<Response> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    // agent: false — a pooled socket would skip the guarded lookup (a connection opened under another policy).
    const limit = options.timeoutMs;
    const req = client.get(url, { agent: false, lookup: guardedLookup(options.allowAddress, options.hosts), headers: { 'user-agent': USER_AGENT, accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' }, timeout: limit }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) {
          req.destroy(new FetchError(`${url.href} is larger than ${MAX_BYTES / 1024 / 1024} MB`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8'), location: res.headers.location ?? null });
      });
      res.on('error', reject);
    });
    // `timeout` only measures idle time; a page dripping one byte at a time meets this deadline instead.
    const deadline = setTimeout(() => req.destroy(new FetchError(`${url.href} did not arrive within ${limit / 1000} s`)), limit);
    req.on('close', () => {
      clearTimeout(deadline);
    });
    req.on('timeout', () => req.destroy(new FetchError(`${url.href} did not answer within ${limit / 1000} s`)));
    req.on('error', reject);
  });
}

/** GET with bounded redirects; every hop goes through the guarded lookup. */
async function get(start: URL, options: Required<FetchOptions>): Promise<{ url: URL; response: Response }> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`only http and https are fetched, not ${url.protocol}`);
    // Node does not call the lookup for an address literal (the URL parser already turned 2130706433 or
    // [::ffff:7f00:1] into one): check it here, on every hop.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(literal) && !options.allowAddress(literal)) throw new FetchError(`${url.host} is a private or local address; fetching it is refused`);
    if (url.username || url.password) throw new FetchError('URLs with credentials are not fetched');
    const response = await request(url, options);
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
  return /^https?:\/\//i.test(domain) ? new URL(domain) : new URL(`https://${domain}/`);
}

function pageText(html: string): { title: string; text: string; links: string[] } {
  const root = parse(html);
  const title = root.querySelector('title')?.text.trim() ?? '';
  const links = root.querySelectorAll('a[href]').map((a) => a.getAttribute('href') ?? '');
  for (const node of root.querySelectorAll('script, style, noscript, nav, footer, header, svg, template')) node.remove();
  const body = root.querySelector('body') ?? root;
  // Block elements end a sentence: keep their boundaries as line breaks.
  const text = body.structuredText.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
  return { title, text, links };
}

/** Up to `maxPages` pages of the site with text, breadth first from the start page. */
export async function fetchSite(domain: string, maxPages: number, fetchOptions: FetchOptions = {}): Promise<FetchedPage[]> {
  const allowPrivate = fetchOptions.allowPrivate ?? false;
  const options: Required<FetchOptions> = {
    allowPrivate,
    hosts: fetchOptions.hosts ?? {},
    allowAddress: fetchOptions.allowAddress ?? (allowPrivate ? () => true : isPublicAddress),
    timeoutMs: fetchOptions.timeoutMs ?? TIMEOUT_MS,
  };
  const start = startUrl(domain);
  let robots: Robots | null = null;
  try {
    const { url, response } = await get(new URL('/robots.txt', start), options);
    if (response.status === 200) robots = robotsParser(url.href, response.body);
    // RFC 9309: an unreachable robots.txt (server error) means the site is to be treated as disallowed.
    if (response.status >= 500) throw new FetchError(`${start.host} answers ${response.status} for robots.txt: the site is not crawled now`);
  } catch (error) {
    if (error instanceof FetchError && /private or local|robots\.txt|credentials/.test(error.message)) throw error;
    // No robots.txt (or unreachable): everything is allowed.
  }
  const queue: URL[] = [start];
  const seen = new Set<string>([start.href.split('#')[0] ?? start.href]);
  const pages: FetchedPage[] = [];
  let firstError: Error | null = null;
  while (queue.length > 0 && pages.length < maxPages) {
    const next = queue.shift() as URL;
    if (robots && robots.isAllowed(next.href, USER_AGENT) === false) continue;
    let fetched: { url: URL; response: Response };
    try {
      fetched = await get(next, options);
    } catch (error) {
      firstError ??= error as Error;
      continue;
    }
    const { url, response } = fetched;
    if (response.status !== 200 || !/text\/(html|plain)/i.test(response.contentType)) {
      firstError ??= new FetchError(`${url.href} answered ${response.status}${response.status === 200 ? ` with ${response.contentType || 'no content type'}` : ''}`);
      continue;
    }
    const { title, text, links } = /html/i.test(response.contentType) ? pageText(response.body) : { title: '', text: response.body, links: [] };
    if (text) pages.push({ url: url.href, label: title || url.pathname, text });
    for (const href of links) {
      let link: URL;
      try {
        link = new URL(href, url);
      } catch {
        continue;
      }
      link.hash = '';
      if (link.host !== start.host || (link.protocol !== 'http:' && link.protocol !== 'https:') || seen.has(link.href)) continue;
      seen.add(link.href);
      queue.push(link);
    }
  }
  if (pages.length === 0) throw firstError instanceof FetchError ? firstError : new FetchError(`no page of ${start.host} could be read${firstError ? `: ${firstError.message}` : ''}`);
  return pages;
}
