/** NamedError (src/contract/errors.ts): the project's own error classes are named after themselves, with their cause kept. */
import { NamedError } from '../../src/contract/errors.js';
import { SnapshotError } from '../../src/server/index-snapshot.js';

test('an error class that extends NamedError carries its own name and the cause it was given', () => {
  const cause = new Error('disk full');
  const error = new SnapshotError('cannot write the snapshot', { cause });
  expect([error.name, error.message, error.cause, error instanceof NamedError, error instanceof Error]).toEqual(['SnapshotError', 'cannot write the snapshot', cause, true, true]);
  expect(String(error)).toBe('SnapshotError: cannot write the snapshot');
});
