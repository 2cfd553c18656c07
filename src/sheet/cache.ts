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
  private readonly ttlMs: number;

  constructor(private readonly options: CacheOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** The key of a request: which call, and its normalised body (a hash plus the length, to make clashes rarer still). */
  key(kind: string, request: unknown): string {
    const text = stableJson(request);
    return `${PREFIX}${kind}:${fnv(text)}:${text.length.toString(36)}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const now = this.options.now();
    const held = this.memory.get(key);
    if (held && held.expires > now) return held.value as T;
    const stored = await this.options.storage?.getItem(key);
    if (!stored) return undefined;
    try {
      const entry = JSON.parse(stored) as Entry;
      if (entry.expires <= now) {
        await this.options.storage?.removeItem(key);
        return undefined;
      }
      this.memory.set(key, entry);
      return entry.value as T;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    const entry: Entry = { expires: this.options.now() + this.ttlMs, value };
    this.memory.set(key, entry);
    const storage = this.options.storage;
    if (!storage) return;
    const text = JSON.stringify(entry);
    if (text.length > (this.options.maxStoredBytes ?? 512 * 1024)) return;
    await storage.setItem(key, text);
    const index = new Set<string>(JSON.parse((await storage.getItem(INDEX_KEY)) ?? '[]') as string[]);
    index.add(key);
    await storage.setItem(INDEX_KEY, JSON.stringify([...index]));
  }

  /** Forgets every entry (memory and the ones this cache stored): the task pane's "Refresh". */
  async clear(): Promise<void> {
    this.memory.clear();
    const storage = this.options.storage;
    if (!storage) return;
    const index = JSON.parse((await storage.getItem(INDEX_KEY)) ?? '[]') as string[];
    for (const key of index) await storage.removeItem(key);
    await storage.removeItem(INDEX_KEY);
  }
}
