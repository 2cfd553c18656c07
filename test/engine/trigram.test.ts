/**
 * pg_trgm reimplementation against values computed by a real PostgreSQL (test/fixtures/pg_trgm.json, made
 * by scripts/data/pg-trgm-fixture.sh). No server is needed here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  countShared,
  formatTrigram,
  isSimilar,
  isWordChar,
  lowerCodePoint,
  setSimilarity,
  showTrgm,
  SIMILARITY_THRESHOLD,
  similarity,
  trigramId,
  trigramSet,
} from '../../src/engine/locations/trigram.js';

interface PairRow {
  a: string;
  b: string;
  similarity: number;
  similarity_text: string;
  similar: boolean;
}
interface Fixture {
  server_version: string;
  server_encoding: string;
  lc_ctype: string;
  similarity_threshold: number;
  lower_check: string;
  pairs: PairRow[];
  show_trgm: { text: string; trigrams: string[] }[];
  word_char_ranges: [number, number][];
  lower_map: [number, number][];
}

const fixture = JSON.parse(
  readFileSync(path.resolve(__dirname, '../fixtures/pg_trgm.json'), 'utf8'),
) as Fixture;

/** A readable test name: JSON, with combining marks and invisible characters escaped. */
function label(text: string): string {
  return JSON.stringify(text).replace(/[\u0300-\u036f\u00a0\u00ad\u200b-\u200f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

describe('the fixture', () => {
  it('was computed by PostgreSQL 15 in a UTF-8 database with a UTF-8 LC_CTYPE', () => {
    expect(fixture.server_version).toMatch(/^15\./);
    expect(fixture.server_encoding).toBe('UTF8');
    expect(fixture.lc_ctype).toBe('C.UTF-8');
    expect(fixture.lower_check).toBe('äöü');
    expect(fixture.similarity_threshold).toBe(SIMILARITY_THRESHOLD);
  });

  it('covers at least 120 pairs and 15 show_trgm strings', () => {
    expect(fixture.pairs.length).toBeGreaterThanOrEqual(120);
    expect(fixture.show_trgm.length).toBeGreaterThanOrEqual(15);
  });
});

describe('similarity()', () => {
  it('gives the documented PostgreSQL values', () => {
    expect(similarity('word', 'two words')).toBe(Math.fround(0.36363637));
    expect(similarity('Londn', 'London')).toBe(Math.fround(0.44444445));
  });

  it.each(fixture.pairs.map((p) => [label(p.a), label(p.b), p] as const))(
    'similarity(%s, %s) equals PostgreSQL as float4',
    (_a, _b, pair) => {
      const mine = similarity(pair.a, pair.b);
      expect(Math.fround(mine)).toBe(mine); // a float4 value
      expect(mine).toBe(Math.fround(pair.similarity));
      expect(mine).toBe(Math.fround(Number(pair.similarity_text)));
      expect(similarity(pair.b, pair.a)).toBe(mine);
      expect(isSimilar(pair.a, pair.b)).toBe(pair.similar);
    },
  );

  it('is 0 when either side has no trigrams, even for two empty sets', () => {
    expect(similarity('', '')).toBe(0);
    expect(similarity('!!!', '!!!')).toBe(0);
    expect(similarity('Berlin', '')).toBe(0);
  });

  it('applies the threshold as PostgreSQL does: float4 3/10 passes 0.3', () => {
    expect(similarity('Hamburg', 'Hamm')).toBe(Math.fround(0.3));
    expect(Math.fround(0.3)).toBeGreaterThan(0.3);
    expect(isSimilar('Hamburg', 'Hamm')).toBe(true);
    expect(isSimilar('Berlin', 'Bernau')).toBe(false);
  });
});

describe('show_trgm()', () => {
  it.each(fixture.show_trgm.map((row) => [label(row.text), row] as const))(
    'show_trgm(%s) equals PostgreSQL',
    (_text, row) => {
      const mine = showTrgm(row.text);
      expect(new Set(mine)).toEqual(new Set(row.trigrams));
      expect(mine).toHaveLength(row.trigrams.length);
      expect(mine).toEqual(row.trigrams); // same storage order, too
    },
  );

  it('pads each word with two spaces before and one after', () => {
    expect(showTrgm('a')).toEqual(['  a', ' a ']);
    expect(showTrgm('ab cd').sort()).toEqual(['  a', '  c', ' ab', ' cd', 'ab ', 'cd '].sort());
  });

  it('prints trigrams with non-ASCII characters as their stored CRC bytes', () => {
    // '  ß' and ' ß ' hash to these three-byte values in PostgreSQL (see the fixture's "Straße" row, too)
    expect(showTrgm('ß')).toEqual(['0xc96a06', '0x7f0eee']);
    expect(formatTrigram(trigramId(0x20, 0x20, 0xdf))).toBe('0x7f0eee');
  });
});

describe('character tables', () => {
  const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;

  it('word characters are exactly the code points PostgreSQL treats as letters or digits', () => {
    const expected = new Uint8Array(0x110000);
    for (const [lo, hi] of fixture.word_char_ranges) expected.fill(1, lo, hi + 1);
    const wrong: number[] = [];
    for (let cp = 1; cp < 0x110000; cp++) {
      if (isSurrogate(cp)) continue;
      if (isWordChar(cp) !== (expected[cp] === 1)) wrong.push(cp);
    }
    expect(wrong).toEqual([]);
  });

  it('lower-casing is exactly PostgreSQL towlower(), code point by code point', () => {
    const expected = new Map(fixture.lower_map);
    const wrong: number[] = [];
    for (let cp = 1; cp < 0x110000; cp++) {
      if (isSurrogate(cp)) continue;
      if (lowerCodePoint(cp) !== (expected.get(cp) ?? cp)) wrong.push(cp);
    }
    expect(wrong).toEqual([]);
  });

  it('combining marks split words; final sigma lowers to σ; İ lowers to i', () => {
    expect(similarity('Mu\u0308nchen', 'mu nchen')).toBe(1);
    expect(similarity('ΟΔΟΣ', 'οδοσ')).toBe(1);
    expect(similarity('İstanbul', 'istanbul')).toBe(1);
  });

  it('treats a lone surrogate as a separator', () => {
    expect(similarity('ab\ud800cd', 'ab cd')).toBe(1);
  });
});

describe('trigram sets', () => {
  it('are ascending and distinct', () => {
    const set = trigramSet('aaa aaa Baden-Baden Straße');
    for (let i = 1; i < set.length; i++) expect(set[i]!).toBeGreaterThan(set[i - 1]!);
    expect(set.length).toBe(showTrgm('aaa aaa Baden-Baden Straße').length);
  });

  it('merge-intersect to the same similarity', () => {
    for (const { a, b, similarity: expected } of fixture.pairs) {
      const sa = trigramSet(a);
      const sb = trigramSet(b);
      expect(setSimilarity(sa, sb)).toBe(Math.fround(expected));
      expect(countShared(sa, sb)).toBe(countShared(sb, sa));
    }
  });
});
