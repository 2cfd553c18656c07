/** LocationIndex: the four search layers, folding, filters, limits, listing, lookup. */
import { LocationListResponseSchema, type LocationItem } from '../../src/contract/v2/locations.js';
import {
  foldLocationName,
  LocationIndex,
  type LocationMatchLayer,
} from '../../src/engine/locations/location-index.js';
import { setSimilarity, similarity, trigramSet } from '../../src/engine/locations/trigram.js';

function loc(location_id: string, name: string, location_type: string, parent_id: string | null, doc_count: number): LocationItem {
  return { location_id, name, location_type, parent_id, path: `/${location_id}`, doc_count };
}

const ITEMS: LocationItem[] = [
  loc('eu', 'Europa', 'continent', null, 10000),
  loc('de', 'Deutschland', 'country', 'eu', 9000),
  loc('at', 'Österreich', 'country', 'eu', 800),
  loc('ch', 'Schweiz', 'country', 'eu', 700),
  loc('by', 'Bayern', 'state', 'de', 3000),
  loc('bw', 'Baden-Württemberg', 'state', 'de', 2500),
  loc('nw', 'Nordrhein-Westfalen', 'state', 'de', 2800),
  loc('sn', 'Sachsen', 'state', 'de', 900),
  loc('st', 'Sachsen-Anhalt', 'state', 'de', 400),
  loc('hh', 'Hamburg', 'state', 'de', 1200),
  loc('be', 'Berlin', 'state', 'de', 2000),
  loc('he', 'Hessen', 'state', 'de', 1300),
  loc('bb', 'Brandenburg', 'state', 'de', 500),
  loc('sg', 'St. Gallen', 'state', 'ch', 150),
  loc('obb', 'Oberbayern', 'region', 'by', 1500),
  loc('lk-muc', 'Landkreis München', 'district', 'obb', 300),
  loc('m-muc', 'München', 'municipality', 'obb', 1400),
  loc('m-garching', 'Garching bei München', 'municipality', 'lk-muc', 60),
  loc('m-muenchberg', 'Münchberg', 'municipality', 'by', 20),
  loc('m-muenchenbernsdorf', 'Münchenbernsdorf', 'municipality', 'sn', 5),
  loc('m-koeln', 'Köln', 'municipality', 'nw', 1100),
  loc('m-duesseldorf', 'Düsseldorf', 'municipality', 'nw', 1000),
  loc('m-aachen', 'Aachen', 'municipality', 'nw', 300),
  loc('m-hamm', 'Hamm', 'municipality', 'nw', 300),
  loc('m-hallenberg', 'Hallenberg', 'municipality', 'nw', 50),
  loc('m-halle-w', 'Halle', 'municipality', 'nw', 10),
  loc('m-halle', 'Halle (Saale)', 'municipality', 'st', 200),
  loc('m-marienhalle', 'Marienhalle', 'municipality', 'st', 3),
  loc('m-hall', 'Hall', 'municipality', 'at', 30),
  loc('m-hamburg', 'Hamburg', 'municipality', 'hh', 1200),
  loc('m-berlin', 'Berlin', 'municipality', 'be', 2000),
  loc('m-bernau', 'Bernau', 'municipality', 'by', 15),
  loc('m-frankfurt', 'Frankfurt am Main', 'municipality', 'he', 1300),
  loc('m-frankfurt-oder', 'Frankfurt (Oder)', 'municipality', 'bb', 80),
  loc('m-grossbeeren', 'Großbeeren', 'municipality', 'bb', 12),
  loc('m-stgallen', 'St. Gallen', 'municipality', 'sg', 140),
  loc('m-neustadt-2', 'Neustadt', 'municipality', 'by', 40),
  loc('m-neustadt-1', 'Neustadt', 'municipality', 'by', 40),
];

const index = new LocationIndex(ITEMS);
const ids = (items: readonly { location_id: string }[]) => items.map((item) => item.location_id);
const ranked = (q: string, extra: Partial<Parameters<LocationIndex['rankedSearch']>[0]> = {}) =>
  index.rankedSearch({ q, limit: 100, ...extra }).map((m) => [m.item.location_id, m.layer] as const);

