/**
 * `orgindex query add | list | remove WORKBOOK.xlsx`: the saved queries of a workbook, managed from the
 * command line in the format the Excel add-in's "Insert as refreshable values" writes and `orgindex
 * refresh` re-runs (workbook-store.ts). `add` only saves a query — the refresh writes its values — so it
 * needs neither the service nor a key. Every check happens before anything is written: a body is
 * validated against the v2 contract at once (a mistake would otherwise surface only at the next refresh,
 * as a failed query), and a refused query leaves the workbook's bytes as they were.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ENDPOINTS } from '../contract/endpoints.js';
import { SavedQuerySchema, type SavedQuery } from '../contract/saved-query.js';
import { validate } from '../contract/validation.js';
import { cellOf, columnLetters } from '../sheet/a1.js';
import { describeSavedQuery, ownedRangeName, SAVED_QUERY_SHEET, serviceName, serviceOf, summaryOf, targetOf, zodMessage, type SavedQuerySummary } from '../sheet/saved-query.js';
import { table, type CliIo } from './cli-io.js';
import { GRID, printable } from './workbook-guard.js';
import { runCommand, UsageError, type SetExitCode } from './usage.js';
import { addressOf, areaOf, claim, openWorkbook, readQueries, saveWorkbook, storeSheet, writeQueries, type OpenedWorkbook, type StoreEntry } from './workbook-store.js';
import { messageOf } from '../contract/errors.js';

const QUERY_ROUTES = ['search', 'stats', 'fetch'] as const;
type QueryRoute = (typeof QUERY_ROUTES)[number];

const ENDPOINT_OF = { search: 'v2.search', stats: 'v2.stats', fetch: 'v2.fetch' } as const;

const COMMAND = 'orgindex query';

/** What `orgindex query add` is given; the body is the parsed JSON. */
export interface AddQueryOptions {
  sheet: string;
  cell: string;
  route: QueryRoute;
  body: unknown;
  /** Search only: rows to write (search_after pages are walked past one page). */
  rows?: number;
  /** The service to refresh it on; without it, the embedded sample. */
  baseUrl?: string;
  id?: string;
  /** Stats only. */
  layout?: 'crosstab' | 'long';
  headers?: boolean;
}

/**
 * A body given on the command line: JSON, or `@FILE` for a file's JSON (`@-`: standard input), since
 * quoting JSON for a shell is error-prone. JSON never starts with "@", so the two cannot be confused.
 */
function bodyOf(flag: string, text: string, readStdin: () => string): unknown {
  let json = text;
  if (text.startsWith('@')) {
    const source = text.slice(1);
    try {
      json = source === '-' ? readStdin() : readFileSync(source, 'utf8');
    } catch (error) {
      throw new UsageError(`--${flag} ${text}: cannot read ${source === '-' ? 'standard input' : source}: ${messageOf(error)}`, { cause: error });
    }
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw new UsageError(`--${flag}: the body is not JSON (${messageOf(error)})${text.startsWith('@') ? '' : "; quote it for the shell ('{\"filters\": …}'), or give @FILE.json"}`, { cause: error });
  }
}

/** Excel's rules for a sheet name (exceljs would truncate a long one silently). */
function sheetNameProblem(name: string): string | null {
  if (name.trim() === '') return 'is empty';
  if (name.length > 31) return 'is longer than Excel allows (31 characters)';
  if (/[*?:/\\[\]\p{Cc}]/u.test(name)) return 'holds a character Excel does not allow in a sheet name (* ? : / \\ [ ] or a control character)';
  if (/^'|'$/.test(name)) return 'starts or ends with an apostrophe';
  if (name.toLowerCase() === 'history') return 'is reserved by Excel';
  if (name.toLowerCase() === SAVED_QUERY_SHEET) return 'is the sheet that keeps the saved queries themselves';
  return null;
}

/** A cell as a user types it ("b2", "$B$2") → "B2", or null when it is no cell of Excel's grid. */
function gridCellOf(text: string): { cell: string; row: number; column: number } | null {
  const found = cellOf(text);
  if (!found || found.row > GRID.rows || found.column > GRID.columns) return null;
  return { cell: `${columnLetters(found.column)}${String(found.row)}`, ...found };
}

