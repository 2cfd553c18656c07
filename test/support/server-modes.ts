/**
 * The real server in each of its two modes, behind one interface, so a test can run the same checks on
 * both: "file" is `createServer` in this process on the keys file and quota journal (test/server/support.ts);
 * "database" is an `orgindex serve --database` process on a throwaway PostgreSQL (keys, buckets, holds,
 * counts, PITs and download files in the database), its keys made in the database, its tiers' limits lifted
 * there. Both accept HS256 bearer tokens of SECRET and serve 3,000 generated organizations.
 */
import { DEFAULT_DATASET } from '../../src/engine/dataset/generate.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { Database } from '../../src/server/database/database.js';
import { DatabaseKeyStore } from '../../src/server/key-store.js';
import { hs256Token, KEYS, SCOPE, startTestServer } from '../server/support.js';
import { startPostgres } from './postgres.js';
import { serveOnDatabase, type DatabaseServer } from './serve-on-database.js';

export type ServerMode = 'file' | 'database';
export const SERVER_MODES: readonly ServerMode[] = ['file', 'database'];

export const SECRET = 'server-modes-secret-0123456789abcdef0123456789';
const ORGANIZATIONS = 3_000;

export interface ModeServer {
  mode: ServerMode;
  url: string;
  /** An admin key (no rate limit or quota) and a tier_2 key whose limits the tests cannot reach. */
  keys: { admin: string; tier2: string; scoped: string };
  /** The generator options of the organizations served (a test draws real values from the same records). */
  dataset: { count: number; seed: number; asOf: string };
  /**
   * A bearer token for `sub` (default "user-1"). Signed-in users share tier_2's fixed rate per sub: the
   * file server's clock moves a second with each token, and on the database a fresh sub each time avoids
   * it (the default sub only — a test asking for a sub gets that sub).
   */
  token(options?: { sub?: string; claims?: Record<string, unknown> }): Promise<string>;
  /** What the server has logged at error level or above so far. */
  errorLines(): string[];
  close(): Promise<void>;
}

async function fileServer(): Promise<ModeServer> {
  const errors: string[] = [];
  const server = await startTestServer({
    bearer: bearerVerifier({ secret: SECRET }) ?? undefined,
    logger: { level: 'error', stream: { write: (line: string) => void errors.push(line) } },
  });
  return {
    mode: 'file',
    url: server.url,
    keys: { admin: KEYS.admin, tier2: KEYS.tier2, scoped: KEYS.scoped },
    dataset: { count: ORGANIZATIONS, seed: 7, asOf: '2026-11-01' },
    token: (options = {}) => {
      server.clock.advance(1_000);
      return hs256Token(SECRET, { expiresIn: '1h', ...options });
    },
    errorLines: () => [...errors],
    close: () => server.close(),
  };
}

const LIFTED = { ratePerSecond: 100_000, burst: 100_000, monthlyRequests: 10_000_000, monthlyStatsRequests: 10_000_000, monthlyResults: 1_000_000_000 };

async function databaseServer(): Promise<ModeServer> {
  const postgres = await startPostgres();
  let server: DatabaseServer | null = null;
  const close = async (): Promise<void> => {
    await server?.close();
    await postgres.stop();
  };
  try {
    const database = await Database.open(postgres.url);
    let keys: ModeServer['keys'];
    try {
      const store = new DatabaseKeyStore(database);
      keys = {
        admin: (await store.create({ tier: 'tier_2', admin: true, name: 'admin' })).key,
        tier2: (await store.create({ tier: 'tier_2', name: 'tier2' })).key,
        scoped: (await store.create({ tier: 'tier_2', name: 'scoped', visibility: SCOPE })).key,
      };
      await database.query(`INSERT INTO tier_limits (tier, limits) VALUES ('tier_2', $1) ON CONFLICT (tier) DO UPDATE SET limits = excluded.limits`, [JSON.stringify(LIFTED)]);
    } finally {
      await database.close();
    }
    const running = await serveOnDatabase(postgres.url, { count: ORGANIZATIONS, logLevel: 'error', extra: ['--jwt-secret', SECRET] });
    server = running;
    let users = 0;
    return {
      mode: 'database',
      url: running.url,
      keys,
      dataset: { count: ORGANIZATIONS, seed: DEFAULT_DATASET.seed, asOf: DEFAULT_DATASET.asOf },
      token: (options = {}) => hs256Token(SECRET, { expiresIn: '1h', sub: `user-${String(++users)}`, ...options }),
      errorLines: () => {
        // pino writes its lines on stdout; any other output there is suspect too.
        const lines = running.stdout().split('\n').filter((line) => line.trim() !== '');
        // The process exiting is an error whatever it logged.
        const { exitCode, signalCode } = running.child;
        if (exitCode !== null || signalCode !== null) lines.push(`the server exited (${String(exitCode ?? signalCode)}): ${running.stderr().slice(-2000)}`);
        return lines;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Starts the mode's server. */
export function startModeServer(mode: ServerMode): Promise<ModeServer> {
  return mode === 'file' ? fileServer() : databaseServer();
}

/** The mode's server for the tests of the enclosing describe block: started before them, stopped after. */
export function useModeServer(mode: ServerMode): () => ModeServer {
  let server: ModeServer | null = null;
  beforeAll(async () => {
    server = await startModeServer(mode);
  }, 180_000);
  afterAll(async () => {
    await server?.close();
  }, 60_000);
  return () => {
    if (!server) throw new Error(`the ${mode} server has not started`);
    return server;
  };
}
