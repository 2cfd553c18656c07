/**
 * The v1 PIT rules every PitStore must keep (a caller's cap is its own; a full service refuses rather than
 * evicts; expiry frees room), written once and run over each store: this process's memory
 * (test/engine/pit-registry.test.ts) and a database servers share (test/server/pg-pit-store.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { createEngine, generateDataset, LegacyService, type LegacyCaller, type PitStore } from '../../src/engine/index.js';
import { MAX_OPEN_PITS, MAX_PITS_PER_CALLER, PIT_KEEP_ALIVE_MS, PitCapacityError } from '../../src/engine/v1/pit-registry.js';

export const pitIndex = createEngine(generateDataset({ count: 1_500, seed: 5, asOf: '2026-11-01' }));
export const pitCaller = (id: string): LegacyCaller => ({ id, index: pitIndex });
/** A search with more hits than one page: it opens a PIT. */
export const pitQuery = { search_id: '00000000-0000-4000-8000-000000000001', locations: { country: ['Deutschland'] }, size: 2 };

export class PitClock {
  ms = Date.parse('2026-11-21T10:00:00Z');
  now = (): number => this.ms;
}

/** A store on the clock with the caps given (the defaults when unset), and how many live PITs it holds. */
export type PitStoreMaker = (clock: PitClock, caps: { maxOpen?: number }) => Promise<{ store: PitStore; open: () => Promise<number> }>;

async function refusal(search: Promise<unknown>): Promise<unknown> {
  try {
    await search;
    return null;
  } catch (caught) {
    return caught;
  }
}

export function pitScenarios(make: PitStoreMaker): void {
  test("a caller's seconds-old PIT survives twenty other callers opening PITs up to their caps", async () => {
    const clock = new PitClock();
    const { store, open } = await make(clock, {});
    const legacy = new LegacyService({ now: clock.now, newId: randomUUID, pits: store });
    const first = await legacy.search(pitQuery, pitCaller('key:mine'));
    const pit = first.metadata.pit_id!;
    expect(pit).toEqual(expect.any(String));
    clock.ms += 2_000;

    let refused = 0;
    for (let other = 0; other < 21; other++) {
      for (let n = 0; n < MAX_PITS_PER_CALLER; n++) {
        const error = await refusal(legacy.search(pitQuery, pitCaller(`key:other-${other}`)));
        if (error !== null) {
          expect(error).toBeInstanceOf(PitCapacityError);
          refused++;
        }
      }
    }
    // 1 + 21 × 50 = 1,051 asked for, 1,000 kept: the last 51 were refused, nobody's PIT was taken.
    expect(refused).toBe(1 + 21 * MAX_PITS_PER_CALLER - MAX_OPEN_PITS);
    expect(await open()).toBe(MAX_OPEN_PITS);

    const next = await legacy.search({ ...pitQuery, pit_id: pit, search_after: first.metadata.search_after }, pitCaller('key:mine'));
    expect(next.metadata.pit_id).toBe(pit);
    expect(next.data).toHaveLength(2);
  }, 60_000);

  test('a full service refuses a new PIT with when to retry; a search that fits one page is still answered; expiry frees room', async () => {
    const clock = new PitClock();
    const { store, open } = await make(clock, { maxOpen: 3 });
    const legacy = new LegacyService({ now: clock.now, newId: randomUUID, pits: store });
    for (const id of ['a', 'b', 'c']) {
      await legacy.search(pitQuery, pitCaller(`key:${id}`));
      clock.ms += 10_000;
    }
    const error = await refusal(legacy.search(pitQuery, pitCaller('key:d')));
    expect(error).toBeInstanceOf(PitCapacityError);
    // The oldest PIT (opened 30 s ago) expires in 4.5 minutes.
    expect((error as PitCapacityError).retryAfterSeconds).toBe(PIT_KEEP_ALIVE_MS / 1000 - 30);
    expect((error as PitCapacityError).message).toMatch(/3 open point-in-time contexts.*retry in 270 seconds/);
    // One page, no PIT needed.
    const small = await legacy.search({ ...pitQuery, locations: { country: ['Österreich'] }, size: 500 }, pitCaller('key:d'));
    expect(small.metadata.total_hits).toBeLessThan(500);
    expect(small.metadata.pit_id).toBeNull();
    // Once the oldest has expired, there is room again.
    clock.ms += PIT_KEEP_ALIVE_MS - 30_000;
    expect((await legacy.search(pitQuery, pitCaller('key:d'))).metadata.pit_id).toEqual(expect.any(String));
    expect(await open()).toBe(3);
  });

  test('a PIT answers only its owner and its own query; close_pit frees it once', async () => {
    const clock = new PitClock();
    const { store } = await make(clock, {});
    const legacy = new LegacyService({ now: clock.now, newId: randomUUID, pits: store });
    const first = await legacy.search(pitQuery, pitCaller('key:a'));
    const pit = first.metadata.pit_id!;
    const page = { ...pitQuery, pit_id: pit, search_after: first.metadata.search_after };
    await expect(legacy.search(page, pitCaller('key:b'))).rejects.toThrow(`pit_id ${pit} has expired or was closed`);
    await expect(legacy.search({ ...page, locations: { country: ['Österreich'] } }, pitCaller('key:a'))).rejects.toThrow('belongs to another query');
    expect(await legacy.closePit({ pit_id: pit }, pitCaller('key:b'))).toEqual({ succeeded: false });
    expect(await legacy.closePit({ pit_id: pit }, pitCaller('key:a'))).toEqual({ succeeded: true });
    expect(await legacy.closePit({ pit_id: pit }, pitCaller('key:a'))).toEqual({ succeeded: false });
  });
}
