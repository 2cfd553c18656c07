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

export interface QueryContext {
  store: ColumnStore;
  /** The rows the calling key may see (null: all). */
  visible: Uint8Array | null;
  /** Milliseconds clock for elapsed_ms (injected: the engine touches no host timer). */
  now: () => number;
}
