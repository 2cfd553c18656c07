/**
 * The PostgreSQL database that holds a service's shared state (`--database postgres://…`): a connection
 * pool, the schema brought up to date on open, transactions. Every statement is parameterised.
 *
 * The database is a dependency that fails: it restarts, fails over, freezes or drops off the network.
 * Every wait on it is bounded (DatabaseTimeouts), and a failure of that kind — no connection, a connection
 * lost, no answer in time — is a `DatabaseUnavailable` that the HTTP layer answers with 503 and
 * Retry-After; the pool replaces the connections it lost on the next use, so the service recovers by itself
 * once the database answers again. No error of a connection ever reaches the process as an unhandled event:
 * one of a connection in use is its caller's error, one of an idle connection (a restart drops them all) is
 * logged (`logTo`) and the connection replaced.
 */
import pg from 'pg';
import { migrate } from './migrations.js';
import { messageOf, NamedError } from '../../contract/errors.js';

/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable database URL)';
  }
}

/**
 * The database cannot answer now (down, restarting, unreachable, too slow). The message is for logs and
 * the command line; an HTTP answer never shows it (it may name the database's address).
 */
export class DatabaseUnavailable extends NamedError {}

/** How long the service waits on the database, in ms. */
export interface DatabaseTimeouts {
  /** For a connection: a free one of the pool, or a new one made (TCP and PostgreSQL's start-up). */
  connectMs: number;
  /**
   * For a unit of work once connected — one query, or a transaction with all its statements. The server
   * is told the same (statement_timeout), so that it gives up too, and drops a transaction whose client
   * went silent (idle_in_transaction_session_timeout: twice this), freeing its locks for the other servers.
   */
  workMs: number;
}

/** Bringing the schema up to date at a start (servers starting together wait for each other's migration). */
const MIGRATION_MS = 30_000;

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 3_000, workMs: 5_000 };

export interface DatabaseOptions {
  /** Connections at most (default 10). */
  maxConnections?: number;
  timeouts?: Partial<DatabaseTimeouts>;
}

/** Node's codes of a connection refused, reset, unreachable or not resolved. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/**
 * PostgreSQL's SQLSTATEs of a server that cannot serve now: connection exceptions (class 08), shutting
 * down or starting (57P01–57P03), a statement cancelled by its timeout (57014), too many connections
 * (53300), a session ended for idling in a transaction (25P03), a read-only standby after a failover (25006).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|57014|53300|25P03|25006)$/;
/** What node-postgres says when a connection goes away or a wait ends (it gives these no code). */
const CONNECTION_MESSAGES = /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout|Connection ended/i;

