// The coast and borders under the map of counts (src/ui/world-map.ts): Natural Earth's 1:50m countries from
// the npm package world-atlas, cut down where webpack imports them, so both the task pane and the Sheets
// sidebar carry only the region the embedded geography's places can show.
//
//   webpack: { test: /world-atlas[\\/]countries-50m\.json$/, use: [{ loader: 'scripts/web/world-outline.mjs' }] }
//
// Kept: the countries with a point inside REGION (their polygons outside it dropped: French Guiana, Russia's
// far east stay only as far as they touch it), their arcs renumbered; outside REGION only every THIN-th point
// of an arc (a ring stays closed and the far coast coarse, where no map looks). Names and the land object go.

/** [west, south, east, north] in degrees: the geography's places lie within −16…24° E, 28…66° N; the rest is room for margins. */
export const REGION = [-32, 22, 48, 73];
export const THIN = 25;

/** A world-atlas topology (quantised, delta-encoded arcs) cut down to `region`. */
export function outlineOf(topology, region = REGION, thin = THIN) {
  const [west, south, east, north] = region;
  const { scale: [sx, sy], translate: [tx, ty] } = topology.transform;
  const absolute = topology.arcs.map((arc) => {
    let x = 0; let y = 0;
    return arc.map(([dx, dy]) => [(x += dx), (y += dy)]);
  });
  const inside = ([x, y]) => {
    const lon = x * sx + tx; const lat = y * sy + ty;
    return lon >= west && lon <= east && lat >= south && lat <= north;
  };
  const arcIndex = (i) => (i < 0 ? ~i : i);
  const touches = (polygon) => polygon.some((ring) => ring.some((i) => absolute[arcIndex(i)].some(inside)));

  const kept = [];
  for (const geometry of topology.objects.countries.geometries) {
    const polygons = geometry.type === 'Polygon' ? [geometry.arcs] : geometry.type === 'MultiPolygon' ? geometry.arcs : [];
    const near = polygons.filter(touches);
    if (near.length > 0) kept.push({ type: 'MultiPolygon', id: geometry.id, arcs: near });
  }
  const renumbered = new Map();
  const arcs = [];
  const keepArc = (i) => {
    const index = arcIndex(i);
    if (!renumbered.has(index)) {
      const points = absolute[index];
      const needed = (point, at) => at === 0 || at === points.length - 1 || at % thin === 0 || inside(point) || inside(points[at - 1]) || inside(points[at + 1]);
      let [px, py] = [0, 0];
      arcs.push(points.filter(needed).map(([x, y]) => {
        const delta = [x - px, y - py];
        [px, py] = [x, y];
        return delta;
      }));
      renumbered.set(index, arcs.length - 1);
    }
    const next = renumbered.get(index);
    return i < 0 ? ~next : next;
  };
  for (const geometry of kept) geometry.arcs = geometry.arcs.map((polygon) => polygon.map((ring) => ring.map(keepArc)));
  return { type: 'Topology', transform: topology.transform, objects: { countries: { type: 'GeometryCollection', geometries: kept } }, arcs };
}

/** The webpack loader: the JSON text of world-atlas/countries-50m.json in, the cut-down topology out. */
export default function worldOutlineLoader(source) {
  return JSON.stringify(outlineOf(JSON.parse(source)));
}
