/**
 * The search panel's state changes (src/ui/search-builder.ts), each by its name: what it changes and
 * what it leaves; and the searched form, places put back under their levels.
 */
import { EMPTY_BUILDER, searchBuilderReducer, searchOf, type SearchBuilder, type SearchBuilderAction } from '../../src/ui/search-builder.js';
import { EMPTY_FORM, requestOf, type SearchForm } from '../../src/ui/search-form.js';

const after = (...actions: SearchBuilderAction[]): SearchBuilder => actions.reduce(searchBuilderReducer, EMPTY_BUILDER);

test('an edit changes the fields it names and keeps the rest and the places', () => {
  const state = after({ type: 'placesChosen', places: [{ level: 'state', name: 'Bayern' }] }, { type: 'edited', patch: { mustAny: ['solar'], dedup: true } });
  expect(state.form).toEqual({ ...EMPTY_FORM, mustAny: ['solar'], dedup: true });
  expect(state.places).toEqual([{ level: 'state', name: 'Bayern' }]);
});

test('a filter chosen replaces that filter only', () => {
  const state = after({ type: 'filterChosen', key: 'organization_type', values: ['Startup'] }, { type: 'filterChosen', key: 'nace_code', values: ['62'] }, { type: 'filterChosen', key: 'organization_type', values: [] });
  expect(state.form.filters).toEqual({ organization_type: [], nace_code: ['62'] });
});

test('similar domains clear the description; none keeps it', () => {
  expect(after({ type: 'edited', patch: { describe: 'solar parks' } }, { type: 'similarChosen', domains: ['acme-solar.de'] }).form).toMatchObject({ describe: '', similarTo: ['acme-solar.de'] });
  expect(after({ type: 'edited', patch: { describe: 'solar parks' } }, { type: 'similarChosen', domains: [] }).form).toMatchObject({ describe: 'solar parks', similarTo: [] });
});

test('no columns chosen means the default columns', () => {
  expect(after({ type: 'columnsChosen', columns: ['domain', 'lat'] }).form.columns).toEqual(['domain', 'lat']);
  expect(after({ type: 'columnsChosen', columns: ['domain', 'lat'] }, { type: 'columnsChosen', columns: [] }).form.columns).toEqual(EMPTY_FORM.columns);
});

test('rows: the number, else the typed text, else the rows before; within 1 … 500', () => {
  const rows = (value: number | null | undefined, text: string | undefined, before = 100) => after({ type: 'edited', patch: { size: before } }, { type: 'rowsTyped', value, text }).form.size;
  expect(rows(42, '42')).toBe(42);
  expect(rows(0, '0')).toBe(1);
  expect(rows(900, '900')).toBe(500);
  expect(rows(null, '37')).toBe(37);
  expect(rows(undefined, 'abc', 60)).toBe(60);
  expect(rows(null, undefined, 60)).toBe(60);
  expect(rows(null, '0', 60)).toBe(60);
});

test('a plain-language search goes in with its places apart, and is searched as it was understood', () => {
  const understood: SearchForm = { ...EMPTY_FORM, mustAny: ['bakeries'], filters: { municipality: ['München'], organization_type: ['Company'] } };
  const state = after({ type: 'placesChosen', places: [{ level: 'country', name: 'Schweiz' }] }, { type: 'understood', form: understood });
  expect(state.places).toEqual([{ level: 'municipality', name: 'München' }]);
  expect(state.form.filters).toEqual({ organization_type: ['Company'] });
  expect(requestOf(searchOf(state))).toEqual(requestOf(understood));
});

test('the searched form adds each place to the filter of its level, after the values already there', () => {
  const state = after({ type: 'filterChosen', key: 'state', values: ['Hessen'] }, { type: 'placesChosen', places: [{ level: 'state', name: 'Bayern' }, { level: 'country', name: 'Deutschland' }] });
  expect(searchOf(state).filters).toEqual({ state: ['Hessen', 'Bayern'], country: ['Deutschland'] });
  expect(state.form.filters).toEqual({ state: ['Hessen'] });
});
