/**
 * robots.txt rules (src/engine/language/site-reading.ts: the server's and the Sheets runtime's, which has
 * no `URL` for robots-parser) against robots-parser, the reference: for files of user-agent, Allow and
 * Disallow lines, comments and blank lines, every path is allowed or not as robots-parser says.
 */
import fc from 'fast-check';
import robotsModule from 'robots-parser';
import { RobotsReader, USER_AGENT } from '../../src/engine/language/site-reading.js';

const robotsParser = robotsModule as unknown as (url: string, text: string) => { isAllowed(url: string, agent: string): boolean | undefined };

function allowed(text: string, path: string): boolean {
  const reader = new RobotsReader();
  // In pieces, as a response arrives.
  for (let at = 0; at < text.length; at += 7) reader.write(text.slice(at, at + 7));
  const url = new URL(path, 'https://a.example/');
  return reader.end().isAllowed(url.pathname + url.search);
}

test.each([
  ['User-agent: *\nDisallow: /private', '/private/salaries', false],
  ['User-agent: *\nDisallow: /private', '/public', true],
  ['User-agent: *\nDisallow: /\nAllow: /about', '/about/team', true],
  ['User-agent: *\nDisallow: /a\nAllow: /a', '/a', true],
  ['User-agent: *\nDisallow: /*.pdf$', '/files/report.pdf', false],
  ['User-agent: *\nDisallow: /*.pdf$', '/files/report.pdf?x=1', true],
  ['User-agent: *\nDisallow: /\n\nUser-agent: OrgIndexBot\nDisallow:', '/anything', true],
  ['User-agent: OrgIndexBot/2.0\nDisallow: /\nUser-agent: *\nAllow: /', '/anything', false],
  ['User-agent: Googlebot\nUser-agent: *\nDisallow: /shared', '/shared/x', false],
  ['User-agent: *\nDisallow: /caf%c3%a9', '/café', false],
  ['# nothing for us\nUser-agent: Googlebot\nDisallow: /', '/anything', true],
])('%j: %s allowed: %s', (text, path, expected) => {
  expect(allowed(text, path)).toBe(expected);
});

test('as robots-parser decides, for generated files and paths', () => {
  const piece = fc.constantFrom('a', 'b', 'private', 'x y', 'ü', '%C3%BC', '%c3%bc', '*', '$', '?', '=', '.html', '/', '%2F');
  const pattern = fc.oneof(fc.array(piece, { maxLength: 5 }).map((p) => `/${p.join('')}`), fc.array(piece, { maxLength: 4 }).map((p) => `/p${p.join('')}`));
  const agent = fc.constantFrom('*', 'OrgIndexBot', 'orgindexbot/2.0', 'Googlebot', '');
  const line = fc.oneof(agent.map((a) => `User-agent: ${a}`), pattern.map((p) => `Disallow: ${p}`), pattern.map((p) => `Allow: ${p}`), fc.constantFrom('Disallow:', '# a comment', '', 'no colon here'));
  const path = fc.array(piece, { maxLength: 6 }).map((p) => `/p${p.join('')}`);
  fc.assert(
    fc.property(fc.array(line, { maxLength: 12 }), fc.array(path, { minLength: 1, maxLength: 5 }), fc.constantFrom('\n', '\r\n', '\r'), (lines, paths, newline) => {
      const text = lines.join(newline);
      const reference = robotsParser('https://a.example/robots.txt', text);
      for (const p of paths) expect([text, p, allowed(text, p)]).toEqual([text, p, reference.isAllowed(new URL(p, 'https://a.example/').href, USER_AGENT) !== false]);
    }),
    { numRuns: 5_000 },
  );
});
