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
  const columns = LEVELS.map((level) => store.categorical[level]);
  const codes = columns.map((column) => column.codes);
  // Rows counted per place (a distinct combination of the levels' ids) in a hash table of the places'
  // first rows: a few reads a row and nothing made per row, which at millions of rows took seconds.
  const firstRows: number[] = [];
  const counts: number[] = [];
  const hashOf = (row: number): number => {
    let hash = 0;
    for (const column of codes) hash = Math.imul(hash ^ (column[row] ?? 0), 0x9e3779b1);
    return hash ^ (hash >>> 16);
  };
  const samePlace = (row: number, first: number): boolean => codes.every((column) => column[row] === column[first]);
  let slots = new Int32Array(1 << 12).fill(-1);
  const slotOf = (row: number): number => {
    let at = hashOf(row) & (slots.length - 1);
    for (let place = slots[at] ?? -1; place >= 0 && !samePlace(row, firstRows[place] ?? 0); place = slots[at] ?? -1) at = (at + 1) & (slots.length - 1);
    return at;
  };
  for (let row = 0; row < store.size; row++) {
    if (visible && !visible[row]) continue;
    const at = slotOf(row);
    let place = slots[at] ?? -1;
    if (place < 0) {
      place = counts.length;
      slots[at] = place;
      firstRows.push(row);
      counts.push(0);
      // At most half full: grown, and every place put again.
      if (counts.length * 2 > slots.length) {
        slots = new Int32Array(slots.length * 2).fill(-1);
        firstRows.forEach((first, again) => (slots[slotOf(first)] = again));
      }
    }
    counts[place] = (counts[place] ?? 0) + 1;
  }
  // Items in the order their places first occur, as the rows go.
  const items = new Map<string, LocationItem>();
  firstRows.forEach((first, place) => {
    const names: string[] = [];
    let parent: string | null = null;
    LEVELS.forEach((level, i) => {
      const name = columns[i]?.dict.value(codes[i]?.[first] ?? 0) ?? null;
      if (name === null) return;
      names.push(name);
      const id = names.join('/');
      let item = items.get(id);
      if (!item) {
        item = { location_id: id, name, location_type: level, parent_id: parent, path: names.join(' / '), doc_count: 0 };
        items.set(id, item);
      }
      item.doc_count += counts[place] ?? 0;
      parent = id;
    });
  });
  return [...items.values()];
}
