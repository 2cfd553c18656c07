/**
 * Every administrative area present in the data as a location item: continent, country, state,
 * region, district, municipality, with how many organizations lie in it.
 *
 * `location_id` is the path of names from the continent down, joined by "/" (`Europe/Deutschland/
 * Bayern/Oberbayern/München, Landeshauptstadt/München`): unique without relying on codes (users' own
 * data may have none), readable, and usable as `parent_id`. A missing level (no region in most German
 * states) is skipped, so a district's parent is then its state. `path` is the same chain joined by " / ".
 */
import type { LocationItem, LocationType } from '../../contract/v2/locations.js';
import type { CategoricalKey, ColumnStore } from '../store/store.js';

const LEVELS: readonly (LocationType & CategoricalKey)[] = ['continent', 'country', 'state', 'region', 'district', 'municipality'];

/**
 * The areas holding at least one of the `visible` rows (null: all rows), with their counts. Areas come
 * from the organizations themselves, so a scoped key sees only the places of the rows it may see: listing
 * the others, even with a count of 0, would tell it where hidden organizations are.
 */
export function locationItems(store: ColumnStore, visible: Uint8Array | null): LocationItem[] {
  const items = new Map<string, LocationItem>();
  const columns = LEVELS.map((level) => store.categorical[level]);
  // Rows in the same place share one chain of items: resolve each distinct combination of ids once.
  const chains = new Map<string, LocationItem[]>();
  const chainOf = (row: number): LocationItem[] => {
    const ids = columns.map((column) => column.codes[row] ?? 0);
    const key = ids.join(',');
    let chain = chains.get(key);
    if (chain) return chain;
    chain = [];
    const names: string[] = [];
    let parent: string | null = null;
    LEVELS.forEach((level, i) => {
      const name = columns[i]?.dict.value(ids[i] ?? 0) ?? null;
      if (name === null) return;
      names.push(name);
      const id = names.join('/');
      let item = items.get(id);
      if (!item) {
        item = { location_id: id, name, location_type: level, parent_id: parent, path: names.join(' / '), doc_count: 0 };
        items.set(id, item);
      }
      chain.push(item);
      parent = id;
    });
    chains.set(key, chain);
    return chain;
  };
  for (let row = 0; row < store.size; row++) {
    if (visible && !visible[row]) continue;
    for (const item of chainOf(row)) item.doc_count++;
  }
  return [...items.values()];
}
