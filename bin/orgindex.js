#!/usr/bin/env node
// The `orgindex` command. It runs the compiled CLI (dist/lib, made by `npm run build`, which `npm ci`
// and `npm start` run for you).
import { runCli } from '../dist/lib/cli/main.js';

// `orgindex dataset --out - | head`: a reader that stops early is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2));
