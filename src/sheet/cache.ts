/**
 * Results cached by normalised request, so that recalculation, inserted rows and reopened workbooks spend
 * no quota: in memory, and in the host's persistent key-value storage when it has one (Excel:
 * `OfficeRuntime.storage`; injected, so the core stays portable). Entries expire after a TTL (default
 * 24 h); "Refresh" clears everything this cache wrote.
 */

/** The shape of OfficeRuntime.storage (and of a Map-backed stand-in). */
export interface AsyncStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Many keys in one call (OfficeRuntime.storage has these; without them the cache loops). */
  getItems?(keys: string[]): Promise<Record<string, string | null>>;
  setItems?(keyValues: Record<string, string>): Promise<void>;
  removeItems?(keys: string[]): Promise<void>;
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

/** Two independent 32-bit FNV-1a hashes: an address, not a proof (entries carry their request text). */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36);
}

export class ResultCache {
  private readonly memory = new Map<string, Entry>();
  private ttlMs: number;
  /** Storage writes waiting for the next batched write, by id. */
  private pending = new Map<string, string>();
  private writing: Promise<void> | null = null;
  private epoch = 0;

  constructor(private readonly options: CacheOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** New entries live this long (the connection's "reuse answers for" setting; 0: no reuse); stored ones keep theirs. */
  setTtl(ms: number): void {
    this.ttlMs = ms;
  }

  /** Changes on every clear(): an answer requested before a Refresh is not stored after it. */
  get generation(): number {
    return this.epoch;
  }

  key(kind: string, request: unknown): CacheKey {
    const text = `${kind}:${stableJson(request)}`;
    return { id: `${PREFIX}${kind}:${hash64(text)}`, text };
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
    let stored: Record<string, string | null>;
    try {
      const ids = missing.map((key) => key.id);
      stored = storage.getItems ? await storage.getItems(ids) : Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await storage.getItem(id)] as const)));
    } catch (error) {
      this.options.onStorageError?.(error);
      return found;
    }
    for (const key of missing) {
      const text = stored[key.id];
      if (!text) continue;
      try {
        const entry = JSON.parse(text) as Entry;
        if (entry.expires <= now || entry.text !== key.text) continue;
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

  set(key: CacheKey, value: unknown, generation = this.epoch): void {
    this.setMany([[key, value]], generation);
  }

  /**
   * Remembers answers at once; the host storage is written in the background, many entries per write,
   * so a calculation never waits for it and a storage failure never fails a calculation.
   */
  setMany(entries: readonly (readonly [CacheKey, unknown])[], generation = this.epoch): void {
    if (generation !== this.epoch || this.ttlMs <= 0) return;
    const expires = this.options.now() + this.ttlMs;
    for (const [key, value] of entries) {
      const entry: Entry = { expires, text: key.text, value };
      this.remember(key.id, entry);
      if (!this.options.storage) continue;
      const json = JSON.stringify(entry);
      if (json.length <= (this.options.maxStoredBytes ?? 512 * 1024)) this.pending.set(key.id, json);
    }
    if (this.pending.size > 0) this.scheduleWrite();
  }

  private scheduleWrite(): void {
    if (this.writing) return;
    this.writing = (async () => {
      try {
        while (this.pending.size > 0) {
          const batch = this.pending;
          this.pending = new Map();
          await this.write(batch);
        }
      } catch (error) {
        this.options.onStorageError?.(error);
      } finally {
        this.writing = null;
      }
      if (this.pending.size > 0) this.scheduleWrite();
    })();
  }

  /** One write: the batch and the index, expired entries dropped, the soonest to expire evicted past the budget. */
  private async write(batch: Map<string, string>): Promise<void> {
    const storage = this.options.storage;
    if (!storage) return;
    const index = await this.readIndex();
    const now = this.options.now();
    for (const [id, json] of batch) index[id] = [json.length, now + this.ttlMs];
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
      if (batch.has(id)) batch.delete(id);
      else remove.push(id);
    }
    const values: Record<string, string> = { ...Object.fromEntries(batch), [INDEX_KEY]: JSON.stringify(index) };
    if (storage.setItems) await storage.setItems(values);
    else for (const [id, json] of Object.entries(values)) await storage.setItem(id, json);
    if (remove.length > 0) await this.removeStored(remove);
  }

  private async readIndex(): Promise<StorageIndex> {
    try {
      const parsed = JSON.parse((await this.options.storage?.getItem(INDEX_KEY)) ?? '{}') as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StorageIndex) : {};
    } catch {
      return {};
    }
  }

  private async removeStored(keys: string[]): Promise<void> {
    const storage = this.options.storage;
    if (!storage) return;
    if (storage.removeItems) await storage.removeItems(keys);
    else for (const key of keys) await storage.removeItem(key);
  }

  /** Resolves when what was remembered so far is in the host storage (tests; closing a task pane). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Forgets every entry (memory and what this cache stored): the task pane's "Refresh". */
  async clear(): Promise<void> {
    this.epoch++;
    this.memory.clear();
    this.pending.clear();
    await this.flush();
    const storage = this.options.storage;
    if (!storage) return;
    try {
      await this.removeStored([...Object.keys(await this.readIndex()), INDEX_KEY]);
    } catch (error) {
      this.options.onStorageError?.(error);
    }
  }
}