describe('folding', () => {
  it('lower-cases, drops diacritics, turns separators into one space', () => {
    expect(foldLocationName('München')).toBe('munchen');
    expect(foldLocationName('Mu\u0308nchen')).toBe('munchen');
    expect(foldLocationName('Halle (Saale)')).toBe('halle saale');
    expect(foldLocationName('  St. Gallen ')).toBe('st gallen');
    expect(foldLocationName('Baden-Württemberg')).toBe('baden wurttemberg');
    expect(foldLocationName('Großbeeren')).toBe('grossbeeren');
    expect(foldLocationName('ΑΘΉΝΑ')).toBe('αθηνα');
    expect(foldLocationName('!!!')).toBe('');
  });

  it('transliterates ä, ö, ü to ae, oe, ue in the German form', () => {
    expect(foldLocationName('München', true)).toBe('muenchen');
    expect(foldLocationName('ÖSTERREICH', true)).toBe('oesterreich');
    expect(foldLocationName('Mu\u0308nchen', true)).toBe('muenchen');
    expect(foldLocationName('Citroën', true)).toBe('citroen');
  });
});

describe('search layers', () => {
  it('ranks exact, then prefix, then substring, then fuzzy', () => {
    expect(ranked('Halle')).toEqual([
      ['m-halle-w', 'exact'],
      ['m-halle', 'prefix'], // doc_count 200
      ['m-hallenberg', 'prefix'], // doc_count 50
      ['m-marienhalle', 'substring'],
      ['m-hall', 'fuzzy'],
    ]);
  });

  it('matches München however it is spelled, each item once, in its best layer', () => {
    const expected = [
      ['m-muc', 'exact'],
      ['m-muenchenbernsdorf', 'prefix'],
      ['lk-muc', 'substring'], // doc_count 300
      ['m-garching', 'substring'], // doc_count 60
      ['m-muenchberg', 'fuzzy'],
    ];
    for (const q of ['München', 'münchen', 'MÜNCHEN', 'munchen', 'Muenchen', 'MUENCHEN', 'Mu\u0308nchen']) {
      expect(ranked(q)).toEqual(expected);
    }
  });

  it('finds München from the typo "Muenchn" through the fuzzy layer', () => {
    const matches = index.rankedSearch({ q: 'Muenchn' });
    const muc = matches.find((m) => m.item.location_id === 'm-muc');
    expect(muc?.layer).toBe('fuzzy');
    // pg_trgm similarity of the folded forms "muenchn" / "muenchen" (raw pg_trgm would say 0.14)
    expect(muc?.similarity).toBe(similarity('muenchn', 'muenchen'));
    expect(muc?.similarity).toBe(Math.fround(6 / 11));
    expect(similarity('Muenchn', 'München')).toBeLessThan(0.3);
    expect(index.search({ q: 'Münchn' }).items[0]?.location_id).toBe('m-muc');
  });

  it('orders fuzzy matches by similarity, then doc_count, name and id', () => {
    const small = new LocationIndex([
      loc('x1', 'Hamborg', 'municipality', null, 10), // 5/11
      loc('x0', 'Hamborg', 'municipality', null, 10), // 5/11
      loc('x2', 'Hambirg', 'municipality', null, 10), // 5/11
      loc('x3', 'Hambork', 'municipality', null, 50), // 4/12
      loc('x4', 'Hambarg', 'municipality', null, 99), // 5/11
    ]);
    const matches = small.rankedSearch({ q: 'Hamburg' });
    expect(matches.map((m) => [m.item.location_id, m.layer, m.similarity])).toEqual([
      ['x4', 'fuzzy', Math.fround(5 / 11)],
      ['x2', 'fuzzy', Math.fround(5 / 11)],
      ['x0', 'fuzzy', Math.fround(5 / 11)],
      ['x1', 'fuzzy', Math.fround(5 / 11)],
      ['x3', 'fuzzy', Math.fround(4 / 12)],
    ]);
  });

  it('treats punctuation, ß and transliterations as equal for exact matches', () => {
    expect(ranked('st gallen')).toEqual([['sg', 'exact'], ['m-stgallen', 'exact']]);
    expect(ranked('Grossbeeren')[0]).toEqual(['m-grossbeeren', 'exact']);
    expect(ranked('halle saale')[0]).toEqual(['m-halle', 'exact']);
    expect(ranked('Baden Wuerttemberg')[0]).toEqual(['bw', 'exact']);
    expect(ranked('baden-wurttemberg')[0]).toEqual(['bw', 'exact']);
    expect(ranked('Koeln')[0]).toEqual(['m-koeln', 'exact']);
  });

  it('orders same-layer matches by doc_count, then name, then location_id', () => {
    expect(ranked('Hamburg').slice(0, 2)).toEqual([['hh', 'exact'], ['m-hamburg', 'exact']]); // 1200 each: hh < m-hamburg
    expect(ranked('Neustadt')).toEqual([['m-neustadt-1', 'exact'], ['m-neustadt-2', 'exact']]);
    expect(ranked('Frankfurt')).toEqual([['m-frankfurt', 'prefix'], ['m-frankfurt-oder', 'prefix']]);
  });

  it('never returns an item twice', () => {
    for (const q of ['Halle', 'München', 'Muenchn', 'a', 'e', 'n', 'Sachsen', 'Hamburg', 'Berlin', 'st']) {
      const found = ids(index.search({ q, limit: 100 }).items);
      expect(new Set(found).size).toBe(found.length);
    }
  });
});

