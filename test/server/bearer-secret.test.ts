/**
 * The HS256 secret: an empty one is refused when the verifier is made (it would fail every request), a
 * short one is usable but warned about, and no token — however malformed — turns into a 500.
 */
import { createHmac } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { bearerVerifier, checkHs256Secret, MIN_HS256_SECRET_BYTES } from '../../src/server/bearer.js';
import { hs256Token, raw, startTestServer } from './support.js';

test('an empty or blank secret is refused up front', () => {
  expect(() => bearerVerifier({ secret: '' })).toThrow(/the JWT secret is empty/);
  expect(() => bearerVerifier({ secret: ' \t\n' })).toThrow(/the JWT secret is blank/);
  expect(() => checkHs256Secret('')).toThrow(/empty/);
});

test('a secret under 32 bytes draws a warning (counted in UTF-8 bytes); 32 bytes and more none', () => {
  expect(MIN_HS256_SECRET_BYTES).toBe(32);
  expect(checkHs256Secret('short')).toBe('the JWT secret is 5 bytes; HS256 wants at least 32 (RFC 7518 §3.2): use a random one, e.g. openssl rand -base64 32');
  expect(checkHs256Secret('x'.repeat(31))).toMatch(/31 bytes/);
  expect(checkHs256Secret('x'.repeat(32))).toBeNull();
  expect(checkHs256Secret('ä'.repeat(16))).toBeNull(); // 32 bytes in UTF-8
});

test('with a one-byte secret, every token is answered 200, 401 or 403 — never 500', async () => {
  const secret = 's';
  const server = await startTestServer({ bearer: bearerVerifier({ secret })!, languageGroups: ['analysts'] });
  try {
    const good = await hs256Token(secret);
    const [header, payload] = good.split('.');
    // A token signed with the right secret but a header jose may refuse.
    const signed = (protectedHeader: object, body: string): string => {
      const input = `${Buffer.from(JSON.stringify(protectedHeader)).toString('base64url')}.${body}`;
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    };
    const valid = [good, signed({ alg: 'HS256', jku: 'http://127.0.0.1:1/keys' }, payload!)]; // jku is never fetched: the key is the secret
    const tokens = [
      ...valid,
      'not.a.jwt',
      'x',
      '...',
      `${header!}.${payload!}.`,
      `${header!}.${payload!}.${'A'.repeat(43)}`,
      `${header!}.${'%'.repeat(20)}.${'A'.repeat(43)}`,
      new UnsecuredJWT({ sub: 'u', username: 'u', 'idp:groups': ['analysts'] }).setExpirationTime('5m').encode(),
      await new SignJWT({ sub: 'u', username: 'u', 'idp:groups': ['analysts'] }).setProtectedHeader({ alg: 'HS512' }).setExpirationTime('5m').sign(new Uint8Array(64).fill(1)),
      signed({ alg: 'HS256', crit: ['x'], x: 1 }, payload!),
      signed({ alg: 'HS256', b64: false, crit: ['b64'] }, payload!),
      await hs256Token('another-secret-0000000000000000000'),
      await hs256Token(secret, { expiresIn: '-1m' }),
      await hs256Token(secret, { expiresIn: 'never' }),
      `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', b64: false })).toString('base64url')}.${payload!}.x`,
      `${Buffer.from('{"alg":"HS256"').toString('base64url')}.${payload!}.x`,
    ];
    for (const token of tokens) {
      const v1 = await raw(`${server.url}/v1/sublocations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{"parent_level":"all","parent_value":""}' });
      const language = await raw(`${server.url}/v1/generate-keywords`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{"keywords":["solar"]}' });
      const ok = valid.includes(token);
      expect([token, v1.status, language.status]).toEqual([token, ok ? 200 : 403, ok ? 200 : 401]);
    }
  } finally {
    await server.close();
  }
}, 30_000);
