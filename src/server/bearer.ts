/**
 * Bearer tokens (dashboard users of the legacy v1 interface, and the language-processing interface):
 * JWTs verified with jose against an HS256 secret (`--jwt-secret`) or a JWKS file (`--jwks FILE`, any of
 * the asymmetric algorithms jose supports). Required claims: `sub`, `idp:username` or `username`,
 * `idp:groups` (an array of strings), and `exp` — a token that never expires is refused; `nbf` is
 * honoured when present.
 *
 * The HS256 secret is checked when the verifier is made: an empty (or blank) one is refused — WebCrypto
 * cannot use an empty key, so every request would fail — and one under 32 bytes draws a warning
 * (RFC 7518 §3.2: an HMAC key as long as the hash output, 256 bits).
 */
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { HttpProblem, nulRefusal } from './problem.js';
import { messageOf, NamedError } from '../contract/errors.js';

export interface BearerUser {
  sub: string;
  username: string;
  groups: string[];
}

export interface BearerConfig {
  /** HS256 shared secret. */
  secret?: string;
  /** A JWKS document (public keys). */
  jwks?: JSONWebKeySet;
}

/** Why a token was refused: the route answers with it (403 on v1, 401 on the language interface). */
export class BearerError extends NamedError {}

/** RFC 7518 §3.2: an HS256 key has at least as many bits as the hash output. */
export const MIN_HS256_SECRET_BYTES = 32;

/** Throws for an unusable HS256 secret (empty or blank); returns a warning for a short one, else null. */
export function checkHs256Secret(secret: string): string | null {
  if (secret === '') throw new Error('the JWT secret is empty');
  if (secret.trim() === '') throw new Error('the JWT secret is blank (only whitespace)');
  const bytes = new TextEncoder().encode(secret).length;
  if (bytes >= MIN_HS256_SECRET_BYTES) return null;
  return `the JWT secret is ${bytes} bytes; HS256 wants at least ${MIN_HS256_SECRET_BYTES} (RFC 7518 §3.2): use a random one, e.g. openssl rand -base64 32`;
}

export type BearerVerifier = (token: string) => Promise<BearerUser>;

export function loadJwks(path: string): JSONWebKeySet {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as JSONWebKeySet;
  } catch (error) {
    throw new Error(`JWKS file ${path}: ${messageOf(error)}`, { cause: error });
  }
}

/** A UTF-16 surrogate without its pair (with the u flag, a pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;

function userOf(payload: JWTPayload): BearerUser {
  const username = payload['idp:username'] ?? payload.username;
  const groups = payload['idp:groups'];
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new BearerError('the token has no sub claim');
  if (typeof username !== 'string' || username === '') throw new BearerError('the token has neither an idp:username nor a username claim');
  if (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string')) throw new BearerError('the token has no idp:groups claim (an array of group names)');
  if ([payload.sub, username, ...groups].some((claim) => claim.includes('\0'))) throw nulRefusal("The token's sub, username or groups");
  // PostgreSQL keeps text as UTF-8, where every lone surrogate becomes U+FFFD: two such subs would be one user there (PITs, downloads, rate).
  if ([payload.sub, username, ...groups].some((claim) => LONE_SURROGATE.test(claim))) {
    throw new HttpProblem(400, "The token's sub, username or groups holds a lone surrogate (\\uD800 to \\uDFFF without its pair), which is not text");
  }
  return { sub: payload.sub, username, groups: groups };
}

/** A verifier for the configured key(s), or null when the server accepts no bearer tokens. */
export function bearerVerifier(config: BearerConfig): BearerVerifier | null {
  if (config.secret !== undefined) {
    checkHs256Secret(config.secret);
    const secret = new TextEncoder().encode(config.secret);
    return (token) => verify(() => jwtVerify(token, secret, { algorithms: ['HS256'], requiredClaims: ['exp'] }));
  }
  if (config.jwks !== undefined) {
    const keySet = createLocalJWKSet(config.jwks);
    return (token) => verify(() => jwtVerify(token, keySet, { requiredClaims: ['exp'] }));
  }
  return null;
}

async function verify(run: () => Promise<{ payload: JWTPayload }>): Promise<BearerUser> {
  let payload: JWTPayload;
  try {
    ({ payload } = await run());
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new BearerError('the token has expired');
    if (error instanceof errors.JOSEError) throw new BearerError(`the token is not valid (${error.code})`);
    throw error;
  }
  return userOf(payload);
}
