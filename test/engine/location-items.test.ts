// The location items (src/engine/query/location-items.ts) against the plainest reference: each row's chain
// of names from the continent down, counted in a Map keyed by the joined names, in order of first use.
import { ColumnStore, generateDataset } from '../../src/engine/index.js';
import { locationItems } from '../../src/engine/query/location-items.js';
import type { LocationItem } from '../../src/contract/v2/locations.js';

const LEVELS = ['continent', 'country', 'state', 'region', 'district', 'municipality'] as const;

function reference(store: ColumnStore, visible: Uint8Array | null): LocationItem[] {
  const items = new Map<string, LocationItem>();
  for (let row = 0; row < store.size; row++) {
    if (visible && !visible[row]) continue;
    const names: string[] = [];
    let parent: string | null = null;
    for (const level of LEVELS) {
      const column = store.categorical[level];
      const name = column.dict.value(column.codes[row] ?? 0);
      if (name === null) continue;
      names.push(name);
      const id = names.join('/');
      const item = items.get(id) ?? { location_id: id, name, location_type: level, parent_id: parent, path: names.join(' / '), doc_count: 0 };
      item.doc_count++;
      items.set(id, item);
      parent = id;
    }
  }
  return [...items.values()];
}

const store = ColumnStore.fromRecords(generateDataset({ count: 20_000, seed: 5, asOf: '2026-11-01' }));

test('every place and its count, for the whole store and for a view of it', () => {
  const all = locationItems(store, null);
  expect(all.length).toBeGreaterThan(500);
  expect(all).toEqual(reference(store, null));
  const visible = new Uint8Array(store.size).map((_, row) => (row % 7 === 3 ? 1 : 0));
  expect(locationItems(store, visible)).toEqual(reference(store, visible));
  expect(locationItems(store, new Uint8Array(store.size))).toEqual([]);
});

test('a municipality whose name lies in several districts is one item in each', () => {
  const names = new Map<string, Set<string>>();
  for (const item of locationItems(store, null)) {
    if (item.location_type !== 'municipality') continue;
    names.set(item.name, (names.get(item.name) ?? new Set()).add(item.parent_id ?? ''));
  }
  expect([...names.values()].some((parents) => parents.size > 1)).toBe(true);
});
