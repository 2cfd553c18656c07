/**
 * v1 point-in-time contexts under pressure from other callers: a caller's cap is its own (at the cap it
 * gives up its own least recently used PIT), and a full service refuses new PITs (a capacity error with a
 * retry time) instead of evicting another caller's live one. Expired PITs are swept.
 */
import { randomUUID } from 'node:crypto';
import { createLocalIndex, generateDataset, LegacyService, type LegacyCaller } from '../../src/engine/index.js';
import { MAX_OPEN_PITS, MAX_PITS_PER_CALLER, PIT_KEEP_ALIVE_MS, PitCapacityError, PitRegistry } from '../../src/engine/legacy/pit-registry.js';

const index = createLocalIndex(generateDataset({ count: 1_500, seed: 5, asOf: '2026-11-01' }));
const caller = (id: string): LegacyCaller => ({ id, index });
/** A search with more hits than one page: it opens a PIT. */
const query = { search_id: '00000000-0000-4000-8000-000000000001', locations: { country: ['Deutschland'] }, size: 2 };

class Clock {
  ms = Date.parse('2026-11-21T10:00:00Z');
  now = (): number => this.ms;
}

describe('LegacyService PITs with the default caps', () => {
  test('a caller\'s seconds-old PIT survives twenty other callers opening PITs up to their caps', () => {
    const clock = new Clock();
    const legacy = new LegacyService({ now: clock.now, newId: randomUUID });
    const first = legacy.search(query, caller('key:mine'));
    const pit = first.metadata.pit_id!;
    expect(pit).toEqual(expect.any(String));
    clock.ms += 2_000;

    let refused = 0;
    for (let other = 0; other < 21; other++) {
      for (let n = 0; n < MAX_PITS_PER_CALLER; n++) {
        try {
          legacy.search(query, caller(`key:other-${other}`));
        } catch (error) {
          expect(error).toBeInstanceOf(PitCapacityError);
          refused++;
        }
      }
    }
    // 1 + 21 × 50 = 1,051 asked for, 1,000 kept: the last 51 were refused, nobody's PIT was taken.
    expect(refused).toBe(1 + 21 * MAX_PITS_PER_CALLER - MAX_OPEN_PITS);
    expect(legacy.openPits).toBe(MAX_OPEN_PITS);

    const next = legacy.search({ ...query, pit_id: pit, search_after: first.metadata.search_after }, caller('key:mine'));
    expect(next.metadata.pit_id).toBe(pit);
    expect(next.data).toHaveLength(2);
  });

  test('a full service refuses a new PIT with when to retry; a search that fits one page is still answered; expiry frees room', () => {
    const clock = new Clock();
    const legacy = new LegacyService({ now: clock.now, newId: randomUUID, maxOpenPits: 3 });
    for (const id of ['a', 'b', 'c']) {
      legacy.search(query, caller(`key:${id}`));
      clock.ms += 10_000;
    }
    const error: unknown = (() => {
      try {
        legacy.search(query, caller('key:d'));
        return null;
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PitCapacityError);
    // The oldest PIT (opened 30 s ago) expires in 4.5 minutes.
    expect((error as PitCapacityError).retryAfterSeconds).toBe(PIT_KEEP_ALIVE_MS / 1000 - 30);
    expect((error as PitCapacityError).message).toMatch(/3 open point-in-time contexts.*retry in 270 seconds/);
    // One page, no PIT needed.
    const small = legacy.search({ ...query, locations: { country: ['Österreich'] }, size: 500 }, caller('key:d'));
    expect(small.metadata.total_hits).toBeLessThan(500);
    expect(small.metadata.pit_id).toBeNull();
    // Once the oldest has expired, there is room again.
    clock.ms += PIT_KEEP_ALIVE_MS - 30_000;
    expect(legacy.search(query, caller('key:d')).metadata.pit_id).toEqual(expect.any(String));
    expect(legacy.openPits).toBe(3);
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
