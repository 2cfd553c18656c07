/**
 * The map of counts on the default sample: every country, state and municipality the sample counts has
 * a point (src/engine/dataset/place-coordinates.ts), and each point lies in its own country of the
 * Natural Earth outline the bundles carry (world-atlas cut down by scripts/web/world-outline.mjs), so a
 * state matched to the wrong code shows here. The German state map names its largest states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geoContains } from 'd3-geo';
import type { Feature } from 'geojson';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import { outlineOf } from '../../scripts/web/world-outline.mjs';
import asset from '../../src/engine/data/geography.json' with { type: 'json' };
import type { Coordinates } from '../../src/contract/common.js';
import { createEngine, DEFAULT_DATASET, generateDataset } from '../../src/index.js';
import { geography, type GeographyAsset } from '../../src/engine/dataset/geography.js';
import { placeCoordinates } from '../../src/engine/dataset/place-coordinates.js';
import { countMap } from '../../src/ui/world-map.js';

/** ISO 3166-1 numeric codes, the ids of world-atlas's countries. */
const NUMERIC: Record<string, string> = { MA: '504', DE: '276', AT: '040', CH: '756', FR: '250', IT: '380', ES: '724', NL: '528', BE: '056', PL: '616', DK: '208', CZ: '203', LU: '442', SE: '752' };

const raw = asset as GeographyAsset;
const rows = generateDataset(DEFAULT_DATASET);
const engine = createEngine(rows);
const world: Topology = JSON.parse(readFileSync(join(process.cwd(), 'node_modules/world-atlas/countries-50m.json'), 'utf8'));
const outline = outlineOf(world);
const shapes = new Map<string, Feature>(feature(outline, outline.objects.countries).features.map((shape) => [String(shape.id), shape]));

/** The sample's values of a level with their counts, from a stats request over the whole sample. */
function counted(level: 'country' | 'state', filters: Record<string, string[]> = {}): { value: string; count: number }[] {
  const { data } = engine.stats({ group_by: level, limit: 500, filters });
  const buckets = data.flatMap((bucket) => {
    const value = bucket[level];
    return typeof value === 'string' ? [{ value, count: bucket.count }] : [];
  });
  expect(buckets.length).toBeLessThan(500);
  return buckets;
}

/** Whether a point is in the country's polygon, or within `km` of it (a town on a coast or an island coarser at 1:50m). */
function inCountry(code: string, [lat, lon]: Coordinates, km = 3): boolean {
  const shape = shapes.get(NUMERIC[code] ?? '');
  if (!shape) return false;
  const around: [number, number][] = [[0, 0], ...Array.from({ length: 8 }, (_, i): [number, number] => [Math.sin((i * Math.PI) / 4), Math.cos((i * Math.PI) / 4)])];
  const step = km / 111;
  return around.some(([dLat, dLon]) => geoContains(shape, [lon + (dLon * step) / Math.cos((lat * Math.PI) / 180), lat + dLat * step]));
}

test('every country the sample counts has a point inside it', () => {
  const countries = counted('country');
  expect(countries).toHaveLength(13);
  const at = placeCoordinates('country', countries.map(({ value }) => value));
  const codeOf = new Map(raw.countries.map((country) => [country.name, country.country_code]));
  const outside = countries.filter(({ value }) => !(at[value] && inCountry(codeOf.get(value) ?? '', at[value])));
  expect(outside).toEqual([]);
});

