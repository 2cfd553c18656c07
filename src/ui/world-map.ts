/**
 * The land, coast and borders under the map of counts: Natural Earth's 1:50m countries (the npm package
 * world-atlas, public domain data; cut down to the region the embedded geography's places can show when
 * webpack bundles it, scripts/web/world-outline.mjs), drawn in a conformal projection fitted to the
 * placed points. Bundled, never fetched: every host draws it offline. CountMap loads it on demand, so
 * the task pane's first load does not carry it.
 */
import { geoConicConformal, geoPath, type GeoProjection } from 'd3-geo';
import type { MultiPoint } from 'geojson';
import { feature, mesh } from 'topojson-client';
import outline from 'world-atlas/countries-50m.json' with { type: 'json' };
import type { Coordinates } from '../contract/common.js';
import { placeLabels, type MapCircle, type MapLabel } from './map-labels.js';

export interface BaseMap {
  height: number;
  /** Where a [lat, lon] point lies in the map's pixels. */
  at(point: Coordinates): [x: number, y: number];
  /** SVG path data: the land (filled), the borders between countries and the coast (stroked). */
  land: string;
  borders: string;
  coast: string;
}

/** Smallest spans shown (degrees of latitude, longitude), so one place or a few close ones still show their surroundings. */
const MIN_SPAN = [2, 3] as const;

const countries = outline.objects.countries;
let shapes: { land: ReturnType<typeof feature>; borders: ReturnType<typeof mesh>; coast: ReturnType<typeof mesh> } | null = null;

/** A conic conformal projection for the points' latitudes (standard parallels at a sixth of the span in from each edge), centred on their longitudes. */
function projectionFor(points: readonly Coordinates[]): { projection: GeoProjection; extent: MultiPoint } {
  const lats = points.map(([lat]) => lat);
  const lons = points.map(([, lon]) => lon);
  let [south, north, west, east] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  // A tenth of the span round the points, so the land around the outermost ones shows too.
  const [padLat, padLon] = [(north - south) / 10, (east - west) / 10];
  [south, north, west, east] = [south - padLat, north + padLat, west - padLon, east + padLon];
  const [latSpan, lonSpan] = MIN_SPAN;
  if (north - south < latSpan) [south, north] = [(south + north - latSpan) / 2, (south + north + latSpan) / 2];
  if (east - west < lonSpan) [west, east] = [(west + east - lonSpan) / 2, (west + east + lonSpan) / 2];
  const sixth = (north - south) / 6;
  const projection = geoConicConformal()
    .parallels([south + sixth, north - sixth])
    .rotate([-(west + east) / 2, 0]);
  const extent: MultiPoint = { type: 'MultiPoint', coordinates: [[west, south], [west, north], [east, south], [east, north], ...points.map(([lat, lon]) => [lon, lat])] };
  return { projection, extent };
}

/**
 * The base map of the points, `width` wide with `margin` pixels round the points (for circles and
 * labels), as tall as the points need within [minHeight, maxHeight]; a taller extent is shown smaller.
 */
export function baseMap(points: readonly Coordinates[], width: number, margin: number, minHeight: number, maxHeight: number): BaseMap {
  const { projection, extent } = projectionFor(points);
  projection.fitWidth(width - 2 * margin, extent);
  const [[, top], [, bottom]] = geoPath(projection).bounds(extent);
  const height = Math.min(maxHeight, Math.max(minHeight, Math.ceil(bottom - top + 2 * margin)));
  projection.fitExtent([[margin, margin], [width - margin, height - margin]], extent);
  // Only what the frame shows becomes path data (a little beyond, so no stroke ends at the edge).
  projection.clipExtent([[-4, -4], [width + 4, height + 4]]);
  shapes ??= { land: feature(outline, countries), borders: mesh(outline, countries, (a, b) => a !== b), coast: mesh(outline, countries, (a, b) => a === b) };
  const path = geoPath(projection).digits(1);
  return {
    height,
    at: ([lat, lon]) => {
      const [x, y] = projection([lon, lat]) ?? [Number.NaN, Number.NaN];
      return [x, y];
    },
    land: path(shapes.land) ?? '',
    borders: path(shapes.borders) ?? '',
    coast: path(shapes.coast) ?? '',
  };
}

const MARGIN = 22;
const MAX_RADIUS = 18;

/**
 * The map of counts `width` wide: the base map fitted to the places, a circle per place (area ∝ count,
 * largest first, so small ones stay on top) and the names (`placeLabels`).
 */
export function countMap(places: readonly { name: string; count: number; point: Coordinates }[], width: number): { base: BaseMap; circles: MapCircle[]; labels: MapLabel[] } {
  const base = baseMap(
    places.map(({ point }) => point),
    width,
    MARGIN,
    width * 0.6,
    width * 1.3,
  );
  const most = Math.max(...places.map((place) => place.count), 1);
  const circles = places
    .map(({ name, count, point }) => {
      const [x, y] = base.at(point);
      return { name, count, x, y, r: 2 + (MAX_RADIUS - 2) * Math.sqrt(count / most) };
    })
    .sort((a, b) => b.count - a.count);
  return { base, circles, labels: placeLabels(circles, width, base.height) };
}
