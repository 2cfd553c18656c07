/**
 * Counts by country, state or municipality as circles on a map, drawn in the pane itself (SVG) over
 * Natural Earth's land, coast and borders (`world-map.ts`, bundled): every host can show it, offline,
 * without a map service. Places lie where the embedded geography puts them; circle areas are
 * proportional to the counts; the largest places are always named (`map-labels.ts`); places the
 * geography does not know are named below.
 */
import { Caption1 } from '@fluentui/react-components';
import { useEffect, useMemo, useState } from 'react';
import type { Coordinates, MapLevel } from '../../contract/common.js';
import type { Table } from '../../sheet/cells.js';
import type { Host } from '../host.js';
import type * as worldMapModule from '../world-map.js';

const WIDTH = 320;
const COLOURS = { sea: '#d4e4f1', land: '#f7f5f0', border: '#a09a90', coast: '#7d97ad', circle: 'rgba(15, 108, 189, 0.45)', edge: '#0f6cbd', text: '#242424' };

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

type WorldMap = typeof worldMapModule;

export function CountMap({ host, table, level }: { host: Host; table: Table; level: MapLevel }) {
  const [shown, setShown] = useState<{ of: string; at: Record<string, Coordinates>; worldMap: WorldMap | null } | null>(null);
  const buckets = bucketsOf(table);
  const names = buckets.map((bucket) => bucket.name).join('\n');
  const of = `${level}\n${names}`;
  useEffect(() => {
    let current = true;
    setShown(null);
    const coordinates = host.placeCoordinates(level, names === '' ? [] : names.split('\n')).catch(() => ({}));
    // Its own chunk in the task pane: the borders load with the first map, not with the pane.
    const worldMap = import(/* webpackChunkName: "world-map" */ '../world-map.js').catch(() => null);
    void Promise.all([coordinates, worldMap]).then(([at, loaded]) => {
      if (current) setShown({ of: `${level}\n${names}`, at, worldMap: loaded });
    });
    return () => {
      current = false;
    };
  }, [host, level, names]);
  // Until the places of this very table are known (never the last table's coordinates for new names).
  const ready = shown?.of === of ? shown : null;
  // Fitting the projection and placing the labels: once per table, not on every render of the pane.
  const map = useMemo(() => {
    if (!ready?.worldMap) return null;
    const points = bucketsOf(table).flatMap((bucket) => {
      const point = ready.at[bucket.name];
      return point ? [{ ...bucket, point }] : [];
    });
    return points.length > 0 ? ready.worldMap.countMap(points, WIDTH) : null;
  }, [ready, table]);
  if (ready === null) return <Caption1>Placing the counts on the map…</Caption1>;
  const { at, worldMap } = ready;
  if (worldMap === null) return <Caption1>The map could not be loaded here; the counts are in the table below.</Caption1>;
  const placed = map?.circles.length ?? 0;
  const missing = buckets.filter((bucket) => !at[bucket.name]).map((bucket) => bucket.name);
  return (
    <section aria-label="Map">
      {map ? (
        <svg role="img" aria-label={`Map of the counts by ${level}`} width="100%" style={{ maxWidth: WIDTH }} viewBox={`0 0 ${WIDTH} ${map.base.height}`}>
          <rect width={WIDTH} height={map.base.height} fill={COLOURS.sea} />
          <path d={map.base.land} fill={COLOURS.land} />
          <path d={map.base.borders} fill="none" stroke={COLOURS.border} strokeWidth={0.9} strokeLinejoin="round" />
          <path d={map.base.coast} fill="none" stroke={COLOURS.coast} strokeWidth={0.8} strokeLinejoin="round" />
          {map.labels.flatMap((label) => (label.leader ? [<line key={label.name} {...label.leader} stroke={COLOURS.text} strokeWidth={0.6} />] : []))}
          {/* Largest first, so small circles stay on top and can be pointed at. */}
          {map.circles.map((circle) => (
            <circle key={circle.name} cx={circle.x} cy={circle.y} r={circle.r} fill={COLOURS.circle} stroke={COLOURS.edge} strokeWidth={1}>
              <title>{`${circle.name}: ${circle.count.toLocaleString('en-US')}`}</title>
            </circle>
          ))}
          {/* A pale halo under each name keeps it legible over borders and circles. */}
          {map.labels.map((label) => (
            <text key={label.name} x={label.x} y={label.y} textAnchor={label.anchor} fontSize={label.size} fill={COLOURS.text} stroke={COLOURS.land} strokeWidth={2.5} paintOrder="stroke" strokeLinejoin="round">
              {label.name}
            </text>
          ))}
        </svg>
      ) : null}
      <Caption1>
        {placed} of {buckets.length} {level === 'municipality' ? 'municipalities' : level === 'country' ? 'countries' : 'states'} on the map; circle area ∝ count.
        {missing.length > 0 ? ` Not on it (no coordinates in the built-in geography): ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}.` : ''}
      </Caption1>
    </section>
  );
}
