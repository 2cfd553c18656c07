/** Filter values as users spell them: case, accents, exonyms, codes; unknown values named with the closest known ones. */
import { createDefaultEngine, createEngine } from '../../src/engine/index.js';
import { EXONYMS } from '../../src/engine/locations/exonyms.js';
import { foldLocationName } from '../../src/engine/locations/location-index.js';
import { MAX_SUGGESTED, MAX_WARNINGS } from '../../src/engine/query/filter-values.js';
import type { Filters } from '../../src/contract/v2/filters.js';
import { FIXTURE } from './fixtures.js';

const index = createEngine(FIXTURE, { now: () => 0 });

function searchWith(filters: Filters, view = index) {
  return view.search({ filters, size: 100, columns: ['domain'] });
}

function domainsOf(filters: Filters, view = index): string[] {
  return searchWith(filters, view).data.map((row) => row.domain);
}

describe('a value spelled another way finds the index spelling, and filters_applied echoes that', () => {
  test.each([
    ['country', ['germany'], 'Deutschland'],
    ['country', ['DEUTSCHLAND'], 'Deutschland'],
    ['country', ['  deutschland '], 'Deutschland'],
    ['country', ['DE'], 'Deutschland'],
    ['country', ['Allemagne'], 'Deutschland'],
    ['country', ['Austria'], 'Österreich'],
    ['country', ['oesterreich'], 'Österreich'],
    ['state', ['Bavaria'], 'Bayern'],
    ['state', ['de-by'], 'Bayern'],
    ['municipality', ['munchen'], 'München'],
    ['municipality', ['Muenchen'], 'München'],
    ['municipality', ['MUNICH'], 'München'],
    ['company_register_court', ['amtsgericht munchen'], 'Amtsgericht München'],
    ['summary_keywords', ['Software'], 'software'],
  ] as const)('%s %j → %s', (key, sent, stored) => {
    const typed = searchWith({ [key]: sent });
    const exact = searchWith({ [key]: [stored] });
    expect(exact.metadata.total_hits).toBeGreaterThan(0);
    expect(typed.data).toEqual(exact.data);
    expect(typed.metadata.filters_applied).toEqual({ [key]: [stored] });
    expect(typed.metadata).not.toHaveProperty('warnings');
  });

  test('stats resolve the same way', () => {
    const typed = index.stats({ group_by: 'state', filters: { country: ['Germany'] } });
    expect(typed.data).toEqual(index.stats({ group_by: 'state', filters: { country: ['Deutschland'] } }).data);
    expect(typed.metadata.filters_applied).toEqual({ country: ['Deutschland'] });
  });

  test('a key scope may be spelled the way users spell it', () => {
    const austria = createEngine(FIXTURE, { visibility: { country: ['Austria'] } });
    expect(domainsOf({})).not.toEqual(domainsOf({}, austria));
    expect(domainsOf({}, austria)).toEqual(domainsOf({ country: ['Österreich'] }));
  });
});

