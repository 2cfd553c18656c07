/** Domain normalisation (src/contract/domain.ts) and DomainSchema's 422 item. */
import * as z from 'zod';
import { DomainListSchema, DomainSchema, normalizeDomain } from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

describe('normalizeDomain: accepted forms', () => {
  it.each([
    ['example.com', 'example.com'],
    ['EXAMPLE.COM', 'example.com'],
    ['Example.Co.UK', 'example.co.uk'],
    ['  example.com  ', 'example.com'],
    ['https://example.com', 'example.com'],
    ['http://example.com', 'example.com'],
    ['ftp://files.example.org', 'files.example.org'],
    ['//example.com/x', 'example.com'],
    ['www.example.com', 'example.com'],
    ['https://WWW.Example.com', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['example.com:', 'example.com'],
    ['example.com/path/to/page', 'example.com'],
    ['example.com?q=1', 'example.com'],
    ['example.com#section', 'example.com'],
    ['https://www.Example.com:8080/path?q=1#f', 'example.com'],
    ['example.com.', 'example.com'],
    ['info@example.com', 'example.com'],
    ['user@Example.COM', 'example.com'],
    ['mailto:info@firma.de', 'firma.de'],
    ['MAILTO:info@firma.de', 'firma.de'],
    ['http://user:pw@example.com/', 'example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['MÜNCHEN.DE', 'xn--mnchen-3ya.de'],
    ['https://www.münchen.de/rathaus', 'xn--mnchen-3ya.de'],
    ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'],
    ['example\u3002com', 'example.com'],
    ['\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com', 'example.com'],
    ['\u00AD\u200Bexample.com', 'example.com'],
    ['exam\u00ADple.com\uFEFF', 'example.com'],
    ['www.co.uk', 'co.uk'],
    ['\uD83D\uDE00.example', 'xn--e28h.example'],
    ['sub.my-company.example', 'sub.my-company.example'],
    ['123.example.com', '123.example.com'],
    // only a leading "www." label of a longer name is dropped: www.com is a domain of its own
    ['www.com', 'www.com'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('%j → %s', (raw, expected) => {
    expect(normalizeDomain(raw)).toEqual({ ok: true, domain: expected });
  });
});

describe('normalizeDomain: rejections with a reason', () => {
  it.each([
    ['', 'domain is empty'],
    ['   ', 'domain is empty'],
    ['mailto:', 'domain is empty'],
    ['exa mple.com', '"exa mple.com" contains whitespace; expected a domain such as example.com'],
    ['http://', '"http://" has no host name; expected a domain such as example.com'],
    ['127.0.0.1', '"127.0.0.1" is an IP address; an organization is identified by its domain name'],
    ['http://10.0.0.1:8080/x', '"http://10.0.0.1:8080/x" is an IP address; an organization is identified by its domain name'],
    ['[::1]', '"[::1]" is an IP address; an organization is identified by its domain name'],
    ['http://[2001:db8::1]:80/', '"http://[2001:db8::1]:80/" is an IP address; an organization is identified by its domain name'],
    ['localhost', '"localhost" has no top-level domain; expected a domain such as example.com'],
    ['exa_mple.com', '"exa_mple.com" is not a valid hostname: labels may hold letters, digits and inner hyphens only'],
    ['ex!ample.com', '"ex!ample.com" is not a valid hostname: labels may hold letters, digits and inner hyphens only'],
    ['-example.com', '"-example.com" is not a valid hostname: labels may hold letters, digits and inner hyphens only'],
    ['example-.com', '"example-.com" is not a valid hostname: labels may hold letters, digits and inner hyphens only'],
    [`${'a'.repeat(64)}.com`, `"${'a'.repeat(64)}.com" has a label longer than 63 characters`],
    ['a..com', '"a..com" has an empty label (two dots in a row)'],
    ['.com', '".com" has an empty label (two dots in a row)'],
    ['example.com..', '"example.com.." has an empty label (two dots in a row)'],
    ['example.123', '"example.123" has a numeric top-level domain'],
    // Lone surrogates (half of a UTF-16 pair) are not characters: refused, not punycoded.
    ['a\uD800b.com', '"a\uD800b.com" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com'],
    ['ab\uDC00.com', '"ab\uDC00.com" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com'],
    ['ab.com\uD83D', '"ab.com\uD83D" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com'],
    ['\uDE00\uD83Dx.com', '"\uDE00\uD83Dx.com" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com'],
    ['https://example.com/\uD800', '"https://example.com/\uD800" is not well-formed Unicode (it holds a lone surrogate); expected a domain such as example.com'],
  ])('%j → %s', (raw, reason) => {
    expect(normalizeDomain(raw)).toEqual({ ok: false, reason });
  });

  it('rejects a host name longer than 253 characters', () => {
    const raw = Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.');
    expect(raw.length).toBe(304);
    expect(normalizeDomain(raw)).toEqual({ ok: false, reason: `"${raw}" is longer than 253 characters` });
  });
});

describe('DomainSchema', () => {
  it('returns the normalised domain', () => {
    expect(valid(DomainSchema, 'https://www.Example.com/about')).toBe('example.com');
    expect(valid(DomainListSchema, ['A.com', 'mailto:x@b.de'])).toEqual(['a.com', 'b.de']);
  });

  it('a rejected domain is a domain_parsing item with the reason as msg and ctx', () => {
    const reason = '"localhost" has no top-level domain; expected a domain such as example.com';
    expect(invalid(z.strictObject({ d: DomainSchema }), { d: 'localhost' })).toEqual([
      { loc: ['body', 'd'], msg: reason, type: 'domain_parsing', input: 'localhost', ctx: { reason } },
    ]);
  });

  it('an item of a domain list is reported at its index', () => {
    const reason = 'domain is empty';
    expect(invalid(DomainListSchema, ['ok.com', ''])).toEqual([
      { loc: ['body', 1], msg: reason, type: 'domain_parsing', input: '', ctx: { reason } },
    ]);
  });

  it('a non-string is a string_type item', () => {
    expect(invalid(DomainSchema, 42)).toEqual([{ loc: ['body'], msg: 'Input should be a valid string', type: 'string_type', input: 42 }]);
  });
});
