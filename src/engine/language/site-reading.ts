/**
 * Reading a website for /v1/qna, the parts that do no I/O: which pages to read (page choice), what
 * robots.txt allows, which addresses may be connected to, and a page's text. Portable — no Node modules,
 * no `URL`, no timers — because two hosts fetch: the server (Node's http, asynchronously:
 * src/server/web-fetch.ts) and the Google Sheets runtime (UrlFetchApp, synchronously: appsscript/src/),
 * which has neither `URL` nor `TextEncoder`.
 *
 * - Page choice (`crawlSteps`): robots.txt first, then the start page, then same-site links (same host,
 *   http or https), breadth first, until `maxPages` pages with text; with a `priority` (the question's:
 *   question-kind.ts), the links it ranks higher first (an Impressum for who runs the company, "Über uns"
 *   for when it was founded). `/` and `/index.html` are one page, and a page with the same text as one
 *   already read is not read again. A generator: it yields what to fetch and is answered with the response,
 *   so each host drives it with its own I/O and its own URL parser.
 * - robots.txt: the groups for our agent and for `*` (robots-parser's grouping), matched as Google's
 *   robotstxt does (the longest matching pattern wins, Allow on a tie; `*` and a final `$`).
 * - Addresses (`isPublicAddress`): globally routable unicast only (an allow-list).
 * - Text (`PageReader`): scripts, styles, navigation and page chrome dropped (header, footer, and the
 *   elements sites mark as cookie or consent banners, skip links, top bars, dialogs or hidden), a line per
 *   block element; the page label is its title, else its path.
 */
import ipaddr from 'ipaddr.js';
import { Parser } from 'htmlparser2';
import { fnv1a } from '../../contract/hash.js';
import { NamedError } from '../../contract/errors.js';

export const USER_AGENT = 'OrgIndexBot/1.0 (+https://github.com/orgindex)';
/** The most of one page that is read; a larger page is not read at all. */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

/** A failure to fetch, with a message for the caller (the language envelope's `error`). */
export class FetchError extends NamedError {}

export interface FetchedPage {
  url: string;
  /** How the answer cites the page: its title, else its path. */
  label: string;
  text: string;
}

/** What page choice needs of a parsed URL (a WHATWG `URL` has all of it). */
export interface SiteUrl {
  readonly href: string;
  readonly protocol: string;
  /** Host name and, when not the scheme's default, port. */
  readonly host: string;
  readonly pathname: string;
  readonly search: string;
}

/** Where reading starts: a bare domain → https://domain/; a URL as given. */
export function startAddress(domain: string): string {
  return /^https?:\/\//i.test(domain) ? domain : `https://${domain}/`;
}

// ---------------------------------------------------------------------------------------------------------
// Addresses

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

/** Dotted decimal without leading zeros: the only IPv4 form a resolver or the URL parser produce. */
const IPV4_DOTTED = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIPv4(address: string): boolean {
  return IPV4_DOTTED.test(address);
}

/**
 * An IPv6 address in text (no zone, no brackets), or null. A dotted IPv4 tail is read as the two groups it
 * spells (::8.8.8.8 is ::808:808, as a socket connects to it): ipaddr.js alone would read any dotted tail
 * as IPv4-mapped (::ffff:808:808).
 */
