/**
 * Where the map of counts puts places (src/engine/dataset/place-coordinates.ts), checked against the
 * raw geography asset and against where the places really are.
 */
import asset from '../../src/engine/data/geography.json' with { type: 'json' };
import type { GeographyAsset } from '../../src/engine/dataset/geography.js';
import { placeCoordinates } from '../../src/engine/dataset/place-coordinates.js';

const raw = asset as GeographyAsset;
const near = (at: readonly [number, number] | undefined, lat: number, lon: number, within: number): boolean => at !== undefined && Math.abs(at[0] - lat) < within && Math.abs(at[1] - lon) < within;

test('municipalities, states and countries lie where they are', () => {
  const found = placeCoordinates('municipality', ['München', 'Hamburg', 'Graz', 'Nowhere-on-earth']);
  expect(near(found['München'], 48.14, 11.58, 0.2)).toBe(true);
  expect(near(found.Hamburg, 53.55, 10.0, 0.3)).toBe(true);
  expect(near(found.Graz, 47.07, 15.44, 0.2)).toBe(true);
  expect(found).not.toHaveProperty('Nowhere-on-earth');
  expect(near(placeCoordinates('state', ['Bayern']).Bayern, 48.9, 11.4, 1)).toBe(true);
  expect(near(placeCoordinates('country', ['Deutschland']).Deutschland, 51, 10, 2)).toBe(true);
});

test('of namesakes, a municipality is the most populous one', () => {
  const byName = new Map<string, GeographyAsset['municipalities']>();
  for (const m of raw.municipalities) if (m.lat !== null && m.lon !== null) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
  const [name, namesakes] = [...byName].find(([, list]) => list.length > 1 && new Set(list.map((m) => m.population)).size === list.length) ?? ['', []];
  expect(namesakes.length).toBeGreaterThan(1);
  const biggest = [...namesakes].sort((a, b) => b.population - a.population)[0];
  expect(placeCoordinates('municipality', [name])[name]).toEqual([biggest?.lat, biggest?.lon]);
});
