/**
 * `orgindex serve`: the v2 interface over HTTP on this machine. Builds the index (the embedded 50,000
 * sample, `--count N` generated organizations, or `--data FILE`), opens the quota journal in the state
 * directory, listens, and then builds the relevance structures so the first search is fast.
 *
 * Without `--keys` it uses `<state dir>/keys.json`, creating it with one tier_2 development key on the
 * first run, and prints that key. SIGINT / SIGTERM close the server and flush the quota journal.
 *
 * One process per state directory: the directory is locked (state-lock.ts) before anything in it is read
 * or written, and unlocked when the server closes. A second start on the same directory stops at once,
 * naming the process that holds it. No other command writes the state directory.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { DEFAULT_DATASET, generateRecords } from '../engine/dataset/generate.js';
import { readDataFile, RowChecker, type RowError } from '../engine/dataset/read.js';
import { jsonLinesRecords } from './data-file.js';
import { createDefaultEngine, createEngine, Engine } from '../engine/engine.js';
import { installVectors, streamedStore } from '../engine/relevance/store-relevance.js';
import { startScanThread } from '../server/scan-thread.js';
import { warmRelevanceOnTwoThreads } from '../server/warm-relevance.js';
import { developmentSecret, signToken } from './dev-token.js';
import { createServer, type ServerOptions } from '../server/app.js';
import { bearerVerifier, checkHs256Secret, loadJwks } from '../server/bearer.js';
import { developmentKeyOf, KeyRing, writeDevelopmentKeysFile, type KeysFile } from '../server/keys.js';
import { QuotaLedger, type Durability } from '../server/quota-ledger.js';
import { Database, redactedUrl } from '../server/database/database.js';
import { PgDownloadStore } from '../server/database/pg-download-store.js';
import { PgPitStore } from '../server/database/pg-pit-store.js';
import { isTableUrl, readOrganizationTable } from '../server/database/pg-organizations.js';
import { readManifest, readSnapshot, SnapshotError } from '../server/index-snapshot.js';
import { builtinIdentity, describeIdentity, embedderFlagFor, type EmbedderSpec } from '../server/embedding/embedder-spec.js';
import { embedOrganizations } from '../server/embedding/document-vectors.js';
import { checkIdentity, EmbedderMismatch, openTextEmbedder, type ModelSpec } from '../server/embedding/open-embedder.js';
import { OnnxDirectoryError } from '../server/embedding/onnx-model.js';
import { QUERY_EMBEDDING_TIMEOUT_MS, QueryEmbedding } from '../server/embedding/query-embedding.js';
import { EmbedderFailure, type TextEmbedder } from '../server/embedding/text-embedder.js';
import { PgQuotaState } from '../server/database/pg-quota-state.js';
import { DatabaseKeyStore, KEY_REFRESH_MS, KeyStoreError } from '../server/key-store.js';
import { lockStateDirectory, StateDirectoryInUse, type StateLock } from '../server/state-lock.js';
import type { ServerTimeouts } from '../server/timeouts.js';
import { messageOf, NamedError } from '../contract/errors.js';
import { UsageError } from './usage.js';

export interface ServeOptions {
  host: string;
  port: number;
  /** An index snapshot directory (orgindex index build): loaded as it is, nothing rebuilt. */
  index?: string;
  data?: string;
  count?: number;
  keys?: string;
  /** A PostgreSQL URL: keys, buckets, holds and counts shared with every server on it (no quota journal). */
  database?: string;
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
  /** The URL clients reach the server at; download links are built on it (default: the address a request reached). */
  publicUrl?: string;
  /** Fixed addresses of host names /v1/qna fetches (like /etc/hosts). */
  fetchHosts?: Record<string, string>;
  /** How long the server waits on clients (ms; default DEFAULT_TIMEOUTS). */
  timeouts?: Partial<ServerTimeouts>;
  /** A worker of `--workers`: its primary holds the state directory's lock (serve-workers.ts). */
  lockedByPrimary?: boolean;
  /** What makes the vectors (--embedder); absent: the built-in embedder, or the one a snapshot records when that is it. */
  embedder?: EmbedderSpec | null;
  /** How long a search waits for its texts' vectors from such an embedder (ms; default QUERY_EMBEDDING_TIMEOUT_MS). */
  embedderTimeoutMs?: number;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export class ServeError extends NamedError {}

