/**
 * Fetching a website's pages for /v1/qna, safely.
 *
 * - Start: a bare domain starts at `https://<domain>/`; a URL where it points. Then same-site links (same
 *   host, http or https), breadth first, until `maxPages` pages with text.
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
 * - Text: scripts, styles, navigation and page chrome dropped, a line per block element; the page label
 *   is its title, else its path (see `PageReader`).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';
import { Parser } from 'htmlparser2';
import robotsModule from 'robots-parser';
import { nextTurn } from './slices.js';

interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
}
/** robots-parser is CommonJS: its function is the module itself (its typings call it `default`). */
const robotsParser = robotsModule as unknown as (url: string, robotsTxt: string) => Robots;

export const USER_AGENT = 'OrgIndexBot/1.0 (+https://github.com/orgindex)';
/** The time one site's fetching may take, all pages together. */
export const SITE_DEADLINE_MS = 20_000;
const TIMEOUT_MS = 10_000;
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface FetchedPage {
  url: string;
  /** How the answer cites the page: its title, else its path. */
  label: string;
  text: string;
}

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
}

/** A failure to fetch, with a message for the caller (the language envelope's `error`). */
export class FetchError extends Error {}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidrs = (...ranges: string[]): Cidr[] => ranges.map((range) => ipaddr.parseCIDR(range));
const within = (address: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly Cidr[]): boolean => ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));

// Special-purpose IPv4 blocks that are not globally reachable (IANA registry, RFC 6890), named here as
// well as by ipaddr.js's `range()`, so the policy does not depend on the library's version.
const IPV4_REFUSED = cidrs('0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4');
// Global unicast IPv6 is 2000::/3; everything else (::/96 IPv4-compatible, 100::/64 discard, fc00::/7,
// fe80::/10, fec0::/10, ff00::/8, ...) is refused by not being in it.
const IPV6_GLOBAL = cidrs('2000::/3');
// Inside 2000::/3 but not a host on the internet: IETF protocol assignments incl. Teredo (2001::/23),
// documentation (2001:db8::/32, 3fff::/20), and 6to4 (2002::/16, deprecated; it embeds any IPv4 address).
const IPV6_REFUSED = cidrs('2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20');
// IPv6 forms whose connection ends at an embedded IPv4 address: judged by that address.
const IPV4_MAPPED = cidrs('::ffff:0:0/96');
const NAT64 = cidrs('64:ff9b::/96');

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast' && !within(address, IPV4_REFUSED);
}

/**
 * Whether an address may be connected to: globally routable unicast only (an allow-list). IPv4-mapped
 * (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged by the IPv4 address they reach;
 * other IPv6 forms embedding IPv4 (IPv4-compatible, IPv4-translated, 6to4, Teredo, local-use NAT64) are
 * refused. Only the canonical forms a resolver or the URL parser produce are accepted.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 4) return isPublicV4(ipaddr.IPv4.parse(address));
  // A zone (fe80::1%eth0) only exists for non-global scopes.
  if (isIP(address) !== 6 || address.includes('%')) return false;
  // ipaddr.js reads any dotted tail as IPv4-mapped (::8.8.8.8 → ::ffff:808:808); the URL parser's
  // canonical form is what a socket connects to (::808:808).
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  if (within(v6, IPV4_MAPPED) || within(v6, NAT64)) {
    const bytes = v6.toByteArray().slice(12);
    return isPublicV4(new ipaddr.IPv4(bytes));
  }
  return v6.range() === 'unicast' && within(v6, IPV6_GLOBAL) && !within(v6, IPV6_REFUSED);
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

/**
 * What reads a response body as it arrives: `write` gets the body's text (UTF-8) at most `READ_SLICE_BYTES`
 * at a time, with a turn of the event loop between calls; `end` gives the result.
 */
interface BodyReader<T> {
  write(text: string): void;
  end(): T;
}

/** The reader for a response (`url` after redirects), or null when its body is not wanted. */
type ReaderFor<T> = (url: URL, status: number, contentType: string) => BodyReader<T> | null;

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

