/**
 * Counts by country, state or municipality as circles on a map, drawn in the pane itself (SVG): every
 * host can show it, offline, without a map service. Places lie where the embedded geography puts them;
 * circle areas are proportional to the counts; places the geography does not know are named below.
 */
import { Caption1 } from '@fluentui/react-components';
import { useEffect, useState } from 'react';
import type { Coordinates, MapLevel } from '../../contract/common.js';
import type { Table } from '../../sheet/cells.js';
import type { Host } from '../host.js';

const WIDTH = 320;
const PAD = 24;
const MAX_RADIUS = 18;
const LABELLED = 6;

interface Bucket {
  name: string;
  count: number;
}

/** The named buckets of a value/count table (header row first); the bucket without a value is not a place. */
export function bucketsOf(table: Table): Bucket[] {
  return table.slice(1).flatMap((row) => {
    const [name, count] = row;
    return typeof name === 'string' && name !== '' && typeof count === 'number' ? [{ name, count }] : [];
  });
}

interface Placed extends Bucket {
  x: number;
  y: number;
  r: number;
}

/** An equirectangular projection of the points, scaled to the width (longitudes shrunk by the cosine of the middle latitude). */
function project(buckets: Bucket[], at: Record<string, Coordinates>): { placed: Placed[]; height: number } {
  const points = buckets.filter((bucket) => at[bucket.name]);
  if (points.length === 0) return { placed: [], height: 0 };
  const lats = points.map((point) => (at[point.name] as Coordinates)[0]);
  const lons = points.map((point) => (at[point.name] as Coordinates)[1]);
  const [south, north, west, east] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  const shrink = Math.cos((((south + north) / 2) * Math.PI) / 180);
  const spanX = Math.max((east - west) * shrink, 0.5);
  const spanY = Math.max(north - south, 0.5);
  const scale = (WIDTH - 2 * PAD) / Math.max(spanX, spanY);
  const most = Math.max(...points.map((point) => point.count), 1);
  const placed = points.map((point) => {
    const [lat, lon] = at[point.name] as Coordinates;
    return { ...point, x: PAD + (lon - west) * shrink * scale, y: PAD + (north - lat) * scale, r: 2 + (MAX_RADIUS - 2) * Math.sqrt(point.count / most) };
  });
  return { placed, height: spanY * scale + 2 * PAD };
}

/** The largest places' names, each where it does not cover an earlier one (about 5.5 units a letter at size 10). */
function labelsFor(placed: readonly Placed[]): Set<string> {
  const boxes: { x: number; y: number; w: number }[] = [];
  const names = new Set<string>();
  for (const point of [...placed].sort((a, b) => b.count - a.count)) {
    if (names.size === LABELLED) break;
    const box = { x: point.x + point.r + 2, y: point.y - 6, w: point.name.length * 5.5 };
    if (boxes.some((other) => box.x < other.x + other.w && other.x < box.x + box.w && Math.abs(box.y - other.y) < 11)) continue;
    boxes.push(box);
    names.add(point.name);
  }
  return names;
}

export function CountMap({ host, table, level }: { host: Host; table: Table; level: MapLevel }) {
  const [at, setAt] = useState<Record<string, Coordinates> | null>(null);
  const buckets = bucketsOf(table);
  const names = buckets.map((bucket) => bucket.name).join('\n');
  useEffect(() => {
    let current = true;
    setAt(null);
    host
      .placeCoordinates(level, names === '' ? [] : names.split('\n'))
      .then((found) => {
        if (current) setAt(found);
      })
      .catch(() => {
        if (current) setAt({});
      });
    return () => {
      current = false;
    };
  }, [host, level, names]);
  if (!at) return <Caption1>Placing the counts on the map…</Caption1>;
  const { placed, height } = project(buckets, at);
  const missing = buckets.filter((bucket) => !at[bucket.name]).map((bucket) => bucket.name);
  const labelled = labelsFor(placed);
  return (
    <section aria-label="Map">
      {placed.length > 0 ? (
        <svg role="img" aria-label={`Map of the counts by ${level}`} width="100%" style={{ maxWidth: WIDTH }} viewBox={`0 0 ${WIDTH} ${Math.round(height)}`}>
          <rect width={WIDTH} height={Math.round(height)} fill="#f3f6fa" />
          {/* Largest first, so small circles stay on top and can be pointed at. */}
          {[...placed]
            .sort((a, b) => b.count - a.count)
            .map((point) => (
              <circle key={point.name} cx={point.x} cy={point.y} r={point.r} fill="rgba(15, 108, 189, 0.45)" stroke="#0f6cbd" strokeWidth={1}>
                <title>{`${point.name}: ${point.count.toLocaleString('en-US')}`}</title>
              </circle>
            ))}
          {placed
            .filter((point) => labelled.has(point.name))
            .map((point) => (
              <text key={point.name} x={point.x + point.r + 2} y={point.y + 4} fontSize={10} fill="#242424">
                {point.name}
              </text>
            ))}
        </svg>
      ) : null}
      <Caption1>
        {placed.length} of {buckets.length} {level === 'municipality' ? 'municipalities' : level === 'country' ? 'countries' : 'states'} on the map; circle area ∝ count.
        {missing.length > 0 ? ` Not on it (no coordinates in the built-in geography): ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}.` : ''}
      </Caption1>
    </section>
  );
}
