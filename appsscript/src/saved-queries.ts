/// <reference types="google-apps-script" />
/**
 * Saved queries in Sheets: answers written as values (not formulas) and refreshed later — from the menu,
 * the sidebar, or a time-driven trigger — or from outside, by `orgindex refresh --google-sheet` through
 * the Sheets API. So each query is developer metadata `orgindex.query.<id>` (document-visible: readable
 * by the API, not only by this script) on its target sheet, holding the contract's SavedQuery as JSON,
 * and the cells it owns are a named range `ORGINDEX_<id>`, which Sheets moves when rows or columns are
 * inserted or the sheet is renamed. A refresh:
 *  - holds the document lock, so two runs (a trigger and a click) never write over each other;
 *  - runs only on the connection the query was saved with (never the sample in place of a service);
 *  - asks the service again (never the formulas' cache), oldest refresh first, so a run cut short by
 *    Apps Script's 6-minute limit still moves every query forward over successive runs;
 *  - never overwrites a cell it does not own (the query fails instead, and says which cell), and claims
 *    the cells it is about to write before writing them, so a run killed midway owns what it wrote;
 *  - clears what it owned, writes the new values, stamps a note on the anchor cell;
 *  - records failures in the query (status), in the "OrgIndex log" sheet and, on a schedule, by e-mail
 *    (once per new set of failures, not every hour).
 */
import * as z from 'zod';
import { RefreshScheduleSchema, SavedQuerySchema, type RefreshReport, type RefreshSchedule, type SavedQuery, type SavedQueryInput } from '../../src/contract/saved-query.js';
import { cellOf } from '../../src/sheet/a1.js';
import { answerConflict, MAX_STATUS_CHARS, storedForm, describeSavedQuery, ownedRangeName, parseStoredQuery, refreshMessageOf, serviceName, serviceOf, sheetGone, summaryOf, targetOf, zodMessage, type SavedQuerySummary, type ScheduleView, type StoredQuery } from '../../src/sheet/saved-query.js';
import type { SyncSheetFunctions } from '../../src/sheet/sync-functions.js';
import { createFunctions, currentConnection } from './runtime.js';
import { activeCell, writeValues, type Written } from './sheet-actions.js';
import { rectangle } from '../../src/sheet/cells.js';
import { messageOf } from '../../src/contract/errors.js';

const QUERY_PREFIX = 'orgindex.query.';
const SCHEDULE_PROPERTY = 'orgindex.schedule';
/** The failures last e-mailed: the same failures are not e-mailed again by every run. */
const MAILED_PROPERTY = 'orgindex.mailedFailures';
/** The trigger handler's name (a top-level function of Code.js). */
export const REFRESH_HANDLER = 'orgindexScheduledRefresh';
export const LOG_SHEET = 'OrgIndex log';
const LOG_ROWS_KEPT = 1_000;
/**
 * Google keeps a bounded amount of developer metadata per location (a sheet): OrgIndex keeps each sheet's
 * saved queries within 30,000 characters, so one more is refused up front rather than lost.
 */
const MAX_SHEET_METADATA_CHARS = 30_000;
/** Apps Script ends an execution at 6 minutes: no query starts after this. */
const RUN_BUDGET_MS = 5 * 60_000;
/** How long a refresh waits for another one of the same document to finish. */
const LOCK_WAIT_MS = 20_000;

type Range = GoogleAppsScript.Spreadsheet.Range;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const documentProperties = (): GoogleAppsScript.Properties.Properties => PropertiesService.getDocumentProperties();

interface Entry {
  stored: StoredQuery;
  metadata: GoogleAppsScript.Spreadsheet.DeveloperMetadata;
  sheet: Sheet;
}

/** Every saved query of the spreadsheet, with the metadata that holds it. */
function entries(): Entry[] {
  return SpreadsheetApp.getActiveSpreadsheet()
    .getSheets()
    .flatMap((sheet) =>
      sheet
        .getDeveloperMetadata()
        .filter((metadata) => metadata.getKey().startsWith(QUERY_PREFIX))
        .map((metadata) => ({ stored: parseStoredQuery(metadata.getKey().slice(QUERY_PREFIX.length), metadata.getValue() ?? ''), metadata, sheet })),
    );
}

const storedQueries = (): StoredQuery[] => entries().map((entry) => entry.stored);


