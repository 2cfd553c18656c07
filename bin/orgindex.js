#!/usr/bin/env node
// The `orgindex` command. It runs the compiled CLI (dist/lib, made by `npm run build`, which `npm ci`
// and `npm start` run for you).
import { runCli } from '../dist/lib/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
