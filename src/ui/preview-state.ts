/**
 * The search preview's state, as named changes: what the pane shows while the form asks nothing, while a
 * search waits, and after it answered or failed. A module of its own so that it is tested without React.
 */
import type { SearchResponse } from '../contract/v2/search.js';

export interface Preview {
  response: SearchResponse | null;
  error: string | null;
  loading: boolean;
}

export type PreviewEvent =
  /** The form asks nothing: the rows, an error about an earlier form and a search still waiting all go. */
  | { type: 'cleared' }
  | { type: 'asked' }
  | { type: 'answered'; response: SearchResponse }
  | { type: 'failed'; message: string }
  /** The request that was asked last has answered or failed. */
  | { type: 'settled' };

export function previewReducer(state: Preview, event: PreviewEvent): Preview {
  switch (event.type) {
    case 'cleared':
      return changed(state, { response: null, error: null, loading: false });
    case 'asked':
      return changed(state, { loading: true });
    case 'answered':
      return changed(state, { response: event.response, error: null });
    case 'failed':
      return changed(state, { error: event.message });
    case 'settled':
      return changed(state, { loading: false });
  }
}

/** `state` itself when the patch changes nothing, so that React skips the render (as a setter given the same value does). */
function changed(state: Preview, patch: Partial<Preview>): Preview {
  const next = { ...state, ...patch };
  return next.response === state.response && next.error === state.error && next.loading === state.loading ? state : next;
}

export const NO_PREVIEW: Preview = { response: null, error: null, loading: false };
