/**
 * world-atlas's 1:50m countries as the web bundles see them: cut down to the region the embedded
 * geography's places can show, by the webpack loader scripts/web/world-outline.mjs (every country a
 * MultiPolygon, no properties).
 */
declare module 'world-atlas/countries-50m.json' {
  import type { GeometryCollection, Topology } from 'topojson-specification';

  const outline: Topology<{ countries: GeometryCollection }>;
  export default outline;
}
