/**
 * Build a search: places, categories, keywords (all / any / not), a description or similar domains,
 * size / min_score / balance / dedup, output columns. The preview runs (debounced) as the form changes;
 * "Insert formula" writes the equivalent ORG.SEARCH formula, "Insert values" the rows as an Excel table,
 * "Insert as refreshable values" (where the host keeps saved queries) the rows, refreshed later. The
 * form's state changes through search-builder.ts's named actions; the fields, the preview and the
 * insert buttons are components of their own.
 */
import { useMemo, useReducer } from 'react';
import type { SheetFunctions } from '../../sheet/functions.js';
import type { Host } from '../host.js';
import { EMPTY_BUILDER, searchBuilderReducer, searchOf } from '../search-builder.js';
import { formulaOf, isSearchable } from '../search-form.js';
import { SearchActions } from './SearchActions.js';
import { SearchFields } from './SearchFields.js';
import { SearchPreview } from './SearchPreview.js';

export function SearchPanel({ host, functions, revision }: { host: Host; functions: SheetFunctions; revision: number }) {
  const [builder, dispatch] = useReducer(searchBuilderReducer, EMPTY_BUILDER);
  const backend = useMemo(() => host.backend(), [host, revision]);
  const search = useMemo(() => searchOf(builder), [builder]);
  const searchable = isSearchable(search);
  const formula = searchable ? formulaOf(search, host.functionName('SEARCH')) : '';
  return (
    <form aria-label="Build a search" onSubmit={(event) => event.preventDefault()}>
      <SearchFields host={host} backend={backend} builder={builder} dispatch={dispatch} />
      <SearchPreview functions={functions} search={search} searchable={searchable} revision={revision} />
      {formula ? <code className="formula" aria-label="Formula">{formula}</code> : null}
      <SearchActions host={host} functions={functions} search={search} searchable={searchable} formula={formula} />
    </form>
  );
}