/** Refuses a query its sheet could not keep after a refresh (its largest extent, stamp and status included). */
function assertStorable(query: SavedQuery): void {
  const largest = JSON.stringify({ ...query, extent: { rows: 9_999_999, columns: 99_999 }, last_refreshed: new Date().toISOString(), status: '\u2026'.repeat(MAX_STATUS_CHARS) }).length;
  const others = entries()
    .filter((entry) => entry.sheet.getName() === query.sheet && entry.stored.id !== query.id)
    .reduce((sum, entry) => sum + (entry.metadata.getValue() ?? '').length, 0);
  if (largest + others > MAX_SHEET_METADATA_CHARS) {
    throw new Error(`This query cannot be saved for refresh: the saved queries of the sheet "${query.sheet}" would take ${(largest + others).toLocaleString('en-US')} characters, and Google keeps ${MAX_SHEET_METADATA_CHARS.toLocaleString('en-US')} per sheet. Use a formula instead, or put it on another sheet.`);
  }
}

/** Stores a query: its metadata updated, or added to its sheet (document-visible, for the Sheets API too). */
function store(query: SavedQuery): void {
  const json = JSON.stringify(storedForm(query));
  const existing = entries().find((entry) => entry.stored.id === query.id);
  if (existing) {
    existing.metadata.setValue(json);
    return;
  }
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(query.sheet);
  if (!sheet) throw new Error(sheetGone(query.sheet));
  sheet.addDeveloperMetadata(QUERY_PREFIX + query.id, json, SpreadsheetApp.DeveloperMetadataVisibility.DOCUMENT);
}


/** Where a query is now: its named range moves with inserted rows and columns and renamed sheets. */
function located(query: SavedQuery): SavedQuery {
  const owned = SpreadsheetApp.getActiveSpreadsheet().getRangeByName(ownedRangeName(query.id));
  return owned ? { ...query, sheet: owned.getSheet().getName(), cell: owned.getCell(1, 1).getA1Notation() } : query;
}

/** Sheet, then row, then column (B2 before B10). */
function byPlace(a: SavedQuery, b: SavedQuery): number {
  const place = (query: SavedQuery): [number, number] => {
    const cell = cellOf(query.cell);
    return cell ? [cell.row, cell.column] : [0, 0];
  };
  const [rowA, columnA] = place(a);
  const [rowB, columnB] = place(b);
  return a.sheet.localeCompare(b.sheet) || rowA - rowB || columnA - columnB;
}

export function listSavedQueries(): SavedQuerySummary[] {
  const stored = storedQueries();
  const readable = stored.flatMap((entry) => (entry.query ? [located(entry.query)] : [])).sort(byPlace);
  const unreadable = stored.filter((entry) => !entry.query).map((entry) => ({ id: entry.id, target: '?', description: 'unreadable', last_refreshed: null, status: entry.problem }));
  return [...readable.map(summaryOf), ...unreadable];
}

/** Forgets a saved query (under the lock: a running refresh would store it again); its values stay in the sheet. */
export function removeSavedQuery(id: string): void {
  const removed = withDocumentLock(() => {
    const entry = entries().find((candidate) => candidate.stored.id === id);
    if (!entry) throw new Error('No such saved query (it may have been removed already)');
    entry.metadata.remove();
    const spreadsheet = SpreadsheetApp.getActiveSpreadsheet();
    const owned = spreadsheet.getRangeByName(ownedRangeName(id));
    if (owned) {
      owned.getCell(1, 1).setNote('');
      spreadsheet.removeNamedRange(ownedRangeName(id));
    }
    return true;
  });
  if (!removed) throw new Error(BUSY);
}

/** Cells outside what the query wrote last time must be empty: a refresh that grows never eats a user's data. */
function assertFree(target: Range, previous: SavedQuery['extent']): void {
  const values = target.getValues();
  const formulas = target.getFormulas();
  const conflict = answerConflict({ rows: target.getNumRows(), columns: target.getNumColumns(), from: target.getCell(1, 1).getA1Notation() }, previous ?? { rows: 0, columns: 0 }, (r, c) => values[r]?.[c] === '' && formulas[r]?.[c] === '');
  if (conflict) throw new Error(conflict);
}