/** Ids whose defined names would be the same (Excel compares names case-insensitively; "-" becomes "_"). */
const sameName = (a: string, b: string): boolean => ownedRangeName(a).toUpperCase() === ownedRangeName(b).toUpperCase();

/** The query a user asked for, checked against the contract; throws UsageError saying what to fix. */
export function newSavedQuery(options: AddQueryOptions, id: string): SavedQuery {
  const { route } = options;
  const endpoint = ENDPOINTS[ENDPOINT_OF[route]];
  const checked = validate(endpoint.request, options.body, 'body');
  if (!checked.ok) {
    const problems = checked.error.detail.map((item) => `${item.loc.slice(1).join('.') || 'body'}: ${item.msg}`).join('; ');
    throw new UsageError(`the --${route} body is not a valid v2 ${route} request (POST /v2${endpoint.path}): ${problems}`);
  }
  if (options.rows !== undefined && route !== 'search') throw new UsageError('--rows goes with --search only (a stats table has one row per group, a fetch one per domain)');
  if (options.layout !== undefined && route !== 'stats') throw new UsageError('--layout goes with --stats only');
  const cell = gridCellOf(options.cell);
  if (!cell) throw new UsageError(`--cell takes the top-left cell of the table, such as A1 or B2 (columns A–XFD, rows 1–${GRID.rows.toLocaleString('en-US')}); got ${JSON.stringify(options.cell)}`);
  const sheetProblem = sheetNameProblem(options.sheet);
  if (sheetProblem) throw new UsageError(`--sheet ${JSON.stringify(options.sheet)} ${sheetProblem}`);
  const service = serviceOf(options.baseUrl);
  if (service !== null) {
    let url: URL | null = null;
    try {
      url = new URL(service);
    } catch {
      // Reported below with the other unusable addresses.
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
      throw new UsageError(`--base-url takes the service's http(s) address without credentials, such as https://orgindex.example.com; got ${JSON.stringify(options.baseUrl)}`);
    }
  }
  // The body as given, not as normalised: contract defaults stay the service's to apply at each refresh.
  const request = { interface: 'v2', route, body: options.body, ...(options.rows !== undefined ? { rows: options.rows } : {}) };
  const parsed = SavedQuerySchema.safeParse({ id, sheet: options.sheet, cell: cell.cell, request, service, output: { headers: options.headers ?? true, layout: options.layout ?? 'crosstab' } });
  if (!parsed.success) throw new UsageError(`the query cannot be saved: ${zodMessage(parsed.error)}`);
  return parsed.data;
}

/** An id a user can type back: the route and the first number no query of the workbook uses ("search-2"). */
function freeId(route: QueryRoute, entries: readonly StoreEntry[]): string {
  for (let n = 1; ; n++) {
    const id = `${route}-${String(n)}`;
    if (!entries.some((entry) => sameName(entry.stored.id, id))) return id;
  }
}

/** Where a query writes now: its defined name's top-left cell (moved by Excel with inserted rows and renamed sheets), else where it was saved. */
function currentTarget(opened: OpenedWorkbook, query: SavedQuery): { sheet: string; cell: string } {
  const area = areaOf(opened.names.text(ownedRangeName(query.id)));
  return area ? { sheet: area.sheet, cell: addressOf(area.top, area.left) } : { sheet: query.sheet, cell: query.cell };
}

/**
 * Saves a query in the workbook (created, with its sheet, when missing) and points its defined name at
 * its cell, so the name moves with rows inserted before the first refresh. Refused when its id (or its
 * defined name) or its cell is another query's.
 */
