/**
 * The search panel's state and every way it changes, each change named (a reducer for `useReducer`):
 * the form and the places are kept apart (the place picker shows places as chips with their level), and
 * `searchOf` puts them together into the form that is previewed, inserted and written as a formula.
 */
import type { SelectableColumn } from '../contract/common.js';
import { SEARCH_LIMITS } from '../contract/v2/search.js';
import { EMPTY_FORM, splitPlaces, type PlaceChoice, type SearchForm } from './search-form.js';

export interface SearchBuilder {
  form: SearchForm;
  places: PlaceChoice[];
}

export const EMPTY_BUILDER: SearchBuilder = { form: EMPTY_FORM, places: [] };


export type SearchBuilderAction =
  /** Any field the form holds as typed: words, dates, description, sliders, dedup. */
  | { type: 'edited'; patch: Partial<SearchForm> }
  /** A category or industry filter's values. */
  | { type: 'filterChosen'; key: string; values: string[] }
  | { type: 'placesChosen'; places: PlaceChoice[] }
  /** Similar domains: a description cannot go with them, so choosing any clears it. */
  | { type: 'similarChosen'; domains: string[] }
  /** Output columns: none chosen means the defaults again. */
  | { type: 'columnsChosen'; columns: SelectableColumn[] }
  /** The rows box: its number, else what was typed, else the rows before; kept within the service's limits (SEARCH_LIMITS). */
  | { type: 'rowsTyped'; value: number | null | undefined; text: string | undefined }
  /** A plain-language search put into the form: its places go to the place picker. */
  | { type: 'understood'; form: SearchForm };

export function searchBuilderReducer(state: SearchBuilder, action: SearchBuilderAction): SearchBuilder {
  const edit = (patch: Partial<SearchForm>): SearchBuilder => ({ ...state, form: { ...state.form, ...patch } });
  switch (action.type) {
    case 'edited':
      return edit(action.patch);
    case 'filterChosen':
      return edit({ filters: { ...state.form.filters, [action.key]: action.values } });
    case 'placesChosen':
      return { ...state, places: action.places };
    case 'similarChosen':
      return edit({ similarTo: action.domains, ...(action.domains.length > 0 ? { describe: '' } : {}) });
    case 'columnsChosen':
      return edit({ columns: action.columns.length > 0 ? action.columns : EMPTY_FORM.columns });
    case 'rowsTyped':
      return edit({ size: Math.min(SEARCH_LIMITS.sizeMax, Math.max(SEARCH_LIMITS.sizeMin, action.value ?? (Number(action.text) || state.form.size))) });
    case 'understood':
      return splitPlaces(action.form);
  }
}

/** The form as searched: the chosen places added to its filters, each under its level. */
export function searchOf({ form, places }: SearchBuilder): SearchForm {
  const filters: Record<string, string[]> = { ...form.filters };
  for (const place of places) filters[place.level] = [...(filters[place.level] ?? []), place.name];
  return { ...form, filters };
}
