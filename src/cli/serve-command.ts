/**
 * `orgindex serve`: its flags checked and turned into the options of serve() (serve.ts), and how the
 * process runs it — alone, as the supervisor of `--workers`, or as one of those workers — and stops on a
 * signal or, when asked, at the end of standard input.
 */
import cluster from 'node:cluster';
import { isIP } from 'node:net';
import type { Command } from 'commander';
import { DEFAULT_TIMEOUTS, type ServerTimeouts } from '../server/timeouts.js';
import { QUERY_EMBEDDING_TIMEOUT_MS } from '../server/embedding/query-embedding.js';
import type { CliIo } from './cli-io.js';
import { addEmbedderOptions, embedderSpecOf, type EmbedderOptions } from './embedder-flags.js';
import { serve, type ServeOptions } from './serve.js';
import { superviseWorkers, tellPrimary, workerCount } from './serve-workers.js';
import { atMostOne, countOf, databaseUrlOf, runCommand, UsageError, type SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';

/** The timeout flags, in seconds as typed. */
interface TimeoutFlags {
  requestTimeout?: string;
  headersTimeout?: string;
  keepAliveTimeout?: string;
  connectionTimeout?: string;
}

interface ServeFlags extends TimeoutFlags, EmbedderOptions {
  host: string;
  port: string;
  data?: string;
  count?: string;
  keys?: string;
  database?: string;
  stateDir: string;
  corsOrigin?: string[];
  logLevel: string;
  durability: string;
  jwtSecret?: string;
  jwks?: string;
  publicUrl?: string;
  languageGroups?: string[];
  allowPrivateFetch?: boolean;
  resolve?: string[];
  exitWithStdin?: boolean;
  workers?: string;
  index?: string;
  embedderTimeout?: string;
}

const TIMEOUT_FLAGS: Record<keyof TimeoutFlags, string> = {
  requestTimeout: '--request-timeout',
  headersTimeout: '--headers-timeout',
  keepAliveTimeout: '--keep-alive-timeout',
  connectionTimeout: '--connection-timeout',
};

/** The timeout flags given (seconds) as server timeouts (ms); a bad value is a UsageError naming its flag. */
function timeoutsFromFlags(flags: TimeoutFlags): Partial<ServerTimeouts> {
  const timeouts: Partial<ServerTimeouts> = {};
  for (const [name, flag] of Object.entries(TIMEOUT_FLAGS) as [keyof TimeoutFlags, string][]) {
    const text = flags[name];
    if (text === undefined) continue;
    const seconds = Number(text);
    // Up to a day: anything longer is no limit at all.
    if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) throw new UsageError(`orgindex serve: ${flag} must be a number of seconds > 0 (at most 86400), e.g. 30 or 0.5; not "${text}"`);
    timeouts[name] = Math.max(1, Math.round(seconds * 1000));
  }
  const request = timeouts.requestTimeout ?? DEFAULT_TIMEOUTS.requestTimeout;
  if (timeouts.headersTimeout !== undefined && timeouts.headersTimeout > request) {
    throw new UsageError(`orgindex serve: --headers-timeout (${timeouts.headersTimeout / 1000} s) may not exceed --request-timeout (${request / 1000} s): the headers are part of the request`);
  }
  return timeouts;
}

/** An HS256 secret from --jwt-secret or ORGINDEX_JWT_SECRET; an empty one would make every bearer request fail, so it is refused here rather than served as 500s. */
function jwtSecretOf(flags: ServeFlags): string | undefined {
  const jwtSecret = flags.jwtSecret ?? process.env.ORGINDEX_JWT_SECRET;
  if (jwtSecret !== undefined && jwtSecret.trim() === '') {
    const flag = flags.jwtSecret !== undefined;
    throw new UsageError(`orgindex serve: ${flag ? '--jwt-secret is' : 'ORGINDEX_JWT_SECRET is set but'} ${jwtSecret === '' ? 'empty' : 'blank'}; give a secret of at least 32 random bytes (e.g. openssl rand -base64 32), or ${flag ? 'leave it out' : 'unset it'} to accept no bearer tokens`);
  }
  return jwtSecret;
}

/** --resolve HOST=ADDRESS pairs, host names in lower case. */
function fetchHostsOf(pairs: readonly string[]): Record<string, string> {
  const fetchHosts: Record<string, string> = {};
  for (const pair of pairs) {
    const [host, address, extra] = pair.split('=');
    if (!host || !address || extra !== undefined || isIP(address) === 0) {
      throw new UsageError(`orgindex serve: --resolve takes HOST=ADDRESS with an IP address, e.g. intranet.example=10.0.0.5 (got "${pair}")`);
    }
    fetchHosts[host.toLowerCase()] = address;
  }
  return fetchHosts;
}