describe('fuzzy threshold', () => {
  it('keeps similarity >= 0.3 as PostgreSQL does (float4 3/10 passes)', () => {
    const hamm = index.rankedSearch({ q: 'Hamburg', limit: 100 }).find((m) => m.item.location_id === 'm-hamm');
    expect(hamm).toMatchObject({ layer: 'fuzzy', similarity: Math.fround(0.3) });
  });

  it('drops similarity below 0.3', () => {
    expect(similarity('berlin', 'bernau')).toBeLessThan(0.3);
    expect(ids(index.search({ q: 'Berlin', limit: 100 }).items)).not.toContain('m-bernau');
    expect(index.search({ q: 'Xylophon' })).toEqual({ items: [], count: 0 });
  });
});

describe('filters and limit', () => {
  it('filters by location_type', () => {
    expect(ranked('Sachsen', { location_type: 'state' })).toEqual([['sn', 'exact'], ['st', 'prefix']]);
    expect(ranked('Hamburg', { location_type: 'municipality' })[0]).toEqual(['m-hamburg', 'exact']);
    expect(index.search({ q: 'Berlin', location_type: 'country' }).count).toBe(0);
  });

  it('filters by parent_id (direct children), alone and with a type', () => {
    expect(ranked('Halle', { parent_id: 'nw' })).toEqual([['m-halle-w', 'exact'], ['m-hallenberg', 'prefix']]);
    expect(ranked('Halle', { parent_id: 'st' })).toEqual([['m-halle', 'prefix'], ['m-marienhalle', 'substring']]);
    expect(ranked('München', { parent_id: 'obb' })).toEqual([['m-muc', 'exact'], ['lk-muc', 'substring']]);
    expect(ranked('München', { parent_id: 'obb', location_type: 'district' })).toEqual([['lk-muc', 'substring']]);
    expect(index.search({ q: 'Halle', parent_id: 'nowhere' })).toEqual({ items: [], count: 0 });
  });

  it('treats null, undefined and empty filters as absent', () => {
    const plain = index.search({ q: 'Halle' });
    expect(index.search({ q: 'Halle', location_type: null, parent_id: null })).toEqual(plain);
    expect(index.search({ q: 'Halle', location_type: '', parent_id: '' })).toEqual(plain);
  });

  it('returns at most limit items, 10 by default, with count = items returned', () => {
    const two = index.search({ q: 'Halle', limit: 2 });
    expect(ids(two.items)).toEqual(['m-halle-w', 'm-halle']);
    expect(two.count).toBe(2);
    const many = index.search({ q: 'e' });
    expect(many.count).toBe(10);
    expect(many.items).toHaveLength(10);
    expect(index.search({ q: 'e', limit: 100 }).count).toBeGreaterThan(10);
  });

  it('answers nothing for a query without letters or digits', () => {
    expect(index.search({ q: '!!!' })).toEqual({ items: [], count: 0 });
    expect(index.search({ q: '   ' })).toEqual({ items: [], count: 0 });
  });

  it('answers bodies that satisfy the contract', () => {
    for (const q of ['Halle', 'Muenchn', 'zzz']) {
      const body = index.search({ q });
      expect(LocationListResponseSchema.parse(body)).toEqual(body);
      expect(body.count).toBe(body.items.length);
    }
  });
});

