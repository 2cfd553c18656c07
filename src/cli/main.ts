/**
 * The `orgindex` command line: contract tools (`endpoints`, `check`), the sample dataset (`dataset`), the
 * server (`serve`), the headless refresh of saved queries (`refresh`) and their management in a workbook
 * (`query`). `runCli` takes its I/O as arguments so tests drive it in-process.
 */
import cluster from 'node:cluster';
import { createWriteStream, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError } from 'commander';
import { ENDPOINTS, type EndpointId } from '../contract/endpoints.js';
import { validate, type InputLocation } from '../contract/validation.js';
import { DateSchema } from '../contract/common.js';
import { DEFAULT_DATASET, generateRecords } from '../engine/dataset/generate.js';
import { serve, ServeUsageError, timeoutsFromFlags, type ServeOptions, type TimeoutFlags } from './serve.js';
import { superviseWorkers, tellPrimary, workerCount } from './serve-workers.js';
import { DEFAULT_TIMEOUTS } from '../server/timeouts.js';
import { refreshWorkbook, RefreshUsageError } from './refresh.js';
import { DEVELOPMENT_CLAIMS, developmentSecret, signToken } from './dev-token.js';
import { refreshGoogleSheet } from './google-sheet.js';
import { addQuery, bodyOf, listQueries, QUERY_ROUTES, removeQuery, type ListedQuery, type QueryRoute } from './query.js';
import { printable } from './workbook-guard.js';
import { table, type CliIo } from './cli-io.js';
import { addKeyCommands } from './keys.js';
import { addIndexCommands } from './index-build.js';
import { addEmbedderOptions, embedderSpecOf, type EmbedderOptions } from './embedder-flags.js';
import { EmbedderSpecError, type EmbedderSpec } from '../server/embedding/embedder-spec.js';
import { QUERY_EMBEDDING_TIMEOUT_MS } from '../server/embedding/query-embedding.js';
import { describeSavedQuery, serviceName, targetOf } from '../sheet/saved-query.js';

export type { CliIo } from './cli-io.js';

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
};

