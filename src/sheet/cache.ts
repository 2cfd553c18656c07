/**
 * Results cached by normalised request, so that recalculation, inserted rows and reopened workbooks spend
 * no quota: in memory, and in the host's persistent key-value storage when it has one (Excel:
 * `OfficeRuntime.storage`; injected, so the core stays portable). Entries expire after a TTL (default
 * 24 h); "Refresh" clears everything this cache wrote.
 */
import { FNV1A_PRIME, fnv1a } from '../contract/hash.js';

/** The shape of OfficeRuntime.storage (and of a Map-backed stand-in). */
export interface AsyncStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Many keys in one call (OfficeRuntime.storage has these; without them the cache loops). */
  getItems?(keys: string[]): Promise<Record<string, string | null>>;
  setItems?(keyValues: Record<string, string>): Promise<void>;
  removeItems?(keys: string[]): Promise<void>;
  /** Every key (OfficeRuntime.storage has it): Refresh then also removes entries no index lists. */
  getKeys?(): Promise<string[]>;
}

export interface CacheOptions {
  storage?: AsyncStorage | null;
  now: () => number;
  ttlMs?: number;
  /** Entries larger than this (serialised) stay in memory only (persistent storage is small). */
  maxStoredBytes?: number;
  /** The most this cache keeps in the host storage (OfficeRuntime.storage has 10 MB for the whole origin). */
  maxStorageBytes?: number;
  /** The most entries kept in memory (least recently used go first). */
  maxMemoryEntries?: number;
  /** Where storage failures are reported (they never fail a calculation). */
  onStorageError?: (error: unknown) => void;
}

export const DEFAULT_TTL_MS = 24 * 60 * 60_000;
const PREFIX = 'orgindex:cache:';
const INDEX_KEY = `${PREFIX}index`;
/**
 * The stored Refresh token: entries carry the token they were written under and count only while it is
 * current, so a Refresh in any workbook (any runtime on this origin) retires every entry at once, even
 * one a racing write or another runtime's index update left unlisted. The stored format calls it
 * `epoch`, in this key and in each entry.
 */
const REFRESH_TOKEN_KEY = `${PREFIX}epoch`;

/** A request's place in the cache: `id` addresses it, `text` (the normalised request) proves a hit is this request. */
export interface CacheKey {
  readonly id: string;
  readonly text: string;
}

interface Entry {
  expires: number;
  text: string;
  value: unknown;
}

/** An entry as stored: with the Refresh token it was written under (`epoch` in the stored format). */
interface StoredEntry extends Entry {
  epoch?: string;
}

/** Stored key → [bytes, expires]: what the budget and Refresh work from. */
type StorageIndex = Record<string, [number, number]>;

/** JSON with object keys sorted at every level: the same request, however written, gives the same text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  // JSON.stringify gives undefined for undefined and functions (its type says string).
  const json = JSON.stringify(value) as string | undefined;
  return json ?? 'null';
}

/**
 * Two independent 32-bit hashes, FNV-1a and a second one mixed otherwise: an address, not a proof (entries
 * carry their request text). Stored entries are found by it, so it never changes.
 */
function hash64(text: string): string {
  let b = FNV1A_PRIME ^ text.length;
  for (let i = 0; i < text.length; i++) b = Math.imul(b ^ text.charCodeAt(i), 0x5bd1e995) ^ (b >>> 15);
  return fnv1a(text).toString(36) + (b >>> 0).toString(36);
}

/**
 * A request's cache key: `text` is its normalised form, `id` a short address of it (with `prefix`).
 * `namespace` says what is cached ('search', 'stats', 'fetch' …): requests of two namespaces never share a key.
 */
export function cacheKey(namespace: string, request: unknown, prefix = PREFIX): CacheKey {
  const text = `${namespace}:${stableJson(request)}`;
  return { id: `${prefix}${namespace}:${hash64(text)}`, text };
}