/** --embedder-timeout in ms (undefined: not given). */
function embedderTimeoutMsOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0.05 || seconds > 120) {
    throw new UsageError(`orgindex serve: --embedder-timeout is a number of seconds from 0.05 to 120, e.g. 5; not "${text}"`);
  }
  return Math.round(seconds * 1000);
}

const PORT_AND_COUNT = '--port must be 0–65535 and --count a whole number ≥ 1';

/** The flags as serve()'s options, each checked in turn: the first mistake is a UsageError saying what to give. */
function serveOptionsOf(flags: ServeFlags): ServeOptions {
  const port = Number(flags.port);
  const count = countOf(flags.count, PORT_AND_COUNT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(PORT_AND_COUNT);
  if (flags.durability !== 'write' && flags.durability !== 'fsync') throw new UsageError('--durability is "write" or "fsync"');
  const jwtSecret = jwtSecretOf(flags);
  const timeouts = timeoutsFromFlags(flags);
  const fetchHosts = fetchHostsOf(flags.resolve ?? []);
  atMostOne('give --jwt-secret or --jwks, not both', jwtSecret, flags.jwks);
  atMostOne('give one of --index, --data and --count', flags.index, flags.data, count);
  const embedder = embedderSpecOf(flags, 'orgindex serve');
  if (flags.workers !== undefined && embedder !== null && embedder.kind !== 'builtin' && flags.index === undefined) {
    // Each process would embed every organization through the model or the service on its own.
    throw new UsageError('orgindex serve: --workers with --embedder needs --index: build the snapshot once (orgindex index build --embedder …), then serve it from every worker');
  }
  const embedderTimeoutMs = embedderTimeoutMsOf(flags.embedderTimeout);
  const database = databaseUrlOf(flags.database);
  atMostOne('give --database or --keys, not both: with a database, the keys are in it (orgindex keys create --database)', database, flags.keys);
  return {
    host: flags.host,
    port,
    stateDir: flags.stateDir,
    logLevel: flags.logLevel,
    durability: flags.durability,
    timeouts,
    ...(jwtSecret !== undefined ? { jwtSecret } : {}),
    ...(flags.jwks !== undefined ? { jwks: flags.jwks } : {}),
    ...(flags.publicUrl !== undefined ? { publicUrl: flags.publicUrl } : {}),
    ...(flags.languageGroups ? { languageGroups: flags.languageGroups } : {}),
    ...(flags.allowPrivateFetch ? { allowPrivateFetch: true } : {}),
    ...(flags.resolve ? { fetchHosts } : {}),
    ...(flags.index !== undefined ? { index: flags.index } : {}),
    ...(flags.data !== undefined ? { data: flags.data } : {}),
    ...(count !== undefined ? { count } : {}),
    ...(flags.keys !== undefined ? { keys: flags.keys } : {}),
    ...(database !== undefined && database !== '' ? { database } : {}),
    ...(flags.corsOrigin ? { corsOrigins: flags.corsOrigin } : {}),
    ...(embedder ? { embedder } : {}),
    ...(embedderTimeoutMs !== undefined ? { embedderTimeoutMs } : {}),
  };
}

/** Closes on SIGINT / SIGTERM (and, when asked, at the end of stdin), then exits; `say`s why unless it is a worker. */
function stopOn(io: CliIo, options: ServeOptions, close: () => Promise<void>, exitWithStdin: boolean, say = true): (reason: string) => void {
  const stop = (reason: string): void => {
    if (say) io.stderr(`${reason}: closing${options.database === undefined ? ' (flushing the quota journal)' : ''}\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        io.stderr(`error while closing: ${messageOf(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Started by a supervisor that holds our stdin (npm start): its end means the supervisor is gone.
  if (exitWithStdin) {
    process.stdin.once('close', () => {
      stop('stdin closed');
    });
    process.stdin.resume();
  }
  return stop;
}

/** One of `--workers`: its lines go to the primary, and it stops when the primary is gone. */
async function serveAsWorker(io: CliIo, options: ServeOptions): Promise<void> {
  try {
    const running = await serve(
      { ...options, lockedByPrimary: true },
      (line) => { tellPrimary({ orgindex: 'line', text: line }); },
      (close) => {
        const stop = stopOn(io, options, close, false, false);
        process.once('disconnect', () => { stop('the supervising process is gone'); });
      },
      () => { tellPrimary({ orgindex: 'warm' }); },
    );
    tellPrimary({ orgindex: 'ready', address: running.url });
  } catch (error) {
    // A worker that cannot start exits (its channel to the primary would keep it alive, serving nothing),
    // so that the primary sees it and starts another after its back-off.
    cluster.worker?.disconnect();
    setTimeout(() => process.exit(1), 2_000).unref();
    throw error;
  }
}

export function addServeCommand(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  const print = (line: string): void => {
    io.stderr(`${line}\n`);
  };
  addEmbedderOptions(
    program
      .command('serve')
      .description('serve the v2 interface over HTTP (keys, rate limits, quotas, per-key visibility)')
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--port <port>', 'port (0: any free port)', '8787')
      .option('--index <dir>', 'serve an index snapshot (orgindex index build --out DIR): loaded in seconds, nothing rebuilt')
      .option('--data <file|url>', 'organizations to serve: JSON Lines, CSV/TSV, or a PostgreSQL table postgres://user@host/database/table (default: the embedded 50,000 sample)')
      .option('--count <n>', 'serve n generated organizations instead of the embedded sample')
      .option('--keys <file>', 'API keys file (default: <state-dir>/keys.json, created with a development key)')
      .option('--database <url>', 'share keys, rate limits and quotas with every server on this PostgreSQL database (or ORGINDEX_DATABASE_URL); keys from orgindex keys create --database')
      .option('--workers <n>', 'serve from n processes on one port ("auto": one per core), sharing keys and quotas through --database')
      .option('--state-dir <dir>', 'where the quota journal (and the default keys file) live', '.orgindex')
      .option('--cors-origin <origin...>', 'origins allowed to call from a browser ("*" for any; default: the add-in dev origins)')
      .option('--log-level <level>', 'fatal, error, warn, info, debug or silent', 'info')
      .option('--jwt-secret <secret>', 'accept v1 bearer tokens signed with this HS256 secret (or set ORGINDEX_JWT_SECRET: a secret on the command line is visible to other users)')
      .option('--jwks <file>', 'accept v1 bearer tokens signed by the keys of this JWKS file')
      .option('--public-url <url>', 'the URL clients reach this server at (behind a proxy: its public address, e.g. https://orgindex.example.com); /v1/download links are built on it (default: the address and port a request reached)')
      .option('--allow-private-fetch', '/v1/qna may fetch loopback and private addresses (tests, intranets); refused by default')
      .option('--exit-with-stdin', 'stop when standard input closes (for a supervisor that starts the server with a pipe, like npm start)')
      .option('--resolve <host=address...>', '/v1/qna fetches HOST at ADDRESS instead of asking DNS (an intranet site, a local copy of a site); the address is still checked unless --allow-private-fetch')
      .option('--language-groups <group...>', 'only tokens with one of these idp:groups may use the language routes (default: any valid token)')
      .option('--durability <level>', 'quota journal: "fsync" (every answer on disk first) or "write" (survives any process crash; disk sync every 100 ms)', 'fsync')
      .option('--request-timeout <seconds>', `time a client has to send a whole request, headers and body; then 408 (default: ${DEFAULT_TIMEOUTS.requestTimeout / 1000})`)
      .option('--headers-timeout <seconds>', `time a client has to send the request headers (default: ${DEFAULT_TIMEOUTS.headersTimeout / 1000}, at most --request-timeout)`)
      .option('--keep-alive-timeout <seconds>', `how long an idle connection stays open between requests; behind a proxy, set it above the proxy's idle timeout (default: ${DEFAULT_TIMEOUTS.keepAliveTimeout / 1000})`)
      .option('--connection-timeout <seconds>', `a connection without any traffic either way is closed (default: ${DEFAULT_TIMEOUTS.connectionTimeout / 1000})`),
  )
    .option('--embedder-timeout <seconds>', `with --embedder onnx: or openai:, how long a search waits for its texts' vectors before it is answered 503 (default: ${QUERY_EMBEDDING_TIMEOUT_MS / 1000})`)
    .action((flags: ServeFlags) =>
      // Messages name the command themselves: some come from serve() and the supervisor as they are.
      runCommand(io, setExitCode, '', async () => {
        const options = serveOptionsOf(flags);
        const exitWithStdin = flags.exitWithStdin === true;
        if (cluster.isWorker) await serveAsWorker(io, options);
        else if (flags.workers !== undefined) await superviseWorkers(options, workerCount(flags.workers), print, (close) => stopOn(io, options, close, exitWithStdin));
        else await serve(options, print, (close) => stopOn(io, options, close, exitWithStdin));
      }),
    );
}