/** The v2 base URL of the current connection, or null for the embedded sample (as SavedQuery.service). */
export function currentService(): string | null {
  const connection = currentConnection();
  return connection.backend === 'remote' ? serviceOf(connection.serviceUrl) : null;
}

/** Grows the sheet when the answer reaches past its last row or column (a new sheet has 1,000 × 26). */
function ensureSize(sheet: Sheet, lastRow: number, lastColumn: number): void {
  if (lastRow > sheet.getMaxRows()) sheet.insertRowsAfter(sheet.getMaxRows(), lastRow - sheet.getMaxRows());
  if (lastColumn > sheet.getMaxColumns()) sheet.insertColumnsAfter(sheet.getMaxColumns(), lastColumn - sheet.getMaxColumns());
}

/**
 * Runs one query and writes its values; the query as it is to be stored after. Order matters: the cells
 * about to be written are claimed (named range and stored extent) before any is written, so a run killed
 * midway leaves a query that owns everything it may have written.
 */
function refreshOne(query: SavedQuery, functions: SyncSheetFunctions, now: Date): SavedQuery {
  const service = currentService();
  if (query.service !== service) {
    throw new Error(`This query was saved against ${serviceName(query.service)}; this refresh runs on ${serviceName(service)} (the connection of the account running it). Connect to ${serviceName(query.service)} under Connection only if you trust that service with your API key, or remove the query and insert it again.`);
  }
  const spreadsheet = SpreadsheetApp.getActiveSpreadsheet();
  const name = ownedRangeName(query.id);
  const owned = spreadsheet.getRangeByName(name);
  const sheet = owned ? owned.getSheet() : spreadsheet.getSheetByName(query.sheet);
  if (!sheet) throw new Error(sheetGone(query.sheet));
  const anchor = owned ? owned.getCell(1, 1) : sheet.getRange(query.cell);
  // What the query owns: its named range (grown by rows inserted inside it), else nothing.
  const previous = owned && query.extent && query.extent.rows > 0 ? { rows: owned.getNumRows(), columns: owned.getNumColumns() } : null;
  const values: Written[][] = rectangle(functions.savedQuery(query));
  const rows = values.length;
  const columns = rows === 0 ? 0 : (values[0]?.length ?? 0);
  ensureSize(sheet, anchor.getRow() + Math.max(rows, 1) - 1, anchor.getColumn() + Math.max(columns, 1) - 1);
  const target = rows === 0 ? null : anchor.offset(0, 0, rows, columns);
  if (target) assertFree(target, previous);

  const claimed = { rows: Math.max(rows, previous?.rows ?? 0), columns: Math.max(columns, previous?.columns ?? 0) };
  const claim = (extent: { rows: number; columns: number }): void => {
    const range = extent.rows > 0 ? anchor.offset(0, 0, extent.rows, extent.columns) : anchor;
    const existing = spreadsheet.getNamedRanges().find((named) => named.getName() === name);
    if (existing) existing.setRange(range);
    else spreadsheet.setNamedRange(name, range);
  };
  const placed = { ...query, sheet: sheet.getName(), cell: anchor.getA1Notation() };
  claim(claimed);
  store({ ...placed, extent: claimed, status: 'writing' });
  if (previous) {
    const old = anchor.offset(0, 0, previous.rows, previous.columns);
    old.clearContent();
    // Cells the answer no longer uses must not stay plain text (a formula typed there later would be text).
    old.setNumberFormat('General');
  }
  if (target) writeValues(target, values);
  claim({ rows, columns });
  const at = now.toISOString();
  anchor.setNote(`OrgIndex saved query: ${describeSavedQuery(query)}\nLast refreshed ${at.slice(0, 16).replace('T', ' ')} UTC\nRefresh: OrgIndex → Refresh now, or on the schedule`);
  return { ...placed, extent: { rows, columns }, last_refreshed: at, status: 'ok' };
}

/** Runs `work` holding the document lock, or says why it did not. */
function withDocumentLock<T>(work: () => T): T | null {
  const lock = LockService.getDocumentLock();
  if (!lock.tryLock(LOCK_WAIT_MS)) return null;
  try {
    const result = work();
    SpreadsheetApp.flush();
    return result;
  } finally {
    lock.releaseLock();
  }
}

const BUSY = 'Another refresh of this spreadsheet is running; try again in a minute.';