describe('listing', () => {
  it('lists the children of a parent by doc_count desc, then name, then id', () => {
    expect(ids(index.list({ parent_id: 'nw' }).items)).toEqual([
      'm-koeln', 'm-duesseldorf', 'm-aachen', 'm-hamm', 'm-hallenberg', 'm-halle-w',
    ]);
    expect(ids(index.list({ parent_id: 'by' }).items)).toEqual(['obb', 'm-neustadt-1', 'm-neustadt-2', 'm-muenchberg', 'm-bernau']);
  });

  it('lists all of a type, or the children of a parent of one type', () => {
    const states = index.list({ location_type: 'state' });
    expect(ids(states.items)).toEqual(['by', 'nw', 'bw', 'be', 'he', 'hh', 'sn', 'bb', 'st', 'sg']);
    expect(states.count).toBe(10);
    expect(ids(index.list({ parent_id: 'de', location_type: 'state' }).items)).toHaveLength(9);
    expect(ids(index.list({ parent_id: 'eu', location_type: 'country' }).items)).toEqual(['de', 'at', 'ch']);
    expect(index.list({ parent_id: 'eu', location_type: 'state' })).toEqual({ items: [], count: 0 });
  });

  it('pages with offset and limit; count is the page size', () => {
    const all = ids(index.list({ location_type: 'municipality', limit: 1000 }).items);
    expect(all).toHaveLength(ITEMS.filter((i) => i.location_type === 'municipality').length);
    const pages: string[] = [];
    for (let offset = 0; offset < all.length; offset += 4) {
      const page = index.list({ location_type: 'municipality', limit: 4, offset });
      expect(page.count).toBe(page.items.length);
      pages.push(...ids(page.items));
    }
    expect(pages).toEqual(all);
    expect(index.list({ location_type: 'municipality', offset: all.length })).toEqual({ items: [], count: 0 });
    expect(index.listTotal({ location_type: 'municipality' })).toBe(all.length);
    expect(index.listTotal({ parent_id: 'de', location_type: 'state' })).toBe(9);
  });

  it('lists everything without filters (100 by default), and nothing for unknown values', () => {
    const everything = index.list();
    expect(everything.count).toBe(ITEMS.length);
    expect(everything.items[0]?.location_id).toBe('eu');
    expect(index.list({ limit: 3 }).count).toBe(3);
    expect(index.list({ location_type: 'galaxy' })).toEqual({ items: [], count: 0 });
    expect(index.list({ parent_id: 'nowhere' })).toEqual({ items: [], count: 0 });
  });
});

describe('get', () => {
  it('returns the item by id, or null', () => {
    expect(index.get('m-muc')).toEqual(ITEMS.find((i) => i.location_id === 'm-muc'));
    expect(index.get('nope')).toBeNull();
  });

  it('returns copies', () => {
    const item = index.get('m-muc')!;
    item.name = 'changed';
    expect(index.get('m-muc')?.name).toBe('München');
    index.search({ q: 'München' }).items[0]!.name = 'changed';
    expect(index.search({ q: 'München' }).items[0]?.name).toBe('München');
  });

  it('rejects duplicate ids', () => {
    expect(() => new LocationIndex([loc('x', 'A', 'state', null, 1), loc('x', 'B', 'state', null, 2)])).toThrow(/duplicate/);
  });
});

