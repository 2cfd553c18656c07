/**
 * How a command says it was called wrongly. A mistake in the call exits 2, as commander's own refusals
 * do, and any other failure 1: scripts and schedulers tell "fix the command line" from "try again".
 * Every command runs its work through `runCommand`, and the checks more than one command makes are
 * here, so that they refuse the same thing in the same words.
 */
import { messageOf, NamedError } from '../contract/errors.js';
import type { CliIo } from './cli-io.js';

/** A mistake in how the command was called (a flag, an argument, a file it names): exit 2, nothing done. */
export class UsageError extends NamedError {}

export type SetExitCode = (code: number) => void;

/** Where a service's PostgreSQL database is named when --database is not given (a password stays out of the process list). */
export const DATABASE_ENV = 'ORGINDEX_DATABASE_URL';

/**
 * Runs a command's work. An error is one line on stderr, `prefix` then its message, and exit code 2 when
 * it is a UsageError or `isUsage` says it is one of the caller's (1 otherwise).
 */
export async function runCommand(io: CliIo, setExitCode: SetExitCode, prefix: string, work: () => unknown, isUsage: (error: unknown) => boolean = () => false): Promise<void> {
  try {
    await work();
  } catch (error) {
    io.stderr(`${prefix}${messageOf(error)}\n`);
    setExitCode(error instanceof UsageError || isUsage(error) ? 2 : 1);
  }
}

/** A count of organizations as typed (undefined: not given); not a whole number ≥ 1 is refused with `message`. */
export function countOf(text: string | undefined, message: string): number | undefined {
  if (text === undefined) return undefined;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1) throw new UsageError(message);
  return count;
}

/** Flags that exclude each other: more than one of `given` set is refused with `message`. */
export function atMostOne(message: string, ...given: unknown[]): void {
  if (given.filter((value) => value !== undefined).length > 1) throw new UsageError(message);
}

/** The database a command works on: --database, else the environment's. */
export function databaseUrlOf(flag: string | undefined): string | undefined {
  return flag ?? process.env[DATABASE_ENV];
}
