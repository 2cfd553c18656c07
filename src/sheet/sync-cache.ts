/**
 * The synchronous cache of the Apps Script host, over a CacheService-shaped store: keys of at most 250
 * characters, values of at most 100 KB (longer answers are split into parts and joined on read), a TTL of
 * at most 6 hours. CacheService cannot list its keys, so Refresh changes a stored Refresh token that
 * every key carries: older entries are never read again and expire on their own.
 */
import { cacheKey, type CacheKey } from './cache.js';

/** The shape of Apps Script's `Cache` (CacheService.getDocumentCache() …), and of a Map-backed stand-in. */
export interface SyncKeyValueStore {
  get(key: string): string | null;
  getAll(keys: string[]): Record<string, string>;
  putAll(values: Record<string, string>, expirationInSeconds: number): void;
  remove(key: string): void;
}

export const MAX_CACHE_TTL_SECONDS = 6 * 60 * 60;
/** Under CacheService's 100 KB per value (counted in characters here; UTF-16 text of JSON stays well inside). */
const PART_CHARS = 90_000;
/** Where the Refresh token is stored (the stored format's name for it is "generation"). */
const REFRESH_TOKEN_KEY = 'orgindex:generation';

interface Stored {
  text: string;
  /** The value's JSON, whole, or the number of parts stored under `${id}:1` … */
  json?: string;
  parts?: number;
}

export class SyncResultCache {
  constructor(
    private readonly store: SyncKeyValueStore,
    private ttlSeconds: number = MAX_CACHE_TTL_SECONDS,
  ) {}

  /** The connection's "reuse answers for", within CacheService's 6 hours (0: no reuse). */
  setTtlSeconds(seconds: number): void {
    this.ttlSeconds = Math.max(0, Math.min(MAX_CACHE_TTL_SECONDS, Math.floor(seconds)));
  }

  private refreshToken(): string {
    return this.store.get(REFRESH_TOKEN_KEY) ?? '0';
  }

  key(namespace: string, request: unknown): CacheKey {
    return this.keysIn(namespace)(request);
  }

  /** The keys of many requests in one namespace (one ORG.FETCH row per domain), the Refresh token read once: CacheService reads add up. */
  keysIn(namespace: string): (request: unknown) => CacheKey {
    const prefix = `orgindex:${this.refreshToken()}:`;
    return (request) => cacheKey(namespace, request, prefix);
  }

  getMany<T>(keys: readonly CacheKey[]): Map<string, T> {
    const found = new Map<string, T>();
    if (keys.length === 0) return found;
    const heads = this.store.getAll(keys.map((key) => key.id));
    const split: [CacheKey, Stored][] = [];
    for (const key of keys) {
      const stored = parse(heads[key.id]);
      if (!stored || stored.text !== key.text) continue;
      if (stored.json !== undefined) found.set(key.id, JSON.parse(stored.json) as T);
      else if (stored.parts) split.push([key, stored]);
    }
    if (split.length > 0) {
      const partKeys = split.flatMap(([key, stored]) => Array.from({ length: stored.parts ?? 0 }, (_, i) => `${key.id}:${i + 1}`));
      const parts = this.store.getAll(partKeys);
      for (const [key, stored] of split) {
        const pieces = Array.from({ length: stored.parts ?? 0 }, (_, i) => parts[`${key.id}:${i + 1}`]);
        // A part evicted on its own (CacheService may drop any key) makes the whole entry a miss.
        if (pieces.every((piece) => typeof piece === 'string')) found.set(key.id, JSON.parse(pieces.join('')) as T);
      }
    }
    return found;
  }

  setMany(entries: readonly (readonly [CacheKey, unknown])[]): void {
    if (this.ttlSeconds <= 0 || entries.length === 0) return;
    const values: Record<string, string> = {};
    for (const [key, value] of entries) {
      const json = JSON.stringify(value);
      if (json.length + key.text.length <= PART_CHARS) {
        values[key.id] = JSON.stringify({ text: key.text, json } satisfies Stored);
        continue;
      }
      const parts = Math.ceil(json.length / PART_CHARS);
      for (let i = 0; i < parts; i++) values[`${key.id}:${i + 1}`] = json.slice(i * PART_CHARS, (i + 1) * PART_CHARS);
      values[key.id] = JSON.stringify({ text: key.text.length > PART_CHARS ? '' : key.text, parts } satisfies Stored);
    }
    this.store.putAll(values, this.ttlSeconds);
  }

  /** Refresh: a new Refresh token; every earlier entry becomes unreachable (and expires within 6 hours). */
  clear(now: number): void {
    // Time and chance: two Refreshes in one millisecond (or with a frozen clock) still differ.
    this.store.putAll({ [REFRESH_TOKEN_KEY]: `${now.toString(36)}${Math.random().toString(36).slice(2, 8)}` }, MAX_CACHE_TTL_SECONDS);
  }
}

function parse(text: string | undefined): Stored | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Stored;
  } catch {
    return null;
  }
}

/** A store that lives for one execution: answers asked again within it are reused, none outlives it (a refresh wants fresh answers). */
export function executionStore(): SyncKeyValueStore {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    getAll: (keys) => Object.fromEntries(keys.flatMap((key) => (values.has(key) ? [[key, values.get(key) as string]] : []))),
    putAll: (entries) => {
      for (const [key, value] of Object.entries(entries)) values.set(key, value);
    },
    remove: (key) => void values.delete(key),
  };
}