export function parseIPv6(address: string): ipaddr.IPv6 | null {
  if (!/^[0-9a-f:.]+$/i.test(address) || !address.includes(':')) return null;
  let groups = address;
  const tail = /:([0-9.]+)$/.exec(address);
  if (address.includes('.')) {
    const dotted = tail?.[1];
    if (!tail || dotted === undefined || !IPV4_DOTTED.test(dotted)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    groups = `${address.slice(0, tail.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(groups) ? ipaddr.IPv6.parse(groups) : null;
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast' && !within(address, IPV4_REFUSED);
}

/**
 * Whether an address may be connected to: globally routable unicast only (an allow-list). IPv4-mapped
 * (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged by the IPv4 address they reach;
 * other IPv6 forms embedding IPv4 (IPv4-compatible, IPv4-translated, 6to4, Teredo, local-use NAT64) are
 * refused. Only the canonical forms a resolver or the URL parser produce are accepted; a zone
 * (fe80::1%eth0) only exists for non-global scopes and is refused with the rest.
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(ipaddr.IPv4.parse(address));
  const v6 = parseIPv6(address);
  if (!v6) return false;
  if (within(v6, IPV4_MAPPED) || within(v6, NAT64)) return isPublicV4(new ipaddr.IPv4(v6.toByteArray().slice(12)));
  return v6.range() === 'unicast' && within(v6, IPV6_GLOBAL) && !within(v6, IPV6_REFUSED);
}

// ---------------------------------------------------------------------------------------------------------
// Bodies

/** What reads a response body: `write` gets its text (UTF-8) in one or more pieces; `end` gives the result. */
export interface BodyReader<T> {
  write(text: string): void;
  end(): T;
}

/** The reader for a response (`url` after redirects), or null when its body is not wanted. */
export type ReaderFor<T, U extends SiteUrl = SiteUrl> = (url: U, status: number, contentType: string) => BodyReader<T> | null;

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

// ---------------------------------------------------------------------------------------------------------
// robots.txt

/** The part of a robots.txt that is read (RFC 9309 asks for at least 500 KiB; Google reads as much). */
const ROBOTS_MAX_CHARS = 500 * 1024;

/** The form of a user agent robots.txt groups are matched by: lower case, without a version. */
const robotsAgent = (userAgent: string): string => (userAgent.toLowerCase().split('/')[0] ?? '').trim();
const OUR_AGENT = robotsAgent(USER_AGENT);

/** Percent-encodings in upper case (%2a → %2A): a pattern and a path are compared by their bytes. */
const upperEncodings = (text: string): string => text.replace(/%[0-9a-fA-F]{2}/g, (match) => match.toUpperCase());

/** A pattern's characters outside ASCII encoded as a URL's path encodes them (a literal % stays). */
function normalizedPattern(pattern: string): string {
  try {
    return upperEncodings(encodeURI(pattern).replace(/%25/g, '%'));
  } catch {
    return pattern;
  }
}

/**
 * Whether `pattern` matches `path` from its start: `*` is any run of characters, a final `$` the path's
 * end (Google's robotstxt algorithm: the set of path lengths matched so far, advanced a pattern character
 * at a time).
 */
function patternMatches(pattern: string, path: string): boolean {
  const lengths: number[] = [0];
  for (let p = 0; p < pattern.length; p++) {
    const char = pattern[p];
    if (char === '$' && p + 1 === pattern.length) return lengths[lengths.length - 1] === path.length;
    if (char === '*') {
      const shortest = lengths[0] ?? 0;
      lengths.length = 0;
      for (let length = shortest; length <= path.length; length++) lengths.push(length);
      continue;
    }
    let kept = 0;
    for (const length of lengths) if (length < path.length && path[length] === char) lengths[kept++] = length + 1;
    if (kept === 0) return false;
    lengths.length = kept;
  }
  return true;
}

interface RobotsRule {
  pattern: string;
  allow: boolean;
}

/** The Allow and Disallow rules that apply to our agent. */
export class RobotsRules {
  /** Rules by group: our agent's, else `*`'s (a group without rules still counts as present). */
  private readonly groups = new Map<string, RobotsRule[]>();

  add(agents: readonly string[], pattern: string, allow: boolean): void {
    for (const agent of agents) {
      const rules = this.groups.get(agent) ?? [];
      this.groups.set(agent, rules);
      if (pattern) rules.push({ pattern: normalizedPattern(pattern), allow });
    }
  }

  /** Whether a URL of the site may be fetched; `pathAndQuery` is its path and query, as a URL spells them. */
  isAllowed(pathAndQuery: string): boolean {
    const rules = this.groups.get(OUR_AGENT) ?? this.groups.get('*') ?? [];
    const path = upperEncodings(pathAndQuery);
    let chosen: RobotsRule | null = null;
    for (const rule of rules) {
      if (!patternMatches(rule.pattern, path)) continue;
      // The longest matching pattern wins; of equally long ones, Allow.
      if (!chosen || rule.pattern.length > chosen.pattern.length || (rule.pattern.length === chosen.pattern.length && rule.allow && !chosen.allow)) chosen = rule;
    }
    return chosen ? chosen.allow : true;
  }
}

/**
 * A robots.txt read as it arrives, line by line: only the groups for our agent and for `*` are kept (the
 * only ones consulted for us), each rule added as its line is read, so that no single step parses the
 * whole file. The first ROBOTS_MAX_CHARS characters count.
 */
export class RobotsReader implements BodyReader<RobotsRules> {
  private readonly rules = new RobotsRules();
  private rest = '';
  private read = 0;
  private agents: string[] = [];
  /** The last line was not a user-agent line: the next user-agent line starts a new group. */
  private groupEnded = true;

  write(text: string): void {
    if (this.read >= ROBOTS_MAX_CHARS) return;
    const kept = text.slice(0, ROBOTS_MAX_CHARS - this.read);
    this.read += kept.length;
    const lines = (this.rest + kept).split(/\r\n|\r|\n/);
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  end(): RobotsRules {
    this.line(this.rest);
    this.rest = '';
    return this.rules;
  }

  private line(raw: string): void {
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
      if (ours.length > 0) this.rules.add(ours, value, key === 'allow');
    }
    this.groupEnded = key !== 'user-agent';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Page text

/** What a page gives: its title, its text, and (collected by the reader's caller) its links. */
export interface PageContent {
  title: string;
  text: string;
}

/** Elements whose text is not page text: code, styles, navigation and page chrome (their links still count). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'nav', 'footer', 'header', 'svg', 'template']);
/**
 * Page chrome by the names sites give it (class or id): cookie and consent banners (Borlabs, Complianz,
 * Cookiebot, cookieconsent: all say cookie, consent or gdpr, or cc-), skip links and screen-reader-only
 * text, top bars. The element's text is dropped, its links still count.
 */
const CHROME_NAME = /cookie|consent|gdpr|cmplz|(?:^|[\s_-])(?:cc-(?:banner|window|message|revoke|grower)|skip-?links?|skip-to(?:-\w+)?|sr-only|screen-reader-text|visually-?hidden|top-?bar)(?:$|[\s_-])/i;
/** ARIA roles of page chrome: the page's banner (a header), navigation, footer (contentinfo), dialogs. */
const CHROME_ROLES = new Set(['banner', 'navigation', 'contentinfo', 'dialog', 'alertdialog']);

/** Whether an element is page chrome by its attributes (see CHROME_NAME), or hidden. */
function isChrome(attributes: Record<string, string>): boolean {
  const names = `${attributes['class'] ?? ''} ${attributes['id'] ?? ''}`;
  if (names.length > 1 && CHROME_NAME.test(names)) return true;
  const role = attributes['role'];
  if (role !== undefined && CHROME_ROLES.has(role.trim().toLowerCase())) return true;
  if ('hidden' in attributes || attributes['aria-hidden'] === 'true') return true;
  const style = attributes['style'];
  return style !== undefined && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}
/** Elements that hold the page itself, never chrome whatever their classes say. */
const PAGE_ELEMENTS = new Set(['html', 'body', 'main']);
/** Characters of a link's text kept for page choice. */
const MAX_LINK_TEXT = 200;
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
 * An HTML page read as it arrives (htmlparser2, a streaming parser: each piece is parsed when it comes).
 * - label: the first <title>, whitespace collapsed;
 * - text: everything outside SKIPPED elements, page chrome (`isChrome`) and the title; whitespace runs are
 *   one space, each BLOCKS element begins and ends a line, line breaks inside <pre> stay;
 * - links: every <a href> (inside navigation too), handed to `onLink` in document order with its text (its
 *   first MAX_LINK_TEXT characters, whitespace collapsed; its aria-label or title when it has none), once
 *   the link ends.
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
  /** The depth of the page-chrome element being skipped (0: none). */
  private chromeDepth = 0;
  private pre = 0;
  private depth = 0;
  private stopped = false;
  /** The link being read: its address, its text so far, and the text its attributes give. */
  private link: { href: string; text: string; label: string } | null = null;

  constructor(private readonly onLink: (href: string, text: string) => void = () => undefined) {
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
    this.endLink();
    this.breakLine();
    return { title: (this.title ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE), text: this.lines.take() };
  }

  private open(name: string, attributes: Record<string, string>): void {
    if (this.stopped) return;
    if (++this.depth > MAX_DEPTH) {
      // Not a word more: the parser stops at once, not only at the end of this piece.
      this.stopped = true;
      this.parser.pause();
      return;
    }
    const href = attributes['href'];
    if (name === 'a' && href !== undefined) {
      this.endLink();
      this.link = { href, text: '', label: attributes['aria-label'] ?? attributes['title'] ?? '' };
    }
    // Consent tools also mark <body> while their banner shows ("cookie-consent-open"): never the page itself.
    if (this.chromeDepth === 0 && !PAGE_ELEMENTS.has(name) && isChrome(attributes)) this.chromeDepth = this.depth;
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
    if (name === 'a') this.endLink();
    if (this.chromeDepth === this.depth) this.chromeDepth = 0;
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
    if (this.link && this.link.text.length < MAX_LINK_TEXT) this.link.text += text;
    if (this.skipped > 0 || this.chromeDepth > 0) return;
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

  /** The link being read ends: handed on with its text. */
  private endLink(): void {
    const link = this.link;
    if (!link) return;
    this.link = null;
    const text = link.text.replace(/\s+/g, ' ').trim() || link.label.replace(/\s+/g, ' ').trim();
    this.onLink(link.href, text.slice(0, MAX_LINK_TEXT));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Page choice

/**
 * New same-site links kept from one page: breadth first, the crawl reads at most `maxPages` (10) pages, and
 * the start page's first thousand links are more than it ever reaches; resolving more only costs time.
 */
const MAX_LINKS_PER_PAGE = 1_000;
/** Longer links are not followed (the common limit of URLs; resolving and checking one costs with its length). */
const MAX_LINK_LENGTH = 2_048;

/** What the host is asked to do: give the event loop a turn (a host without one does nothing), or fetch. */
export type CrawlStep<U extends SiteUrl> = { kind: 'turn' } | { kind: 'fetch'; url: U; readerFor: ReaderFor<unknown, U> };

/**
 * The answer to a fetch step: the response after redirects (`body`: what the reader made of it, null when
 * no reader was wanted), or the error the fetch failed with.
 */
export type FetchAnswer<U extends SiteUrl, T = unknown> = { ok: true; url: U; status: number; contentType: string; body: T | null } | { ok: false; error: Error };

export interface CrawlOptions<U extends SiteUrl> {
  /** The host's URL parser: `href` resolved against `base`, or null when it is no URL. */
  parse: (href: string, base?: U) => U | null;
  /** True once the host stops reading (a deadline, the caller left): the pages so far are the result. */
  stopped: () => boolean;
  /**
   * How early a link's page is read (higher first; equal ones in the order found): from the link's path
   * and its text (see question-kind.ts `linkPriority`). Without it, breadth first.
   */
  priority?: ((path: string, text: string) => number) | undefined;
}

/** A page's address as it is compared: without its fragment, and `dir/index.html` (or .htm, .php) as `dir/`. */
function pageKey(href: string): string {
  const withoutHash = href.split('#')[0] ?? href;
  return withoutHash.replace(/\/index\.(?:html?|php)(?=$|\?)/i, '/');
}

/** A cheap fingerprint of a page's text (length and FNV-1a): pages read twice under two addresses count once. */
function textKey(text: string): string {
  return `${text.length}:${fnv1a(text)}`;
}

/** One fetch step, answered: the body is what the reader it asked with made of it. */
function* fetchStep<T, U extends SiteUrl>(url: U, readerFor: ReaderFor<T, U>): Generator<CrawlStep<U>, FetchAnswer<U, T>, FetchAnswer<U> | undefined> {
  const answer = yield { kind: 'fetch', url, readerFor };
  return (answer as FetchAnswer<U, T> | undefined) ?? { ok: false, error: new FetchError(`${url.href} was not fetched`) };
}

/**
 * Up to `maxPages` pages of the site with text, breadth first from `start`, as steps for the host to
 * answer (see the module comment). Ends early, with the pages read so far, once `stopped()`; throws a
 * FetchError when the site may not be read at all or no page of it could be.
 */
export function* crawlSteps<U extends SiteUrl>(start: U, maxPages: number, options: CrawlOptions<U>): Generator<CrawlStep<U>, FetchedPage[], FetchAnswer<U> | undefined> {
  const { parse, stopped, priority } = options;
  let robots: RobotsRules | null = null;
  const robotsUrl = parse('/robots.txt', start);
  if (robotsUrl) {
    const answer = yield* fetchStep(robotsUrl, (_url, status) => (status === 200 ? new RobotsReader() : null));
    if (answer.ok) {
      robots = answer.body;
      // RFC 9309: an unreachable robots.txt (server error) means the site is to be treated as disallowed.
      if (answer.status >= 500) throw new FetchError(`${start.host} answers ${answer.status} for robots.txt: the site is not crawled now`);
    } else if (answer.error instanceof FetchError && /private or local|robots\.txt|credentials/.test(answer.error.message)) {
      throw answer.error;
    }
    // Otherwise no robots.txt (or unreachable): everything is allowed.
  }
  // Links to read: in the order found, taken highest priority first (all equal without a priority).
  const queue: { href: string; rank: number }[] = [{ href: start.href, rank: 0 }];
  const seen = new Set<string>([pageKey(start.href)]);
  const texts = new Set<string>();
  const pages: FetchedPage[] = [];
  let firstError: Error | null = null;
  while (queue.length > 0 && pages.length < maxPages && !stopped()) {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if ((queue[i]?.rank ?? 0) > (queue[best]?.rank ?? 0)) best = i;
    const [entry] = queue.splice(best, 1);
    const next = entry ? parse(entry.href) : null;
    if (!next) continue;
    if (robots) {
      // A check costs in proportion to the rules (up to a few ms for a long robots.txt): one per turn. The
      // rules hold for every page read: all are on the start's host (http or https alike).
      yield { kind: 'turn' };
      if (!robots.isAllowed(next.pathname + next.search)) continue;
    }
    // The page's new same-site links (with the text of the first), resolved while it is parsed; queued
    // once the page was read whole.
    const links = new Map<string, { path: string; text: string; whole: boolean }>();
    const readerFor: ReaderFor<PageContent, U> = (url, status, contentType) => {
      if (status !== 200) return null;
      if (/text\/plain/i.test(contentType)) {
        const text = textReader();
        return { write: (chunk) => { text.write(chunk); }, end: () => ({ title: '', text: text.end() }) };
      }
      if (!/text\/html/i.test(contentType)) return null;
      return new PageReader((href, text) => {
        if (links.size >= MAX_LINKS_PER_PAGE || href.length > MAX_LINK_LENGTH) return;
        const link = parse(href, url);
        if (!link || link.host !== start.host || (link.protocol !== 'http:' && link.protocol !== 'https:')) return;
        const target = pageKey(link.href);
        if (seen.has(target)) return;
        // A link with a fragment names a part of the page: the first text of a link to the whole page
        // describes it better ("Datenschutz" links to impressum.html#datenschutz, "Impressum" to the page).
        const whole = !link.href.includes('#');
        const known = links.get(target);
        if (!known || (!known.text && text) || (whole && !known.whole && text)) links.set(target, { path: link.pathname, text, whole });
      });
    };
    const answer = yield* fetchStep(next, readerFor);
    if (!answer.ok) {
      firstError ??= answer.error;
      continue;
    }
    if (!answer.body) {
      firstError ??= new FetchError(`${answer.url.href} answered ${answer.status}${answer.status === 200 ? ` with ${answer.contentType || 'no content type'}` : ''}`);
      continue;
    }
    const { title, text } = answer.body;
    // A page whose text was read under another address (a redirect, `/` and `/home`) is not read twice.
    const key = textKey(text);
    if (text && !texts.has(key)) {
      texts.add(key);
      pages.push({ url: answer.url.href, label: title || answer.url.pathname, text });
    }
    seen.add(pageKey(answer.url.href));
    for (const [link, { path, text: linkText }] of links) {
      if (seen.has(link)) continue;
      seen.add(link);
      queue.push({ href: link, rank: priority ? priority(path, linkText) : 0 });
    }
  }
  if (stopped()) return pages;
  if (pages.length === 0) {
    if (firstError instanceof FetchError) throw firstError;
    throw new FetchError(`no page of ${start.host} could be read${firstError ? `: ${firstError.message}` : ''}`);
  }
  return pages;
}