/** Bad rows stop the start: nothing is served until they are fixed (the first ten are shown). */
function refuseBadRows(source: string, errors: readonly RowError[], count: number, where: string): void {
  if (count === 0) return;
  const shown = errors.slice(0, 10).map((e) => `  ${where} ${e.line}: ${e.reason}`);
  throw new ServeError(`--data ${source} has ${count.toLocaleString('en')} bad row(s); nothing is served until they are fixed:\n${shown.join('\n')}${count > 10 ? '\n  …' : ''}`);
}

/** Where the organizations come from: a snapshot, a file or table, a generated count, or the embedded sample. */
export interface IndexSource {
  index?: string | undefined;
  data?: string | undefined;
  count?: number | undefined;
}

/** The source in words (a snapshot's manifest records it). */
export function describeSource(source: IndexSource): string {
  if (source.data) return isTableUrl(source.data) ? `table ${redactedUrl(source.data)}` : resolve(source.data);
  if (source.count !== undefined) return `${source.count.toLocaleString('en')} generated organizations (seed ${DEFAULT_DATASET.seed})`;
  return 'the embedded sample';
}

export interface LoadedIndex {
  index: Engine;
  snapshot: { dir: string; bytes: number } | null;
  /** The model that embeds queries (--embedder onnx: or openai:), open; null: the built-in embedder. */
  embedder: TextEmbedder | null;
}

/**
 * The index of a source; from a snapshot, nothing is rebuilt. With an embedder of its own (onnx:,
 * openai:), a source's organizations are embedded now (progress lines to `say`), and a snapshot is
 * served only with the embedder that built it.
 */
export async function loadIndex(source: IndexSource, spec: EmbedderSpec | null = null, say: (line: string) => void = () => undefined): Promise<LoadedIndex> {
  if (source.index !== undefined) return loadSnapshot(source.index, spec, say);
  const index = await buildIndex(source);
  if (spec === null || spec.kind === 'builtin') return { index, snapshot: null, embedder: null };
  const embedder = await openEmbedder(spec, say);
  try {
    installVectors(index.store, await embedOrganizations(index.store, embedder, {
      progress: (line) => {
        say(`  ${line}`);
      },
    }), null);
  } catch (error) {
    await embedder.close();
    throw error instanceof EmbedderFailure ? new ServeError(`orgindex: ${error.message}`) : error;
  }
  return { index, snapshot: null, embedder };
}

/** The embedder of a spec, open; a directory or service that cannot be used stops the start with why. */
async function openEmbedder(spec: ModelSpec, say: (line: string) => void, snapshot?: { dir: string; manifest: ReturnType<typeof readManifest> }): Promise<TextEmbedder> {
  try {
    return await openTextEmbedder(spec, { ...(snapshot ? { expected: snapshot.manifest.embedder } : {}), say });
  } catch (error) {
    if (error instanceof EmbedderMismatch) throw new UsageError(`orgindex: index snapshot ${snapshot?.dir ?? ''}: ${error.message}`);
    if (error instanceof OnnxDirectoryError) throw new UsageError(`orgindex: ${error.message}`);
    if (error instanceof EmbedderFailure) throw new ServeError(`orgindex: ${error.message}`);
    throw error;
  }
}

