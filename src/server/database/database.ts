/**
 * The PostgreSQL database that holds a service's shared state (`--database postgres://…`): a connection
 * pool, the schema brought up to date on open, transactions. Every statement is parameterised.
 */
import pg from 'pg';
import { migrate } from './migrations.js';

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

export class DatabaseUnavailable extends Error {}

export interface DatabaseOptions {
  /** Connections at most (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection, ms (default 5,000). */
  connectTimeoutMs?: number;
}

export class Database {
  private constructor(
    private readonly pool: pg.Pool,
    readonly url: string,
  ) {}

  /** Connects, migrates the schema and returns the database; a clear error when it cannot be reached. */
  static async open(url: string, options: DatabaseOptions = {}): Promise<Database> {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new DatabaseUnavailable(`--database takes a postgres:// URL; got ${JSON.stringify(redactedUrl(url))}`);
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000 });
    // An idle connection the server drops (restart, network) is an error event on the pool, not a crash.
    pool.on('error', () => undefined);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      await pool.end();
      throw new DatabaseUnavailable(`cannot reach the database at ${redactedUrl(url)}: ${(error as Error).message}`);
    }
    try {
      await migrate(client);
    } catch (error) {
      client.release();
      await pool.end();
      throw error;
    }
    client.release();
    return new Database(pool, url);
  }

  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>(text, values)).rows;
  }

  /** Runs `work` in one transaction (committed when it resolves, rolled back when it throws). */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Throws when the database cannot answer now (the health check). */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
