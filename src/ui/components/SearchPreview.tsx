/**
 * The search form's preview: the first rows of what the form asks, fetched 400 ms after the form last
 * changed (through the functions' cache, so going back to an earlier form, or inserting what was
 * previewed, asks nothing again), with the hit count, the mode and the time the service took.
 */
import { Caption1, Spinner } from '@fluentui/react-components';
import { useEffect, useReducer } from 'react';
import { errorCellOf } from '../../sheet/cells.js';
import type { SheetFunctions } from '../../sheet/functions.js';
import { searchTable } from '../../sheet/tables.js';
import { requestOf, type SearchForm } from '../search-form.js';
import { Notice } from './Notice.js';
import { PreviewGrid } from './PreviewGrid.js';
import { NO_PREVIEW, previewReducer, type Preview } from '../preview-state.js';

const PREVIEW_ROWS = 20;
const DEBOUNCE_MS = 400;

/** The preview of `search`, asked again when it, the functions or the connection's revision change. */
function usePreview(functions: SheetFunctions, search: SearchForm, searchable: boolean, revision: number): Preview {
  const [preview, dispatch] = useReducer(previewReducer, NO_PREVIEW);
  useEffect(() => {
    if (!searchable) {
      dispatch({ type: 'cleared' });
      return;
    }
    let current = true;
    dispatch({ type: 'asked' });
    const timer = setTimeout(() => {
      functions
        .searchResponse({ ...requestOf(search), size: Math.min(search.size, PREVIEW_ROWS) })
        .then((response) => {
          if (current) dispatch({ type: 'answered', response });
        })
        .catch((caught: unknown) => {
          if (current) dispatch({ type: 'failed', message: errorCellOf(caught).message });
        })
        .finally(() => {
          if (current) dispatch({ type: 'settled' });
        });
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [search, searchable, functions, revision]);
  return preview;
}

export function SearchPreview({ functions, search, searchable, revision }: { functions: SheetFunctions; search: SearchForm; searchable: boolean; revision: number }) {
  const { response, error, loading } = usePreview(functions, search, searchable, revision);
  return (
    <section aria-label="Preview" aria-live="polite">
      {!searchable ? <Caption1>Choose a place, a category, words, a description or similar domains to see a preview.</Caption1> : null}
      {loading ? <Spinner size="tiny" label="Searching…" /> : null}
      <Notice intent="error" text={error} />
      {response && searchable ? (
        <>
          <Caption1 data-testid="preview-summary">
            {response.metadata.total_hits === null ? 'Many' : response.metadata.total_hits.toLocaleString('en-US')} hits · {response.metadata.mode} · {response.metadata.elapsed_ms.toFixed(1)} ms
          </Caption1>
          <PreviewGrid table={searchTable(response.data, search.columns, true)} label="Preview rows" />
        </>
      ) : null}
    </section>
  );
}