/**
 * Writes a new saved query's answer at the selected cell and saves it. A query already anchored there is
 * replaced (its extent is taken over, so the new answer may overwrite the old one). Nothing is saved
 * when the first run fails.
 */
export function insertRefreshable(input: Pick<SavedQueryInput, 'request' | 'output'>): SavedQuerySummary {
  const anchor = activeCell();
  const sheet = anchor.getSheet().getName();
  const cell = anchor.getA1Notation();
  const existing = storedQueries().find((stored) => stored.query && located(stored.query).sheet === sheet && located(stored.query).cell === cell)?.query;
  const parsed = SavedQuerySchema.safeParse({ ...input, id: existing?.id ?? Utilities.getUuid(), sheet, cell, service: currentService(), extent: existing?.extent ?? null });
  if (!parsed.success) throw new Error(`The query cannot be saved: ${zodMessage(parsed.error)}`);
  assertStorable(parsed.data);
  const saved = withDocumentLock(() => {
    const refreshed = refreshOne(parsed.data, createFunctions(RUN_BUDGET_MS, { fresh: true }), new Date());
    store(refreshed);
    return refreshed;
  });
  if (!saved) throw new Error(BUSY);
  return summaryOf(saved);
}

/**
 * Refreshes every saved query of the spreadsheet (`reason` "schedule" also e-mails failures when the
 * schedule names an address). Failures are stored with their query and appended to the log sheet.
 */
export function refreshSavedQueries(reason: 'schedule' | 'menu' | 'sidebar'): RefreshReport {
  const started = Date.now();
  const report: RefreshReport = { at: new Date(started).toISOString(), refreshed: 0, failed: [], postponed: 0, skipped: null };
  const ran = withDocumentLock(() => {
    const functions = createFunctions(RUN_BUDGET_MS, { fresh: true });
    // Oldest first: a run cut short still moves every query forward over successive runs.
    const queue = storedQueries().sort((a, b) => (a.query?.last_refreshed ?? '').localeCompare(b.query?.last_refreshed ?? ''));
    for (const { id, query, problem } of queue) {
      if (!query) {
        report.failed.push({ id, target: '?', message: problem ?? 'unreadable' });
        continue;
      }
      if (Date.now() - started > RUN_BUDGET_MS) {
        // Not a failure: the next run starts with it (oldest first).
        report.postponed++;
        continue;
      }
      try {
        store(refreshOne(query, functions, new Date()));
        report.refreshed++;
      } catch (error) {
        const message = refreshMessageOf(error);
        report.failed.push({ id, target: targetOf(located(query)), message });
        // As stored now: a refresh that failed after claiming its cells keeps the claim.
        const current = storedQueries().find((entry) => entry.id === id)?.query ?? query;
        store({ ...current, status: message });
      }
    }
    return true;
  });
  if (!ran) return { ...report, skipped: BUSY };
  if (report.failed.length > 0) {
    try {
      recordFailures(report, reason === 'schedule' ? readSchedule().email : null);
    } catch (error) {
      // The report still reaches the user (sidebar, toast); the queries' statuses are stored.
      report.failed.push({ id: '', target: LOG_SHEET, message: `The failures could not be logged: ${messageOf(error)}` });
    }
  }
  return report;
}

/**
 * Appends the failures to the log sheet (created on first use, kept to its last 1,000 rows) and e-mails
 * them when they differ from the failures e-mailed last (an hourly schedule does not repeat itself).
 */
function recordFailures(report: RefreshReport, email: string | null): void {
  const rows: Written[][] = report.failed.map((failure) => [report.at, failure.target, failure.id, failure.message]);
  const spreadsheet = SpreadsheetApp.getActiveSpreadsheet();
  const lines = report.failed.map((failure) => `${failure.target}: ${failure.message}`);
  const signature = JSON.stringify([...lines].sort());
  if (email && documentProperties().getProperty(MAILED_PROPERTY) !== signature) {
    try {
      MailApp.sendEmail(email, `OrgIndex: ${report.failed.length} saved ${report.failed.length === 1 ? 'query' : 'queries'} failed to refresh in "${spreadsheet.getName()}"`, `${lines.join('\n')}\n\n${spreadsheet.getUrl()}\nThe failures are also in the sheet "${LOG_SHEET}". The same failures are not e-mailed again.`);
      documentProperties().setProperty(MAILED_PROPERTY, signature);
    } catch (error) {
      rows.push([report.at, '', '', `The e-mail to ${email} could not be sent: ${messageOf(error)}`]);
    }
  }
  let log = spreadsheet.getSheetByName(LOG_SHEET);
  if (!log) {
    const active = spreadsheet.getActiveSheet();
    log = spreadsheet.insertSheet(LOG_SHEET, spreadsheet.getSheets().length);
    writeValues(log.getRange(1, 1, 1, 4), [['Time (UTC)', 'Target', 'Saved query', 'Problem']]);
    // insertSheet activates the new sheet: give the user back the one they were on.
    active.activate();
  }
  const first = log.getLastRow() + 1;
  ensureSize(log, first + rows.length - 1, 4);
  writeValues(log.getRange(first, 1, rows.length, 4), rows);
  const excess = log.getLastRow() - 1 - LOG_ROWS_KEPT;
  if (excess > 0) log.deleteRows(2, excess);
}

