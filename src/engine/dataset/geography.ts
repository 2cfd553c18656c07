/**
 * The real geography the generator places organizations in, from the committed asset
 * `data/geography.json` (built by `npm run data:geography` from public data packages; sources and
 * licences in data/README.md). Resolved here into places: each municipality with its whole chain of
 * areas, or — for countries without municipalities in the asset — each state.
 */
import type { Coordinates } from '../../contract/common.js';
import geographyAsset from '../data/geography.json' with { type: 'json' };

export interface GeographyAsset {
  /** `lat`/`lon`: a country's point for the map where its places have none (its most populous place). */
  countries: { country_code: string; name: string; continent: string; locale?: string; weight: number; lat?: number; lon?: number }[];
  areas: {
    id: string;
    level: 'state' | 'region' | 'district';
    name: string;
    code: string | null;
    parent: string;
    /** Present where the source has them (used for countries without municipalities). */
    population?: number;
    lat?: number | null;
    lon?: number | null;
  }[];
  municipalities: {
    id: string;
    name: string;
    code: string | null;
    parent: string;
    lat: number | null;
    lon: number | null;
    population: number;
    postcodes?: string[];
  }[];
  streets?: string[];
}

/** A place an organization can be in: the full geographic chain as the row columns want it. */
export interface Place {
  continent: string;
  country: string;
  country_code: string;
  state: string | null;
  state_code: string | null;
  region: string | null;
  region_code: string | null;
  district: string | null;
  district_code: string | null;
  municipality: string | null;
  municipality_code: string | null;
  lat: number | null;
  lon: number | null;
  /** Weight for placing organizations (inhabitants, or 1 for a state-level place). */
  population: number;
  postcodes: readonly string[];
}

export interface Geography {
  countries: GeographyAsset['countries'];
  /** Places per country code. */
  places: Map<string, Place[]>;
  /** The asset's own point of each state and country that has one (its most populous place), by name. */
  points: { state: Map<string, Coordinates>; country: Map<string, Coordinates> };
  streets: readonly string[];
}

function resolve(asset: GeographyAsset): Geography {
  const countries = new Map(asset.countries.map((c) => [c.country_code, c]));
  const areas = new Map(asset.areas.map((a) => [a.id, a]));

  /** The place skeleton of an area chain ending at `parentId`. */
  const chain = (parentId: string): Place => {
    const place: Place = {
      continent: '',
      country: '',
      country_code: '',
      state: null,
      state_code: null,
      region: null,
      region_code: null,
      district: null,
      district_code: null,
      municipality: null,
      municipality_code: null,
      lat: null,
      lon: null,
      population: 1,
      postcodes: [],
    };
    let id: string | undefined = parentId;
    for (let guard = 0; id !== undefined && guard < 8; guard++) {
      const area = areas.get(id);
      if (area) {
        place[area.level] = area.name;
        place[`${area.level}_code`] = area.code;
        id = area.parent;
        continue;
      }
      const country = countries.get(id);
      if (!country) throw new Error(`geography asset: unknown parent ${id}`);
      place.country = country.name;
      place.country_code = country.country_code;
      place.continent = country.continent;
      id = undefined;
    }
    return place;
  };

  const places = new Map<string, Place[]>();
  const add = (place: Place): void => {
    const list = places.get(place.country_code) ?? [];
    list.push(place);
    places.set(place.country_code, list);
  };
  for (const m of asset.municipalities) {
    add({
      ...chain(m.parent),
      municipality: m.name,
      municipality_code: m.code,
      lat: m.lat,
      lon: m.lon,
      population: Math.max(1, m.population),
      postcodes: m.postcodes ?? [],
    });
  }
  const withMunicipalities = new Set(places.keys());
  for (const area of asset.areas) {
    if (area.level !== 'state') continue;
    const place = chain(area.id);
    if (withMunicipalities.has(place.country_code)) continue;
    // A state without population is spread over evenly, and its point is for the map only: the generator
    // would scatter organizations around it, so its place stays without coordinates.
    const placed = area.population !== undefined;
    add({ ...place, lat: placed ? (area.lat ?? null) : null, lon: placed ? (area.lon ?? null) : null, population: Math.max(1, area.population ?? 1) });
  }
  const pointOf = (at: { lat?: number | null; lon?: number | null }): Coordinates | null => (typeof at.lat === 'number' && typeof at.lon === 'number' ? [at.lat, at.lon] : null);
  const points: Geography['points'] = { state: new Map(), country: new Map() };
  for (const area of asset.areas) {
    const at = pointOf(area);
    if (area.level === 'state' && at) points.state.set(area.name, at);
  }
  for (const country of asset.countries) {
    const at = pointOf(country);
    if (at) points.country.set(country.name, at);
  }
  return { countries: asset.countries, places, points, streets: asset.streets ?? [] };
}

let cached: Geography | null = null;

/** The geography of the committed asset, resolved once. */
export function geography(): Geography {
  cached ??= resolve(geographyAsset as GeographyAsset);
  return cached;
}
