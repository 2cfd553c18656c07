/// <reference types="google-apps-script" />
/**
 * =ORGASK on the built-in sample: Apps Script reads the organization's website itself with UrlFetchApp
 * (synchronous, any public site) and answers with the service's extractive answerer (qna.ts), so the
 * answer has the shape of /v1/qna's. Page choice, robots.txt, the address policy and page text are the
 * server's (src/engine/language/site-reading.ts); what differs is the I/O:
 *
 * - Bounded for a custom function's 30 s: at most SHEETS_MAX_PAGES pages, each at most 2 MB (as on the
 *   server), 5 redirects, and no request starts after SHEETS_SITE_DEADLINE_MS (the pages read by then
 *   are the result, with a note saying so). UrlFetchApp takes no timeout: a site that accepts the
 *   connection and never answers holds the call until Google ends it.
 * - Addresses: Apps Script resolves no names, so what can be checked is checked — address literals
 *   (any form: 2130706433 is 127.0.0.1) must be public, and names that are local by definition are refused
 *   — on the start URL and on every redirect (followed here, one hop at a time). The script properties
 *   `orgindex.fetch.allowPrivate` ("true") and `orgindex.fetch.hosts` ("name=address, …", like /etc/hosts;
 *   the address is still checked unless private ones are allowed) are the test and development switches,
 *   as the server's --allow-private-fetch and --resolve.
 * - Tokens: an estimate (token-estimate.ts) in place of the server's tokenizer.
 * - A site that cannot be read is the error the remote client makes of the service's error envelope:
 *   "Could not read <domain>: <why>".
 */
import { ConfigurationError } from '../../src/client/errors.js';
import { messageOf, ServiceError, ValidationError } from '../../src/contract/errors.js';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import type { QnaResult } from '../../src/contract/language.js';
import { validate } from '../../src/contract/validation.js';
import { answerQuestion } from '../../src/engine/language/qna.js';
import { linkPriority } from '../../src/engine/language/question-kind.js';
import { crawlSteps, FetchError, isIPv4, isPublicAddress, MAX_PAGE_BYTES, MAX_REDIRECTS, parseIPv6, startAddress, USER_AGENT, type FetchAnswer, type FetchedPage, type ReaderFor } from '../../src/engine/language/site-reading.js';
import { estimateTokens } from './token-estimate.js';
import { responseOf } from './transport.js';
import { parseWebAddress, type WebAddress } from './web-address.js';

/** Pages of a site read at most (the service reads up to 10): each is a request inside the 30 s. */
export const SHEETS_MAX_PAGES = 5;
/** No request starts later than this after the first: reading and answering stay well inside 30 s. */
export const SHEETS_SITE_DEADLINE_MS = 15_000;

export const ALLOW_PRIVATE_PROPERTY = 'orgindex.fetch.allowPrivate';
export const HOSTS_PROPERTY = 'orgindex.fetch.hosts';

export interface SiteSettings {
  /** Loopback and private addresses and local names may be fetched (tests, development). */
  allowPrivate: boolean;
  /** Fixed addresses for host names, like /etc/hosts. */
  hosts: Readonly<Record<string, string>>;
  deadlineMs: number;
  now: () => number;
}

/** The settings of this script: its switches from the script properties, the Sheets limits. */
export function scriptSiteSettings(): SiteSettings {
  const properties = PropertiesService.getScriptProperties();
  const hosts: Record<string, string> = {};
  for (const entry of (properties.getProperty(HOSTS_PROPERTY) ?? '').split(/[\s,]+/).filter(Boolean)) {
    const [name, address] = entry.split('=');
    if (!name || !address) throw new ConfigurationError(`the script property ${HOSTS_PROPERTY} holds "${entry}"; write name=address, separated by commas`);
    hosts[name.toLowerCase()] = address;
  }
  return { allowPrivate: properties.getProperty(ALLOW_PRIVATE_PROPERTY) === 'true', hosts, deadlineMs: SHEETS_SITE_DEADLINE_MS, now: () => Date.now() };
}

/**
 * Names that are local by definition — localhost (RFC 6761), .local (RFC 6762), .home.arpa (RFC 8375),
 * .internal (reserved for private use) — or have no dot (completed by a local search list).
 */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|home\.arpa)\.?$|^[^.]+\.?$/;