/** Whether an error means the database cannot answer now (rather than a fault of the statement). */
export function isUnavailability(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/** An unavailability as DatabaseUnavailable (its cause kept for the log); any other error as it is. */
function classified(error: unknown): unknown {
  if (error instanceof DatabaseUnavailable || !isUnavailability(error)) return error;
  return new DatabaseUnavailable(`the database cannot answer: ${messageOf(error)}`, { cause: error });
}

/** How long a database that failed is not asked again (but for one probe at a time): callers get their 503 at once. */
export const DATABASE_PROBE_INTERVAL_MS = 1_000;

/**
 * A circuit breaker: after the database failed to answer, the requests of the next moment are refused
 * at once instead of each waiting out its timeouts (a frozen database would otherwise hold every request
 * for seconds and pile them up); one request at a time probes it, and the first answer closes the breaker.
 */
class Breaker {
  private retryAt = 0;
  private open = false;
  private probing = false;

  /** Whether a call may go to the database now. */
  admit(now: number): boolean {
    if (!this.open) return true;
    if (this.probing || now < this.retryAt) return false;
    this.probing = true;
    return true;
  }

  /** The database answered (whatever the answer). */
  answered(): void {
    this.open = false;
    this.probing = false;
  }

  failed(now: number): void {
    this.open = true;
    this.probing = false;
    this.retryAt = now + DATABASE_PROBE_INTERVAL_MS;
  }
}

/** Where the database's warnings go: the server's logger (pino's `warn` fits). */
export interface DatabaseLog {
  warn: (fields: { err: Error }, message: string) => void;
}

export class Database {
  private readonly breaker = new Breaker();
  private log: DatabaseLog | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    readonly url: string,
    readonly timeouts: DatabaseTimeouts,
  ) {
    // An idle connection the server drops (restart, network) is an error event on the pool: logged, not a
    // crash; the pool has let go of it and opens another on the next use.
    pool.on('error', (error) => {
      this.log?.warn({ err: error }, 'a database connection failed while idle; the next use opens another');
    });
  }

  /** Logs the failures no caller sees (idle connections dropped) to `log` from now on. */
  logTo(log: DatabaseLog): void {
    this.log = log;
  }

  /** Connects, migrates the schema and returns the database; a clear error when it cannot be reached. */
  static async open(url: string, options: DatabaseOptions = {}): Promise<Database> {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new DatabaseUnavailable(`--database takes a postgres:// URL; got ${JSON.stringify(redactedUrl(url))}`);
    const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.workMs,
      idle_in_transaction_session_timeout: 2 * timeouts.workMs,
      // A peer that vanished without closing (a partition) is noticed by TCP keepalive, not left open for ever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    const database = new Database(pool, url, timeouts);
    try {
      (await pool.connect()).release();
    } catch (error) {
      await pool.end();
      throw new DatabaseUnavailable(`cannot reach the database at ${redactedUrl(url)}: ${messageOf(error)}`, { cause: error });
    }
    try {
      // Bounded as a whole too: a database that freezes during the start must not hold it for ever.
      await database.transaction(migrate, { workMs: MIGRATION_MS });
    } catch (error) {
      await pool.end();
      if (!(error instanceof DatabaseUnavailable)) throw error;
      throw new DatabaseUnavailable(`the database at ${redactedUrl(url)} did not bring its schema up to date: ${error.message}`, { cause: error });
    }
    return database;
  }

  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return this.withClient(this.timeouts.workMs, async (client) => (await client.query<Row>(text, values)).rows);
  }

  /**
   * Runs `work` in one transaction (committed when it resolves, rolled back when it throws), within
   * `workMs` (default: the database's; longer for work that moves whole files).
   */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>, { workMs = this.timeouts.workMs }: { workMs?: number } = {}): Promise<T> {
    return this.withClient(workMs, async (client, discard) => {
      await client.query('BEGIN');
      try {
        if (workMs !== this.timeouts.workMs) await client.query(`SET LOCAL statement_timeout = ${String(Math.round(workMs))}`);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // Not rolled back, the connection may still be in the failed transaction: the pool must not hand it out again.
        await client.query('ROLLBACK').catch(discard);
        throw error;
      }
    });
  }

  /** `work` on a connection, unless the breaker refuses at once; what happens tells the breaker. */
  private async withClient<T>(workMs: number, work: Work<T>): Promise<T> {
    if (!this.breaker.admit(Date.now())) throw new DatabaseUnavailable('the database failed a moment ago; it is probed again shortly');
    try {
      const result = await this.withConnection(workMs, work);
      this.breaker.answered();
      return result;
    } catch (error) {
      if (error instanceof DatabaseUnavailable) this.breaker.failed(Date.now());
      else this.breaker.answered();
      throw error;
    }
  }

  /**
   * A connection of the pool for `work`, within the timeouts. A connection that failed or ran out of time
   * is destroyed rather than returned to the pool (the next use opens a new one), and so is one that
   * `work` discards; while it is out, its errors are caught here, never left as an unhandled 'error' event.
   */
  private async withConnection<T>(workMs: number, work: Work<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classified(error);
    }
    let failed: Error | null = null;
    const onError = (error: Error): void => {
      failed ??= error;
    };
    client.on('error', onError);
    const discard = (error: unknown): void => {
      onError(error instanceof Error ? error : new Error(String(error)));
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        failed ??= new DatabaseUnavailable(`the database did not answer within ${String(workMs / 1000)} s`);
        reject(failed);
      }, workMs);
    });
    try {
      return await Promise.race([work(client, discard), deadline]);
    } catch (error) {
      failed ??= isUnavailability(error) ? (error as Error) : null;
      throw classified(error);
    } finally {
      clearTimeout(timer);
      client.removeListener('error', onError);
      // Destroyed (its socket closed, its statements dropped) when it failed; the pool opens another.
      if (failed) {
        client.on('error', () => undefined);
        client.release(failed);
        destroySocket(client);
      } else client.release();
    }
  }

  /** Throws when the database cannot answer now (the health check). */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Work on a connection; `discard` marks the connection unfit for reuse (it is destroyed when released). */
type Work<T> = (client: pg.PoolClient, discard: (error: unknown) => void) => Promise<T>;

/**
 * Closes a connection's socket at once: `end()` alone waits for a frozen server to acknowledge, and a
 * statement still running on it would hold the connection until then.
 */
function destroySocket(client: pg.PoolClient): void {
  const connection = (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection;
  connection?.stream?.destroy?.();
}
