// `npm start`: the API server on the embedded default (http://localhost:8787) and the Excel add-in's
// files on https://localhost:3000, together. The API server is the main job: if the add-in server cannot
// start (port taken, no certificate), it says why and the API keeps running.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SIDELOAD_HELP, startAddinDevServer } from './addin/dev-server.mjs';

const api = spawn(process.execPath, [fileURLToPath(new URL('../bin/orgindex.js', import.meta.url)), 'serve', ...process.argv.slice(2)], { stdio: 'inherit' });
api.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => api.kill(signal));

try {
  const { url } = await startAddinDevServer();
  console.log(`\nExcel add-in served at ${url}/taskpane.html (functions ORG.SEARCH, ORG.FETCH, ORG.STATS, ORG.ASK)\n${SIDELOAD_HELP}\n`);
} catch (error) {
  console.warn(`\nThe add-in dev server did not start (${error instanceof Error ? error.message : String(error)}); the API server runs on.\n`);
}
