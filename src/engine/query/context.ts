/** What every query runs against: the store, the calling key's visible rows, and a clock. */
import type { ColumnStore } from '../store/store.js';

/**
 * How many organizations the caller may see: the whole store, or a scoped key's share of it. Explain
 * plans quote this, never the store's size (that would tell a scoped key how much it cannot see).
 */
export function populationOf(context: QueryContext): number {
  if (!context.visible) return context.store.size;
  let count = 0;
  for (const bit of context.visible) count += bit;
  return count;
}

/**
 * Vectors of a query's texts (describe, similar-to boost and penalize terms) made before the query runs, by
 * the embedder the organization vectors came from, when the engine cannot run that embedder itself (a
 * model on another thread or behind a service): text → its vector, or null when it has none.
 */
export type QueryVectors = ReadonlyMap<string, Float32Array | null>;

export interface QueryContext {
  store: ColumnStore;
  /** The rows the calling key may see (null: all). */
  visible: Uint8Array | null;
  /** Milliseconds clock for elapsed_ms (injected: the engine touches no host timer). */
  now: () => number;
  /** The query's texts embedded ahead (absent: the store's own embedder embeds them, the built-in one by default). */
  queryVectors?: QueryVectors | undefined;
}
