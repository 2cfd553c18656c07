// Types of world-outline.mjs for the TypeScript tests (the project does not type-check JavaScript).
import type { GeometryCollection, Topology } from 'topojson-specification';

export declare const REGION: readonly [west: number, south: number, east: number, north: number];
export declare const THIN: number;

export declare function outlineOf(topology: Topology, region?: readonly [number, number, number, number], thin?: number): Topology<{ countries: GeometryCollection }>;

export default function worldOutlineLoader(source: string): string;
