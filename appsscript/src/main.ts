/**
 * The Sheets functions behind the top-level stubs (=ORGSEARCH, =ORGFETCH, =ORGSTATS, =ORGASK): the same
 * steps, arguments, tables and messages as Excel's ORG.*. Sheets shows a thrown error as #ERROR! with its
 * message, so a whole-call failure is thrown; a per-row miss in ORGFETCH is a text marker that says why.
 */
import './platform.js';
import { errorText, isErrorCell, plainValue, type Table } from '../../src/sheet/cells.js';
import type { Argument } from '../../src/sheet/arguments.js';
import { createFunctions } from './runtime.js';

/** Sheets hands date cells over as Date objects; the grammar reads ISO dates. */
function argumentOf(value: unknown): Argument {
  const cell = (v: unknown): unknown => (v instanceof Date ? v.toISOString().slice(0, 10) : v);
  if (Array.isArray(value)) return value.map((row: unknown) => (Array.isArray(row) ? row.map(cell) : [cell(row)]));
  const single = cell(value);
  return typeof single === 'string' || typeof single === 'number' || typeof single === 'boolean' ? single : null;
}


/** A whole-call error is thrown (#ERROR! with the message); error cells inside a table become text markers. */
export function toSheets(table: Table): (string | number | boolean)[][] {
  const only = table.length === 1 && table[0]?.length === 1 ? table[0][0] : undefined;
  if (only !== undefined && isErrorCell(only)) throw new Error(errorText(only));
  return table.map((row) => row.map(plainValue));
}

export function ORGSEARCH(query: unknown, filters?: unknown, columns?: unknown, options?: unknown): (string | number | boolean)[][] {
  return toSheets(createFunctions().search(argumentOf(query), argumentOf(filters), argumentOf(columns), argumentOf(options)));
}

export function ORGFETCH(domains: unknown, columns?: unknown, options?: unknown): (string | number | boolean)[][] {
  return toSheets(createFunctions().fetch(argumentOf(domains), argumentOf(columns), argumentOf(options)));
}

export function ORGSTATS(groupBy: unknown, groupBySecondary?: unknown, filters?: unknown, options?: unknown): (string | number | boolean)[][] {
  return toSheets(createFunctions().stats(argumentOf(groupBy), argumentOf(groupBySecondary), argumentOf(filters), argumentOf(options)));
}

export function ORGASK(domain: unknown, question: unknown, maxPages?: unknown, options?: unknown): (string | number | boolean)[][] {
  return toSheets(createFunctions().ask(argumentOf(domain), argumentOf(question), argumentOf(maxPages), argumentOf(options)));
}

export { onOpen, orgindexPinSelection, orgindexRefreshNow, orgindexShowSchedule, orgindexShowSidebar } from './menu.js';
export { scheduledRefresh as orgindexScheduledRefresh } from './saved-queries.js';
export { sidebarCall as orgindexSidebarCall } from './sidebar-api.js';
