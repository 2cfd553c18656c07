/**
 * http(s) URLs parsed and resolved without `URL`, which Apps Script lacks: the WHATWG URL standard's
 * algorithm for the special schemes http and https, as far as reading a website needs it. Every URL
 * UrlFetchApp is given is one this module serialized, in the canonical form a browser would send, so
 * what the address check judged is what Google's fetcher connects to.
 *
 * - Tabs and newlines are removed, leading and trailing spaces and controls trimmed; `\` counts as `/`.
 * - Host: percent-decoded, lower case, internationalised names as punycode (NFKC-folded, as
 *   src/contract/domain.ts folds them); a host that ends in a number is an IPv4 address in any of the
 *   WHATWG forms (2130706433, 0x7f.1, 0177.0.0.1) and is written dotted; [IPv6] compressed.
 * - Port: the scheme's default dropped; path: dot segments resolved; path, query and fragment
 *   percent-encoded as the standard's encode sets say (non-ASCII as UTF-8).
 * - Anything else (another scheme, no host, a forbidden host character, a port over 65535): null.
 */
import punycode from 'punycode/punycode.js';
import { parseIPv6 } from '../../src/engine/language/site-reading.js';

export interface WebAddress {
  readonly href: string;
  readonly protocol: 'http:' | 'https:';
  /** Host name and, when not the scheme's default, `:port`. */
  readonly host: string;
  /** Host name or address ([…] for IPv6). */
  readonly hostname: string;
  /** '' for the scheme's default. */
  readonly port: string;
  /** Starts with '/'. */
  readonly pathname: string;
  /** '' or '?…'. */
  readonly search: string;
  /** '' or '#…'. */
  readonly hash: string;
  /** The query without its '?'; null without one ('' keeps an empty query's '?'). */
  readonly query: string | null;
  /** 'user:password@' as the URL spells it; '' when it names no user or password. */
  readonly userinfo: string;
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };
/** Characters no host may hold (the standard's forbidden domain code points, after percent-decoding). */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_HOST = /[\u0000-\u0020#%/:<>?@[\\\]^|\u007f]/;

/** A code point as UTF-8 percent-encodings; a lone surrogate as U+FFFD, as the standard's encoder does. */
function utf8Encoded(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x80) return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
  try {
    return encodeURIComponent(char).replace(/%[0-9a-f]{2}/g, (match) => match.toUpperCase());
  } catch {
    return '%EF%BF%BD';
  }
}

/** `text` with every character that `encodes` names, and every one outside printable ASCII, percent-encoded. */
function percentEncoded(text: string, encodes: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code <= 0x20 || code >= 0x7f || encodes.includes(char) ? utf8Encoded(char) : char;
  }
  return out;
}

const PATH_SET = '"#<>?`{}';
const QUERY_SET = '"#<>\'';
const FRAGMENT_SET = '"<>`';
const USERINFO_SET = `${PATH_SET}/:;=@[\\]^|`;

/** A dot segment: '.', '..' and their percent-encoded spellings. */
const isSingleDot = (segment: string): boolean => segment === '.' || segment.toLowerCase() === '%2e';
const isDoubleDot = (segment: string): boolean => ['..', '.%2e', '%2e.', '%2e%2e'].includes(segment.toLowerCase());

/** Path segments (of an absolute path, `\` as `/`) pushed onto `base` with dot segments resolved. */
function resolvedPath(base: readonly string[], path: string): string[] {
  const segments = [...base];
  const parts = path.split(/[/\\]/).slice(1);
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    if (isDoubleDot(part)) {
      segments.pop();
      if (last) segments.push('');
    } else if (isSingleDot(part)) {
      if (last) segments.push('');
    } else {
      segments.push(percentEncoded(part, PATH_SET));
    }
  });
  return segments;
}

/** One IPv4 part in the standard's forms: decimal, 0x hex or 0-prefixed octal; null when it is none. */
function ipv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return null;
}

/** The standard's IPv4 parser: one to four parts, the last filling the bytes left. Null when invalid. */
function ipv4Address(host: string): string | null {
  const parts = host.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
  if (parts.length > 4 || parts.some((part) => part === '')) return null;
  const numbers = parts.map(ipv4Part);
  if (numbers.some((n) => n === null)) return null;
  const values = numbers as number[];
  const last = values.pop() as number;
  if (values.some((n) => n > 255) || last >= 256 ** (4 - values.length)) return null;
  let address = last;
  values.forEach((n, index) => {
    address += n * 256 ** (3 - index);
  });
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');
}

/** Whether the standard reads a host as an IPv4 address: its last label (before a final dot) is a number. */
function endsInNumber(host: string): boolean {
  const labels = host.split('.');
  if (labels[labels.length - 1] === '' && labels.length > 1) labels.pop();
  const last = labels[labels.length - 1] ?? '';
  return /^\d+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/** The canonical host, or null when it is not a valid one. */
function parsedHost(raw: string): string | null {
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) return null;
    const v6 = parseIPv6(raw.slice(1, -1));
    return v6 ? `[${v6.toString()}]` : null;
  }
  let host: string;
  try {
    host = decodeURIComponent(raw);
  } catch {
    return null;
  }
  // A lone surrogate becomes U+FFFD, which no domain name may hold.
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/.test(host)) return null;
  host = host.normalize('NFKC').toLowerCase();
  if (host === '' || FORBIDDEN_HOST.test(host)) return null;
  if (/[\u0080-\uffff]/.test(host)) {
    try {
      host = punycode.toASCII(host);
    } catch {
      return null;
    }
  }
  if (endsInNumber(host)) return ipv4Address(host);
  return host;
}

