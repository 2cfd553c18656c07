/**
 * ORG.FETCH's rows as the drivers get them: cached per domain, the rest in /fetch requests.
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

/** One organization's row as /fetch returns it. */
export type Row = Readonly<Record<string, unknown>>;

/** The rows of an ORG.FETCH lookup, and the error of each domain whose request failed; a domain in neither is not in the index. */
export interface FetchedRows {
  found: Map<string, Row>;
  failed: Map<string, unknown>;
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
