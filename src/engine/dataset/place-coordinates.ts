/**
 * Where the places of the embedded geography lie, for drawing counts on a map: a municipality at its
 * own coordinates (of namesakes, the most populous one), a state or country at the population-weighted
 * centre of its places. Names are matched as the index spells them (native spelling).
 */
import type { Coordinates, MapLevel } from '../../contract/common.js';
import { geography } from './geography.js';

const cached = new Map<MapLevel, Map<string, Coordinates>>();

function coordinatesAt(level: MapLevel): Map<string, Coordinates> {
  const known = cached.get(level);
  if (known) return known;
  const sums = new Map<string, { lat: number; lon: number; weight: number; best: number }>();
  for (const places of geography().places.values()) {
    for (const place of places) {
      const name = place[level];
      if (name === null || place.lat === null || place.lon === null) continue;
      const sum = sums.get(name) ?? { lat: 0, lon: 0, weight: 0, best: -1 };
      if (level === 'municipality') {
        // Namesakes: the most populous one.
        if (place.population > sum.best) Object.assign(sum, { lat: place.lat, lon: place.lon, weight: 1, best: place.population });
      } else {
        sum.lat += place.lat * place.population;
        sum.lon += place.lon * place.population;
        sum.weight += place.population;
      }
      sums.set(name, sum);
    }
  }
  const out = new Map<string, Coordinates>([...sums].map(([name, sum]) => [name, [sum.lat / sum.weight, sum.lon / sum.weight] as const]));
  cached.set(level, out);
  return out;
}

/** The coordinates of the named places of a level that the geography knows (the others are left out). */
export function placeCoordinates(level: MapLevel, names: readonly string[]): Record<string, Coordinates> {
  const known = coordinatesAt(level);
  const out: Record<string, Coordinates> = {};
  for (const name of names) {
    const at = known.get(name);
    if (at) out[name] = at;
  }
  return out;
}
