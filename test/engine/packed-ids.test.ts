// Packed id lists (src/engine/relevance/packed-ids.ts) against the plain arrays they pack: every width
// (0–4 bytes a difference), block boundaries, partial last blocks, decoding any range, galloping search.
import { advance, PackedIds } from '../../src/engine/relevance/packed-ids.js';
import { Random } from '../../src/engine/random.js';

/** Runs of ascending ids (a term's postings after another's), each run drawn with its own gap size. */
function postings(random: Random, runs: number[][]): Uint32Array {
  const ids: number[] = [];
  for (const [count, gap, start] of runs) {
    let id = start ?? 0;
    for (let i = 0; i < (count ?? 0); i++) {
      ids.push(id);
      id += 1 + random.int(0, (gap ?? 1) - 1);
    }
  }
  return Uint32Array.from(ids);
}

describe('PackedIds', () => {
  const random = new Random(41);
  const cases: [string, Uint32Array][] = [
    ['empty', new Uint32Array(0)],
    ['one id', Uint32Array.of(4_000_000_000)],
    ['all equal in a block (width 0)', new Uint32Array(300).fill(77)],
    ['dense (width 1)', postings(random, [[1_000, 2, 5]])],
    ['medium gaps (width 2)', postings(random, [[700, 300, 1_000]])],
    ['sparse (width 3)', postings(random, [[500, 60_000, 0]])],
    ['the whole range (width 4)', Uint32Array.of(0, 0xffffffff, 1, 0xfffffffe, 2 ** 31)],
    ['runs of every kind one after another (term boundaries inside blocks)', postings(random, [[130, 2, 0], [3, 5_000_000, 7], [129, 200, 10], [1, 1, 0xfffffff0], [400, 1, 0], [255, 70_000, 3], [1, 1, 9]])],
  ];
  for (const [name, ids] of cases) {
    test(name, () => {
      const packed = PackedIds.pack(ids);
      expect(packed.length).toBe(ids.length);
      expect(Array.from({ length: ids.length }, (_, i) => packed.get(i))).toEqual(Array.from(ids));
      // Any range, across block boundaries.
      for (const [from, to] of [[0, ids.length], [1, ids.length], [127, 129], [128, 256], [5, 300], [ids.length, ids.length]]) {
        const a = Math.min(from ?? 0, ids.length);
        const b = Math.min(to ?? 0, ids.length);
        const out = new Uint32Array(Math.max(0, b - a));
        packed.decode(a, b, out);
        expect(Array.from(out)).toEqual(Array.from(ids.subarray(a, b)));
      }
      // The parts restore the same list (an index snapshot's round trip).
      const parts = packed.parts();
      const copy = new PackedIds({ ...parts, bytes: parts.bytes.slice() });
      expect(Array.from({ length: ids.length }, (_, i) => copy.get(i))).toEqual(Array.from(ids));
    });
  }

  test('packed from a stream of chunks of any size: the same bytes as packed whole', () => {
    const ids = postings(random, [[700, 3, 0], [300, 90_000, 11], [129, 1, 5]]);
    const whole = PackedIds.pack(ids).parts();
    for (const size of [1, 5, 128, 129, 4_096]) {
      const streamed = PackedIds.packStream(ids.length, (emit) => {
        for (let from = 0; from < ids.length; from += size) {
          const chunk = ids.slice(from, Math.min(ids.length, from + size));
          emit(chunk, chunk.length);
        }
      }).parts();
      expect(streamed).toEqual(whole);
    }
    expect(() => PackedIds.packStream(10, (emit) => {
      emit(Uint32Array.of(1, 2, 3), 3);
    })).toThrow('3 ids given for 10');
  });

  test('fewer bytes than a Uint32Array for postings-like lists', () => {
    const ids = postings(random, [[50_000, 3, 0], [20_000, 40, 0], [5_000, 400, 0], [1_000, 20_000, 0]]);
    const packed = PackedIds.pack(ids);
    expect(packed.byteLength).toBeLessThan(ids.byteLength * 0.5);
  });

  test('advance finds the first id at or above a target within a run, as a linear search does', () => {
    const ids = postings(random, [[2_000, 37, 100], [900, 3, 0]]);
    const packed = PackedIds.pack(ids);
    for (let n = 0; n < 500; n++) {
      const from = random.int(0, 1_999);
      const target = random.int(0, 80_000);
      let want = from;
      while (want < 2_000 && (ids[want] ?? 0) < target) want++;
      expect(advance(packed, from, 2_000, target)).toBe(want);
    }
    // The second run, from its start.
    const second = Array.from(ids.subarray(2_000)).findIndex((id) => id >= 50);
    expect(second).toBeGreaterThan(10);
    expect(advance(packed, 2_000, 2_900, 50)).toBe(2_000 + second);
  });

  test('parts that do not fit together are refused', () => {
    const parts = PackedIds.pack(Uint32Array.from({ length: 300 }, (_, i) => i * 3)).parts();
    expect(() => new PackedIds({ ...parts, length: 500 })).toThrow('do not fit');
    expect(() => new PackedIds({ ...parts, bytes: parts.bytes.subarray(0, 4) })).toThrow('do not fit');
  });
});
