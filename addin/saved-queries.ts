/**
 * Saved queries in an Excel workbook, with Excel.run: "Insert as refreshable values" and "Refresh saved
 * queries" (task pane and ribbon). The format is the one `orgindex refresh` reads and writes: one row per
 * query in the hidden worksheet `_orgindex`, and the cells a query owns as a defined name `ORGINDEX_<id>`,
 * which Excel moves with inserted rows and renamed sheets (src/sheet/saved-query.ts). A refresh asks the
 * service again (no cache), never covers a cell the query does not own or merged cells (the query fails,
 * naming the cell), clears what it owned, writes values with text kept as text, and stamps the row.
 * Scheduling is for the command line: `orgindex refresh` from cron (README).
 */
import type { RefreshReport, SavedQuery, SavedQueryOutput, SavedQueryRequest } from '../src/contract/saved-query.js';
import { SavedQuerySchema } from '../src/contract/saved-query.js';
import { ResultCache } from '../src/sheet/cache.js';
import { SheetFunctions } from '../src/sheet/functions.js';
import { answerConflict, mergedConflict, ownedRangeName, storeSheetConflict, readSavedQueryRows, refreshMessageOf, SAVED_QUERY_HEADER, SAVED_QUERY_SHEET, savedQueryRow, serviceName, serviceOf, sheetGone, summaryOf, targetOf, zodMessage, type StoredQuery } from '../src/sheet/saved-query.js';
import type { SavedQueriesHost } from '../src/ui/host.js';
import { writeValues } from './excel-actions.js';
import { rectangle } from '../src/sheet/cells.js';
import type { AddinRuntime } from './addin-runtime.js';
import { hasExcelApi } from './requirements.js';

interface Row {
  stored: StoredQuery;
  raw: unknown[];
}

/** The store's rows (an unreadable row is kept as read, for its author to mend). */
async function readStore(context: Excel.RequestContext): Promise<Row[]> {
  const sheet = context.workbook.worksheets.getItemOrNullObject(SAVED_QUERY_SHEET);
  await context.sync();
  if (sheet.isNullObject) return [];
  const used = sheet.getUsedRangeOrNullObject(true);
  used.load('values');
  await context.sync();
  if (used.isNullObject) return [];
  const rows = used.values as unknown[][];
  return readSavedQueryRows(rows).map((stored) => ({ stored, raw: rows[stored.row] ?? [] }));
}

/** Rewrites the store (created hidden on first use). */
async function writeStore(context: Excel.RequestContext, rows: readonly Row[]): Promise<void> {
  let sheet = context.workbook.worksheets.getItemOrNullObject(SAVED_QUERY_SHEET);
  await context.sync();
  if (sheet.isNullObject) {
    sheet = context.workbook.worksheets.add(SAVED_QUERY_SHEET);
    sheet.visibility = Excel.SheetVisibility.hidden;
  }
  sheet.getRange().clear(Excel.ClearApplyTo.contents);
  const lines = [SAVED_QUERY_HEADER, ...rows.map((row) => (row.stored.query ? savedQueryRow(row.stored.query) : row.raw.map((value) => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : ''))))];
  const values = rectangle(lines);
  writeValues(sheet.getRange('A1').getResizedRange(values.length - 1, (values[0]?.length ?? 1) - 1), values);
  await context.sync();
}

const serviceOfRuntime = (runtime: AddinRuntime): string | null => (runtime.connection.backend === 'remote' ? serviceOf(runtime.connection.serviceUrl) : null);

/** "'My sheet'!B2" → ["My sheet", "B2"]. */
function split(address: string): [string, string] {
  const at = address.lastIndexOf('!');
  return [address.slice(0, at).replace(/^'(.*)'$/, '$1').replace(/''/g, "'"), address.slice(at + 1).split(':')[0] ?? 'A1'];
}

