// `npm start`: the API server on the embedded default (http://localhost:8787) and the Excel add-in's
// files on https://localhost:3000, together. The API server is the main job: if the add-in server cannot
// start (port taken, no certificate), it says why and the API keeps running. When npm is stopped — by
// Ctrl-C, or killed by its pid, which npm does not pass on — this script and the API server stop too.
// The task pane served here offers the API server on its Connection tab until a connection is saved
// (scripts/addin/dev-connection.mjs: read from serve's arguments and state directory on each request).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { devConnectionOf } from './addin/dev-connection.mjs';
import { SIDELOAD_HELP, startAddinDevServer } from './addin/dev-server.mjs';

// The server's stdin is a pipe from this process: when this process dies, however, the pipe closes and
// `serve --exit-with-stdin` stops the server.
const serveArgs = process.argv.slice(2);
const api = spawn(process.execPath, [fileURLToPath(new URL('../bin/orgindex.js', import.meta.url)), 'serve', '--exit-with-stdin', ...serveArgs], { stdio: ['pipe', 'inherit', 'inherit'] });
let apiRunning = true;
api.on('exit', (code, signal) => {
  apiRunning = false;
  process.exit(code ?? (signal ? 1 : 0));
});
const stop = (signal) => {
  if (apiRunning) api.kill(signal);
  else process.exit(1);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));

// npm passes no signal on when it is killed: a parent that is gone (this process adopted by another)
// is the sign to stop.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 1_000).unref();

try {
  const devConnection = devConnectionOf(serveArgs);
  const { url } = await startAddinDevServer({ devConnection });
  const offered = devConnection ? `\nIts Connection tab offers ${devConnection.serviceUrl} until a connection is saved.` : '';
  if (apiRunning) console.log(`\nExcel add-in served at ${url}/taskpane.html (functions ORG.SEARCH, ORG.FETCH, ORG.STATS, ORG.ASK)${offered}\n${SIDELOAD_HELP}\n`);
} catch (error) {
  const why = error instanceof Error ? error.message : String(error);
  if (apiRunning) console.warn(`\nThe add-in dev server did not start (${why}); the API server runs on.\n`);
}
