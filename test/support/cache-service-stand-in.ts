/**
 * STAND-IN for Apps Script's Cache (CacheService exists only at Google): a Map with CacheService's limits
 * enforced — keys ≤ 250 characters, values ≤ 100 KB, TTL ≤ 6 hours — so code that would break them fails here.
 */
import type { SyncKeyValueStore } from '../../src/sheet/sync-cache.js';

export class StandInCache implements SyncKeyValueStore {
  readonly values = new Map<string, string>();
  get(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  getAll(keys: string[]): Record<string, string> {
    return Object.fromEntries(keys.flatMap((key) => (this.values.has(key) ? [[key, this.values.get(key) ?? '']] : [])));
  }
  putAll(values: Record<string, string>, seconds = 600): void {
    if (seconds > 21_600) throw new Error('Exception: Argument too large: expirationInSeconds');
    for (const [key, value] of Object.entries(values)) {
      if (key.length > 250) throw new Error('Exception: Argument too large: key');
      if (value.length > 100 * 1024) throw new Error('Exception: Argument too large: value');
      this.values.set(key, value);
    }
  }
  put(key: string, value: string, seconds?: number): void {
    this.putAll({ [key]: value }, seconds);
  }
  remove(key: string): void {
    this.values.delete(key);
  }
}