/** Runs one query and writes its values where its defined name (else its sheet and cell) says. */
async function refreshOne(context: Excel.RequestContext, runtime: AddinRuntime, functions: SheetFunctions, query: SavedQuery, at: string): Promise<SavedQuery> {
  const service = serviceOfRuntime(runtime);
  if (query.service !== service) throw new Error(`This query was saved against ${serviceName(query.service)}; the add-in is connected to ${serviceName(service)}. Connect to ${serviceName(query.service)} under Connection only if you trust that service with your API key, or remove the query and insert it again.`);
  const name = ownedRangeName(query.id);
  const named = context.workbook.names.getItemOrNullObject(name);
  const owned = named.getRangeOrNullObject();
  owned.load(['address', 'rowCount', 'columnCount']);
  const byName = context.workbook.worksheets.getItemOrNullObject(query.sheet);
  await context.sync();
  if (owned.isNullObject && byName.isNullObject) throw new Error(sheetGone(query.sheet));
  // Checked before the service is asked: the store is rewritten after the refresh, wiping an answer there.
  const own = storeSheetConflict(query.id, owned.isNullObject ? query.sheet : split(owned.address)[0]);
  if (own !== null) throw new Error(own);
  const anchor = owned.isNullObject ? byName.getRange(query.cell) : owned.getCell(0, 0);
  anchor.load('address');
  const table = rectangle(await functions.savedQuery(query));
  const rows = table.length;
  const columns = table[0]?.length ?? 0;
  const previous = !owned.isNullObject && query.extent && query.extent.rows > 0 ? { rows: owned.rowCount, columns: owned.columnCount } : { rows: 0, columns: 0 };
  const target = rows > 0 ? anchor.getResizedRange(rows - 1, columns - 1) : null;
  const merged = target && canReadMerges() ? target.getMergedAreasOrNullObject() : null;
  target?.load(['values', 'formulas']);
  merged?.load('address');
  await context.sync();
  const [sheetName, cell] = split(anchor.address);
  if (merged && !merged.isNullObject) throw new Error(mergedConflict({ rows, columns, from: cell }, split(merged.address.split(',')[0] ?? '')[1]));
  if (target) {
    const conflict = answerConflict({ rows, columns, from: cell }, previous, (r, c) => target.values[r]?.[c] === '' && !String(target.formulas[r]?.[c] ?? '').startsWith('='));
    if (conflict) throw new Error(conflict);
  }
  // Claimed before anything is cleared or written: a batch that fails midway leaves a name over every cell it may have touched.
  const union = anchor.getResizedRange(Math.max(rows, previous.rows, 1) - 1, Math.max(columns, previous.columns, 1) - 1);
  if (!named.isNullObject) named.delete();
  context.workbook.names.add(name, union);
  await context.sync();
  if (previous.rows > 0 && !owned.isNullObject) {
    owned.clear(Excel.ClearApplyTo.contents);
    // Cells the answer no longer uses must not stay text-formatted.
    owned.numberFormat = Array.from({ length: previous.rows }, () => Array.from({ length: previous.columns }, () => 'General'));
  }
  if (target) writeValues(target, table);
  context.workbook.names.getItem(name).delete();
  context.workbook.names.add(name, target ?? anchor);
  await context.sync();
  return { ...query, sheet: sheetName, cell, extent: { rows, columns }, last_refreshed: at, status: 'ok' };
}

/**
 * One saved-query operation at a time: each reads the whole store, waits on the service, then rewrites
 * it — a refresh from the ribbon and an insert from the task pane must not write over each other.
 */
let queue: Promise<unknown> = Promise.resolve();
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

/** An id for a new query (crypto.randomUUID is missing from older Office webviews). */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Merged areas can be read from ExcelApi 1.13; an older Excel skips that check (writing into them then fails the query). */
const canReadMerges = (): boolean => hasExcelApi('1.13', true);

/** Each row's query's top-left cell now, from its defined name ([sheet, cell]), or null without one. */
async function anchorsOf(context: Excel.RequestContext, rows: readonly Row[]): Promise<([string, string] | null)[]> {
  const ranges = rows.map((row) => {
    const range = context.workbook.names.getItemOrNullObject(ownedRangeName(row.stored.id)).getRangeOrNullObject();
    range.load('address');
    return range;
  });
  await context.sync();
  return ranges.map((range) => (range.isNullObject ? null : split(range.address)));
}

/** A fresh set of functions: a refresh asks the service again, never the formulas' cache. */
const freshFunctions = (runtime: AddinRuntime): SheetFunctions => new SheetFunctions({ backend: () => runtime.backend, cache: new ResultCache({ now: () => Date.now() }), schedule: (run, ms) => setTimeout(run, ms) });