export async function addQuery(file: string, options: AddQueryOptions): Promise<SavedQuery> {
  if (options.id !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(options.id)) throw new UsageError(`--id takes 1 to 64 letters, digits, "-" or "_"; got ${JSON.stringify(options.id)}`);
  // Checked before the workbook is opened: a wrong body is reported even for a workbook that cannot be read.
  newSavedQuery(options, options.id ?? `${options.route}-1`);
  const opened = await openWorkbook(file, { command: COMMAND, create: true });
  const { workbook, names } = opened;
  const entries = readQueries(workbook.getWorksheet(SAVED_QUERY_SHEET));
  const taken = options.id === undefined ? undefined : entries.find((entry) => sameName(entry.stored.id, options.id ?? ''));
  if (taken) throw new UsageError(`${file} already has a saved query ${printable(taken.stored.id)}${taken.stored.id === options.id ? '' : ` (its defined name is ${ownedRangeName(options.id ?? '')} too)`}: choose another --id, or remove it first (orgindex query remove ${file} ${printable(taken.stored.id)})`);
  const query = newSavedQuery(options, options.id ?? freeId(options.route, entries));
  const sheet = workbook.worksheets.find((each) => each.name.toLowerCase() === query.sheet.toLowerCase()) ?? workbook.addWorksheet(query.sheet);
  const target = { ...query, sheet: sheet.name };
  for (const { stored } of entries) {
    if (!stored.query) continue;
    const there = currentTarget(opened, stored.query);
    if (there.sheet.toLowerCase() === target.sheet.toLowerCase() && there.cell === target.cell) {
      throw new UsageError(`the saved query ${printable(stored.id)} already writes at ${printable(targetOf(there))}: choose another --cell, or remove it first (orgindex query remove ${file} ${printable(stored.id)})`);
    }
  }
  const cell = gridCellOf(target.cell);
  claim(names, ownedRangeName(target.id), sheet, cell?.row ?? 1, cell?.column ?? 1, 1, 1);
  writeQueries(storeSheet(workbook), [...entries, { stored: { id: target.id, query: target, problem: null, row: -1 }, raw: [] }]);
  await saveWorkbook(opened);
  return target;
}

/** A saved query as `orgindex query list` shows it: where it writes now, and the service it runs on. */
export interface ListedQuery extends SavedQuerySummary {
  service: string;
}

/** The workbook's saved queries, in their order; a row that cannot be read is listed with why. */
export async function listQueries(file: string): Promise<ListedQuery[]> {
  const opened = await openWorkbook(file, { command: COMMAND });
  return readQueries(opened.workbook.getWorksheet(SAVED_QUERY_SHEET)).map(({ stored }) => {
    if (!stored.query) return { id: stored.id, target: '?', description: 'unreadable', service: '?', last_refreshed: null, status: stored.problem };
    return { ...summaryOf({ ...stored.query, ...currentTarget(opened, stored.query) }), service: serviceName(stored.query.service) };
  });
}

/**
 * Removes a saved query (an unreadable row too, by the id in its first column) and its defined name. The
 * values it wrote stay in the sheet as plain values, as the add-in's "Remove" leaves them.
 */
export async function removeQuery(file: string, id: string): Promise<{ id: string; target: string }> {
  const opened = await openWorkbook(file, { command: COMMAND });
  const sheet = opened.workbook.getWorksheet(SAVED_QUERY_SHEET);
  const entries = readQueries(sheet);
  const removed = entries.find((entry) => entry.stored.id === id);
  if (!sheet || !removed) throw new UsageError(`${file} has no saved query ${JSON.stringify(printable(id))} (orgindex query list ${file} shows their ids)`);
  const target = removed.stored.query ? targetOf(currentTarget(opened, removed.stored.query)) : '?';
  const kept = entries.filter((entry) => entry !== removed);
  // A row made by hand may share the name (ids differing only in case or "-" / "_"): it keeps its cells.
  if (!kept.some((entry) => sameName(entry.stored.id, id))) opened.names.delete(ownedRangeName(id));
  writeQueries(sheet, kept);
  await saveWorkbook(opened);
  return { id, target };
}

const listed = (query: ListedQuery): string[] => [query.id, query.target, query.description, query.service, query.last_refreshed ?? 'never', query.status ?? '-'].map(printable);