async function loadSnapshot(path: string, spec: EmbedderSpec | null, say: (line: string) => void): Promise<LoadedIndex> {
  const clock = { now: () => performance.now() };
  const dir = resolve(path);
  let manifest: ReturnType<typeof readManifest>;
  try {
    manifest = readManifest(dir);
  } catch (error) {
    if (error instanceof SnapshotError) throw new ServeError(`orgindex: ${error.message}`);
    throw error;
  }
  const recorded = manifest.embedder;
  const chosen: EmbedderSpec | null = spec ?? (recorded.kind === 'builtin' ? { kind: 'builtin' } : null);
  if (chosen === null) throw new UsageError(`orgindex: index snapshot ${dir} was built with ${describeIdentity(recorded)}: serve it with ${embedderFlagFor(recorded)}`);
  let embedder: TextEmbedder | null = null;
  if (chosen.kind === 'builtin') {
    try {
      checkIdentity(recorded, builtinIdentity());
    } catch (error) {
      if (error instanceof EmbedderMismatch) throw new UsageError(`orgindex: index snapshot ${dir}: ${error.message}`);
      throw error;
    }
  } else {
    embedder = await openEmbedder(chosen, say, { dir, manifest });
  }
  // Before the snapshot is read: its scan records are read into the scan's memory, the shared one then.
  startScanThread();
  try {
    const { store, bytes } = readSnapshot(dir, { external: embedder !== null, manifest });
    return { index: new Engine(store, clock), snapshot: { dir, bytes }, embedder };
  } catch (error) {
    await embedder?.close();
    if (error instanceof SnapshotError) throw new ServeError(`orgindex: ${error.message}`);
    throw error;
  }
}

async function buildIndex(options: IndexSource): Promise<Engine> {
  const clock = { now: () => performance.now() };
  if (options.data && isTableUrl(options.data)) {
    let read: Awaited<ReturnType<typeof readOrganizationTable>>;
    try {
      read = await readOrganizationTable(options.data);
    } catch (error) {
      throw new ServeError(`orgindex serve: ${messageOf(error)}`, { cause: error });
    }
    refuseBadRows(`table ${read.name}`, read.errors, read.errorCount, 'row (in domain order)');
    return createEngine(read.records, clock);
  }
  if (options.data) {
    const path = resolve(options.data);
    const cannotRead = (error: unknown): ServeError => new ServeError(`cannot read --data ${path}: ${messageOf(error)}`, { cause: error });
    if (!/\.(csv|tsv)$/i.test(path)) {
      // JSON Lines of any size: read in pieces, stored as read.
      const checker = new RowChecker();
      let index: Engine;
      try {
        index = new Engine(streamedStore(jsonLinesRecords(path, checker)), clock);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== undefined) throw cannotRead(error);
        throw error;
      }
      refuseBadRows(path, checker.errors, checker.errorCount, 'line');
      return index;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_STRING_TOO_LONG') throw new ServeError(`--data ${path} is larger than the 512 MiB a CSV file may have here: write it as JSON Lines (one object per line), which is read in pieces`);
      throw cannotRead(error);
    }
    const { records, errors, errorCount } = readDataFile(path, text);
    refuseBadRows(path, errors, errorCount, 'line');
    return createEngine(records, clock);
  }
  // Generated and stored one at a time: no array of every record (20 million would not fit the heap), and
  // the keyword index built alongside, without keeping the index text.
  if (options.count !== undefined) return new Engine(streamedStore(generateRecords({ ...DEFAULT_DATASET, count: options.count })), clock);
  return createDefaultEngine(clock);
}

/**
 * Locks the state directory for a server (or a supervisor of workers): a directory in use stops the start
 * naming its holder. Any exit that runs 'exit' handlers (an uncaught error too) frees it; after a kill -9
 * the next start finds the holder gone and takes the lock over. Remove `releaseOnExit` once released.
 */
export function lockForServe(stateDir: string): { lock: Pick<StateLock, 'release'>; releaseOnExit: () => void } {
  let lock: StateLock;
  try {
    lock = lockStateDirectory(stateDir);
  } catch (error) {
    if (error instanceof StateDirectoryInUse) throw new ServeError(`orgindex serve: ${error.message}`, { cause: error });
    throw new ServeError(`orgindex serve: cannot lock the state directory ${stateDir}: ${messageOf(error)}`, { cause: error });
  }
  const releaseOnExit = (): void => {
    lock.release();
  };
  process.once('exit', releaseOnExit);
  return { lock, releaseOnExit };
}

