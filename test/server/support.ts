/** Helpers for the server tests: a real server on a random loopback port, a movable clock, clients. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { SignJWT } from 'jose';
import { createRemoteClient, type OrgIndexClient } from '../../src/index.js';
import { createEngine, generateDataset, type Engine } from '../../src/engine/index.js';
import { createServer, type EngineState, type ServerOptions } from '../../src/server/app.js';
import type { BearerVerifier } from '../../src/server/bearer.js';
import { KeyRing, type KeysFile } from '../../src/server/keys.js';
import { QuotaLedger } from '../../src/server/quota-ledger.js';

/** The engine every server test shares: 3,000 generated organizations (built once per test file). */
let shared: Engine | null = null;
export function testIndex(): Engine {
  shared ??= createEngine(generateDataset({ count: 3_000, seed: 7, asOf: '2026-11-01' }));
  return shared;
}

export const KEYS = {
  tier2: 'test-key-tier-2-0000000000000001',
  tier1: 'test-key-tier-1-0000000000000002',
  admin: 'test-key-admin--0000000000000003',
  scoped: 'test-key-scoped-0000000000000004',
};
/** The scoped key sees Austrian organizations only. */
export const SCOPE = { country: ['Österreich'] };

/** The four keys with the spec's tier limits. */
export const SPEC_KEYS_FILE: KeysFile = {
  keys: [
    { key: KEYS.tier2, tier: 'tier_2' },
    { key: KEYS.tier1, tier: 'tier_1' },
    { key: KEYS.admin, tier: 'tier_2', admin: true },
    { key: KEYS.scoped, tier: 'tier_2', visibility: SCOPE },
  ],
};

/** The same keys with tier_2's rate limit lifted, so that functional tests (dozens of calls) are not throttled. */
export const DEFAULT_KEYS_FILE: KeysFile = { ...SPEC_KEYS_FILE, tiers: { tier_2: { ratePerSecond: 10_000, burst: 10_000 } } };

/** A clock the test moves (rate limits and month ends without sleeping). */
export class TestClock {
  constructor(public ms = Date.parse('2026-11-21T10:00:00Z')) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestServer {
  app: FastifyInstance;
  url: string;
  clock: TestClock;
  ledger: QuotaLedger;
  stateDir: string;
  client(key: string | null, options?: { validateRequests?: boolean; accessToken?: string }): OrgIndexClient;
  /** Stops the server; its state directory goes too unless `keepFiles` (a restart reuses it). */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

export async function startTestServer(
  options: {
    keys?: KeysFile;
    engine?: EngineState;
    logger?: FastifyServerOptions['logger'];
    bodyLimit?: number;
    corsOrigins?: string[] | true;
    bearer?: BearerVerifier;
    languageGroups?: string[];
    allowPrivateFetch?: boolean;
    fetchHosts?: Record<string, string>;
    /** The state directory of an earlier server (a restart); default a new one. */
    stateDir?: string;
    clock?: TestClock;
    /** Any other server option (timeouts, the qna deadline …), applied last. */
    server?: Partial<ServerOptions>;
  } = {},
): Promise<TestServer> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'orgindex-server-test-'));
  const ledger = await QuotaLedger.open(stateDir);
  const clock = options.clock ?? new TestClock();
  const app = await createServer({
    engine: options.engine ?? { index: testIndex(), error: null },
    keys: new KeyRing(options.keys ?? DEFAULT_KEYS_FILE),
    quota: { ledger },
    now: clock.now,
    logger: options.logger ?? false,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.bearer ? { bearer: options.bearer } : {}),
    filesDir: join(stateDir, 'files'),
    ...(options.languageGroups ? { languageGroups: options.languageGroups } : {}),
    ...(options.allowPrivateFetch ? { allowPrivateFetch: true } : {}),
    ...(options.fetchHosts ? { fetchHosts: options.fetchHosts } : {}),
    ...options.server,
  }).catch(async (error: unknown) => {
    await ledger.close();
    if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
    throw error;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    url,
    clock,
    ledger,
    stateDir,
    client: (key, clientOptions = {}) =>
      createRemoteClient({
        baseUrls: { v2: `${url}/v2`, v1: url, language: url },
        apiKey: key,
        ...(clientOptions.accessToken ? { accessToken: clientOptions.accessToken } : {}),
        retry: { maxRetries: 0 },
        validateRequests: clientOptions.validateRequests ?? true,
      }),
    async close({ keepFiles = false } = {}) {
      await app.close();
      await ledger.close();
      if (!keepFiles) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP call (for what the typed client would refuse to send). */
export async function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/** A body without its timing (the only field that differs between two runs of one query). */
export function withoutTiming<T>(body: T): T {
  const copy = JSON.parse(JSON.stringify(body)) as { metadata?: Record<string, unknown>; elapsed_ms?: unknown };
  delete copy.elapsed_ms;
  if (copy.metadata) {
    delete copy.metadata.elapsed_ms;
    if (Array.isArray(copy.metadata.explain_plan)) copy.metadata.explain_plan = (copy.metadata.explain_plan as string[]).map((line) => line.replace(/elapsed [\d.]+ ms/, 'elapsed'));
  }
  return copy as T;
}

/**
 * An HS256 bearer token as an identity provider would sign it: `sub`, `username`, `idp:groups` and an
 * expiry in 5 minutes unless told otherwise (`expiresIn: 'never'` leaves `exp` out; claims set to
 * undefined are left out).
 */
export function hs256Token(
  secret: string,
  options: { sub?: string; groups?: string[]; claims?: Record<string, unknown>; expiresIn?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({ username: 'ada', 'idp:groups': options.groups ?? ['analysts'], ...options.claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(options.sub ?? 'user-1')
    .setIssuedAt();
  if (options.expiresIn !== 'never') jwt.setExpirationTime(options.expiresIn ?? '5m');
  return jwt.sign(new TextEncoder().encode(secret));
}