/** `orgindex query add | list | remove`: a refusal (nothing written) exits 2, any other failure 1. */
export function addQueryCommands(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  const run = (name: string, work: () => Promise<void>): Promise<void> => runCommand(io, setExitCode, `${COMMAND} ${name}: `, work);
  const query = program.command('query').description('add, list or remove the saved queries of a workbook (the ones orgindex refresh re-runs)');
  query
    .command('add')
    .argument('<workbook>', 'an .xlsx workbook; created when it does not exist')
    .description('save a query in a workbook: its values are written at SHEET!CELL by orgindex refresh (the body is checked against the v2 contract now; exit 2 and nothing written when it is not valid)')
    .option('--sheet <name>', 'the sheet to write the table on (created when missing)')
    .option('--cell <cell>', 'the top-left cell of the table, e.g. A1')
    .option('--search <json>', 'a v2 search body (JSON, or @file.json)')
    .option('--stats <json>', 'a v2 stats body (JSON, or @file.json)')
    .option('--fetch <json>', 'a v2 fetch body (JSON, or @file.json)')
    .option('--rows <n>', 'search: rows to write (default: the body\'s size, else 100; above 500 the pages are walked)')
    .option('--layout <layout>', 'stats with two groupings: "crosstab" (a grid) or "long" (one row per pair)')
    .option('--no-headers', 'write the table without its header row')
    .option('--base-url <url>', 'the service it is refreshed on (default: the embedded 50,000-organization sample)')
    .option('--id <id>', 'the query\'s id (letters, digits, - and _; default: search-1, stats-1, …)')
    .action((workbook: string, options: { sheet?: string; cell?: string; rows?: string; layout?: string; headers: boolean; baseUrl?: string; id?: string } & Partial<Record<QueryRoute, string>>) =>
      run('add', async () => {
        const given = QUERY_ROUTES.filter((route) => options[route] !== undefined);
        const [route] = given;
        if (route === undefined || given.length > 1) throw new UsageError('give one of --search, --stats or --fetch with a JSON body (or @file.json)');
        if (options.sheet === undefined || options.cell === undefined) throw new UsageError('give --sheet and --cell: where the table is written, e.g. --sheet Leads --cell A1');
        const rows = options.rows === undefined ? undefined : Number(options.rows);
        if (rows !== undefined && (!/^\d+$/.test(options.rows ?? '') || rows < 1)) throw new UsageError(`--rows takes a whole number of rows ≥ 1; got ${JSON.stringify(options.rows)}`);
        const { layout } = options;
        if (layout !== undefined && layout !== 'crosstab' && layout !== 'long') throw new UsageError(`--layout is "crosstab" or "long"; got ${JSON.stringify(layout)}`);
        const saved = await addQuery(workbook, {
          sheet: options.sheet,
          cell: options.cell,
          route,
          body: bodyOf(route, options[route] ?? '', io.readStdin),
          headers: options.headers,
          ...(rows !== undefined ? { rows } : {}),
          ...(layout !== undefined ? { layout } : {}),
          ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
          ...(options.id !== undefined ? { id: options.id } : {}),
        });
        io.stdout(`${saved.id}\n`);
        io.stderr(`saved ${saved.id}: ${printable(targetOf(saved))}, ${describeSavedQuery(saved)}, on ${printable(serviceName(saved.service))}; orgindex refresh ${workbook}${saved.service === null ? '' : ` --base-url ${printable(saved.service)}`} writes its values\n`);
      }),
    );
  query
    .command('list')
    .argument('<workbook>', 'an .xlsx workbook')
    .description('list the saved queries of a workbook: id, where it writes, what it asks, service, last refreshed, status')
    .option('--json', 'print them as JSON')
    .action((workbook: string, options: { json?: boolean }) =>
      run('list', async () => {
        const queries = await listQueries(workbook);
        if (options.json) {
          io.stdout(`${JSON.stringify(queries, null, 2)}\n`);
          return;
        }
        if (queries.length === 0) {
          io.stderr(`${workbook} has no saved queries (orgindex query add saves one)\n`);
          return;
        }
        io.stdout(table([['ID', 'WHERE', 'QUERY', 'SERVICE', 'LAST REFRESHED (UTC)', 'STATUS'], ...queries.map(listed)]));
      }),
    );
  query
    .command('remove')
    .argument('<workbook>', 'an .xlsx workbook')
    .argument('<id>', 'the saved query\'s id (orgindex query list shows them)')
    .description('remove a saved query and its defined name; the values it wrote stay in the sheet as plain values')
    .action((workbook: string, id: string) =>
      run('remove', async () => {
        const removed = await removeQuery(workbook, id);
        io.stderr(`removed ${printable(removed.id)} (${printable(removed.target)}); the values it wrote stay as plain values\n`);
      }),
    );
}