/** The database of --database, open; one that cannot be reached stops the start. */
export async function openDatabase(url: string): Promise<Database> {
  try {
    return await Database.open(url);
  } catch (error) {
    throw new ServeError(`orgindex serve: ${messageOf(error)}`, { cause: error });
  }
}

/** The database's live keys; a start without any stops with what to do. */
export async function databaseKeys(database: Database): Promise<KeyRing> {
  try {
    return await new DatabaseKeyStore(database).keyRing();
  } catch (error) {
    if (error instanceof KeyStoreError) throw new ServeError(`orgindex serve: ${error.message}`, { cause: error });
    throw error;
  }
}

interface ServedKeys {
  keys: KeyRing;
  /** The development key to print: only when the keys file is the default one. */
  developmentKey: string | null;
  /** Where the keys are, in words. */
  source: string;
}

/** The keys: the database's, a keys file's, or the state directory's (created with a development key). */
async function loadKeys(options: ServeOptions, database: Database | null): Promise<ServedKeys> {
  if (database) return { keys: await databaseKeys(database), developmentKey: null, source: `the database ${redactedUrl(database.url)}` };
  if (options.keys) return { keys: KeyRing.fromFile(resolve(options.keys)), developmentKey: null, source: resolve(options.keys) };
  const path = join(resolve(options.stateDir), 'keys.json');
  if (!existsSync(path)) writeDevelopmentKeysFile(path);
  const file = JSON.parse(readFileSync(path, 'utf8')) as KeysFile;
  // Print the development key only (an operator may have added admin keys to this file since).
  return { keys: new KeyRing(file), developmentKey: developmentKeyOf(file), source: path };
}

/** A secret too short is served with a warning; one that cannot be used stops the start. */
function checkJwtSecret(secret: string | undefined, print: (line: string) => void): void {
  if (secret === undefined) return;
  let warning: string | null;
  try {
    warning = checkHs256Secret(secret);
  } catch (error) {
    throw new UsageError(`orgindex serve: ${messageOf(error)}; give a secret of at least 32 random bytes (e.g. openssl rand -base64 32)`, { cause: error });
  }
  if (warning !== null) print(`orgindex serve: warning: ${warning}`);
}

/** What a start has opened so far: let go of when the start fails, or when the server closes. */
interface Held {
  lock: Pick<StateLock, 'release'>;
  releaseOnExit: () => void;
  database: Database | null;
  queryEmbedding: QueryEmbedding | null;
  ledger: QuotaLedger | null;
  sharedState: PgQuotaState | null;
}

/** Closes what is held, the state directory's lock last (whatever failed before it). */
async function release(held: Held): Promise<void> {
  try {
    await held.queryEmbedding?.close();
    await held.ledger?.close();
    held.sharedState?.close();
    await held.database?.close();
  } finally {
    held.lock.release();
    process.removeListener('exit', held.releaseOnExit);
  }
}

/** Quotas shared with every server on the database, or kept in this state directory's journal. */
async function openQuota(options: ServeOptions, stateDir: string, held: Held): Promise<ServerOptions['quota']> {
  if (held.database) {
    held.sharedState = new PgQuotaState(held.database);
    return { state: held.sharedState };
  }
  held.ledger = await QuotaLedger.open(stateDir, { durability: options.durability ?? 'fsync' });
  return { ledger: held.ledger };
}