// ---------------------------------------------------------------------------------------------------------
// The schedule: one time-driven trigger per spreadsheet

interface StoredSchedule extends RefreshSchedule {
  /** The unique id of the trigger that runs this schedule (null when off). */
  trigger_id: string | null;
}

function storedSchedule(): StoredSchedule {
  const raw = documentProperties().getProperty(SCHEDULE_PROPERTY);
  try {
    const parsed = RefreshScheduleSchema.extend({ trigger_id: z.string().nullable().default(null) }).safeParse(raw ? JSON.parse(raw) : {});
    if (parsed.success) return parsed.data;
  } catch {
    // An unreadable schedule reads as none.
  }
  return { ...RefreshScheduleSchema.parse({}), trigger_id: null };
}

const ownTriggers = (): GoogleAppsScript.Script.Trigger[] => ScriptApp.getProjectTriggers().filter((trigger) => trigger.getHandlerFunction() === REFRESH_HANDLER);

export function readSchedule(): ScheduleView {
  const { trigger_id, ...schedule } = storedSchedule();
  return { ...schedule, timeZone: SpreadsheetApp.getActiveSpreadsheet().getSpreadsheetTimeZone(), mine: trigger_id !== null && ownTriggers().some((trigger) => trigger.getUniqueId() === trigger_id) };
}

/**
 * Sets the schedule: unless "off", one trigger is created, then this user's earlier refresh triggers are
 * removed — so setting it twice leaves one trigger. A trigger set earlier by another user is not visible here; it
 * removes itself on its next run, when it finds it no longer runs the stored schedule.
 */
export function setSchedule(input: unknown): ScheduleView {
  const parsed = RefreshScheduleSchema.safeParse(input);
  if (!parsed.success) throw new Error(`The schedule is not valid: ${zodMessage(parsed.error)}`);
  const schedule = parsed.data;
  const earlier = ownTriggers();
  let triggerId: string | null = null;
  if (schedule.frequency !== 'off') {
    const timeZone = SpreadsheetApp.getActiveSpreadsheet().getSpreadsheetTimeZone();
    const clock = ScriptApp.newTrigger(REFRESH_HANDLER).timeBased();
    const timed =
      schedule.frequency === 'hourly'
        ? clock.everyHours(1)
        : (schedule.frequency === 'daily' ? clock.everyDays(1) : clock.onWeekDay(ScriptApp.WeekDay[schedule.weekday])).atHour(schedule.hour).inTimezone(timeZone);
    // Created before the earlier ones go: if creating fails (trigger quota), the old schedule still runs.
    triggerId = timed.create().getUniqueId();
  }
  documentProperties().setProperty(SCHEDULE_PROPERTY, JSON.stringify({ ...schedule, trigger_id: triggerId } satisfies StoredSchedule));
  for (const trigger of earlier) ScriptApp.deleteTrigger(trigger);
  return readSchedule();
}

/** The time-driven trigger's handler. A trigger of an earlier schedule deletes itself and does nothing. */
export function scheduledRefresh(event?: { triggerUid?: string }): RefreshReport | null {
  const uid = event?.triggerUid;
  if (uid !== undefined && uid !== storedSchedule().trigger_id) {
    for (const trigger of ScriptApp.getProjectTriggers()) if (trigger.getUniqueId() === uid) ScriptApp.deleteTrigger(trigger);
    return null;
  }
  return refreshSavedQueries('schedule');
}