export function excelSavedQueries(runtime: AddinRuntime): SavedQueriesHost {
  return {
    insert: (request: SavedQueryRequest, output: SavedQueryOutput) =>
      serialized(() =>
        Excel.run(async (context) => {
          await runtime.ready;
          const selected = context.workbook.getSelectedRange().getCell(0, 0);
          selected.load('address');
          await context.sync();
          const [sheet, cell] = split(selected.address);
          if (sheet === SAVED_QUERY_SHEET) throw new Error(`Select a cell on another sheet: "${SAVED_QUERY_SHEET}" keeps the saved queries themselves`);
          const rows = await readStore(context);
          // A query already anchored at this cell (where its defined name is now, not where it was saved) is replaced.
          const anchors = await anchorsOf(context, rows);
          const existing = rows.find((_, i) => anchors[i]?.[0] === sheet && anchors[i][1] === cell);
          const parsed = SavedQuerySchema.safeParse({ request, output, id: existing?.stored.id ?? newId(), sheet, cell, service: serviceOfRuntime(runtime), extent: existing?.stored.query?.extent ?? null });
          if (!parsed.success) throw new Error(`The query cannot be saved: ${zodMessage(parsed.error)}`);
          const refreshed = await refreshOne(context, runtime, freshFunctions(runtime), parsed.data, new Date().toISOString());
          const entry: Row = { stored: { id: refreshed.id, query: refreshed, problem: null, row: -1 }, raw: [] };
          await writeStore(context, existing ? rows.map((row) => (row === existing ? entry : row)) : [...rows, entry]);
          return summaryOf(refreshed);
        }),
      ),
    list: () =>
      Excel.run(async (context) => {
        const rows = await readStore(context);
        const anchors = await anchorsOf(context, rows);
        return rows.map(({ stored }, i) => {
          if (!stored.query) return { id: stored.id, target: '?', description: 'unreadable', last_refreshed: null, status: stored.problem };
          // Where the query is now: its defined name moves with inserted rows and renamed sheets.
          const [sheet, cell] = anchors[i] ?? [stored.query.sheet, stored.query.cell];
          return summaryOf({ ...stored.query, sheet, cell });
        });
      }),
    remove: (id: string) =>
      serialized(() => Excel.run(async (context) => {
        const rows = await readStore(context);
        if (!rows.some((row) => row.stored.id === id)) throw new Error('No such saved query (it may have been removed already)');
        context.workbook.names.getItemOrNullObject(ownedRangeName(id)).delete();
        await writeStore(
          context,
          rows.filter((row) => row.stored.id !== id),
        );
      })),
    refreshAll: () => refreshSavedQueries(runtime),
    schedule: null,
  };
}

/** Refreshes every saved query of the workbook (the task pane's "Refresh all now", the ribbon's command). */
export function refreshSavedQueries(runtime: AddinRuntime): Promise<RefreshReport> {
  return serialized(() => refreshAll(runtime));
}

async function refreshAll(runtime: AddinRuntime): Promise<RefreshReport> {
  await runtime.ready;
  const at = new Date().toISOString();
  const report: RefreshReport = { at, refreshed: 0, failed: [], postponed: 0, skipped: null };
  const functions = freshFunctions(runtime);
  await Excel.run(async (context) => {
    const rows = await readStore(context);
    const after: Row[] = [];
    for (const row of rows) {
      const { query } = row.stored;
      if (!query) {
        report.failed.push({ id: row.stored.id, target: '?', message: row.stored.problem ?? 'unreadable' });
        after.push(row);
        continue;
      }
      try {
        const refreshed = await refreshOne(context, runtime, functions, query, new Date().toISOString());
        after.push({ ...row, stored: { ...row.stored, query: refreshed } });
        report.refreshed++;
      } catch (error) {
        const message = refreshMessageOf(error);
        report.failed.push({ id: query.id, target: targetOf(query), message });
        after.push({ ...row, stored: { ...row.stored, query: { ...query, status: message } } });
      }
    }
    if (rows.length > 0) await writeStore(context, after);
  });
  return report;
}