/** The server's options: the engine, keys and quotas, the database's stores when there is one, and the flags. */
async function serverOptionsOf(options: ServeOptions, parts: { index: Engine; keys: KeyRing; quota: ServerOptions['quota']; database: Database | null; queryEmbedding: QueryEmbedding | null; jwtSecret: string | undefined; stateDir: string }): Promise<ServerOptions> {
  const { database: shared, jwtSecret } = parts;
  const corsOrigins = options.corsOrigins?.includes('*') ? true : options.corsOrigins;
  return {
    engine: { index: parts.index, error: null },
    keys: parts.keys,
    quota: parts.quota,
    ...(shared
      ? {
          healthCheck: () => shared.ping(),
          downloadStore: await PgDownloadStore.open(shared, Date.now),
          pitStore: new PgPitStore(shared, Date.now, randomUUID),
          keyRefresh: { load: () => new DatabaseKeyStore(shared).keyRing({ allowEmpty: true }), everyMs: KEY_REFRESH_MS },
        }
      : {}),
    ...(corsOrigins ? { corsOrigins } : {}),
    logger: { level: options.logLevel },
    filesDir: join(parts.stateDir, 'files'),
    ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    ...(options.languageGroups ? { languageGroups: options.languageGroups } : {}),
    allowPrivateFetch: options.allowPrivateFetch ?? false,
    ...(options.fetchHosts ? { fetchHosts: options.fetchHosts } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    queryEmbedding: parts.queryEmbedding,
    bearer: bearerVerifier({
      ...(jwtSecret !== undefined ? { secret: jwtSecret } : {}),
      ...(options.jwks !== undefined ? { jwks: loadJwks(resolve(options.jwks)) } : {}),
    }),
  };
}

/** Listens; an address that cannot be had closes the app and stops the start. */
async function listen(app: FastifyInstance, options: ServeOptions): Promise<string> {
  try {
    return await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw new ServeError(`cannot listen on ${options.host}:${options.port}: ${messageOf(error)}`, { cause: error });
  }
}

/** The server's `close`: the app first, then what the start opened; every call after the first gets the same promise. */
function closerOf(app: FastifyInstance, held: Held): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= (async () => {
      try {
        await app.close();
      } finally {
        await release(held);
      }
    })();
    return closing;
  };
}

/**
 * After the "ready" lines (setImmediate): the relevance structures and the rest of the engine's warm-up
 * (about 1 s at 50,000), so that the first scored search does not pay for them (one arriving meanwhile
 * waits for them), on two threads where this process can start them.
 */
function warmSoon(loaded: LoadedIndex, print: (line: string) => void, log: FastifyBaseLogger, onWarm?: () => void): void {
  const { index, snapshot } = loaded;
  setImmediate(() => {
    const warming = performance.now();
    let stepStarted = warming;
    const stepDone = (step: string): void => {
      const now = performance.now();
      log.debug({ step, ms: Math.round(now - stepStarted) }, 'warm-up step done');
      stepStarted = now;
    };
    const { relevanceThreads, scanThreads } = index.warm({ startScanThread, warmRelevance: warmRelevanceOnTwoThreads, stepDone });
    const how = snapshot ? 'from the snapshot' : relevanceThreads === 2 ? 'two threads' : 'one thread';
    print(`  relevance structures ${snapshot ? 'ready' : 'built'} in ${((performance.now() - warming) / 1000).toFixed(1)} s (${how}; vector scan on ${scanThreads === 2 ? 'two threads' : 'one thread'})`);
    onWarm?.();
  });
}

