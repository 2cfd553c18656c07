/**
 * Sign-in tokens for development: the language routes (ORG.ASK, /v1/generate-keywords, /v1/qna,
 * /v1/nlp_search) accept bearer tokens only, so a server on its development defaults — no --keys, no
 * --jwt-secret, no --jwks — keeps a random HS256 secret in its state directory, and `orgindex token` signs a
 * token with it (or with ORGINDEX_JWT_SECRET / --jwt-secret, for a server started with one).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { SignJWT } from 'jose';
import type { CliIo } from './cli-io.js';
import { runCommand, UsageError, type SetExitCode } from './usage.js';

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

/** `orgindex token`: a token for a server on its development defaults, or for one started with ORGINDEX_JWT_SECRET. */
export function addTokenCommand(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  program
    .command('token')
    .description('a sign-in (bearer) token for the language routes and v1, signed with ORGINDEX_JWT_SECRET or the development secret of the state directory')
    .option('--state-dir <dir>', 'the state directory of a server started on its development defaults', '.orgindex')
    .option('--sub <id>', 'the user id (sub claim)', DEVELOPMENT_CLAIMS.sub)
    .option('--username <name>', 'the user name (username claim)', DEVELOPMENT_CLAIMS.username)
    .option('--group <group...>', 'the groups (idp:groups claim)', DEVELOPMENT_CLAIMS.groups)
    .option('--expires <span>', 'how long it is valid: 30m, 12h, 7d', DEVELOPMENT_CLAIMS.expiresIn)
    .action((options: { stateDir: string; sub: string; username: string; group: string[]; expires: string }) =>
      runCommand(io, setExitCode, '', async () => {
        const fromEnvironment = process.env.ORGINDEX_JWT_SECRET;
        const secret = fromEnvironment !== undefined && fromEnvironment.trim() !== '' ? fromEnvironment : developmentSecret(resolve(options.stateDir), false);
        if (secret === null) {
          throw new UsageError(`orgindex token: no secret: set ORGINDEX_JWT_SECRET to the server's secret, or start \`orgindex serve\` once on its development defaults (it keeps one in ${resolve(options.stateDir)}/jwt-secret)`);
        }
        if (!/^\d+\s*(s|sec|m|min|h|hr|d|day|w|week)s?$/i.test(options.expires.trim())) throw new UsageError('orgindex token: --expires takes a span such as 30m, 12h or 7d');
        io.stdout(`${await signToken(secret, { sub: options.sub, username: options.username, groups: options.group, expiresIn: options.expires.trim() })}\n`);
      }),
    );
}
