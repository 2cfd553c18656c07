/**
 * The orgindex command as an operator runs it with --embedder (bin/orgindex.js, the compiled CLI): a
 * command run to its end, or `serve` kept running until a test is done with it — never with a call that
 * blocks this process, whose event loop may be serving the embedding service the command talks to.
 */
import { spawn } from 'node:child_process';
import { bin, spawnServe, type Finished, type ServedProcess } from './server-process.js';

/** Runs `orgindex …args` to its end. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

/** `orgindex serve --port 0 …args` with a test key, its log at warn on stdout; resolves once it has warmed up. */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<ServedProcess> {
  return spawnServe({ args: ['--log-level', 'warn', ...args], testKeyRate: 10_000, env: { ...process.env, ...env }, readyWhen: /relevance structures/ });
}