describe('against a brute-force reference', () => {
  // A deterministic generator (mulberry32).
  let seed = 42;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const syllables = ['ber', 'lin', 'mün', 'chen', 'ham', 'burg', 'köln', 'dorf', 'stadt', 'bach', 'heim', 'au', 'feld', 'ß', 'straße', 'ober', 'neu', 'bad', 'sankt', 'ö', 'ue', 'ae', 'hal', 'le', 'a'];
  const word = () => {
    let s = '';
    for (let k = 1 + Math.floor(random() * 3); k > 0; k--) s += pick(syllables);
    return s.charAt(0).toUpperCase() + s.slice(1);
  };
  const separators = [' ', '-', ' (', ') ', '. ', ' am '];
  const items: LocationItem[] = [];
  for (let i = 0; i < 400; i++) {
    let name = word();
    if (random() < 0.4) name += pick(separators) + word();
    items.push(loc(`i${i}`, name, pick(['state', 'district', 'municipality']), `p${Math.floor(random() * 12)}`, Math.floor(random() * 50)));
  }
  const big = new LocationIndex(items);

  const forms = (text: string) => [...new Set([foldLocationName(text), foldLocationName(text, true)])].filter(Boolean);
  const trigramCache = new Map<string, Int32Array>();
  const trigrams = (text: string) => {
    let set = trigramCache.get(text);
    if (!set) trigramCache.set(text, (set = trigramSet(text)));
    return set;
  };
  const LAYERS: LocationMatchLayer[] = ['exact', 'prefix', 'substring', 'fuzzy'];
  function reference(q: string, type: string | null, parent: string | null): [string, LocationMatchLayer, number | null][] {
    const rows: { item: LocationItem; layer: number; sim: number }[] = [];
    for (const item of items) {
      if ((type && item.location_type !== type) || (parent && item.parent_id !== parent)) continue;
      let layer = 9;
      let sim = 0;
      for (const qf of forms(q)) {
        for (const nf of forms(item.name)) {
          if (nf === qf) layer = Math.min(layer, 0);
          else if (nf.startsWith(qf)) layer = Math.min(layer, 1);
          else if (nf.includes(qf)) layer = Math.min(layer, 2);
          else {
            const s = setSimilarity(trigrams(qf), trigrams(nf));
            if (s >= 0.3) {
              layer = Math.min(layer, 3);
              sim = Math.max(sim, s);
            }
          }
        }
      }
      if (layer < 9) rows.push({ item, layer, sim: layer === 3 ? sim : 0 });
    }
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    rows.sort((a, b) => a.layer - b.layer || b.sim - a.sim || b.item.doc_count - a.item.doc_count || cmp(a.item.name, b.item.name) || cmp(a.item.location_id, b.item.location_id));
    return rows.slice(0, 100).map((r) => [r.item.location_id, LAYERS[r.layer]!, r.layer === 3 ? r.sim : null]);
  }

  const queries: string[] = [];
  for (let k = 0; k < 60; k++) {
    const name = pick(items).name;
    const start = Math.floor(random() * name.length);
    queries.push(name.slice(start, start + 2 + Math.floor(random() * 8))); // substrings
    const cut = Math.floor(random() * name.length);
    queries.push(name.slice(0, cut) + name.slice(cut + 1)); // a deleted character
    queries.push(word()); // something else
  }

  it('includes short queries whose layers are too big to sort (read off the global order)', () => {
    const crowded = queries.filter((q) => big.rankedSearch({ q, limit: 100 }).filter((m) => m.layer === 'substring').length > 64);
    expect(crowded.length).toBeGreaterThan(0);
  });

  it.each([
    ['no filter', null, null],
    ['a type (scanned)', 'municipality', null],
    ['a parent (checked one by one)', null, 'p3'],
    ['a parent and a type', 'district', 'p7'],
  ] as const)('agrees with %s', (_label, type, parent) => {
    for (const q of queries) {
      if (!forms(q).length) continue;
      const mine = big.rankedSearch({ q, location_type: type, parent_id: parent, limit: 100 });
      expect([q, mine.map((m) => [m.item.location_id, m.layer, m.similarity])]).toEqual([q, reference(q, type, parent)]);
    }
  });
});

describe('aliases', () => {
  const aliased = new LocationIndex(ITEMS, (item) => (item.name === 'München' ? { names: ['Munich'], codes: ['DE-BY-M'] } : { names: [], codes: [] }));

  it('an alias is matched like the name in every layer; the item appears once, in its best layer', () => {
    expect(aliased.rankedSearch({ q: 'munich' }).filter((match) => match.item.name === 'München').map((match) => match.layer)).toEqual(['exact']);
    expect(aliased.rankedSearch({ q: 'Muni' }).some((match) => match.item.name === 'München' && match.layer === 'prefix')).toBe(true);
    expect(new Set(aliased.rankedSearch({ q: 'munich', limit: 100 }).map((match) => match.item.location_id)).size).toBe(aliased.rankedSearch({ q: 'munich', limit: 100 }).length);
  });

  it('a code is matched exactly only', () => {
    expect(aliased.rankedSearch({ q: 'de-by-m' }).filter((match) => match.item.name === 'München').map((match) => match.layer)).toEqual(['exact']);
    expect(aliased.rankedSearch({ q: 'de by' }).some((match) => match.item.name === 'München')).toBe(false);
  });

  it('without aliases, nothing changes', () => {
    expect(index.rankedSearch({ q: 'munich' }).some((match) => match.item.name === 'München' && match.layer === 'exact')).toBe(false);
  });
});
