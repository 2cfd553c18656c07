/**
 * The Sheets runtime's URL parser (Apps Script has no `URL`) against Node's WHATWG `URL`: what it returns
 * for http(s) URLs is what `URL` returns, and it returns null where `URL` fails or leaves http(s).
 */
import fc from 'fast-check';
import { parseWebAddress, type WebAddress } from '../../appsscript/src/web-address.js';

const BASE = 'https://www.acme-solar.test:8443/de/about/team.html?lang=de#staff';

type Compared = Omit<WebAddress, 'query' | 'userinfo'>;

function whatwg(input: string, base?: string): Compared | null {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return { href: url.href, protocol: url.protocol, host: url.host, hostname: url.hostname, port: url.port, pathname: url.pathname, search: url.search, hash: url.hash };
}

function ours(input: string, base?: string): Compared | null {
  const parsedBase = base === undefined ? undefined : parseWebAddress(base);
  if (parsedBase === null) throw new Error(`the base ${String(base)} does not parse`);
  const address = parseWebAddress(input, parsedBase);
  if (!address) return null;
  const { query: _query, userinfo: _userinfo, ...compared } = address;
  return compared;
}

const CASES = [
  // Absolute, with the canonical forms of host, port and path.
  'HTTP://Example.COM', 'https://example.com:443/', 'http://example.com:80/a', 'http://example.com:0080/a', 'https://example.com:8080', 'https://example.com./x',
  'http://example.com/a b/ü/"q"/<x>/`/{y}', 'http://example.com/?a b&c="d"&e=\'f\'&ü', 'http://example.com/#a b"`<>ü', 'http://example.com/a/./b/../../c/./d/..', 'http://example.com/a/%2e%2E/b/.%2e/c',
  'http:\\\\example.com\\a\\b', 'https:example.com/a', 'http:/example.com', 'https:///example.com/', '  http://example.com/\t\n  ', 'http://exa\tmple.com/',
  // Hosts: IPv4 in every form the standard reads, IPv6, IDN, and invalid ones.
  'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://127.0.0.1./', 'http://0x7f000001/', 'http://1.2.3.4.5/', 'http://256.0.0.1/', 'http://1.2.3.08/', 'http://0x/', 'http://a.0x1/',
  'http://[::1]/', 'http://[::FFFF:127.0.0.1]:8080/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[2001:db8:0:0:1:0:0:1]/', 'http://[::1/', 'http://[::g]/', 'http://[::1]x/',
  'http://bücher.example/', 'http://EXAMPLE.xn--p1ai/', 'http://ex%41mple.com/', 'http://exa mple.com/', 'http://exa%20mple.com/', 'http://a<b.com/', 'http:///', 'http://:80/', 'http://example.com:99999/', 'http://example.com:8a/',
  // Credentials and odd authorities.
  'http://user:secret@example.com/', 'http://@example.com/', 'http://a@b@example.com/x', 'http://example.com@evil.test/', 'http://example.com\\@evil.test/',
  // Other schemes.
  'mailto:info@example.com', 'javascript:alert(1)', 'ftp://example.com/', 'tel:+4989123', 'data:text/html,x',
];

const RELATIVE = ['', '#top', '?q=1', '?', '#', 'contact', './contact', '../impressum', '../../../../x', '/', '/imprint?x#y', '//other.test/a', '\\\\other.test\\a', '/\\other.test/a', 'https:contact', 'http:contact', 'https:/contact', 'a:b', 'team.html#x', '..', '.', 'ü/ä b', '%2e%2e/x', 'https://example.com'];

test.each(CASES)('%s', (input) => {
  expect(ours(input)).toEqual(whatwg(input));
});

test.each(RELATIVE)('"%s" against a page', (input) => {
  expect(ours(input, BASE)).toEqual(whatwg(input, BASE));
});

test('credentials are kept apart (the fetcher refuses such URLs) and stay in every URL resolved against one', () => {
  expect(parseWebAddress('http://user:secret@example.com/')?.userinfo).toBe('user:secret@');
  expect(parseWebAddress('http://@example.com/a@b')?.userinfo).toBe('');
  const page = parseWebAddress('http://user@example.com/a/b?q#x?y');
  expect(page && parseWebAddress('c', page)?.href).toBe('http://user@example.com/a/c');
  expect(page && parseWebAddress('#z', page)?.href).toBe('http://user@example.com/a/b?q#z');
});

test('generated references resolve as URL resolves them', () => {
  const piece = fc.constantFrom('a', 'B', '.', '..', '/', '\\', '?', '#', '%2e', '%41', ' ', 'ü', '"', "'", '`', '<', '{', ':', '@', '=', '&', '~', '|', '^', '%', '\t', '\u{1F600}', '\uD800');
  const reference = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));
  const host = fc.constantFrom('example.com', 'EXAMPLE.com', 'a.b.c.test', '127.0.0.1', '0x7f.0.0.1', '10.1', '[::1]', 'xn--bcher-kva.example', 'bücher.example');
  const absolute = fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP:', 'https:\\\\', 'http:///'), host, fc.constantFrom('', ':80', ':443', ':8080', ':'), reference).map((parts) => parts.join(''));
  fc.assert(
    fc.property(fc.oneof(reference, absolute), (input) => {
      expect([input, ours(input, BASE)]).toEqual([input, whatwg(input, BASE)]);
    }),
    { numRuns: 20_000 },
  );
});