test('every state the sample counts has a point inside its country', () => {
  const states = counted('state');
  expect(states.length).toBeGreaterThan(150);
  const at = placeCoordinates('state', states.map(({ value }) => value));
  const countryOf = new Map(raw.areas.filter((area) => area.level === 'state').map((area) => [area.name, area.parent]));
  const outside = states.filter(({ value }) => !(at[value] && inCountry(countryOf.get(value) ?? '', at[value], 12))).map(({ value }) => value);
  // Spain's two cities on the African coast: Natural Earth's 1:50m outline draws them as part of Morocco.
  expect(outside.sort()).toEqual(['Ceuta', 'Melilla']);
  for (const city of outside) expect(inCountry('MA', at[city] ?? [0, 0])).toBe(true);
  // Within a country the outline cannot tell two states apart: the states matched by code, by hand and at
  // the name floor stand at their own largest cities.
  const largestCities: [string, number, number][] = [
    ['Dolnośląskie', 51.11, 17.03], ['Wielkopolskie', 52.41, 16.93], ['Jihomoravský kraj', 49.2, 16.61], ['Hlavní město Praha', 50.09, 14.42],
    ['Bretagne', 48.11, -1.68], ['País Vasco', 43.26, -2.93], ['Region Hovedstaden', 55.68, 12.57], ['Region Midtjylland', 56.16, 10.2],
    ['Toscana', 43.77, 11.25], ['Canarias', 28.1, -15.41], ['Région wallonne', 50.41, 4.44],
  ];
  for (const [state, lat, lon] of largestCities) expect([state, Math.hypot((at[state]?.[0] ?? 0) - lat, (at[state]?.[1] ?? 0) - lon) < 0.1]).toEqual([state, true]);
});

test('every municipality of the sample has a point inside its country, or off its coast', () => {
  const names = new Set(rows.flatMap((row) => (row.municipality ? [row.municipality] : [])));
  expect(names.size).toBeGreaterThan(1000);
  // A name of two countries' municipalities (Brand, Winklarn) stands at its most populous namesake, in either.
  const countriesOf = new Map<string, Set<string>>();
  for (const place of [...geography().places.values()].flat()) {
    if (place.municipality && names.has(place.municipality)) countriesOf.set(place.municipality, (countriesOf.get(place.municipality) ?? new Set()).add(place.country_code));
  }
  const at = placeCoordinates('municipality', [...names]);
  const off = (km: number) => [...names].filter((name) => !(at[name] && [...(countriesOf.get(name) ?? [])].some((code) => inCountry(code, at[name] ?? [0, 0], km))));
  // The North Frisian and East Frisian islands and Helgoland: too small for the 1:50m outline, yet near its coast.
  // Which of them the sample fills depends on the sample; no other place may be off.
  const islands = ['Borkum', 'Helgoland', 'Juist', 'List auf Sylt', 'Pellworm', 'Wyk auf Föhr'];
  expect(off(12).filter((name) => !islands.includes(name))).toEqual([]);
  expect(off(60)).toEqual([]);
});

test('the map of German states names the largest ones, each name clear of the others and inside the frame', () => {
  const states = counted('state', { country: ['Deutschland'] });
  const at = placeCoordinates('state', states.map(({ value }) => value));
  const map = countMap(states.map(({ value, count }) => ({ name: value, count, point: at[value] ?? [0, 0] })), 320);
  const names = map.labels.map((label) => label.name);
  const largest = [...states].sort((a, b) => b.count - a.count).slice(0, 6).map(({ value }) => value);
  expect(largest.slice(0, 3)).toEqual(['Nordrhein-Westfalen', 'Bayern', 'Baden-Württemberg']);
  expect(names).toEqual(expect.arrayContaining(largest));
  const boxes = map.labels.map((label) => {
    const width = label.name.length * label.size * 0.6;
    const left = label.anchor === 'start' ? label.x : label.anchor === 'end' ? label.x - width : label.x - width / 2;
    return { left, right: left + width, top: label.y - label.size * 0.8, bottom: label.y + label.size * 0.25 };
  });
  for (const [i, box] of boxes.entries()) {
    expect(box.left >= 0 && box.right <= 320 && box.top >= 0 && box.bottom <= map.base.height).toBe(true);
    for (const other of boxes.slice(i + 1)) expect(box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom).toBe(false);
  }
  // Every circle lies in the frame: the projection was fitted to the points.
  for (const circle of map.circles) expect(circle.x > 0 && circle.x < 320 && circle.y > 0 && circle.y < map.base.height).toBe(true);
});
