/** NamedError and messageOf (src/contract/errors.ts): the project's own error classes are named after themselves, with their cause kept; a caught value read without a cast. */
import { runInNewContext } from 'node:vm';
import { messageOf, NamedError } from '../../src/contract/errors.js';
import { SnapshotError } from '../../src/server/index-snapshot.js';

test('an error class that extends NamedError carries its own name and the cause it was given', () => {
  const cause = new Error('disk full');
  const error = new SnapshotError('cannot write the snapshot', { cause });
  expect([error.name, error.message, error.cause, error instanceof NamedError, error instanceof Error]).toEqual(['SnapshotError', 'cannot write the snapshot', cause, true, true]);
  expect(String(error)).toBe('SnapshotError: cannot write the snapshot');
});

test('messageOf reads what was thrown: an Error, an Error of another realm, a string, anything else', () => {
  const otherRealm = runInNewContext('new Error("ENOENT: no such file")') as unknown;
  expect(otherRealm instanceof Error).toBe(false);
  expect([messageOf(new TypeError('bad')), messageOf(otherRealm), messageOf('plain words'), messageOf(42), messageOf(null), messageOf({ message: 7 })]).toEqual([
    'bad',
    'ENOENT: no such file',
    'plain words',
    '42',
    'null',
    '[object Object]',
  ]);
});
