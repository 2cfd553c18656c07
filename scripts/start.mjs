// `npm start`: the API server on the embedded default (http://localhost:8787) and the Excel add-in's
// files on https://localhost:3000, together, each in a process of its own, so that neither can take the
// other down. The API server is the main job: if the add-in server cannot start (port taken, no
// certificate) or stops, this says so and the API keeps running; when the API server stops, this says so,
// stops the add-in server and exits with the API server's code. When npm is stopped — by Ctrl-C, or killed
// by its pid, which npm does not pass on — this script and both servers stop too.
// The task pane served here offers the API server on its Connection tab until a connection is saved
// (scripts/addin/dev-connection.mjs: read from serve's arguments and state directory on each request).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Each server's stdin is a pipe from this process: when this process dies, however, the pipe closes and
// the server stops (`serve --exit-with-stdin`; the add-in server's `--with-serve`).
const serveArgs = process.argv.slice(2);
const child = (script, args) => spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['pipe', 'inherit', 'inherit'] });
const api = child('../bin/orgindex.js', ['serve', '--exit-with-stdin', ...serveArgs]);
const addin = child('./addin/dev-server.mjs', ['--with-serve', '--', ...serveArgs]);
const running = { api: true, addin: true };
let stopping = false;

const how = (code, signal) => (signal ? `signal ${signal}` : `exit code ${code ?? 0}`);

api.on('exit', (code, signal) => {
  running.api = false;
  if (!stopping) console.error(`\nnpm start: the API server stopped (${how(code, signal)}); stopping the add-in dev server.`);
  if (running.addin) addin.kill('SIGTERM');
  process.exit(code ?? (signal ? 1 : 0));
});
addin.on('exit', (code, signal) => {
  running.addin = false;
  if (!stopping && running.api) console.warn(`\nnpm start: the add-in dev server stopped (${how(code, signal)}); the API server runs on.\n`);
});
// A child that cannot be started at all (not in practice: it is this same Node).
api.on('error', (error) => console.error(`npm start: the API server could not be started: ${error.message}`));
addin.on('error', (error) => console.error(`npm start: the add-in dev server could not be started: ${error.message}`));

const stop = (signal) => {
  stopping = true;
  if (running.addin) addin.kill(signal);
  if (running.api) api.kill(signal);
  else process.exit(1);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));

// npm passes no signal on when it is killed: a parent that is gone (this process adopted by another)
// is the sign to stop.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 1_000).unref();
