/**
 * Where the places of the embedded geography lie, for drawing counts on a map: a municipality at its
 * own coordinates (of namesakes, the most populous one), a state or country at the population-weighted
 * centre of its places, or, where its places have no coordinates, at its own point in the asset (its
 * most populous place). Names are matched as the index spells them (native spelling).
 */
import type { Coordinates, MapLevel } from '../../contract/common.js';
import { geography } from './geography.js';

const cached = new Map<MapLevel, Map<string, Coordinates>>();

function coordinatesAt(level: MapLevel): Map<string, Coordinates> {
  const known = cached.get(level);
  if (known) return known;
  const places = [...geography().places.values()].flat().filter((place) => place[level] !== null && place.lat !== null && place.lon !== null);
  const out = new Map<string, Coordinates>();
  if (level === 'municipality') {
    // Namesakes: the most populous one.
    const biggest = new Map<string, number>();
    for (const place of places) {
      const name = place.municipality ?? '';
      if (place.population <= (biggest.get(name) ?? -1)) continue;
      biggest.set(name, place.population);
      out.set(name, [place.lat ?? 0, place.lon ?? 0]);
    }
  } else {
    const sums = new Map<string, [lat: number, lon: number, weight: number]>();
    for (const place of places) {
      const name = place[level] ?? '';
      const sum = sums.get(name) ?? [0, 0, 0];
      sums.set(name, [sum[0] + (place.lat ?? 0) * place.population, sum[1] + (place.lon ?? 0) * place.population, sum[2] + place.population]);
    }
    for (const [name, [lat, lon, weight]] of sums) out.set(name, [lat / weight, lon / weight]);
    // A state or country whose places carry no coordinates stands at its own point.
    for (const [name, at] of geography().points[level]) if (!out.has(name)) out.set(name, at);
  }
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
