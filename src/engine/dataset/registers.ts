/**
 * Which register court keeps an organization's entry. Court names follow the real institutions:
 * German Amtsgerichte keep the Handelsregister (Berlin's is the Amtsgericht Charlottenburg), Austria's
 * Firmenbuch is kept by the Landesgerichte (the Handelsgericht in Vienna), Switzerland's commercial
 * register by cantonal offices. Which Amtsgericht serves which municipality is approximated: the nearest
 * of the state's largest cities, about one court per 1.2 million inhabitants (the real count is of that
 * order); the assignment is documented as an approximation, the names are real courts.
 */
import type { Random } from '../random.js';
import { geography, type Place } from './geography.js';

const AUSTRIAN_COURTS: Record<string, string> = {
  Wien: 'Handelsgericht Wien',
  Niederösterreich: 'Landesgericht St. Pölten',
  Oberösterreich: 'Landesgericht Linz',
  Steiermark: 'Landesgericht für ZRS Graz',
  Kärnten: 'Landesgericht Klagenfurt',
  Salzburg: 'Landesgericht Salzburg',
  Tirol: 'Landesgericht Innsbruck',
  Vorarlberg: 'Landesgericht Feldkirch',
  Burgenland: 'Landesgericht Eisenstadt',
};

const SPECIAL_GERMAN_COURTS: Record<string, string> = { Berlin: 'Amtsgericht Charlottenburg' };

let germanCourtCities: Map<string, Place[]> | null = null;

/** Per German state, its largest cities: the seats of the register courts we assign. */
function courtCitiesByState(): Map<string, Place[]> {
  if (germanCourtCities) return germanCourtCities;
  const byState = new Map<string, Place[]>();
  for (const place of geography().places.get('DE') ?? []) {
    if (!place.state) continue;
    const list = byState.get(place.state) ?? [];
    list.push(place);
    byState.set(place.state, list);
  }
  germanCourtCities = new Map();
  for (const [state, places] of byState) {
    const population = places.reduce((sum, p) => sum + p.population, 0);
    const count = Math.max(1, Math.round(population / 1_200_000));
    germanCourtCities.set(state, [...places].sort((a, b) => b.population - a.population).slice(0, count));
  }
  return germanCourtCities;
}

function distance(a: Place, b: Place): number {
  if (a.lat === null || a.lon === null || b.lat === null || b.lon === null) return Number.POSITIVE_INFINITY;
  const dLat = a.lat - b.lat;
  const dLon = (a.lon - b.lon) * Math.cos((a.lat * Math.PI) / 180);
  return dLat * dLat + dLon * dLon;
}

function cityName(place: Place): string {
  return (place.municipality ?? '').replace(/,.*$/, '').replace(/\s*\(.*\)$/, '');
}

const nearestCourt = new WeakMap<Place, string>();

function germanCourt(place: Place, random: Random | null): string {
  const state = place.state ?? '';
  const special = SPECIAL_GERMAN_COURTS[state];
  if (special) return special;
  const cities = courtCitiesByState().get(state) ?? [];
  if (cities.length === 0) return `Amtsgericht ${cityName(place)}`;
  if (random) return `Amtsgericht ${cityName(random.pick(cities))}`;
  let court = nearestCourt.get(place);
  if (!court) {
    const nearest = cities.reduce((best, city) => (distance(place, city) < distance(place, best) ? city : best));
    court = `Amtsgericht ${cityName(nearest)}`;
    nearestCourt.set(place, court);
  }
  return court;
}

/**
 * The court of a registration at `place`. With `random`, a later registration after a move within the
 * state; without, the court serving the place.
 */
export function registerCourt(place: Place, random: Random | null): { court: string } {
  switch (place.country_code) {
    case 'DE':
      return { court: germanCourt(place, random) };
    case 'AT':
      return { court: AUSTRIAN_COURTS[place.state ?? ''] ?? 'Handelsgericht Wien' };
    default:
      return { court: `Handelsregisteramt ${place.state ?? place.country}` };
  }
}