/** The lines that say where the server runs, with which keys and index, once it listens. */
function printReady(print: (line: string) => void, ready: { address: string; seconds: string; options: ServeOptions; stateDir: string; served: ServedKeys; shared: boolean; loaded: LoadedIndex; queryEmbedding: QueryEmbedding | null }): void {
  const { address, options, served, loaded, queryEmbedding } = ready;
  const { keys, developmentKey, source } = served;
  print(`OrgIndex v2 ready at ${address}/v2 — ${loaded.index.store.size.toLocaleString('en')} organizations, started in ${ready.seconds} s (legacy v1 and language routes under ${address}/v1)`);
  const disabled = keys.disabled().length;
  print(`  keys: ${source}${developmentKey ? `\n  development key (tier_2): ${developmentKey}` : ` (${keys.size} key(s))`}${disabled > 0 ? `; ${disabled} disabled, their records invalid (the log's warnings say why)` : ''}`);
  print(`  OpenAPI: ${address}/openapi.json; state directory (${ready.shared ? 'keys, quotas, PITs and download files are in the database' : 'quota journal, download files'}, locked by ${options.lockedByPrimary ? 'the supervising process' : 'this process'}): ${ready.stateDir}`);
  if (loaded.snapshot) print(`  index snapshot ${loaded.snapshot.dir} (${(loaded.snapshot.bytes / 1e9).toFixed(2)} GB, every file checked against its checksum)`);
  if (queryEmbedding) print(`  queries' texts embedded by ${queryEmbedding.embedder.identity.kind === 'onnx' ? 'the ONNX model' : 'the embedding service'} before each search (time-out ${queryEmbedding.timeoutMs / 1000} s, then 503 with Retry-After)`);
}

/**
 * Starts the server and prints where it runs. `onListening` gets the server's `close` once it listens and
 * before the first line says so (the place to install signal handlers); `onWarm` is called when the
 * warm-up after it is done.
 */
export async function serve(options: ServeOptions, print: (line: string) => void, onListening?: (close: () => Promise<void>) => void, onWarm?: () => void): Promise<RunningServer> {
  const started = performance.now();
  checkJwtSecret(options.jwtSecret, print);
  const stateDir = resolve(options.stateDir);
  const locked = options.lockedByPrimary ? { lock: { release: () => undefined }, releaseOnExit: () => undefined } : lockForServe(stateDir);
  const held: Held = { ...locked, database: null, queryEmbedding: null, ledger: null, sharedState: null };
  try {
    const database = options.database === undefined ? null : await openDatabase(options.database);
    held.database = database;
    // Printed until the server's logger exists (loading the index can take minutes).
    database?.logTo({ warn: ({ err }, message) => { print(`orgindex serve: warning: ${message}: ${err.message}`); } });
    const served = await loadKeys(options, database);
    // On the development defaults the language routes get a secret too, so their sign-in can be tried.
    const developmentDefaults = !database && options.keys === undefined && options.jwtSecret === undefined && options.jwks === undefined;
    const jwtSecret = developmentDefaults ? (developmentSecret(stateDir, true) ?? undefined) : options.jwtSecret;
    const loaded = await loadIndex(options, options.embedder ?? null, print);
    const queryEmbedding = loaded.embedder ? new QueryEmbedding(loaded.embedder, { timeoutMs: options.embedderTimeoutMs ?? QUERY_EMBEDDING_TIMEOUT_MS }) : null;
    held.queryEmbedding = queryEmbedding;
    const quota = await openQuota(options, stateDir, held);
    const app = await createServer(await serverOptionsOf(options, { index: loaded.index, keys: served.keys, quota, database, queryEmbedding, jwtSecret, stateDir }));
    database?.logTo(app.log);
    const address = await listen(app, options);
    const close = closerOf(app, held);
    // Before anything says "ready": a supervisor may stop the server as soon as it reads that.
    onListening?.(close);
    printReady(print, { address, seconds: ((performance.now() - started) / 1000).toFixed(1), options, stateDir, served, shared: database !== null, loaded, queryEmbedding });
    // Ready for every route now; the warm-up runs next.
    warmSoon(loaded, print, app.log, onWarm);
    if (developmentDefaults && jwtSecret !== undefined) {
      print(`  development sign-in token (12 h; \`orgindex token\` makes another): ${await signToken(jwtSecret)}`);
    }
    print(`  try: curl -s -H "x-api-key: ${served.developmentKey ?? '<key>'}" -H "content-type: application/json" -d '{"keywords":{"must_all":["solar"]},"size":3}' ${address}/v2/search`);
    return { app, url: address, close };
  } catch (error) {
    await release(held);
    throw error;
  }
}
