/**
 * Open point-in-time contexts (v1 PITs), bounded per caller and for the whole service.
 *
 * - A PIT lives PIT_KEEP_ALIVE_MS after its last use; expired PITs are swept on every call (and by the
 *   host's timer), so they never count against a cap.
 * - A caller holds at most MAX_PITS_PER_CALLER: opening one more closes that caller's own least recently
 *   used PIT — a caller that abandons walks without close_pit only ever pushes out its own.
 * - The service holds at most MAX_OPEN_PITS (each holds up to 10,000 row ids, ~40 KB, and keeps the index
 *   it was opened on alive): when they are all live, a new PIT is refused with PitCapacityError, saying
 *   when the least recently used one expires. Another caller's live PIT is never evicted.
 */

export const PIT_KEEP_ALIVE_MS = 5 * 60_000;
/** How often a host sweeps expired PITs when no request comes to do it. */
export const PIT_SWEEP_INTERVAL_MS = 60_000;
export const MAX_OPEN_PITS = 1_000;
/** One caller may hold this many PITs; opening one more closes its own least recently used. */
export const MAX_PITS_PER_CALLER = 50;

/** No room for another PIT: every one the service keeps is live. Retrying after `retryAfterSeconds` may succeed. */
export class PitCapacityError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'PitCapacityError';
  }
}

/** The refusal when the service holds `maxOpen` live PITs and the soonest expires in `seconds`. */
export function pitCapacityError(maxOpen: number, maxPerCaller: number, seconds: number): PitCapacityError {
  return new PitCapacityError(
    `the service holds ${maxOpen.toLocaleString('en')} open point-in-time contexts, the most it keeps (a caller may hold ${maxPerCaller.toLocaleString('en')}): ` +
      `retry in ${seconds} second${seconds === 1 ? '' : 's'}, when the least recently used one expires; close_pit frees yours at once, and a search that fits one page needs none`,
    seconds,
  );
}

export interface PitRegistryOptions {
  /** Wall clock in ms. */
  now: () => number;
  /** A fresh unique id. */
  newId: () => string;
  keepAliveMs?: number;
  maxOpen?: number;
  maxPerCaller?: number;
}

interface Entry<T> {
  id: string;
  owner: string;
  expiresAt: number;
  value: T;
}

export class PitRegistry<T> {
  /**
   * Every live PIT, least recently used first. Each use moves a PIT to the end with a fresh keep-alive, so
   * (one keep-alive for all, a clock that does not go back) this is also soonest-to-expire first.
   */
  private readonly all = new Map<string, Entry<T>>();
  /** Each caller's PITs, least recently used first. */
  private readonly byOwner = new Map<string, Map<string, Entry<T>>>();
  private readonly keepAliveMs: number;
  private readonly maxOpen: number;
  private readonly maxPerCaller: number;

  constructor(private readonly options: PitRegistryOptions) {
    this.keepAliveMs = options.keepAliveMs ?? PIT_KEEP_ALIVE_MS;
    this.maxOpen = Math.max(1, options.maxOpen ?? MAX_OPEN_PITS);
    this.maxPerCaller = Math.max(1, Math.min(this.maxOpen, options.maxPerCaller ?? MAX_PITS_PER_CALLER));
  }

  /** Live PITs (after sweeping expired ones). */
  get size(): number {
    this.sweep();
    return this.all.size;
  }

  /** Drops expired PITs; returns how many. */
  sweep(): number {
    const now = this.options.now();
    let dropped = 0;
    for (const entry of this.all.values()) {
      if (entry.expiresAt > now) break;
      this.remove(entry);
      dropped++;
    }
    return dropped;
  }

  /** Opens a PIT for `owner`; returns its id. Throws PitCapacityError when the service is full of live PITs. */
  open(owner: string, value: T): string {
    this.sweep();
    const own = this.byOwner.get(owner);
    if (own && own.size >= this.maxPerCaller) {
      const oldest = own.values().next().value;
      if (oldest) this.remove(oldest);
    }
    const soonest = this.all.values().next().value;
    if (soonest && this.all.size >= this.maxOpen) throw pitCapacityError(this.maxOpen, this.maxPerCaller, Math.max(1, Math.ceil((soonest.expiresAt - this.options.now()) / 1000)));
    const entry: Entry<T> = { id: this.options.newId(), owner, expiresAt: this.options.now() + this.keepAliveMs, value };
    this.insert(entry);
    return entry.id;
  }

  /** The value of a live PIT of this owner, its keep-alive extended; null when expired, closed or foreign. */
  use(id: string, owner: string): T | null {
    this.sweep();
    const entry = this.all.get(id);
    if (!entry || entry.owner !== owner) return null;
    this.remove(entry);
    entry.expiresAt = this.options.now() + this.keepAliveMs;
    this.insert(entry);
    return entry.value;
  }

  /** Closes a live PIT of this owner; false when there is none. */
  close(id: string, owner: string): boolean {
    this.sweep();
    const entry = this.all.get(id);
    if (!entry || entry.owner !== owner) return false;
    this.remove(entry);
    return true;
  }

  private insert(entry: Entry<T>): void {
    this.all.set(entry.id, entry);
    let own = this.byOwner.get(entry.owner);
    if (!own) {
      own = new Map();
      this.byOwner.set(entry.owner, own);
    }
    own.set(entry.id, entry);
  }

  private remove(entry: Entry<T>): void {
    this.all.delete(entry.id);
    const own = this.byOwner.get(entry.owner);
    own?.delete(entry.id);
    if (own?.size === 0) this.byOwner.delete(entry.owner);
  }
}