describe('a value matching nothing is said so, with the closest known values', () => {
  test('a misspelt country: 0 hits, the value echoed as sent, a warning naming the closest value', () => {
    const answer = searchWith({ country: ['Germny'] });
    expect(answer.metadata.total_hits).toBe(0);
    expect(answer.metadata.filters_applied).toEqual({ country: ['Germny'] });
    expect(answer.metadata.warnings).toEqual([
      { field: 'filters.country', value: 'Germny', message: 'No organization has country "Germny"; closest known values: "Deutschland".', closest: ['Deutschland'] },
    ]);
  });

  test('a place sent at the wrong level names the level it exists at', () => {
    const [warning] = searchWith({ state: ['Munich'] }).metadata.warnings ?? [];
    expect(warning?.closest).toEqual(['München']);
    expect(warning?.message).toContain('a municipality (filters.municipality)');
  });

  test('nothing close: the warning says where the values are listed', () => {
    const [warning] = searchWith({ municipality: ['Xyzzy'] }).metadata.warnings ?? [];
    expect(warning).toMatchObject({ closest: [], message: expect.stringContaining('GET /v2/locations/search') as unknown });
    const [tag] = searchWith({ summary_keywords: ['qqqqq'] }).metadata.warnings ?? [];
    expect(tag?.message).toContain('GET /v2/filters/options');
  });

  test('known values beside an unknown one still match, and only the unknown one is named', () => {
    const answer = searchWith({ country: ['Germany', 'Narnia'] });
    expect(answer.metadata.filters_applied).toEqual({ country: ['Deutschland', 'Narnia'] });
    expect(answer.data).toEqual(searchWith({ country: ['Deutschland'] }).data);
    expect(answer.metadata.warnings?.map((warning) => warning.value)).toEqual(['Narnia']);
  });

  test('a long list of unknown values: closest values for the first few, at most MAX_WARNINGS named, the rest counted', () => {
    const sent = Array.from({ length: 5_000 }, (_, i) => `Berln ${String(i)}`);
    const warnings = searchWith({ municipality: sent }).metadata.warnings ?? [];
    expect(warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(warnings.slice(MAX_SUGGESTED, MAX_WARNINGS).every((warning) => warning.closest.length === 0)).toBe(true);
    expect(warnings[0]?.closest).toEqual(['Berlin']);
    expect(warnings[MAX_WARNINGS]?.message).toBe(`${String(5_000 - MAX_WARNINGS)} more filter values match no organization.`);
  });
});

describe('a scoped key learns nothing about values outside its scope', () => {
  const austria = createEngine(FIXTURE, { visibility: { country: ['Österreich'] } });

  test('a value that exists outside the scope gets the same answer as one that exists nowhere', () => {
    const template = (sent: string) => searchWith({ country: [sent] }, austria).metadata.warnings?.[0]?.message.replace(JSON.stringify(sent), '"…"');
    expect(template('Narnia')).toBe('No organization visible to this key has country "…"; GET /v2/locations/search?q=… finds places by name.');
    for (const sent of ['Germany', 'Deutschland', 'DE', 'Germny', 'München', 'Bavaria']) {
      const answer = searchWith({ country: [sent] }, austria);
      expect(answer.metadata.total_hits).toBe(0);
      expect(answer.metadata.filters_applied).toEqual({ country: [sent] });
      expect(template(sent)).toBe(template('Narnia'));
    }
  });

  test('closest values come from the scope only', () => {
    const [warning] = searchWith({ country: ['Osterreik'] }, austria).metadata.warnings ?? [];
    expect(warning?.closest).toEqual(['Österreich']);
    expect(warning?.message).toMatch(/^No organization visible to this key has country/);
  });
});

describe('the exonym table', () => {
  test('an exonym that folds to a place the sample spells stands for that same place', () => {
    const sample = createDefaultEngine();
    const places = new Map<string, Set<string>>();
    for (const level of ['country', 'state', 'region', 'district', 'municipality'] as const) {
      for (const name of sample.store.categorical[level].dict.values) {
        if (name === null) continue;
        for (const folded of [foldLocationName(name), foldLocationName(name, true)]) places.set(folded, (places.get(folded) ?? new Set()).add(name));
      }
    }
    const hidden = Object.entries(EXONYMS).filter(([exonym, natives]) => {
      const named = places.get(foldLocationName(exonym));
      return named !== undefined && ![...named].some((name) => natives.includes(name));
    });
    expect(hidden).toEqual([]);
  });
});

describe('the location search knows the names and codes filters accept', () => {
  const sample = createDefaultEngine();
  const first = (q: string, location_type?: 'state' | 'municipality'): string | undefined => {
    const [top] = sample.locationSearch({ q, limit: 3, ...(location_type ? { location_type } : {}) }).items;
    return top ? `${top.name} (${top.location_type})` : undefined;
  };

  test.each([
    ['Munich', 'municipality', 'München (municipality)'],
    ['munich', undefined, 'München (district)'],
    ['Bavaria', undefined, 'Bayern (state)'],
    ['Vienna', undefined, 'Wien (state)'],
    ['Cologne', 'municipality', 'Köln (municipality)'],
    ['Germany', undefined, 'Deutschland (country)'],
    ['DE-BY', undefined, 'Bayern (state)'],
    ['de-by', undefined, 'Bayern (state)'],
    ['DE', undefined, 'Deutschland (country)'],
    ['Zurich', undefined, 'Zürich (state)'],
    ['BAYERN', undefined, 'Bayern (state)'],
    ['NRW', undefined, 'Nordrhein-Westfalen (state)'],
    ['Nuremberg', 'municipality', 'Nürnberg (municipality)'],
    ['Austria', undefined, 'Österreich (country)'],
  ] as const)('%s (type %s) → %s first', (q, type, expected) => {
    expect(first(q, type)).toBe(expected);
  });

  test('a code matches exactly only: "de" does not make every German state a prefix match', () => {
    const states = sample.locationSearch({ q: 'de', location_type: 'state', limit: 50 }).items.map((item) => item.name);
    expect(states).not.toContain('Bayern');
    expect(states).not.toContain('Hessen');
  });
});
