/**
 * v1 point-in-time contexts under pressure from other callers: a caller's cap is its own (at the cap it
 * gives up its own least recently used PIT), and a full service refuses new PITs (a capacity error with a
 * retry time) instead of evicting another caller's live one. Expired PITs are swept.
 */
import { randomUUID } from 'node:crypto';
import { MemoryPitStore } from '../../src/engine/index.js';
import { MAX_OPEN_PITS, MAX_PITS_PER_CALLER, PIT_KEEP_ALIVE_MS, PitCapacityError, PitRegistry } from '../../src/engine/v1/pit-registry.js';
import { PitClock as Clock, pitScenarios } from '../support/pit-scenarios.js';

describe('LegacyService PITs in memory, with the default caps', () => {
  pitScenarios((clock, caps) => {
    const store = new MemoryPitStore({ now: clock.now, newId: randomUUID, ...caps });
    return Promise.resolve({ store, open: () => Promise.resolve(store.size) });
  });
});

describe('PitRegistry', () => {
  const registry = (clock: Clock, limits: { maxOpen?: number; maxPerCaller?: number } = {}) => {
    let n = 0;
    return new PitRegistry<string>({ now: clock.now, newId: () => `pit-${n++}`, ...limits });
  };

  test('a caller at its cap gives up its own least recently used PIT, never another caller\'s', () => {
    const clock = new Clock();
    const pits = registry(clock, { maxOpen: 100, maxPerCaller: 3 });
    const theirs = pits.open('b', 'theirs');
    const mine = [pits.open('a', 'a0'), pits.open('a', 'a1'), pits.open('a', 'a2')];
    clock.ms += 1_000;
    expect(pits.use(mine[0]!, 'a')).toBe('a0'); // a0 is now the most recently used
    pits.open('a', 'a3');
    expect(pits.use(mine[1]!, 'a')).toBeNull(); // a1 went
    expect(pits.use(mine[0]!, 'a')).toBe('a0');
    expect(pits.use(theirs, 'b')).toBe('theirs');
    expect(pits.size).toBe(4);
  });

  test('the global cap refuses rather than evicts; a caller at its own cap may still open (it frees one of its own)', () => {
    const clock = new Clock();
    const pits = registry(clock, { maxOpen: 4, maxPerCaller: 2 });
    const held = [pits.open('a', 'a0'), pits.open('a', 'a1'), pits.open('b', 'b0'), pits.open('b', 'b1')];
    expect(() => pits.open('c', 'c0')).toThrow(PitCapacityError);
    const replaced = pits.open('a', 'a2');
    expect(pits.use(held[0]!, 'a')).toBeNull();
    expect([pits.use(held[1]!, 'a'), pits.use(replaced, 'a'), pits.use(held[2]!, 'b'), pits.use(held[3]!, 'b')]).toEqual(['a1', 'a2', 'b0', 'b1']);
  });

  test('expired PITs are swept: they neither count nor answer; keep-alive is extended by use', () => {
    const clock = new Clock();
    const pits = registry(clock);
    const kept = pits.open('a', 'kept');
    const dropped = pits.open('a', 'dropped');
    clock.ms += PIT_KEEP_ALIVE_MS - 1;
    expect(pits.use(kept, 'a')).toBe('kept');
    clock.ms += 1;
    expect(pits.sweep()).toBe(1);
    expect(pits.use(dropped, 'a')).toBeNull();
    expect(pits.size).toBe(1);
    clock.ms += PIT_KEEP_ALIVE_MS;
    expect(pits.size).toBe(0);
    expect(pits.use(kept, 'a')).toBeNull();
  });

  test('a PIT answers only its owner; close frees it', () => {
    const clock = new Clock();
    const pits = registry(clock);
    const id = pits.open('a', 'x');
    expect(pits.use(id, 'b')).toBeNull();
    expect(pits.close(id, 'b')).toBe(false);
    expect(pits.close(id, 'a')).toBe(true);
    expect(pits.use(id, 'a')).toBeNull();
  });

  test('the documented numbers', () => {
    expect([PIT_KEEP_ALIVE_MS, MAX_OPEN_PITS, MAX_PITS_PER_CALLER]).toEqual([300_000, 1_000, 50]);
  });
});