/** Plain text as it arrives. */
function textReader(): BodyReader<string> {
  const parts: string[] = [];
  return {
    write(text) {
      parts.push(text);
    },
    end: () => parts.join(''),
  };
}

function request<T>(url: URL, options: Required<FetchOptions>, readerFor: ReaderFor<T>): Promise<Response<T>> {
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
async function get<T>(start: URL, options: Required<FetchOptions>, readerFor: ReaderFor<T>): Promise<{ url: URL; response: Response<T> }> {
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
  return /^https?:\/\//i.test(domain) ? new URL(domain) : new URL(`https://${domain}/`);
}

/** The part of a robots.txt that is read (RFC 9309 asks for at least 500 KiB; Google reads as much). */
const ROBOTS_MAX_CHARS = 500 * 1024;

/** robots-parser's form of a user agent: lower case, without a version. */
const robotsAgent = (userAgent: string): string => (userAgent.toLowerCase().split('/')[0] ?? '').trim();
const OUR_AGENT = robotsAgent(USER_AGENT);

/**
 * A robots.txt read as it arrives, line by line, with robots-parser's grouping rules: only the groups for
 * our agent and for `*` are kept (the only ones robots-parser consults for us), each rule added as its line
 * is read, so that no single step parses the whole file. The first ROBOTS_MAX_CHARS characters count.
 */
class RobotsReader implements BodyReader<Robots> {
  private readonly robots: Robots & { addRule(userAgents: string[], pattern: string, allow: boolean, lineNumber: number): void };
  private rest = '';
  private read = 0;
  private lineNumber = 0;
  private agents: string[] = [];
  /** The last line was not a user-agent line: the next user-agent line starts a new group. */
  private groupEnded = true;

  constructor(url: URL) {
    this.robots = robotsParser(url.href, '') as RobotsReader['robots'];
  }

  write(text: string): void {
    if (this.read >= ROBOTS_MAX_CHARS) return;
    const kept = text.slice(0, ROBOTS_MAX_CHARS - this.read);
    this.read += kept.length;
    const lines = (this.rest + kept).split(/\r\n|\r|\n/);
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  end(): Robots {
    this.line(this.rest);
    this.rest = '';
    return this.robots;
  }

  private line(raw: string): void {
    this.lineNumber++;
    const hash = raw.indexOf('#');
    const content = hash >= 0 ? raw.slice(0, hash) : raw;
    const colon = content.indexOf(':');
    if (colon < 0) return;
    const key = content.slice(0, colon).trim().toLowerCase();
    const value = content.slice(colon + 1).trim();
    if (!key) return;
    if (key === 'user-agent') {
      if (this.groupEnded) this.agents = [];
      if (value) this.agents.push(robotsAgent(value));
    } else if (key === 'allow' || key === 'disallow') {
      const ours = this.agents.filter((agent) => agent === OUR_AGENT || agent === '*');
      if (ours.length > 0) this.robots.addRule(ours, value, key === 'allow', this.lineNumber);
    }
    this.groupEnded = key !== 'user-agent';
  }
}

/** What a page gives: its title, its text, and (collected by the reader's caller) its links. */
export interface PageContent {
  title: string;
  text: string;
}

/** Elements whose text is not page text: code, styles, navigation and page chrome (their links still count). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'nav', 'footer', 'header', 'svg', 'template']);
/** Elements that end a line of text: a sentence never runs across them. */
const BLOCKS = new Set([
  ...['address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form'],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary'],
  ...['table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul'],
]);
/**
 * Open elements beyond which a page is not read further (its text so far counts): the parser's cost per
 * tag grows with the depth. Browsers flatten the tree beyond the same depth; no ordinary page comes near.
 */
const MAX_DEPTH = 512;
/** Characters of a title kept as the page's label. */
const MAX_TITLE = 300;

/**
 * Text made of many pieces, joined a thousand at a time, so that no single join (of a page's lines, or of
 * a line of many small pieces) is long.
 */
class Joiner {
  private pieces: string[] = [];
  private readonly groups: string[] = [];
  constructor(private readonly separator: string) {}

  get empty(): boolean {
    return this.pieces.length === 0 && this.groups.length === 0;
  }

  push(piece: string): void {
    this.pieces.push(piece);
    if (this.pieces.length >= 1_024) {
      this.groups.push(this.pieces.join(this.separator));
      this.pieces = [];
    }
  }

  /** The text so far; the joiner is empty again. */
  take(): string {
    if (this.pieces.length > 0) this.groups.push(this.pieces.join(this.separator));
    this.pieces = [];
    return this.groups.splice(0).join(this.separator);
  }
}

/**
 * An HTML page read as it arrives (htmlparser2, a streaming parser: each slice is parsed when it comes).
 * - label: the first <title>, whitespace collapsed;
 * - text: everything outside SKIPPED elements and the title; whitespace runs are one space, each BLOCKS
 *   element begins and ends a line, line breaks inside <pre> stay;
 * - links: every <a href> (inside navigation too), handed to `onLink` in document order.
 */
export class PageReader implements BodyReader<PageContent> {
  private readonly parser: Parser;
  private readonly lines = new Joiner('\n');
  /** The current line's pieces: joined when it ends, so that only flat lines are kept. */
  private readonly line = new Joiner('');
  /** Whitespace came after the line's last word: the next word is preceded by a space. */
  private space = false;
  private title: string | null = null;
  private inTitle = false;
  private skipped = 0;
  private pre = 0;
  private depth = 0;
  private stopped = false;

  constructor(private readonly onLink: (href: string) => void = () => undefined) {
    this.parser = new Parser(
      {
        onopentag: (name, attributes) => {
          this.open(name, attributes);
        },
        onclosetag: (name) => {
          this.close(name);
        },
        ontext: (text) => {
          this.text(text);
        },
      },
      { decodeEntities: true },
    );
  }

  write(html: string): void {
    if (!this.stopped && html) this.parser.write(html);
  }

  end(): PageContent {
    if (!this.stopped) this.parser.end();
    this.stopped = true;
    this.breakLine();
    return { title: (this.title ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE), text: this.lines.take() };
  }

  private open(name: string, attributes: Record<string, string>): void {
    if (this.stopped) return;
    if (++this.depth > MAX_DEPTH) {
      // Not a word more: the parser stops at once, not only at the end of this slice.
      this.stopped = true;
      this.parser.pause();
      return;
    }
    const href = attributes['href'];
    if (name === 'a' && href !== undefined) this.onLink(href);
    if (name === 'title' && this.title === null) {
      this.title = '';
      this.inTitle = true;
    }
    if (SKIPPED.has(name)) this.skipped++;
    if (name === 'pre') this.pre++;
    if (BLOCKS.has(name)) this.breakLine();
  }

  private close(name: string): void {
    if (this.stopped) return;
    this.depth--;
    if (name === 'title') this.inTitle = false;
    if (SKIPPED.has(name)) this.skipped = Math.max(0, this.skipped - 1);
    if (name === 'pre') this.pre = Math.max(0, this.pre - 1);
    if (BLOCKS.has(name)) this.breakLine();
  }

  private text(text: string): void {
    if (this.stopped) return;
    if (this.inTitle) {
      if (this.title !== null && this.title.length < MAX_TITLE * 4) this.title += text;
      return;
    }
    if (this.skipped > 0) return;
    if (this.pre === 0) {
      this.append(text);
      return;
    }
    const lines = text.split(/\r\n?|\n/);
    lines.forEach((line, index) => {
      if (index > 0) this.breakLine();
      this.append(line);
    });
  }

  /** Adds text to the current line, whitespace runs as one space, none at the line's ends. */
  private append(raw: string): void {
    const text = raw.replace(/\s+/g, ' ');
    let start = 0;
    let end = text.length;
    if (text.startsWith(' ')) {
      start = 1;
      if (!this.line.empty) this.space = true;
    }
    if (end > start && text.endsWith(' ')) end--;
    if (end <= start) return;
    if (this.space) this.line.push(' ');
    this.line.push(start === 0 && end === text.length ? text : text.slice(start, end));
    this.space = end < text.length;
  }

  private breakLine(): void {
    if (!this.line.empty) this.lines.push(this.line.take());
    this.space = false;
  }
}

/** What the site's deadline aborts with: the pages read until then are the result. */
class DeadlinePassed extends FetchError {}

/**
 * Up to `maxPages` pages of the site with text, breadth first from the start page, within the deadline:
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

/**
 * New same-site links kept from one page: breadth first, the crawl reads at most `maxPages` (10) pages, and
 * the start page's first thousand links are more than it ever reaches; resolving more only costs time.
 */
const MAX_LINKS_PER_PAGE = 1_000;
/** Longer links are not followed (the common limit of URLs; resolving and checking one costs with its length). */
const MAX_LINK_LENGTH = 2_048;

/** The pages read until `maxPages`, the end of the site's links, or the abort of `options.signal`. */
async function crawl(start: URL, maxPages: number, options: Required<FetchOptions>): Promise<FetchedPage[]> {
  const { signal } = options;
  let robots: Robots | null = null;
  try {
    const { response } = await get(new URL('/robots.txt', start), options, (url, status) => (status === 200 ? new RobotsReader(url) : null));
    robots = response.body;
    // RFC 9309: an unreachable robots.txt (server error) means the site is to be treated as disallowed.
    if (response.status >= 500) throw new FetchError(`${start.host} answers ${response.status} for robots.txt: the site is not crawled now`);
  } catch (error) {
    if (error instanceof FetchError && /private or local|robots\.txt|credentials/.test(error.message)) throw error;
    // No robots.txt (or unreachable): everything is allowed.
  }
  const queue: string[] = [start.href];
  const seen = new Set<string>([start.href.split('#')[0] ?? start.href]);
  const pages: FetchedPage[] = [];
  let firstError: Error | null = null;
  while (queue.length > 0 && pages.length < maxPages && !signal.aborted) {
    const next = new URL(queue.shift() as string);
    if (robots) {
      // A check costs in proportion to the rules (up to a few ms for a long robots.txt): one per turn.
      await nextTurn();
      if (robots.isAllowed(next.href, USER_AGENT) === false) continue;
    }
    // The page's new same-site links, resolved while it is parsed; queued once the page was read whole.
    const links = new Set<string>();
    const readerFor: ReaderFor<PageContent> = (url, status, contentType) => {
      if (status !== 200) return null;
      if (/text\/plain/i.test(contentType)) {
        const text = textReader();
        return { write: (chunk) => { text.write(chunk); }, end: () => ({ title: '', text: text.end() }) };
      }
      if (!/text\/html/i.test(contentType)) return null;
      return new PageReader((href) => {
        if (links.size >= MAX_LINKS_PER_PAGE || href.length > MAX_LINK_LENGTH) return;
        let link: URL;
        try {
          link = new URL(href, url);
        } catch {
          return;
        }
        link.hash = '';
        if (link.host === start.host && (link.protocol === 'http:' || link.protocol === 'https:') && !seen.has(link.href)) links.add(link.href);
      });
    };
    let fetched: { url: URL; response: Response<PageContent> };
    try {
      fetched = await get(next, options, readerFor);
    } catch (error) {
      firstError ??= error as Error;
      continue;
    }
    const { url, response } = fetched;
    if (!response.body) {
      firstError ??= new FetchError(`${url.href} answered ${response.status}${response.status === 200 ? ` with ${response.contentType || 'no content type'}` : ''}`);
      continue;
    }
    const { title, text } = response.body;
    if (text) pages.push({ url: url.href, label: title || url.pathname, text });
    for (const link of links) {
      if (seen.has(link)) continue;
      seen.add(link);
      queue.push(link);
    }
  }
  if (signal.aborted) return pages;
  if (pages.length === 0) throw firstError instanceof FetchError ? firstError : new FetchError(`no page of ${start.host} could be read${firstError ? `: ${firstError.message}` : ''}`);
  return pages;
}
