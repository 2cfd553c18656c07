/** Invariants of the committed geography asset (src/engine/data/geography.json, see its README). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface Source { name: string; version: string; licence: string; url: string; used_for: string }
interface Country { country_code: string; name: string; continent: string; locale: string; weight: number; lat?: number; lon?: number }
interface Area {
  id: string; level: string; name: string; code: string | null; parent: string;
  population?: number; lat?: number; lon?: number; type?: string;
}
interface Municipality {
  id: string; name: string; code: string | null; parent: string;
  lat: number; lon: number; population: number; postcodes?: string[];
}
interface Asset { sources: Source[]; countries: Country[]; areas: Area[]; municipalities: Municipality[]; streets: string[] }

const asset = JSON.parse(readFileSync(path.resolve(__dirname, '../../src/engine/data/geography.json'), 'utf8')) as Asset;
const areaById = new Map(asset.areas.map((a) => [a.id, a]));
const countryCodes = new Set(asset.countries.map((c) => c.country_code));

/** Country code of any area or municipality, following parents. */
function countryOf(parent: string): string {
  let id = parent;
  for (let i = 0; i < 8; i++) {
    if (countryCodes.has(id)) return id;
    const area = areaById.get(id);
    if (!area) throw new Error(`no parent ${id}`);
    id = area.parent;
  }
  throw new Error(`parent chain too long from ${parent}`);
}
/** The chain of levels above a parent id, e.g. ['district', 'region', 'state']. */
function levelsAbove(parent: string): string[] {
  const levels: string[] = [];
  let area = areaById.get(parent);
  while (area) {
    levels.push(area.level);
    area = areaById.get(area.parent);
  }
  return levels;
}
const states = (cc: string): Area[] => asset.areas.filter((a) => a.level === 'state' && a.parent === cc);
const municipalitiesOf = (cc: string): Municipality[] => asset.municipalities.filter((m) => countryOf(m.parent) === cc);

