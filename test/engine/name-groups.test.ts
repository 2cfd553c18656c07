// Name groups for dedup (src/engine/store/name-groups.ts) against the plainest reference: a Map from each
// folded name to its rows in domain order.
import { ColumnStore, generateDataset } from '../../src/engine/index.js';
import { duplicateNameGroups, FoldHash, foldForMatch, hashFoldedBytes } from '../../src/engine/store/name-groups.js';

function reference(store: ColumnStore): number[][] {
  const byName = new Map<string, number[]>();
  for (let position = 0; position < store.size; position++) {
    const row = store.byDomain[position] ?? 0;
    const name = store.text.name.get(row);
    if (!name) continue;
    const key = foldForMatch(name);
    byName.set(key, [...(byName.get(key) ?? []), row]);
  }
  return [...byName.values()].filter((rows) => rows.length > 1);
}

function groupsOf(store: ColumnStore): number[][] {
  const { groupOf, starts, rows } = duplicateNameGroups(store);
  const out: number[][] = [];
  for (let group = 1; group + 1 < starts.length; group++) {
    const members = Array.from(rows.subarray(starts[group], starts[group + 1]));
    for (const row of members) expect(groupOf[row]).toBe(group);
    out.push(members);
  }
  const grouped = new Set(out.flat());
  for (let row = 0; row < store.size; row++) if (!grouped.has(row)) expect(groupOf[row]).toBe(0);
  return out;
}

const sorted = (groups: number[][]): number[][] => [...groups].sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0));

test('a name of ASCII and Latin-1 hashes from its bytes as its folded form does; others are left to foldForMatch', () => {
  const latin1 = Array.from({ length: 0x40 }, (_, i) => String.fromCharCode(0xc0 + i)).join('');
  const names = ['Acme GmbH', '  acme   gmbh ', 'ACME-GMBH!', 'a', '', '!!!', 'Bäckerei Müller', 'STRAẞE'.slice(0, 4), 'Straße 7', 'x1 y2', '--lead', 'trail--', 'Mixed   Case  9', latin1, `a${latin1}b ×÷ Ærø`, 'Ça, c’est ÉLAN'];
  const direct = new FoldHash();
  const fast = new FoldHash();
  for (const name of names) {
    const bytes = new TextEncoder().encode(name);
    direct.reset();
    for (const char of foldForMatch(name)) direct.add(char.charCodeAt(0));
    const latin = Array.from({ length: name.length }, (_, i) => name.charCodeAt(i)).every((code) => code < 0x80 || (code >= 0xc0 && code <= 0xff));
    expect(hashFoldedBytes(bytes, fast)).toBe(latin);
    if (latin) expect([name, fast.a, fast.b]).toEqual([name, direct.a, direct.b]);
  }
});

test('groups of a generated store equal the reference (members in domain order)', () => {
  const store = ColumnStore.fromRecords(generateDataset({ count: 8_000, seed: 23 }));
  const want = reference(store);
  expect(want.length).toBeGreaterThan(20);
  expect(sorted(groupsOf(store))).toEqual(sorted(want));
});

test('spellings of one name group together; names without letters or digits group as one; no name, no group', () => {
  const base = generateDataset({ count: 12, seed: 2 });
  const names = ['Müller & Söhne', 'MUELLER und soehne', 'Muller & Sohne', 'müller - söhne', 'Acme', 'acme', 'ACME.', '!!!', '???', 'Unique Name', '', null];
  const store = ColumnStore.fromRecords(base.map((record, i) => ({ ...record, name: names[i] ?? null })) as typeof base);
  const groups = sorted(groupsOf(store)).map((rows) => rows.map((row) => store.text.name.get(row)).sort());
  expect(groups).toEqual(sorted(reference(store)).map((rows) => rows.map((row) => store.text.name.get(row)).sort()));
  expect(groups).toContainEqual(['Muller & Sohne', 'Müller & Söhne', 'müller - söhne']);
  expect(groups).toContainEqual(['ACME.', 'Acme', 'acme']);
  expect(groups).toContainEqual(['!!!', '???']);
});
