/**
 * Domain normalisation, used everywhere the contract accepts a domain (similar_to, excludes, fetch,
 * v1 domains, markets, QnA). Users paste URLs, e-mail addresses and mixed-case hosts into sheets; the
 * index keys organizations by their bare lower-case ASCII hostname.
 */
import punycode from 'punycode/punycode.js';

export type DomainResult = { ok: true; domain: string } | { ok: false; reason: string };

const MAX_HOSTNAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
// Full stops that IDNA (UTS #46) maps to "." — users copy domains out of CJK text.
const IDEOGRAPHIC_FULL_STOPS = /[\u3002\uFF0E\uFF61]/g;
// Characters IDNA maps to nothing: soft hyphen, zero-width spaces and joiners, word joiner, BOM. They
// ride along invisibly when a domain is copied out of a web page or a PDF.
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;
// Half of a UTF-16 surrogate pair without its other half: not a character. Punycode would encode it as if
// it were one, and NFKC keeps it, so such input is refused. (Code units, no `u` flag: portable.)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Removes scheme, user info, path, query, fragment and port, leaving the host part of a URL-ish input. */
function hostPart(input: string): string {
  let rest = input;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else if (rest.startsWith('//')) rest = rest.slice(2);
  const end = rest.search(/[/?#\\]/);
  if (end >= 0) rest = rest.slice(0, end);
  // user:password@host in a URL, or an e-mail address: the domain is after the last "@".
  const at = rest.lastIndexOf('@');
  if (at >= 0) rest = rest.slice(at + 1);
  const port = /:\d*$/.exec(rest);
  if (port) rest = rest.slice(0, port.index);
  return rest;
}

function codePointCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0) {
      const before = text.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) count--;
    }
  }
  return count;
}

/** Already a normalised key: lower-case ASCII labels, no `www.` prefix, non-numeric TLD (the common case). */
const NORMALISED = /^(?!www\.)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.(?:[a-z][a-z0-9-]{0,61}[a-z0-9]|xn--[a-z0-9-]+)$/;

/**
 * Normalises a user-supplied domain, URL or e-mail address to the index's key: lower case, no scheme,
 * no `www.`, no port / path / query / fragment, no trailing dot, IDN labels in punycode.
 */
export function normalizeDomain(raw: string): DomainResult {
  // Fast path: bulk fetches send thousands of keys that are already normalised.
  if (raw.length <= MAX_HOSTNAME_LENGTH && NORMALISED.test(raw)) return { ok: true, domain: raw };
  if (LONE_SURROGATE.test(raw)) {
    return { ok: false, reason: `"${raw}" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com` };
  }
  const trimmed = raw.replace(INVISIBLE, '').trim().replace(/^mailto:/i, '');
  if (trimmed === '') return { ok: false, reason: 'domain is empty' };
  if (/\s/.test(trimmed)) return { ok: false, reason: `"${raw}" contains whitespace; expected a domain such as example.com` };

  // NFKC folds full-width and other compatibility forms (ｅｘａｍｐｌｅ.com → example.com), as IDNA does.
  let host = hostPart(trimmed).normalize('NFKC').replace(IDEOGRAPHIC_FULL_STOPS, '.').toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return { ok: false, reason: `"${raw}" has no host name; expected a domain such as example.com` };
  if (host.startsWith('[') || IPV4.test(host)) {
    return { ok: false, reason: `"${raw}" is an IP address; an organization is identified by its domain name` };
  }

  // Each character is at least one character of the encoded name, and encoding takes time quadratic in
  // a label's length: a host longer than a whole name (and a `www.`), even counted in code points, is
  // refused unencoded.
  const longest = MAX_HOSTNAME_LENGTH + 'www.'.length;
  if (host.length > longest && codePointCount(host) > longest) {
    return { ok: false, reason: `"${raw}" is longer than ${MAX_HOSTNAME_LENGTH} characters` };
  }

  let ascii: string;
  try {
    ascii = punycode.toASCII(host);
  } catch {
    return { ok: false, reason: `"${raw}" is not a valid internationalised domain name` };
  }
  if (ascii.startsWith('www.') && ascii.split('.').length > 2) ascii = ascii.slice(4);

  if (ascii.length > MAX_HOSTNAME_LENGTH) {
    return { ok: false, reason: `"${raw}" is longer than ${MAX_HOSTNAME_LENGTH} characters` };
  }
  const labels = ascii.split('.');
  if (labels.length < 2) {
    return { ok: false, reason: `"${raw}" has no top-level domain; expected a domain such as example.com` };
  }
  for (const label of labels) {
    if (label.length === 0) return { ok: false, reason: `"${raw}" has an empty label (two dots in a row)` };
    if (label.length > MAX_LABEL_LENGTH) {
      return { ok: false, reason: `"${raw}" has a label longer than ${MAX_LABEL_LENGTH} characters` };
    }
    if (!LABEL.test(label)) {
      return {
        ok: false,
        reason: `"${raw}" is not a valid hostname: labels may hold letters, digits and inner hyphens only`,
      };
    }
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) {
    return { ok: false, reason: `"${raw}" has a numeric top-level domain` };
  }
  return { ok: true, domain: ascii };
}
