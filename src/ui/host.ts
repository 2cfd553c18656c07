/**
 * What the task pane (Excel) and the sidebar (Sheets) need from their host — the one seam between the
 * React UI and a spreadsheet. Excel implements it with Excel.run (addin/taskpane/hosts.ts), Sheets
 * with google.script.run; outside any spreadsheet a preview host lets the UI run in a plain browser.
 */
import type { Quota } from '../contract/errors.js';
import type { SheetBackend } from '../sheet/backend.js';
import type { Table } from '../sheet/cells.js';
import type { CardTable } from '../sheet/org-card.js';
import type { Coordinates, MapLevel } from '../contract/common.js';
import type { Connection } from '../sheet/connection.js';
import type { RefreshReport, RefreshScheduleInput, SavedQueryOutput, SavedQueryRequest } from '../contract/saved-query.js';
import type { SavedQuerySummary, ScheduleView } from '../sheet/saved-query.js';

export type FunctionId = 'SEARCH' | 'FETCH' | 'STATS' | 'ASK';

export interface SelectedColumn {
  /** Where the values are, in the host's notation (e.g. Sheet1!A2:A200). */
  address: string;
  values: unknown[];
}

/** Saved queries: answers written as values, refreshed on demand (and, where the host can, on a schedule). */
export interface SavedQueriesHost {
  /** Writes the answer at the selected cell and saves the query there (nothing is saved when it fails). */
  insert(request: SavedQueryRequest, output: SavedQueryOutput): Promise<SavedQuerySummary>;
  list(): Promise<SavedQuerySummary[]>;
  /** Forgets a query; the values it wrote stay. */
  remove(id: string): Promise<void>;
  refreshAll(): Promise<RefreshReport>;
  /** Null where the host cannot schedule by itself (Excel: `orgindex refresh` from cron). */
  readonly schedule: { get(): Promise<ScheduleView>; set(schedule: RefreshScheduleInput): Promise<ScheduleView> } | null;
}

/** Organization cards: Excel's data types (ExcelApi 1.16). */
export interface CardsHost {
  /** False where this Excel shows no data types: conversion writes plain columns instead. */
  supported(): boolean;
  /**
   * Replaces the cells of `address`, from `offset` rows down, that have a card by it; the other cells
   * (blank, not a domain, not in the index, or a formula) are left as they are. Resolves to how many
   * cards were written.
   */
  writeCards(address: string, offset: number, cards: CardTable): Promise<number>;
  /** Whether a formula asked for cards and got plain columns (this Excel has no data types), and news of it. */
  fellBack(): boolean;
  onFellBack(listener: () => void): () => void;
}

export interface Host {
  /** Shown in the UI ("Excel", "Google Sheets", "Browser preview"). */
  readonly label: string;
  /** False outside a spreadsheet: the insert and enrich buttons explain instead of acting. */
  readonly canWrite: boolean;
  /** Where the key is kept, in words for the connection form. */
  readonly keyStorage: string;
  /** The formula name: ORG.SEARCH in Excel, ORGSEARCH in Sheets. */
  functionName(id: FunctionId): string;
  connection(): Connection;
  /** Stores the connection for this user; `shared` (where `canShareConnection`) for everyone using the document. */
  saveConnection(connection: Connection, options?: { shared?: boolean }): Promise<void>;
  /** Sheets can keep a team connection in the spreadsheet; Excel keeps keys out of workbooks. */
  readonly canShareConnection: boolean;
  backend(): SheetBackend;
  /** A backend for a connection not yet saved ("Test and save" checks before it saves). */
  backendFor(connection: Connection): SheetBackend;
  /** The quota of the last response of the current connection, if any. */
  lastQuota(): Quota | null;
  onQuota(listener: (quota: Quota) => void): () => void;
  insertFormula(formula: string): Promise<void>;
  /** Writes a table at the selected cell (as an Excel table when `asTable`). */
  insertValues(table: Table, options: { asTable: boolean }): Promise<void>;
  readSelectedColumn(): Promise<SelectedColumn>;
  /** Writes rows to the right of `address`, starting `offset` rows down (enrichment writes in chunks). */
  writeBeside(address: string, offset: number, table: Table): Promise<void>;
  /** Writes the table at the selected cell and a chart of it. */
  insertChart(table: Table, title: string): Promise<void>;
  /** Forgets cached answers and recalculates the functions. */
  refresh(): Promise<void>;
  /** Replaces the selected formulas by their current values. */
  pinSelection(): Promise<void>;
  /** Null where the host has no saved queries yet. */
  readonly savedQueries: SavedQueriesHost | null;
  /** Null where the host has no data types (Google Sheets, the browser preview). */
  readonly cards: CardsHost | null;
  /** Where the named places lie, from the embedded geography (places it does not know are left out). */
  placeCoordinates(level: MapLevel, names: readonly string[]): Promise<Record<string, Coordinates>>;
  /** The host's own map chart of a count table, for the levels it can draw; null where it has none. */
  readonly mapChart: { readonly levels: readonly MapLevel[]; insert(table: Table, title: string): Promise<void> } | null;
}
