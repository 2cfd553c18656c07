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
}

export const DEFAULT_TTL_MS = 24 * 60 * 60_000;
const PREFIX = 'orgindex:cache:';
const INDEX_KEY = `${PREFIX}index`;

interface Entry {
  expires: number;
  value: unknown;
}

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

function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

export class ResultCache {
  private readonly memory = new Map<string, Entry>();
  private ttlMs: number;
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly options: CacheOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** New entries live this long (the connection's "reuse answers for" setting); stored ones keep theirs. */
  setTtl(ms: number): void {
    this.ttlMs = ms;
  }

  /** The key of a request: which call, and its normalised body (a hash plus the length, to make clashes rarer still). */
  key(kind: string, request: unknown): string {
    const text = stableJson(request);
    return `${PREFIX}${kind}:${fnv(text)}:${text.length.toString(36)}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.getMany<T>([key])).get(key);
  }

  /** The live entries among `keys` (memory first, then one batched read of the host storage). */
  async getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    const now = this.options.now();
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const key of keys) {
      const held = this.memory.get(key);
      if (held && held.expires > now) found.set(key, held.value as T);
      else missing.push(key);
    }
    const storage = this.options.storage;
    if (!storage || missing.length === 0) return found;
    const stored = storage.getItems
      ? await storage.getItems(missing)
      : Object.fromEntries(await Promise.all(missing.map(async (key) => [key, await storage.getItem(key)] as const)));
    const expired: string[] = [];
    for (const key of missing) {
      const text = stored[key];
      if (!text) continue;
      try {
        const entry = JSON.parse(text) as Entry;
        if (entry.expires <= now) {
          expired.push(key);
          continue;
        }
        this.memory.set(key, entry);
        found.set(key, entry.value as T);
      } catch {
        expired.push(key);
      }
    }
    if (expired.length > 0) await this.removeStored(expired);
    return found;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.setMany([[key, value]]);
  }

  /** Stores many entries with one write of the host storage (and of the index "Refresh" clears by). */
  async setMany(entries: readonly (readonly [string, unknown])[]): Promise<void> {
    const expires = this.options.now() + this.ttlMs;
    const toStore: Record<string, string> = {};
    for (const [key, value] of entries) {
      const entry: Entry = { expires, value };
      this.memory.set(key, entry);
      const text = JSON.stringify(entry);
      if (text.length <= (this.options.maxStoredBytes ?? 512 * 1024)) toStore[key] = text;
    }
    const storage = this.options.storage;
    const keys = Object.keys(toStore);
    if (!storage || keys.length === 0) return;
    // Writes run one after another: two interleaved read-modify-writes of the index would lose keys.
    const write = this.writes.then(async () => {
      const index = new Set<string>(JSON.parse((await storage.getItem(INDEX_KEY)) ?? '[]') as string[]);
      for (const key of keys) index.add(key);
      toStore[INDEX_KEY] = JSON.stringify([...index]);
      if (storage.setItems) await storage.setItems(toStore);
      else for (const [key, text] of Object.entries(toStore)) await storage.setItem(key, text);
    });
    this.writes = write.catch(() => undefined);
    await write;
  }

  private async removeStored(keys: string[]): Promise<void> {
    const storage = this.options.storage;
    if (!storage) return;
    if (storage.removeItems) await storage.removeItems(keys);
    else for (const key of keys) await storage.removeItem(key);
  }

  /** Forgets every entry (memory and the ones this cache stored): the task pane's "Refresh". */
  async clear(): Promise<void> {
    this.memory.clear();
    const storage = this.options.storage;
    if (!storage) return;
    await this.writes;
    const index = JSON.parse((await storage.getItem(INDEX_KEY)) ?? '[]') as string[];
    await this.removeStored([...index, INDEX_KEY]);
  }
}
