/**
 * Sign-in tokens for development: the language routes (ORG.ASK, /v1/generate-keywords, /v1/qna,
 * /v1/nlp_search) accept bearer tokens only, so a server on its development defaults — no --keys, no
 * --jwt-secret, no --jwks — keeps a random HS256 secret in its state directory, and `orgindex token` signs a
 * token with it (or with ORGINDEX_JWT_SECRET / --jwt-secret, for a server started with one).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';

export const DEVELOPMENT_SECRET_FILE = 'jwt-secret';

/** The development secret of a state directory; created (readable by its owner only) when `create` and missing. */
export function developmentSecret(stateDir: string, create: boolean): string | null {
  const path = join(stateDir, DEVELOPMENT_SECRET_FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim() || null;
  if (!create) return null;
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

export interface TokenClaims {
  sub: string;
  username: string;
  groups: string[];
  /** A jose time span: "12h", "30m", "7d". */
  expiresIn: string;
}

export const DEVELOPMENT_CLAIMS: TokenClaims = { sub: 'developer', username: 'developer', groups: ['developers'], expiresIn: '12h' };

/** A bearer token as an identity provider would sign it: sub, username, idp:groups, iat and exp. */
export function signToken(secret: string, claims: TokenClaims = DEVELOPMENT_CLAIMS): Promise<string> {
  return new SignJWT({ username: claims.username, 'idp:groups': claims.groups })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn)
    .sign(new TextEncoder().encode(secret));
}