function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('orgindex')
    .description('OrgIndex: search, enrich and count organizations — contract tools, local engine and server')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('endpoints')
    .description('list the endpoints of the v2, legacy v1 and language-processing interfaces')
    .action(() => {
      for (const [id, e] of Object.entries(ENDPOINTS)) {
        io.stdout(`${id.padEnd(26)} ${e.method.padEnd(6)} ${e.api.padEnd(8)} ${e.path.padEnd(26)} ${e.summary}\n`);
      }
    });

  program
    .command('check')
    .description('validate a request body (JSON file or stdin) against the contract; prints the normalised body or the 422 detail')
    .argument('<endpoint>', `endpoint id, e.g. v2.search (see "orgindex endpoints")`)
    .argument('[file]', 'JSON file; stdin when omitted or "-"')
    .action((id: string, file: string | undefined) => {
      const endpoint = (ENDPOINTS as Record<string, (typeof ENDPOINTS)[EndpointId] | undefined>)[id];
      if (!endpoint) {
        io.stderr(`Unknown endpoint "${id}". Known: ${Object.keys(ENDPOINTS).join(', ')}\n`);
        setExitCode(2);
        return;
      }
      const text = file === undefined || file === '-' ? io.readStdin() : readFileSync(file, 'utf8');
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        io.stderr(`Not JSON: ${(error as Error).message}\n`);
        setExitCode(2);
        return;
      }
      const location: InputLocation = endpoint.input === 'none' ? 'body' : endpoint.input;
      const result = validate(endpoint.request, data, location);
      if (result.ok) {
        io.stdout(`${JSON.stringify(result.value, null, 2)}\n`);
      } else {
        io.stdout(`${JSON.stringify(result.error, null, 2)}\n`);
        setExitCode(1);
      }
    });
  program
    .command('dataset')
    .description('write the deterministic sample dataset as JSON Lines (one organization per line)')
    .option('--count <n>', 'number of organizations', String(DEFAULT_DATASET.count))
    .option('--seed <s>', 'random seed (same seed, same data)', String(DEFAULT_DATASET.seed))
    .option('--as-of <date>', 'the dataset\'s "today" (YYYY-MM-DD)', DEFAULT_DATASET.asOf)
    .requiredOption('--out <file>', 'output file (.jsonl); "-" for stdout')
    .action(async (options: { count: string; seed: string; asOf: string; out: string }) => {
      const count = Number(options.count);
      const seed = Number(options.seed);
      if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed) || !DateSchema.safeParse(options.asOf).success) {
        io.stderr('--count and --seed must be whole numbers, --as-of a date YYYY-MM-DD\n');
        setExitCode(2);
        return;
      }
      const records = generateRecords({ count, seed, asOf: options.asOf });
      if (options.out === '-') {
        for (const record of records) io.stdout(`${JSON.stringify(record)}\n`);
        return;
      }
      try {
        await writeLines(options.out, records);
      } catch (error) {
        io.stderr(`cannot write ${options.out}: ${(error as Error).message}\n`);
        setExitCode(1);
        return;
      }
      io.stderr(`wrote ${count} organizations to ${options.out}\n`);
    });
  program
    .command('refresh')
    .argument('[workbook]', 'an .xlsx workbook with saved queries (its hidden worksheet _orgindex)')
    .description('re-run the saved queries of a workbook (written atomically) or of a Google Sheet, and write their values in place; exit 1 when any query failed')
    .option('--google-sheet <id>', 'refresh this Google Sheet instead, through the Sheets API (with --credentials)')
    .option('--credentials <file>', 'a Google service-account key file with edit access to the sheet')
    .option('--base-url <url>', 'the OrgIndex service (default: the embedded 50,000-organization sample)')
    .option('--key-file <file>', 'read the API key from this file (or set ORGINDEX_API_KEY)')
    .option('--key <key>', 'the API key (prefer ORGINDEX_API_KEY or --key-file: a command line is visible to other users)')
    .action(async (workbook: string | undefined, options: { baseUrl?: string; key?: string; keyFile?: string; googleSheet?: string; credentials?: string }) => {
      if ((workbook === undefined) === (options.googleSheet === undefined) || (options.googleSheet !== undefined && options.credentials === undefined)) {
        io.stderr('orgindex refresh: give a workbook, or --google-sheet ID with --credentials FILE\n');
        setExitCode(2);
        return;
      }
      let apiKey = options.key ?? process.env.ORGINDEX_API_KEY;
      if (options.keyFile !== undefined) {
        try {
          apiKey = readFileSync(options.keyFile, 'utf8').trim();
        } catch (error) {
          io.stderr(`orgindex refresh: cannot read the key file: ${(error as Error).message}\n`);
          setExitCode(2);
          return;
        }
      }
      if (options.baseUrl !== undefined && !apiKey) io.stderr('orgindex refresh: no API key (set ORGINDEX_API_KEY or give --key-file); the service will likely refuse every query\n');
      try {
        const common = { ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
        const apiRoot = process.env.ORGINDEX_SHEETS_API_URL;
        // The service account's token goes wherever this points: Google, or a loopback proxy / test stand-in.
        if (apiRoot !== undefined && !/^(https:\/\/([a-z0-9-]+\.)*googleapis\.com|https?:\/\/(127\.0\.0\.1|localhost|\[::1\]))(:\d+)?(\/|$)/.test(apiRoot)) {
          throw new RefreshUsageError('ORGINDEX_SHEETS_API_URL must be an https URL under googleapis.com, or a loopback address');
        }
        const retryMs = process.env.ORGINDEX_SHEETS_RETRY_MS;
        if (retryMs !== undefined && !/^[1-9]\d{0,5}$/.test(retryMs)) throw new RefreshUsageError('ORGINDEX_SHEETS_RETRY_MS must be a whole number of milliseconds');
        const outcomes =
          options.googleSheet !== undefined
            ? await refreshGoogleSheet(options.googleSheet, { ...common, credentials: options.credentials ?? '', ...(apiRoot ? { apiRoot } : {}), ...(retryMs ? { retryDelayMs: Number(retryMs) } : {}) })
            : await refreshWorkbook(workbook ?? '', common);
        for (const outcome of outcomes) io.stdout(`${outcome.ok ? 'ok    ' : 'FAILED'}  ${outcome.target}  ${outcome.ok ? outcome.message.slice(3) : outcome.message}\n`);
        const failed = outcomes.filter((outcome) => !outcome.ok).length;
        io.stderr(`${String(outcomes.length - failed)} of ${String(outcomes.length)} saved queries refreshed in ${workbook ?? `the Google Sheet ${options.googleSheet ?? ''}`}${failed > 0 ? `; ${String(failed)} failed` : ''}\n`);
        setExitCode(failed > 0 ? 1 : 0);
      } catch (error) {
        io.stderr(`orgindex refresh: ${(error as Error).message}\n`);
        setExitCode(error instanceof RefreshUsageError ? 2 : 1);
      }
    });
  addQueryCommands(program, io, setExitCode);
  addKeyCommands(program, io, setExitCode);
  addIndexCommands(program, io, setExitCode);
  program
    .command('token')
    .description('a sign-in (bearer) token for the language routes and v1, signed with ORGINDEX_JWT_SECRET or the development secret of the state directory')
    .option('--state-dir <dir>', 'the state directory of a server started on its development defaults', '.orgindex')
    .option('--sub <id>', 'the user id (sub claim)', DEVELOPMENT_CLAIMS.sub)
    .option('--username <name>', 'the user name (username claim)', DEVELOPMENT_CLAIMS.username)
    .option('--group <group...>', 'the groups (idp:groups claim)', DEVELOPMENT_CLAIMS.groups)
    .option('--expires <span>', 'how long it is valid: 30m, 12h, 7d', DEVELOPMENT_CLAIMS.expiresIn)
    .action(async (options: { stateDir: string; sub: string; username: string; group: string[]; expires: string }) => {
      const fromEnvironment = process.env.ORGINDEX_JWT_SECRET;
      const secret = fromEnvironment !== undefined && fromEnvironment.trim() !== '' ? fromEnvironment : developmentSecret(resolvePath(options.stateDir), false);
      if (secret === null) {
        io.stderr(`orgindex token: no secret: set ORGINDEX_JWT_SECRET to the server's secret, or start \`orgindex serve\` once on its development defaults (it keeps one in ${resolvePath(options.stateDir)}/jwt-secret)\n`);
        setExitCode(2);
        return;
      }
      if (!/^\d+\s*(s|sec|m|min|h|hr|d|day|w|week)s?$/i.test(options.expires.trim())) {
        io.stderr('orgindex token: --expires takes a span such as 30m, 12h or 7d\n');
        setExitCode(2);
        return;
      }
      io.stdout(`${await signToken(secret, { sub: options.sub, username: options.username, groups: options.group, expiresIn: options.expires.trim() })}\n`);
    });
  addEmbedderOptions(program
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
    .option('--connection-timeout <seconds>', `a connection without any traffic either way is closed (default: ${DEFAULT_TIMEOUTS.connectionTimeout / 1000})`))
    .option('--embedder-timeout <seconds>', `with --embedder onnx: or openai:, how long a search waits for its texts' vectors before it is answered 503 (default: ${QUERY_EMBEDDING_TIMEOUT_MS / 1000})`)
    .action(async (options: { host: string; port: string; data?: string; count?: string; keys?: string; database?: string; stateDir: string; corsOrigin?: string[]; logLevel: string; durability: string; jwtSecret?: string; jwks?: string; publicUrl?: string; languageGroups?: string[]; allowPrivateFetch?: boolean; resolve?: string[]; exitWithStdin?: boolean; workers?: string; index?: string; embedderTimeout?: string } & TimeoutFlags & EmbedderOptions) => {
      const port = Number(options.port);
      const count = options.count === undefined ? undefined : Number(options.count);
      if (!Number.isInteger(port) || port < 0 || port > 65535 || (count !== undefined && (!Number.isInteger(count) || count < 1))) {
        io.stderr('--port must be 0–65535 and --count a whole number ≥ 1\n');
        setExitCode(2);
        return;
      }
      if (options.durability !== 'write' && options.durability !== 'fsync') {
        io.stderr('--durability is "write" or "fsync"\n');
        setExitCode(2);
        return;
      }
      const jwtSecret = options.jwtSecret ?? process.env.ORGINDEX_JWT_SECRET;
      // An empty secret would make every bearer request fail: refuse it here rather than serve 500s.
      if (jwtSecret !== undefined && jwtSecret.trim() === '') {
        const flag = options.jwtSecret !== undefined;
        io.stderr(`orgindex serve: ${flag ? '--jwt-secret is' : 'ORGINDEX_JWT_SECRET is set but'} ${jwtSecret === '' ? 'empty' : 'blank'}; give a secret of at least 32 random bytes (e.g. openssl rand -base64 32), or ${flag ? 'leave it out' : 'unset it'} to accept no bearer tokens\n`);
        setExitCode(2);
        return;
      }
      let timeouts: ReturnType<typeof timeoutsFromFlags>;
      try {
        timeouts = timeoutsFromFlags(options);
      } catch (error) {
        io.stderr(`orgindex serve: ${(error as Error).message}\n`);
        setExitCode(2);
        return;
      }
      const fetchHosts: Record<string, string> = {};
      for (const pair of options.resolve ?? []) {
        const [host, address, extra] = pair.split('=');
        if (!host || !address || extra !== undefined || isIP(address) === 0) {
          io.stderr(`orgindex serve: --resolve takes HOST=ADDRESS with an IP address, e.g. intranet.example=10.0.0.5 (got "${pair}")\n`);
          setExitCode(2);
          return;
        }
        fetchHosts[host.toLowerCase()] = address;
      }
      if (jwtSecret !== undefined && options.jwks !== undefined) {
        io.stderr('give --jwt-secret or --jwks, not both\n');
        setExitCode(2);
        return;
      }
      if ([options.index, options.data, count].filter((given) => given !== undefined).length > 1) {
        io.stderr('give one of --index, --data and --count\n');
        setExitCode(2);
        return;
      }
      let embedder: EmbedderSpec | null;
      try {
        embedder = embedderSpecOf(options);
      } catch (error) {
        if (!(error instanceof EmbedderSpecError)) throw error;
        io.stderr(`orgindex serve: ${error.message}\n`);
        setExitCode(2);
        return;
      }
      if (options.workers !== undefined && embedder !== null && embedder.kind !== 'builtin' && options.index === undefined) {
        // Each process would embed every organization through the model or the service on its own.
        io.stderr('orgindex serve: --workers with --embedder needs --index: build the snapshot once (orgindex index build --embedder …), then serve it from every worker\n');
        setExitCode(2);
        return;
      }
      const embedderTimeout = options.embedderTimeout === undefined ? undefined : Number(options.embedderTimeout);
      if (embedderTimeout !== undefined && (options.embedderTimeout?.trim() === '' || !Number.isFinite(embedderTimeout) || embedderTimeout < 0.05 || embedderTimeout > 120)) {
        io.stderr(`orgindex serve: --embedder-timeout is a number of seconds from 0.05 to 120, e.g. 5; not "${options.embedderTimeout ?? ''}"\n`);
        setExitCode(2);
        return;
      }
      const database = options.database ?? process.env.ORGINDEX_DATABASE_URL;
      if (database !== undefined && options.keys !== undefined) {
        io.stderr('give --database or --keys, not both: with a database, the keys are in it (orgindex keys create --database)\n');
        setExitCode(2);
        return;
      }
      const serveOptions: ServeOptions = {
        host: options.host,
        port,
        stateDir: options.stateDir,
        logLevel: options.logLevel,
        durability: options.durability,
        timeouts,
        ...(jwtSecret !== undefined ? { jwtSecret } : {}),
        ...(options.jwks !== undefined ? { jwks: options.jwks } : {}),
        ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
        ...(options.languageGroups ? { languageGroups: options.languageGroups } : {}),
        ...(options.allowPrivateFetch ? { allowPrivateFetch: true } : {}),
        ...(options.resolve ? { fetchHosts } : {}),
        ...(options.index !== undefined ? { index: options.index } : {}),
        ...(options.data !== undefined ? { data: options.data } : {}),
        ...(count !== undefined ? { count } : {}),
        ...(options.keys !== undefined ? { keys: options.keys } : {}),
        ...(database !== undefined && database !== '' ? { database } : {}),
        ...(options.corsOrigin ? { corsOrigins: options.corsOrigin } : {}),
        ...(embedder ? { embedder } : {}),
        ...(embedderTimeout !== undefined ? { embedderTimeoutMs: Math.round(embedderTimeout * 1000) } : {}),
      };
      const print = (line: string): void => {
        io.stderr(`${line}\n`);
      };
      /** Closes on SIGINT / SIGTERM (and, when asked, at the end of stdin), then exits; `say`s why unless it is a worker. */
      const stopOn = (close: () => Promise<void>, exitWithStdin: boolean, say = true): ((reason: string) => void) => {
        const stop = (reason: string): void => {
          if (say) io.stderr(`${reason}: closing${serveOptions.database === undefined ? ' (flushing the quota journal)' : ''}\n`);
          close().then(
            () => process.exit(0),
            (error: unknown) => {
              io.stderr(`error while closing: ${(error as Error).message}\n`);
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
      };
      try {
        if (cluster.isWorker) {
          // One of `--workers`: its lines go to the primary, and it stops when the primary is gone.
          const running = await serve(
            { ...serveOptions, lockedByPrimary: true },
            (line) => { tellPrimary({ orgindex: 'line', text: line }); },
            (close) => {
              const stop = stopOn(close, false, false);
              process.once('disconnect', () => { stop('the supervising process is gone'); });
            },
            () => { tellPrimary({ orgindex: 'warm' }); },
          );
          tellPrimary({ orgindex: 'ready', address: running.url });
        } else if (options.workers !== undefined) {
          await superviseWorkers(serveOptions, workerCount(options.workers), print, (close) => stopOn(close, options.exitWithStdin === true));
        } else {
          await serve(serveOptions, print, (close) => stopOn(close, options.exitWithStdin === true));
        }
      } catch (error) {
        io.stderr(`${(error as Error).message}\n`);
        setExitCode(error instanceof ServeUsageError ? 2 : 1);
        // A worker that cannot start exits (its channel to the primary would keep it alive, serving nothing),
        // so that the primary sees it and starts another after its back-off.
        if (cluster.isWorker) {
          cluster.worker?.disconnect();
          setTimeout(() => process.exit(1), 2_000).unref();
        }
      }
    });

  return program;
}

/** Runs one `orgindex query` command: a refusal (nothing written) exits 2, any other failure 1. */
async function queryCommand(io: CliIo, setExitCode: (code: number) => void, name: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    io.stderr(`orgindex query ${name}: ${(error as Error).message}\n`);
    setExitCode(error instanceof RefreshUsageError ? 2 : 1);
  }
}


const listed = (query: ListedQuery): string[] => [query.id, query.target, query.description, query.service, query.last_refreshed ?? 'never', query.status ?? '-'].map(printable);

/**
 * `orgindex query add | list | remove`: the saved queries of a workbook, as the add-in saves them and
 * `orgindex refresh` re-runs them.
 */
function addQueryCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const query = program.command('query').description('add, list or remove the saved queries of a workbook (the ones orgindex refresh re-runs)');
  query
    .command('add')
    .argument('<workbook>', 'an .xlsx workbook; created when it does not exist')
    .description('save a query in a workbook: its values are written at SHEET!CELL by orgindex refresh (the body is checked against the v2 contract now; exit 2 and nothing written when it is not valid)')
    .option('--sheet <name>', 'the sheet to write the table on (created when missing)')
    .option('--cell <cell>', 'the top-left cell of the table, e.g. A1')
    .option('--search <json>', 'a v2 search body (JSON, or @file.json)')
    .option('--stats <json>', 'a v2 stats body (JSON, or @file.json)')
    .option('--fetch <json>', 'a v2 fetch body (JSON, or @file.json)')
    .option('--rows <n>', 'search: rows to write (default: the body\'s size, else 100; above 500 the pages are walked)')
    .option('--layout <layout>', 'stats with two groupings: "crosstab" (a grid) or "long" (one row per pair)')
    .option('--no-headers', 'write the table without its header row')
    .option('--base-url <url>', 'the service it is refreshed on (default: the embedded 50,000-organization sample)')
    .option('--id <id>', 'the query\'s id (letters, digits, - and _; default: search-1, stats-1, …)')
    .action((workbook: string, options: { sheet?: string; cell?: string; rows?: string; layout?: string; headers: boolean; baseUrl?: string; id?: string } & Partial<Record<QueryRoute, string>>) =>
      queryCommand(io, setExitCode, 'add', async () => {
        const given = QUERY_ROUTES.filter((route) => options[route] !== undefined);
        const [route] = given;
        if (route === undefined || given.length > 1) throw new RefreshUsageError('give one of --search, --stats or --fetch with a JSON body (or @file.json)');
        if (options.sheet === undefined || options.cell === undefined) throw new RefreshUsageError('give --sheet and --cell: where the table is written, e.g. --sheet Leads --cell A1');
        const rows = options.rows === undefined ? undefined : Number(options.rows);
        if (rows !== undefined && (!/^\d+$/.test(options.rows ?? '') || rows < 1)) throw new RefreshUsageError(`--rows takes a whole number of rows ≥ 1; got ${JSON.stringify(options.rows)}`);
        const { layout } = options;
        if (layout !== undefined && layout !== 'crosstab' && layout !== 'long') throw new RefreshUsageError(`--layout is "crosstab" or "long"; got ${JSON.stringify(layout)}`);
        const saved = await addQuery(workbook, {
          sheet: options.sheet,
          cell: options.cell,
          route,
          body: bodyOf(route, options[route] ?? '', io.readStdin),
          headers: options.headers,
          ...(rows !== undefined ? { rows } : {}),
          ...(layout !== undefined ? { layout } : {}),
          ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
          ...(options.id !== undefined ? { id: options.id } : {}),
        });
        io.stdout(`${saved.id}\n`);
        io.stderr(`saved ${saved.id}: ${printable(targetOf(saved))}, ${describeSavedQuery(saved)}, on ${printable(serviceName(saved.service))}; orgindex refresh ${workbook}${saved.service === null ? '' : ` --base-url ${printable(saved.service)}`} writes its values\n`);
      }),
    );
  query
    .command('list')
    .argument('<workbook>', 'an .xlsx workbook')
    .description('list the saved queries of a workbook: id, where it writes, what it asks, service, last refreshed, status')
    .option('--json', 'print them as JSON')
    .action((workbook: string, options: { json?: boolean }) =>
      queryCommand(io, setExitCode, 'list', async () => {
        const queries = await listQueries(workbook);
        if (options.json) {
          io.stdout(`${JSON.stringify(queries, null, 2)}\n`);
          return;
        }
        if (queries.length === 0) {
          io.stderr(`${workbook} has no saved queries (orgindex query add saves one)\n`);
          return;
        }
        io.stdout(table([['ID', 'WHERE', 'QUERY', 'SERVICE', 'LAST REFRESHED (UTC)', 'STATUS'], ...queries.map(listed)]));
      }),
    );
  query
    .command('remove')
    .argument('<workbook>', 'an .xlsx workbook')
    .argument('<id>', 'the saved query\'s id (orgindex query list shows them)')
    .description('remove a saved query and its defined name; the values it wrote stay in the sheet as plain values')
    .action((workbook: string, id: string) =>
      queryCommand(io, setExitCode, 'remove', async () => {
        const removed = await removeQuery(workbook, id);
        io.stderr(`removed ${printable(removed.id)} (${printable(removed.target)}); the values it wrote stay as plain values\n`);
      }),
    );
}

/** Streams JSON Lines to a file: back-pressure and errors (a missing folder) handled by pipeline(). */
async function writeLines(file: string, records: Iterable<unknown>): Promise<void> {
  function* lines(): Generator<string> {
    for (const record of records) yield `${JSON.stringify(record)}\n`;
  }
  await pipeline(Readable.from(lines()), createWriteStream(file, { encoding: 'utf8' }));
}

/** Runs the CLI with `argv` (without the node and script paths); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = nodeIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => (exitCode = code));
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return exitCode;
}