interface Parts {
  protocol: 'http:' | 'https:';
  /** 'user:password@' as the URL spells it, or ''. */
  userinfo: string;
  hostname: string;
  port: string;
  /** Path segments (the path is '/' + their join). */
  path: string[];
  query: string | null;
  fragment: string | null;
}

function addressOf(parts: Parts): WebAddress {
  const host = parts.port ? `${parts.hostname}:${parts.port}` : parts.hostname;
  const pathname = `/${parts.path.join('/')}`;
  const query = parts.query === null ? '' : `?${parts.query}`;
  const fragment = parts.fragment === null ? '' : `#${parts.fragment}`;
  return {
    href: `${parts.protocol}//${parts.userinfo}${host}${pathname}${query}${fragment}`,
    protocol: parts.protocol,
    host,
    hostname: parts.hostname,
    port: parts.port,
    pathname,
    search: query.length > 1 ? query : '',
    hash: fragment.length > 1 ? fragment : '',
    query: parts.query,
    userinfo: parts.userinfo,
  };
}

/** Splits `rest` (what follows the path's start) into path, query and fragment. */
function splitTail(rest: string): { path: string; query: string | null; fragment: string | null } {
  const hash = rest.indexOf('#');
  const beforeHash = hash >= 0 ? rest.slice(0, hash) : rest;
  const fragment = hash >= 0 ? percentEncoded(rest.slice(hash + 1), FRAGMENT_SET) : null;
  const question = beforeHash.indexOf('?');
  return {
    path: question >= 0 ? beforeHash.slice(0, question) : beforeHash,
    query: question >= 0 ? percentEncoded(beforeHash.slice(question + 1), QUERY_SET) : null,
    fragment,
  };
}

/** Host and port of an authority (after any userinfo): the first ':' outside brackets starts the port. */
function hostAndPort(hostPort: string): { rawHost: string; rawPort: string } | null {
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    const after = hostPort.slice(close + 1);
    if (close < 0 || (after !== '' && !after.startsWith(':'))) return null;
    return { rawHost: hostPort.slice(0, close + 1), rawPort: after.slice(1) };
  }
  const colon = hostPort.indexOf(':');
  return colon < 0 ? { rawHost: hostPort, rawPort: '' } : { rawHost: hostPort.slice(0, colon), rawPort: hostPort.slice(colon + 1) };
}

/** Authority, path, query and fragment of `rest` (after the scheme and any slashes). */
function withAuthority(protocol: 'http:' | 'https:', rest: string): WebAddress | null {
  const end = rest.search(/[/\\?#]/);
  const authority = end >= 0 ? rest.slice(0, end) : rest;
  const at = authority.lastIndexOf('@');
  const userinfo = authority.slice(0, Math.max(0, at));
  const colon = userinfo.indexOf(':');
  const username = percentEncoded(colon >= 0 ? userinfo.slice(0, colon) : userinfo, USERINFO_SET);
  const password = colon >= 0 ? percentEncoded(userinfo.slice(colon + 1), USERINFO_SET) : '';
  const split = hostAndPort(authority.slice(at + 1));
  if (!split || !/^\d*$/.test(split.rawPort)) return null;
  const hostname = parsedHost(split.rawHost);
  if (hostname === null) return null;
  let port = '';
  if (split.rawPort !== '') {
    const number = Number(split.rawPort);
    if (number > 65_535) return null;
    port = String(number) === DEFAULT_PORT[protocol] ? '' : String(number);
  }
  const tail = splitTail(end >= 0 ? rest.slice(end) : '');
  const path = /^[/\\]/.test(tail.path) ? tail.path : `/${tail.path}`;
  const spelled = username || password ? `${username}${password ? `:${password}` : ''}@` : '';
  return addressOf({ protocol, userinfo: spelled, hostname, port, path: resolvedPath([], path), query: tail.query, fragment: tail.fragment });
}

/** `input` resolved against `base` (a relative reference needs one). */
export function parseWebAddress(input: string, base?: WebAddress): WebAddress | null {
  // eslint-disable-next-line no-control-regex
  const text = input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text);
  if (scheme) {
    const protocol = `${(scheme[1] ?? '').toLowerCase()}:`;
    if (protocol !== 'http:' && protocol !== 'https:') return null;
    const rest = text.slice(scheme[0].length);
    // "http:path" against an http base is relative to it; otherwise any slashes lead to the authority.
    if (base && base.protocol === protocol && !/^[/\\]{2}/.test(rest)) return relative(rest, base);
    return withAuthority(protocol, rest.replace(/^[/\\]*/, ''));
  }
  return base ? relative(text, base) : null;
}

function relative(text: string, base: WebAddress): WebAddress | null {
  if (/^[/\\]{2}/.test(text)) return withAuthority(base.protocol, text.replace(/^[/\\]*/, ''));
  const own = { protocol: base.protocol, userinfo: base.userinfo, hostname: base.hostname, port: base.port };
  const basePath = base.pathname.slice(1).split('/');
  const tail = splitTail(text);
  if (tail.path === '') {
    return addressOf({ ...own, path: basePath, query: tail.query ?? (text.startsWith('#') || text === '' ? base.query : null), fragment: tail.fragment });
  }
  if (tail.path.startsWith('/') || tail.path.startsWith('\\')) return addressOf({ ...own, path: resolvedPath([], tail.path), query: tail.query, fragment: tail.fragment });
  // A relative path: the base's directory, then the reference's segments.
  return addressOf({ ...own, path: resolvedPath(basePath.slice(0, -1), `/${tail.path}`), query: tail.query, fragment: tail.fragment });
}