describe('geography asset', () => {
  test('records its sources with versions and licences', () => {
    expect(asset.sources.length).toBeGreaterThanOrEqual(5);
    for (const s of asset.sources) {
      for (const field of [s.name, s.version, s.licence, s.url, s.used_for]) expect(field).toMatch(/\S/);
    }
    const licences = asset.sources.map((s) => s.licence).join(' ');
    expect(licences).toMatch(/ODbL/);
    expect(licences).toMatch(/CC-BY-4\.0/);
  });

  test('countries: native names, Europe, weights summing to 1', () => {
    const names = Object.fromEntries(asset.countries.map((c) => [c.country_code, c.name]));
    expect(names).toMatchObject({
      DE: 'Deutschland', AT: 'Österreich', CH: 'Schweiz', FR: 'France', IT: 'Italia', ES: 'España',
      NL: 'Nederland', PL: 'Polska', DK: 'Danmark', SE: 'Sverige',
    });
    for (const c of asset.countries) {
      expect(c.country_code).toMatch(/^[A-Z]{2}$/);
      expect(c.continent).toBe('Europe');
      expect(c.locale).toMatch(/^[a-z]{2}$/);
      expect(c.weight).toBeGreaterThan(0);
    }
    expect(asset.countries.reduce((s, c) => s + c.weight, 0)).toBeCloseTo(1, 9);
    expect(asset.countries.find((c) => c.country_code === 'DE')?.weight).toBe(0.8);
  });

  test('ids are unique, every parent exists, levels are state/region/district', () => {
    const ids = [...asset.areas, ...asset.municipalities].map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    const known = new Set([...ids, ...countryCodes]);
    for (const x of [...asset.areas, ...asset.municipalities]) expect(known.has(x.parent)).toBe(true);
    for (const a of asset.areas) expect(['state', 'region', 'district']).toContain(a.level);
    for (const a of asset.areas.filter((x) => x.level === 'state')) expect(countryCodes.has(a.parent)).toBe(true);
  });

  describe('Germany', () => {
    const deStates = states('DE');
    const landOf = new Map<string, string>(); // ISO state code -> 2-digit AGS prefix of its districts
    for (const d of asset.areas.filter((a) => a.level === 'district' && countryOf(a.parent) === 'DE')) {
      let s = areaById.get(d.parent)!;
      while (s.level !== 'state') s = areaById.get(s.parent)!;
      landOf.set(s.id, d.code!.slice(0, 2));
    }

    test('16 states in native spelling with ISO 3166-2 codes', () => {
      expect(deStates.map((s) => s.name).sort()).toEqual([
        'Baden-Württemberg', 'Bayern', 'Berlin', 'Brandenburg', 'Bremen', 'Hamburg', 'Hessen',
        'Mecklenburg-Vorpommern', 'Niedersachsen', 'Nordrhein-Westfalen', 'Rheinland-Pfalz', 'Saarland',
        'Sachsen', 'Sachsen-Anhalt', 'Schleswig-Holstein', 'Thüringen',
      ]);
      for (const s of deStates) {
        expect(s.code).toBe(s.id);
        expect(s.code).toMatch(/^DE-[A-Z]{2}$/);
      }
      expect(areaById.get('DE-BY')?.name).toBe('Bayern');
      expect(areaById.get('DE-NW')?.name).toBe('Nordrhein-Westfalen');
    });

    test('each state is one AGS Land', () => {
      expect(landOf.size).toBe(16);
      expect(new Set(landOf.values()).size).toBe(16);
      expect(landOf.get('DE-BY')).toBe('09');
      expect(landOf.get('DE-NW')).toBe('05');
      expect(landOf.get('DE-SH')).toBe('01');
      expect(landOf.get('DE-TH')).toBe('16');
    });

    test('the 19 Regierungsbezirke, under exactly BW, BY, HE and NW', () => {
      const regions = asset.areas.filter((a) => a.level === 'region');
      expect(regions.every((r) => r.id.startsWith('DE-'))).toBe(true);
      expect(regions).toHaveLength(19);
      const perState: Record<string, number> = {};
      for (const r of regions) perState[r.parent] = (perState[r.parent] ?? 0) + 1;
      expect(perState).toEqual({ 'DE-BW': 4, 'DE-BY': 7, 'DE-HE': 3, 'DE-NW': 5 });
      for (const r of regions) {
        expect(r.code).toMatch(/^\d{3}$/);
        expect(r.id).toBe(`DE-${r.code}`);
        expect(r.code!.slice(0, 2)).toBe(landOf.get(r.parent));
      }
      expect(regions.map((r) => r.name)).toEqual(expect.arrayContaining(['Oberbayern', 'Mittelfranken', 'Köln', 'Düsseldorf', 'Stuttgart', 'Darmstadt']));
    });

    test('every district hangs under its region, or under its state where there is none', () => {
      const districts = asset.areas.filter((a) => a.level === 'district' && countryOf(a.parent) === 'DE');
      expect(districts).toHaveLength(400);
      for (const d of districts) {
        expect(d.code).toMatch(/^\d{5}$/);
        expect(d.id).toBe(`DE-${d.code}`);
        const parent = areaById.get(d.parent)!;
        if (parent.level === 'region') {
          expect(d.code!.startsWith(parent.code!)).toBe(true);
          expect(levelsAbove(d.parent)).toEqual(['region', 'state']);
        } else {
          expect(parent.level).toBe('state');
          expect(['DE-BW', 'DE-BY', 'DE-HE', 'DE-NW']).not.toContain(parent.id);
          expect(d.code!.slice(0, 2)).toBe(landOf.get(parent.id));
        }
      }
      const names = new Set(districts.map((d) => d.name));
      expect(names.size).toBe(districts.length);
      for (const n of ['München', 'Landkreis München', 'Region Hannover', 'Kreis Dithmarschen', 'Rhein-Kreis Neuss']) expect(names).toContain(n);
    });

    test('at least 2,000 municipalities with 8-digit AGS under their district', () => {
      const ms = municipalitiesOf('DE');
      expect(ms.length).toBeGreaterThanOrEqual(2000);
      const bad = ms.filter((m) => {
        const district = areaById.get(m.parent);
        return !/^\d{8}$/.test(m.code ?? '') || m.id !== `DE-${m.code}` || district?.level !== 'district'
          || !m.code!.startsWith(district.code!) || !Number.isInteger(m.population) || m.population <= 0;
      });
      expect(bad).toEqual([]);
    });

    test('native municipality names, no English exonyms', () => {
      const byName = new Map(municipalitiesOf('DE').map((m) => [m.name, m]));
      expect(byName.get('München')?.code).toBe('09162000');
      expect(byName.get('Köln')?.code).toBe('05315000');
      expect(byName.get('Nürnberg')?.code).toBe('09564000');
      expect(byName.get('Hannover')?.code).toBe('03241001');
      expect(byName.get('Braunschweig')?.code).toBe('03101000');
      expect(byName.get('Frankfurt am Main')?.code).toBe('06412000');
      const all = new Set([...asset.municipalities, ...asset.areas].map((x) => x.name));
      for (const exonym of ['Munich', 'Cologne', 'Nuremberg', 'Hanover', 'Brunswick', 'Bavaria', 'Vienna', 'Zurich', 'Geneva']) {
        expect(all.has(exonym)).toBe(false);
      }
    });

    test('München: the full chain and real postcodes', () => {
      const m = asset.municipalities.find((x) => x.id === 'DE-09162000')!;
      expect(m.name).toBe('München');
      const district = areaById.get(m.parent)!;
      const region = areaById.get(district.parent)!;
      const state = areaById.get(region.parent)!;
      expect([district.name, district.code, region.name, region.code, state.name, state.code, state.parent])
        .toEqual(['München', '09162', 'Oberbayern', '091', 'Bayern', 'DE-BY', 'DE']);
      expect(m.postcodes).toContain('80331');
    });

    test('postcodes are five digits, sorted and unique per municipality', () => {
      const withPostcodes = municipalitiesOf('DE').filter((m) => m.postcodes);
      expect(withPostcodes.length).toBeGreaterThan(5000);
      const bad = withPostcodes.filter((m) => m.postcodes!.length === 0 || m.postcodes!.some((p) => !/^\d{5}$/.test(p))
        || [...new Set(m.postcodes)].sort().join() !== m.postcodes!.join());
      expect(bad).toEqual([]);
    });
  });

  test('Austria: 9 states in native spelling, districts and municipalities', () => {
    expect(states('AT').map((s) => s.name).sort()).toEqual([
      'Burgenland', 'Kärnten', 'Niederösterreich', 'Oberösterreich', 'Salzburg', 'Steiermark', 'Tirol', 'Vorarlberg', 'Wien',
    ]);
    expect(areaById.get('AT-9')?.name).toBe('Wien');
    const ms = municipalitiesOf('AT');
    expect(ms.length).toBeGreaterThan(1000);
    for (const m of ms) {
      expect(levelsAbove(m.parent)).toEqual(['district', 'state']);
      if (m.code !== null) {
        expect(m.code).toMatch(/^\d{5}$/);
        expect(m.code.slice(0, 3)).toBe(areaById.get(m.parent)!.code);
      }
    }
    const names = new Set(ms.map((m) => m.name));
    for (const n of ['Wien', 'Graz', 'Linz', 'Salzburg', 'Innsbruck', 'Klagenfurt am Wörthersee']) expect(names).toContain(n);
  });

  test('Switzerland: 26 cantons in their own language', () => {
    const cantons = states('CH');
    expect(cantons).toHaveLength(26);
    for (const c of cantons) expect(c.code).toMatch(/^CH-[A-Z]{2}$/);
    const names = cantons.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['Zürich', 'Bern', 'Genève', 'Ticino', 'Vaud', 'Graubünden', 'Luzern', 'Valais']));
  });

  test('the tail: first-level subdivisions in native spelling, nothing overseas', () => {
    for (const cc of ['FR', 'IT', 'ES', 'NL', 'BE', 'PL', 'DK', 'CZ', 'LU', 'SE']) expect(states(cc).length).toBeGreaterThan(0);
    const names = new Set(asset.areas.map((a) => a.name));
    for (const n of ['Île-de-France', 'Lombardia', 'Catalunya', 'Noord-Holland', 'Mazowieckie', 'Stockholms län', 'Région wallonne']) {
      expect(names).toContain(n);
    }
    expect(states('FR')).toHaveLength(13);
    expect(states('IT')).toHaveLength(20);
    expect(states('NL')).toHaveLength(12);
    for (const a of asset.areas) expect(a.id).not.toMatch(/^(FR-97|NL-(AW|CW|SX|BQ))/);
  });

  test('the tail: every state and country has a point for the map, and no population (the generator spreads the tail evenly)', () => {
    const tail = ['FR', 'IT', 'ES', 'NL', 'BE', 'PL', 'DK', 'CZ', 'LU', 'SE'];
    for (const cc of tail) {
      for (const s of states(cc)) {
        expect(typeof s.lat === 'number' && typeof s.lon === 'number').toBe(true);
        expect(s.population).toBeUndefined();
      }
      const country = asset.countries.find((c) => c.country_code === cc);
      expect(typeof country?.lat === 'number' && typeof country.lon === 'number').toBe(true);
    }
    for (const cc of ['DE', 'AT', 'CH']) expect(asset.countries.find((c) => c.country_code === cc)?.lat).toBeUndefined();
  });

  test('coordinates lie inside their country', () => {
    const box: Record<string, [number, number, number, number]> = {
      DE: [47.2, 55.1, 5.8, 15.1], AT: [46.3, 49.1, 9.5, 17.2], CH: [45.8, 47.9, 5.9, 10.5],
      FR: [41.3, 51.1, -5.2, 9.6], IT: [35.4, 47.1, 6.6, 18.6], ES: [27.6, 43.8, -18.2, 4.4], NL: [50.7, 53.6, 3.3, 7.3],
      BE: [49.5, 51.5, 2.5, 6.4], PL: [49.0, 54.9, 14.1, 24.2], DK: [54.5, 57.8, 8.0, 15.2], CZ: [48.5, 51.1, 12.1, 18.9],
      LU: [49.4, 50.2, 5.7, 6.6], SE: [55.3, 69.1, 11.0, 24.2],
    };
    const countryPoints = asset.countries.filter((c) => c.lat !== undefined).map((c) => ({ parent: c.country_code, lat: c.lat, lon: c.lon }));
    const points = [...asset.municipalities, ...asset.areas.filter((a) => a.lat !== undefined), ...countryPoints];
    expect(points.length).toBeGreaterThan(2000);
    const outside = points.filter((p) => {
      const b = box[countryOf(p.parent)];
      if (!b || p.lat === undefined || p.lon === undefined) return true;
      const [latMin, latMax, lonMin, lonMax] = b;
      return !(p.lat >= latMin && p.lat <= latMax && p.lon >= lonMin && p.lon <= lonMax);
    });
    expect(outside).toEqual([]);
  });

  test('streets: unique German street names, abbreviations written out', () => {
    expect(asset.streets.length).toBeGreaterThan(500);
    expect(new Set(asset.streets).size).toBe(asset.streets.length);
    for (const s of asset.streets) expect(s).not.toMatch(/str\.$/i);
  });
});