export class ResultCache {
  private readonly memory = new Map<string, Entry>();
  private ttlMs: number;
  /** Entries waiting for the next batched storage write, by id. */
  private pending = new Map<string, Entry>();
  /** Storage work (writes, Refresh) runs one after another on this chain. */
  private chain: Promise<void> = Promise.resolve();
  private writeScheduled = false;
  private currentGeneration = 0;

  constructor(private readonly options: CacheOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** New entries live this long (the connection's "reuse answers for" setting; 0: no reuse); stored ones keep theirs. */
  setTtlMs(ms: number): void {
    this.ttlMs = ms;
  }

  /** This runtime's count of clear()s: an answer requested before a Refresh is not stored after it. */
  get generation(): number {
    return this.currentGeneration;
  }

  key(namespace: string, request: unknown): CacheKey {
    return cacheKey(namespace, request);
  }

  /** The keys of many requests in one namespace (one ORG.FETCH row per domain). */
  keysIn(namespace: string): (request: unknown) => CacheKey {
    return (request) => cacheKey(namespace, request);
  }

  async get<T>(key: CacheKey): Promise<T | undefined> {
    return (await this.getMany<T>([key])).get(key.id);
  }

  /** The live entries among `keys`, by id (memory first, then one batched read of the host storage). */
  async getMany<T>(keys: readonly CacheKey[]): Promise<Map<string, T>> {
    const now = this.options.now();
    const found = new Map<string, T>();
    const missing: CacheKey[] = [];
    for (const key of keys) {
      const held = this.memory.get(key.id);
      if (held && held.expires > now && held.text === key.text) {
        // Least recently used leaves first: a hit moves to the end.
        this.memory.delete(key.id);
        this.memory.set(key.id, held);
        found.set(key.id, held.value as T);
      } else missing.push(key);
    }
    const storage = this.options.storage;
    if (!storage || missing.length === 0) return found;
    const generation = this.currentGeneration;
    let stored: Record<string, string | null>;
    try {
      stored = await readItems(storage, [...missing.map((key) => key.id), REFRESH_TOKEN_KEY]);
    } catch (error) {
      this.options.onStorageError?.(error);
      return found;
    }
    // A Refresh while the read was on its way: what was read belongs to before it.
    if (generation !== this.currentGeneration) return found;
    const refreshToken = stored[REFRESH_TOKEN_KEY] ?? undefined;
    for (const key of missing) {
      const text = stored[key.id];
      if (!text) continue;
      try {
        const entry = JSON.parse(text) as StoredEntry;
        if (entry.expires <= now || entry.text !== key.text || entry.epoch !== refreshToken) continue;
        this.remember(key.id, entry);
        found.set(key.id, entry.value as T);
      } catch {
        // An unreadable entry is a miss; the next write replaces it.
      }
    }
    return found;
  }

  private remember(id: string, entry: Entry): void {
    this.memory.delete(id);
    this.memory.set(id, entry);
    const max = this.options.maxMemoryEntries ?? 100_000;
    for (const oldest of this.memory.keys()) {
      if (this.memory.size <= max) break;
      this.memory.delete(oldest);
    }
  }

  set(key: CacheKey, value: unknown, generation = this.currentGeneration): void {
    this.setMany([[key, value]], generation);
  }

  /**
   * Remembers answers at once; the host storage is written in the background, many entries per write,
   * so a calculation never waits for it and a storage failure never fails a calculation.
   */
  setMany(entries: readonly (readonly [CacheKey, unknown])[], generation = this.currentGeneration): void {
    if (generation !== this.currentGeneration || this.ttlMs <= 0) return;
    const expires = this.options.now() + this.ttlMs;
    for (const [key, value] of entries) {
      const entry: Entry = { expires, text: key.text, value };
      this.remember(key.id, entry);
      if (this.options.storage) this.pending.set(key.id, entry);
    }
    if (this.pending.size > 0) this.scheduleWrite();
  }

  /** Runs `work` after the storage work before it; its failure is reported, never thrown at a calculation. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work).catch((error: unknown) => {
      this.options.onStorageError?.(error);
    });
    this.chain = run;
    return run;
  }

  private scheduleWrite(): void {
    if (this.writeScheduled) return;
    this.writeScheduled = true;
    void this.enqueue(async () => {
      this.writeScheduled = false;
      const batch = this.pending;
      this.pending = new Map();
      if (batch.size > 0) await this.write(batch);
    });
  }

  /** One write: the batch and the index, expired entries dropped, the soonest to expire evicted past the budget. */
  private async write(batch: Map<string, Entry>): Promise<void> {
    const storage = this.options.storage;
    if (!storage) return;
    // A failed read aborts the write (the entries stay in memory): writing a fresh index would orphan every entry it listed.
    const current = await readItems(storage, [INDEX_KEY, REFRESH_TOKEN_KEY]);
    const index = parseIndex(current[INDEX_KEY] ?? null);
    const refreshToken = current[REFRESH_TOKEN_KEY] ?? undefined;
    const now = this.options.now();
    const texts = new Map<string, string>();
    for (const [id, entry] of batch) {
      const json = JSON.stringify({ ...entry, epoch: refreshToken } satisfies StoredEntry);
      if (json.length > (this.options.maxStoredBytes ?? 512 * 1024) || entry.expires <= now) continue;
      texts.set(id, json);
      index[id] = [json.length, entry.expires];
    }
    const remove: string[] = [];
    for (const [id, [, expires]] of Object.entries(index)) {
      if (expires <= now) {
        remove.push(id);
        Reflect.deleteProperty(index, id);
      }
    }
    const budget = this.options.maxStorageBytes ?? 4_000_000;
    let total = Object.values(index).reduce((sum, [bytes]) => sum + bytes, 0);
    for (const [id, [bytes]] of Object.entries(index).sort(([, a], [, b]) => a[1] - b[1])) {
      if (total <= budget) break;
      total -= bytes;
      Reflect.deleteProperty(index, id);
      if (texts.has(id)) texts.delete(id);
      else remove.push(id);
    }
    const values: Record<string, string> = { ...Object.fromEntries(texts), [INDEX_KEY]: JSON.stringify(index) };
    if (storage.setItems) await storage.setItems(values);
    else for (const [id, json] of Object.entries(values)) await storage.setItem(id, json);
    if (remove.length > 0) await removeItems(storage, remove);
  }

  /** Resolves when what was remembered so far is in the host storage (tests; closing a task pane). */
  async flush(): Promise<void> {
    let seen: Promise<void> | null = null;
    while (seen !== this.chain) {
      seen = this.chain;
      await seen;
    }
  }

  /**
   * Forgets every entry: memory at once; in storage a new Refresh token retires every stored entry (in
   * every runtime), then the entries are removed — those the index lists, and with getKeys every key of
   * this cache. Runs after the storage work before it, so no racing write survives it.
   */
  async clear(): Promise<void> {
    this.currentGeneration++;
    this.memory.clear();
    this.pending.clear();
    const storage = this.options.storage;
    if (!storage) return;
    const refreshToken = `${this.options.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    await this.enqueue(async () => {
      await storage.setItem(REFRESH_TOKEN_KEY, refreshToken);
      const listed = Object.keys(parseIndex(await storage.getItem(INDEX_KEY)));
      const all = storage.getKeys ? (await storage.getKeys()).filter((key) => key.startsWith(PREFIX) && key !== REFRESH_TOKEN_KEY) : [];
      await removeItems(storage, [...new Set([...listed, ...all, INDEX_KEY])]);
    });
  }
}

async function readItems(storage: AsyncStorage, ids: string[]): Promise<Record<string, string | null>> {
  if (storage.getItems) return storage.getItems(ids);
  return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await storage.getItem(id)] as const)));
}

async function removeItems(storage: AsyncStorage, ids: string[]): Promise<void> {
  if (storage.removeItems) await storage.removeItems(ids);
  else for (const id of ids) await storage.removeItem(id);
}

/** The stored index; a damaged one counts as empty (its entries are still retired by the next Refresh). */
function parseIndex(text: string | null): StorageIndex {
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StorageIndex) : {};
  } catch {
    return {};
  }
}
