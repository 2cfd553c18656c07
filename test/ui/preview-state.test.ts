/** The search preview's state changes (src/ui/preview-state.ts): a spinner never outlives the search it stands for. */
import type { SearchResponse } from '../../src/contract/v2/search.js';
import { NO_PREVIEW, previewReducer, type PreviewEvent } from '../../src/ui/preview-state.js';

const response = { data: [], metadata: { total_hits: 0, mode: 'filter', elapsed_ms: 0.1 } } as unknown as SearchResponse;
const after = (...events: PreviewEvent[]) => events.reduce(previewReducer, NO_PREVIEW);

test('asked, then answered and settled: the rows, no spinner', () => {
  expect(after({ type: 'asked' })).toEqual({ ...NO_PREVIEW, loading: true });
  expect(after({ type: 'asked' }, { type: 'answered', response }, { type: 'settled' })).toEqual({ response, error: null, loading: false });
});

test('a failure keeps the last rows and shows the message until an answer', () => {
  const failed = after({ type: 'asked' }, { type: 'answered', response }, { type: 'asked' }, { type: 'failed', message: 'quota used up' }, { type: 'settled' });
  expect(failed).toEqual({ response, error: 'quota used up', loading: false });
  expect(previewReducer(failed, { type: 'answered', response }).error).toBeNull();
});

test('a form that stops asking while its search waits: no rows, no error, no spinner left behind', () => {
  expect(after({ type: 'asked' }, { type: 'cleared' })).toEqual(NO_PREVIEW);
  expect(after({ type: 'asked' }, { type: 'failed', message: 'x' }, { type: 'settled' }, { type: 'cleared' })).toEqual(NO_PREVIEW);
});

test('a change that changes nothing returns the same state, so React skips the render', () => {
  const settled = after({ type: 'asked' }, { type: 'settled' });
  expect(previewReducer(settled, { type: 'cleared' })).toBe(settled);
});
