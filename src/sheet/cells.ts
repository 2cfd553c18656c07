/**
 * What a spreadsheet function returns, host-neutral: values, and error cells that say what went wrong.
 * Excel turns an `ErrorCell` into `CustomFunctions.Error(code, message)`; Sheets into a thrown message
 * (`#ERROR!`) or, per row, a text marker. Written once here, used by both hosts.
 */
import { messageOf, OrgIndexError, RateLimitError, ValidationError } from '../contract/errors.js';

/** The two error kinds the functions use: bad arguments, and "no value" (not found, no answer, unavailable). */
export type ErrorCode = '#VALUE!' | '#N/A';

export interface ErrorCell {
  readonly error: ErrorCode;
  readonly message: string;
}

export type CellValue = string | number | boolean | null | ErrorCell;
export type Table = CellValue[][];

export function errorCell(error: ErrorCode, message: string): ErrorCell {
  return { error, message };
}

export function isErrorCell(value: unknown): value is ErrorCell {
  return typeof value === 'object' && value !== null && 'error' in value && 'message' in value;
}

/** An error cell as the text a host writes where it cannot show an error ("#N/A Rate limit reached: …"). */
export function errorText(cell: ErrorCell): string {
  return `${cell.error} ${cell.message}`;
}

/** A cell as a plain value a sheet stores: an error cell as its text, an empty cell as "". */
export function plainValue(cell: CellValue): string | number | boolean {
  return isErrorCell(cell) ? errorText(cell) : (cell ?? '');
}

/** A table as the rectangle of plain values a sheet's range is written with: short rows padded with "", at least one column. */
export function rectangle(table: Table): (string | number | boolean)[][] {
  const width = Math.max(1, ...table.map((row) => row.length));
  return table.map((row) => Array.from({ length: width }, (_, i) => plainValue(row[i] ?? '')));
}

/** A bad argument: `#VALUE!` with a message that names the argument and the bad part. */
export class ArgumentError extends Error {
  constructor(
    readonly argument: string,
    /** What is wrong with it (the message without the argument's name). */
    readonly reason: string,
  ) {
    super(`${argument}: ${reason}`);
    this.name = 'ArgumentError';
  }
}

/** "14:05 UTC" or "1 Dec 2026, 00:00 UTC": when a limit lifts, in words a user reads in one glance. */
function whenText(iso: string | null, now: number): string {
  if (!iso) return 'later';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'later';
  const time = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')} UTC`;
  const sameDay = new Date(now).toISOString().slice(0, 10) === at.toISOString().slice(0, 10);
  if (sameDay) return `at ${time}`;
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][at.getUTCMonth()] ?? '';
  return `on ${at.getUTCDate()} ${month} ${at.getUTCFullYear()}, ${time}`;
}

/**
 * What a message tells its reader to do, in the words of where it is read: the task pane and the sidebar
 * have a Connection tab; `orgindex refresh` in a cron log has flags and an environment variable instead.
 */
export interface Remedies {
  /** For a key the service refused. */
  apiKey: string;
}

/** The panes' words (Excel's task pane and the Sheets sidebar both have OrgIndex → Connection). */
export const PANE_REMEDIES: Remedies = { apiKey: 'check the API key under OrgIndex → Connection' };

/**
 * The error cell for anything a function call can throw: bad arguments and 422s are `#VALUE!` (pointing
 * at the field), everything else `#N/A` with a message — rate limits and exhausted quotas say when they
 * lift. Never a blank, never an exception escaping to the host.
 */
export function errorCellOf(error: unknown, now: number = Date.now(), remedies: Remedies = PANE_REMEDIES): ErrorCell {
  if (error instanceof ArgumentError) return errorCell('#VALUE!', error.message);
  if (error instanceof ValidationError) {
    const first = error.detail[0];
    const where = first ? first.loc.filter((segment) => segment !== 'body' && segment !== 'query').join('.') : '';
    return errorCell('#VALUE!', first ? `${where ? `${where}: ` : ''}${first.msg}` : error.message);
  }
  if (error instanceof RateLimitError) {
    return errorCell('#N/A', `${error.limit === 'quota' ? 'Monthly quota used up' : 'Rate limit reached'}: try again ${whenText(error.resetAt, now)}. ${error.message}`);
  }
  if (error instanceof OrgIndexError) {
    const prefix: Record<string, string> = {
      auth: `Not authorised (${remedies.apiKey})`,
      network: 'Cannot reach the OrgIndex service',
      timeout: 'The OrgIndex service did not answer in time',
      server: 'The OrgIndex service failed',
      configuration: 'OrgIndex is not configured',
    };
    return errorCell('#N/A', `${prefix[error.kind] ?? 'OrgIndex error'}: ${error.message}`);
  }
  return errorCell('#N/A', `Unexpected error: ${messageOf(error)}`);
}
