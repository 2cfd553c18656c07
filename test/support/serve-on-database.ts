/**
 * `orgindex serve --database` as a process of its own (bin/orgindex.js on a free loopback port, a fresh
 * state directory), for the tests of servers that share PostgreSQL. Resolves once the server — or, with
 * `--workers`, every worker — says it is ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

export interface DatabaseServer {
  url: string;
  child: ChildProcess;
  /** What it has printed so far on stderr (its own lines) and stdout (pino's log lines). */
  stderr(): string;
  stdout(): string;
  /** SIGTERM, waits for the exit, and deletes the state directory. */
  close(): Promise<void>;
}

export interface DatabaseServeOptions {
  /** Generated organizations (default 300). */
  count?: number;
  /** Default "silent". */
  logLevel?: string;
  /** More flags, such as --workers 2 or --jwt-secret S. */
  extra?: string[];
}

export function serveOnDatabase(database: string, { count = 300, logLevel = 'silent', extra = [] }: DatabaseServeOptions = {}): Promise<DatabaseServer> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-serve-db-'));
  const bin = resolve(__dirname, '../../bin/orgindex.js');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--count', String(count), '--database', database, '--state-dir', join(dir, 'state'), '--log-level', logLevel, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const ready = extra.includes('--workers') ? /worker processes \(pids/ : /try: curl/;
  return new Promise((resolveServer, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /ready at (http:\/\/\S+)\/v2/.exec(stderr)?.[1];
      if (url && ready.test(stderr)) resolveServer({ url, child, stderr: () => stderr, stdout: () => stdout, close });
    });
    child.once('exit', (code, signal) => {
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`orgindex serve --database exited (${String(code ?? signal)}): ${stderr}`));
    });
  });
}

/** The requests counted in the database, every key and month together. */
export async function countedRequests(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string | null }>('SELECT sum(requests) AS n FROM quota_usage');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
