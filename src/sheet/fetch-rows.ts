/**
 * ORG.FETCH's rows: `rowsFor`, the one lookup the function and saved queries share, the two effects it
 * yields (`cached-rows`, `request-rows`), and what the drivers perform them with: rows cached per
 * domain, the rest in /fetch requests.
 *
 * The drivers own the chunking, not the plan (fetch-plan.ts): a request carries only the domains the
 * cache lacks, and in Excel the domains of every ORG.FETCH cell whose call falls into one batch window
 * (batcher.ts) — so what goes into one request is known only where requests are made. The plan hands
 * over one call's distinct domains; `fetchChunks` cuts what is sent into requests of at most 5,000
 * (the /fetch limit), for both drivers.
 */
import type { SelectableColumn } from '../contract/common.js';
import { FETCH_MAX_DOMAINS, type FetchResponse } from '../contract/v2/fetch.js';
import type { CacheKey } from './cache.js';
import { answerTo, type Steps } from './effects.js';

/** One organization's row as /fetch returns it. */
export type Row = Readonly<Record<string, unknown>>;

/** The rows of an ORG.FETCH lookup, and the error of each domain whose request failed; a domain in neither is not in the index. */
export interface FetchedRows {
  found: Map<string, Row>;
  failed: Map<string, unknown>;
}

/** Cached rows by domain; null: known not to be in the index. */
type CachedRows = ReadonlyMap<string, Row | null>;

/** What ORG.FETCH asks its driver for. */
export type FetchRowsEffect =
  /** The rows the cache holds for these distinct domains. */
  | { type: 'cached-rows'; domains: readonly string[]; columns: readonly SelectableColumn[]; answer: (rows: CachedRows) => void }
  /**
   * The rows of distinct domains the cache lacks: the driver sends them in requests of at most 5,000
   * (`fetchChunks`) and caches what it finds.
   */
  | { type: 'request-rows'; domains: readonly string[]; columns: readonly SelectableColumn[]; answer: (rows: FetchedRows) => void };

/**
 * ORG.FETCH rows of distinct normalised domains, for the function and saved queries alike: what the cache
 * holds, then the rest from the backend. Throws when every domain asked for failed and none was found:
 * one error for the call rather than a column of them.
 */
export function* rowsFor(domains: readonly string[], columns: readonly SelectableColumn[]): Steps<FetchRowsEffect, FetchedRows> {
  // One order: the same columns however written share cached rows and requests.
  const sorted = [...columns].sort();
  const cached = yield* answerTo<FetchRowsEffect, CachedRows>((answer) => ({ type: 'cached-rows', domains, columns: sorted, answer }));
  const missing = domains.filter((domain) => !cached.has(domain));
  const { found, failed } = yield* answerTo<FetchRowsEffect, FetchedRows>((answer) => ({ type: 'request-rows', domains: missing, columns: sorted, answer }));
  for (const [domain, row] of cached) if (row) found.set(domain, row);
  if (failed.size > 0 && failed.size === missing.length && found.size === 0) throw failed.values().next().value;
  return { found, failed };
}

/** One /fetch request's body. */
export interface FetchBody {
  domains: string[];
  columns: SelectableColumn[];
}

/** What is to be sent (domains, or domains with their cache keys), in requests of at most 5,000 domains each. */
export function fetchChunks<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += FETCH_MAX_DOMAINS) chunks.push(items.slice(i, i + FETCH_MAX_DOMAINS));
  return chunks;
}

/** The body of one chunk's request: with the domain column, by which the answer's rows are matched to their domains. */
export function fetchBody(domains: string[], columns: readonly SelectableColumn[]): FetchBody {
  return { domains, columns: columns.includes('domain') ? [...columns] : ['domain', ...columns] };
}

export function rowsByDomain(response: FetchResponse): Map<string, Row> {
  return new Map(response.data.map((row) => [row.domain, row]));
}

/** Either driver's cache, as far as row keys go. */
interface KeyedCache {
  keysIn(namespace: string): (request: unknown) => CacheKey;
}

/**
 * Each domain's cache key, by domain. Rows are cached per domain (under the backend's scope and the
 * columns), so inserted rows and a grown range reuse what is known.
 */
export function rowKeys(cache: KeyedCache, scope: string, domains: readonly string[], columns: readonly SelectableColumn[]): Map<string, CacheKey> {
  const keyOf = cache.keysIn('fetch');
  return new Map(domains.map((domain) => [domain, keyOf({ scope, columns, domain })]));
}

/** The cached rows among `keys` (a cache answer by key id), by domain; null: known not to be in the index. */
export function cachedByDomain(keys: ReadonlyMap<string, CacheKey>, cached: ReadonlyMap<string, Row | null>): Map<string, Row | null> {
  const rows = new Map<string, Row | null>();
  for (const [domain, key] of keys) if (cached.has(key.id)) rows.set(domain, cached.get(key.id) ?? null);
  return rows;
}
