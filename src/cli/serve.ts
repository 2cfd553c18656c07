/**
 * `orgindex serve`: the v2 interface over HTTP on this machine. Builds the index (the embedded 50,000
 * sample, `--count N` generated organizations, or `--data FILE`), opens the quota journal in the state
 * directory, listens, and then builds the relevance structures so the first search is fast.
 *
 * Without `--keys` it uses `<state dir>/keys.json`, creating it with one tier_2 development key on the
 * first run, and prints that key. SIGINT / SIGTERM close the server and flush the quota journal.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_DATASET, generateDataset } from '../engine/dataset/generate.js';
import { readDataFile } from '../engine/dataset/read.js';
import { createDefaultLocalIndex, createLocalIndex, type LocalIndex } from '../engine/local-index.js';
import { warmRelevance } from '../engine/relevance/rankers.js';
import { createServer } from '../server/app.js';
import { bearerVerifier, loadJwks } from '../server/bearer.js';
import { DEVELOPMENT_KEY_NAME, KeyRing, writeDevelopmentKeysFile, type KeysFile } from '../server/keys.js';
import { QuotaLedger, type Durability } from '../server/quota-ledger.js';

export interface ServeOptions {
  host: string;
  port: number;
  data?: string;
  count?: number;
  keys?: string;
  stateDir: string;
  /** CORS origins; ["*"] for any. Default: the add-in development origins. */
  corsOrigins?: string[];
  logLevel: string;
  /** Quota journal durability (quota-ledger.ts); default 'fsync'. */
  durability?: Durability;
  /** Bearer tokens (v1): an HS256 secret, or a JWKS file. */
  jwtSecret?: string;
  jwks?: string;
  /** Groups (idp:groups) allowed on the language routes; default any authenticated user. */
  languageGroups?: string[];
  /** /v1/qna may fetch loopback and private addresses. */
  allowPrivateFetch?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export class ServeError extends Error {}

function buildIndex(options: ServeOptions): LocalIndex {
  const clock = { now: () => performance.now() };
  if (options.data) {
    const path = resolve(options.data);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ServeError(`cannot read --data ${path}: ${(error as Error).message}`);
    }
    const { records, errors } = readDataFile(path, text);
    if (errors.length > 0) {
      const shown = errors.slice(0, 10).map((e) => `  line ${e.line}: ${e.reason}`);
      throw new ServeError(`--data ${path} has ${errors.length} bad row(s); nothing is served until they are fixed:\n${shown.join('\n')}${errors.length > 10 ? '\n  …' : ''}`);
    }
    return createLocalIndex(records, clock);
  }
  if (options.count !== undefined) return createLocalIndex(generateDataset({ ...DEFAULT_DATASET, count: options.count }), clock);
  return createDefaultLocalIndex(clock);
}

/** The keys, and the development key to print when the keys file is the default one. */
function loadKeys(options: ServeOptions): { keys: KeyRing; developmentKey: string | null; source: string } {
  if (options.keys) return { keys: KeyRing.fromFile(resolve(options.keys)), developmentKey: null, source: resolve(options.keys) };
  const path = join(resolve(options.stateDir), 'keys.json');
  if (!existsSync(path)) writeDevelopmentKeysFile(path);
  const file = JSON.parse(readFileSync(path, 'utf8')) as KeysFile;
  // Print the development key only (an operator may have added admin keys to this file since).
  const development = file.keys.find((entry) => entry.name === DEVELOPMENT_KEY_NAME && entry.admin !== true);
  return { keys: new KeyRing(file), developmentKey: development?.key ?? null, source: path };
}

export async function serve(options: ServeOptions, print: (line: string) => void): Promise<RunningServer> {
  const started = performance.now();
  const { keys, developmentKey, source } = loadKeys(options);
  const index = buildIndex(options);
  const ledger = await QuotaLedger.open(resolve(options.stateDir), { durability: options.durability ?? 'fsync' });
  const corsOrigins = options.corsOrigins?.includes('*') ? true : options.corsOrigins;
  const app = await createServer({
    engine: { index, error: null },
    keys,
    ledger,
    ...(corsOrigins ? { corsOrigins } : {}),
    logger: { level: options.logLevel },
    filesDir: join(resolve(options.stateDir), 'files'),
    ...(options.languageGroups ? { languageGroups: options.languageGroups } : {}),
    allowPrivateFetch: options.allowPrivateFetch ?? false,
    bearer: bearerVerifier({
      ...(options.jwtSecret !== undefined ? { secret: options.jwtSecret } : {}),
      ...(options.jwks !== undefined ? { jwks: loadJwks(resolve(options.jwks)) } : {}),
    }),
  });
  let address: string;
  try {
    address = await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await ledger.close();
    throw new ServeError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  print(`OrgIndex v2 ready at ${address}/v2 — ${index.store.size.toLocaleString('en')} organizations, started in ${seconds} s (legacy v1 and language routes under ${address}/v1)`);
  print(`  keys: ${source}${developmentKey ? `\n  development key (tier_2): ${developmentKey}` : ` (${keys.size} key(s))`}`);
  print(`  OpenAPI: ${address}/openapi.json; quota journal: ${resolve(options.stateDir)}`);
  // Ready for every route now; the keyword index and the vectors (about 1 s at 50,000) are built next, so
  // that the first scored search does not pay for them (one arriving meanwhile waits for them).
  setImmediate(() => {
    const warming = performance.now();
    warmRelevance(index.store);
    print(`  relevance structures built in ${((performance.now() - warming) / 1000).toFixed(1)} s`);
  });
  print(`  try: curl -s -H "x-api-key: ${developmentKey ?? '<key>'}" -H "content-type: application/json" -d '{"keywords":{"must_all":["solar"]},"size":3}' ${address}/v2/search`);
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      await ledger.close();
    })();
    return closing;
  };
  return { app, url: address, close };
}