/** The URL UrlFetchApp is given for `url`: its host replaced by a fixed address, else as it is; refused ones throw. */
function fetchedUrl(url: WebAddress, settings: SiteSettings): string {
  const allowed = (address: string): boolean => settings.allowPrivate || isPublicAddress(address);
  if (url.userinfo) throw new FetchError('URLs with credentials are not fetched');
  const path = `${url.pathname}${url.query === null ? '' : `?${url.query}`}`;
  const fixed = settings.hosts[url.hostname];
  if (fixed !== undefined) {
    if (!allowed(fixed)) throw new FetchError(`${url.hostname} resolves to a private or local address; fetching it is refused`);
    const host = fixed.includes(':') ? `[${fixed}]` : fixed;
    return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${path}`;
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIPv4(literal) || parseIPv6(literal)) {
    if (!allowed(literal)) throw new FetchError(`${url.host} is a private or local address; fetching it is refused`);
  } else if (!settings.allowPrivate && LOCAL_NAME.test(url.hostname)) {
    throw new FetchError(`${url.hostname} names a private or local host; fetching it is refused`);
  }
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * A thrown UrlFetchApp failure (no connection, DNS): its message without Apps Script's "Exception: ". Read
 * as any object's message: the host's exceptions need not be this script's Error.
 */
function unreachable(error: unknown): Error {
  const message = typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message : String(error);
  return new Error(message.replace(/^Exception:\s*/, ''));
}

/** GET with redirects followed here, every hop checked; the body read when `readerFor` wants it. */
function get(start: WebAddress, readerFor: ReaderFor<unknown, WebAddress>, settings: SiteSettings, ends: number): FetchAnswer<WebAddress> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const target = fetchedUrl(url, settings);
    if (settings.now() >= ends) throw new FetchError(`${url.href} was not fetched: the time for this site ran out`);
    let response: ReturnType<typeof responseOf>;
    try {
      response = responseOf(UrlFetchApp.fetch(target, { method: 'get', followRedirects: false, muteHttpExceptions: true, headers: { 'User-Agent': USER_AGENT, Accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' } }));
    } catch (error) {
      throw unreachable(error);
    }
    const { status, headers, body } = response;
    const location = headers['location'];
    if (status >= 300 && status < 400 && location) {
      const next = parseWebAddress(location, url);
      if (!next) throw new FetchError(`${url.href} redirects to ${location}: only http and https are fetched`);
      url = next;
      continue;
    }
    const contentType = headers['content-type'] ?? '';
    const reader = readerFor(url, status, contentType);
    if (!reader) return { ok: true, url, status, contentType, body: null };
    if (body.length > MAX_PAGE_BYTES) throw new FetchError(`${url.href} is larger than ${MAX_PAGE_BYTES / 1024 / 1024} MB`);
    reader.write(body);
    return { ok: true, url, status, contentType, body: reader.end() };
  }
  throw new FetchError(`${start.href} redirects more than ${MAX_REDIRECTS} times`);
}

export interface ReadSite {
  pages: FetchedPage[];
  /** Why fewer pages were read than asked, or null. */
  note: string | null;
}

/**
 * Up to `maxPages` (at most SHEETS_MAX_PAGES) pages of the site, breadth first (the links likely to answer
 * `question` first), within the deadline.
 */
export function readSite(domain: string, maxPages: number, settings: SiteSettings, question?: string): ReadSite {
  const start = parseWebAddress(startAddress(domain));
  if (!start) throw new FetchError(`${domain} is not an http(s) address`);
  const wanted = Math.min(maxPages, SHEETS_MAX_PAGES);
  const ends = settings.now() + settings.deadlineMs;
  const limit = `the ${settings.deadlineMs / 1000} s time limit of Google Sheets`;
  // Set once the deadline stopped the reading: the pages so far are the result.
  const deadline = { passed: false };
  const stopped = (): boolean => {
    if (settings.now() >= ends) deadline.passed = true;
    return deadline.passed;
  };
  const steps = crawlSteps(start, wanted, { parse: parseWebAddress, stopped, priority: question ? linkPriority(question) : undefined });
  let answer: FetchAnswer<WebAddress> | undefined;
  for (;;) {
    const step = steps.next(answer);
    if (step.done) {
      const pages = step.value;
      if (deadline.passed && pages.length < wanted) {
        if (pages.length === 0) throw new FetchError(`no page of ${start.host} was read within ${limit}`);
        return { pages, note: `the other pages were not read within ${limit}` };
      }
      const capped = maxPages > wanted && pages.length === wanted;
      return { pages, note: capped ? `Google Sheets reads at most ${SHEETS_MAX_PAGES} pages of a site` : null };
    }
    answer = undefined;
    if (step.value.kind === 'turn') continue;
    try {
      answer = get(step.value.url, step.value.readerFor, settings, ends);
    } catch (error) {
      answer = { ok: false, error: error as Error };
    }
  }
}

/**
 * The answer to a /v1/qna body from the site itself: the body checked by the contract (a bad one throws
 * the ValidationError a service's 422 carries), then the same result as the service's, or the
 * ServiceError the client makes of its error envelope.
 */
export function askSite(body: unknown, settings: SiteSettings): QnaResult {
  const checked = validate(ENDPOINTS['language.qna'].request, body);
  if (!checked.ok) throw new ValidationError(checked.error.detail, 422);
  const { question, domain, max_pages: maxPages } = checked.value;
  let site: ReadSite;
  try {
    site = readSite(domain, maxPages, settings, question);
  } catch (error) {
    throw new ServiceError(`Could not read ${domain}: ${messageOf(error)}`, 200);
  }
  return answerQuestion(question, site.pages, { countTokens: estimateTokens, ...(site.note ? { incomplete: site.note } : {}) });
}
