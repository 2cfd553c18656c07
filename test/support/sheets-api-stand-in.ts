/**
 * STAND-IN for the Google Sheets API v4 on a loopback port (Google cannot be reached here): the five calls
 * `orgindex refresh --google-sheet` makes — spreadsheets.get, values.batchGet, spreadsheets.batchUpdate
 * (updateSheetProperties, addNamedRange, updateNamedRange, updateDeveloperMetadata; all or nothing, as
 * Google applies a batch), values.batchClear and
 * values.batchUpdate — over an in-memory spreadsheet, recording every request as it arrived. It answers
 * as the API documents: 0-based end-exclusive grid ranges, trailing empty cells left out of value ranges.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { columnNumber } from '../../src/sheet/a1.js';

export interface StandInSheet {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  merges: { startRowIndex: number; endRowIndex: number; startColumnIndex: number; endColumnIndex: number }[];
  /** "row,column" (0-based) → value. */
  cells: Map<string, unknown>;
  metadata: { metadataId: number; metadataKey: string; metadataValue: string }[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  body: unknown;
  authorization: string | undefined;
}

interface GridRange {
  sheetId: number;
  startRowIndex: number;
  endRowIndex: number;
  startColumnIndex: number;
  endColumnIndex: number;
}

export class SheetsApiStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly namedRanges: { namedRangeId: string; name: string; range: GridRange }[] = [];
  /** Answer the next requests with 429 (rate limit), as Google does under load. */
  rateLimitNext = 0;
  /** Fail the next request to this path (e.g. "/values:batchUpdate") with a 500, once. */
  failNext: string | null = null;
  private server: Server | null = null;
  private nextNamedRangeId = 1;
  url = '';

  constructor(
    readonly spreadsheetId: string,
    readonly sheets: StandInSheet[],
  ) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.body(request).then((body) => {
        const url = new URL(request.url ?? '/', 'http://stand-in');
        const query: Record<string, string[]> = {};
        for (const [key, value] of url.searchParams) (query[key] ??= []).push(value);
        this.requests.push({ method: request.method ?? '', path: decodeURIComponent(url.pathname), query, body, authorization: request.headers.authorization });
        const path = decodeURIComponent(url.pathname);
        let answer: { status: number; json: unknown };
        if (this.rateLimitNext > 0) {
          this.rateLimitNext -= 1;
          answer = { status: 429, json: { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } } };
        } else if (this.failNext !== null && path.endsWith(this.failNext)) {
          this.failNext = null;
          answer = { status: 500, json: { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } } };
        } else answer = this.answer(request.method ?? '', path, query, body);
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer.json));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.server) this.server.close(() => {
        resolve();
      });
      else resolve();
    });
  }

  sheet(title: string): StandInSheet {
    const sheet = this.sheets.find((candidate) => candidate.title === title);
    if (!sheet) throw new Error(`no sheet ${title}`);
    return sheet;
  }

  /** Values of a sheet's rectangle (1-based top / left), '' for empty cells. */
  grid(title: string, top: number, left: number, rows: number, columns: number): unknown[][] {
    const sheet = this.sheet(title);
    return Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => sheet.cells.get(`${String(top - 1 + r)},${String(left - 1 + c)}`) ?? ''));
  }

  private body(request: IncomingMessage): Promise<unknown> {
    return new Promise((resolve) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => { resolve(text ? (JSON.parse(text) as unknown) : null); });
    });
  }

  /** "'Sheet name'!B2:C7" → the sheet and 0-based end-exclusive bounds. */
  private range(a1: string): { sheet: StandInSheet; top: number; left: number; bottom: number; right: number } {
    const match = /^'((?:[^']|'')+)'!([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(a1);
    if (!match) throw new Error(`range ${a1} not understood by the stand-in`);
    const [, title = '', fromColumn = 'A', fromRow = '1', toColumn = fromColumn, toRow = fromRow] = match;
    const sheet = this.sheet(title.replace(/''/g, "'"));
    const top = Number(fromRow) - 1;
    const left = columnNumber(fromColumn) - 1;
    const bottom = Number(toRow);
    const right = columnNumber(toColumn);
    if (bottom > sheet.rowCount || right > sheet.columnCount) throw new Error(`Range (${a1}) exceeds grid limits`);
    return { sheet, top, left, bottom, right };
  }

  private answer(method: string, path: string, query: Record<string, string[]>, body: unknown): { status: number; json: unknown } {
    const base = `/v4/spreadsheets/${this.spreadsheetId}`;
    try {
      if (method === 'GET' && path === base) return { status: 200, json: this.spreadsheet() };
      if (method === 'GET' && path === `${base}/values:batchGet`) {
        return { status: 200, json: { spreadsheetId: this.spreadsheetId, valueRanges: (query.ranges ?? []).map((a1) => ({ range: a1, majorDimension: 'ROWS', values: this.read(a1) })) } };
      }
      if (method === 'POST' && path === `${base}:batchUpdate`) {
        // All or nothing, as Google applies a batch: a failing request leaves the spreadsheet as it was.
        const before = JSON.stringify({ sheets: this.sheets.map(({ cells: _cells, ...sheet }) => sheet), named: this.namedRanges });
        try {
          return { status: 200, json: { spreadsheetId: this.spreadsheetId, replies: (body as { requests: Record<string, unknown>[] }).requests.map((request) => this.apply(request)) } };
        } catch (error) {
          const saved = JSON.parse(before) as { sheets: Omit<StandInSheet, 'cells'>[]; named: SheetsApiStandIn['namedRanges'] };
          saved.sheets.forEach((sheet, i) => Object.assign(this.sheets[i] as StandInSheet, sheet));
          this.namedRanges.splice(0, this.namedRanges.length, ...saved.named);
          throw error;
        }
      }
      if (method === 'POST' && path === `${base}/values:batchClear`) {
        for (const a1 of (body as { ranges: string[] }).ranges) this.write(a1, null);
        return { status: 200, json: { spreadsheetId: this.spreadsheetId, clearedRanges: (body as { ranges: string[] }).ranges } };
      }
      if (method === 'POST' && path === `${base}/values:batchUpdate`) {
        for (const { range, values } of (body as { data: { range: string; values: unknown[][] }[] }).data) this.write(range, values);
        return { status: 200, json: { spreadsheetId: this.spreadsheetId } };
      }
      return { status: 404, json: { error: { code: 404, message: `${method} ${path} is not a call the stand-in knows` } } };
    } catch (error) {
      return { status: 400, json: { error: { code: 400, message: (error as Error).message, status: 'INVALID_ARGUMENT' } } };
    }
  }

  private spreadsheet(): unknown {
    return {
      spreadsheetId: this.spreadsheetId,
      sheets: this.sheets.map((sheet) => ({
        properties: { sheetId: sheet.sheetId, title: sheet.title, gridProperties: { rowCount: sheet.rowCount, columnCount: sheet.columnCount } },
        ...(sheet.merges.length > 0 ? { merges: sheet.merges.map((merge) => ({ sheetId: sheet.sheetId, ...merge })) } : {}),
        developerMetadata: sheet.metadata.map((entry) => ({ ...entry, visibility: 'DOCUMENT', location: { locationType: 'SHEET', sheetId: sheet.sheetId } })),
      })),
      namedRanges: this.namedRanges,
    };
  }

  private read(a1: string): unknown[][] {
    const { sheet, top, left, bottom, right } = this.range(a1);
    const rows = Array.from({ length: bottom - top }, (_, r) => Array.from({ length: right - left }, (_, c) => sheet.cells.get(`${String(top + r)},${String(left + c)}`) ?? ''));
    // As the API: trailing empty cells and rows are left out.
    const trimmed = rows.map((row) => row.slice(0, row.reduce<number>((last, value, i) => (value === '' ? last : i + 1), 0)));
    return trimmed.slice(0, trimmed.reduce<number>((last, row, i) => (row.length === 0 ? last : i + 1), 0));
  }

  private write(a1: string, values: unknown[][] | null): void {
    const { sheet, top, left, bottom, right } = this.range(a1);
    for (let r = top; r < bottom; r++) {
      for (let c = left; c < right; c++) {
        const value = values ? values[r - top]?.[c - left] : undefined;
        if (value === undefined || value === null || value === '') sheet.cells.delete(`${String(r)},${String(c)}`);
        else sheet.cells.set(`${String(r)},${String(c)}`, value);
      }
    }
  }

  private apply(request: Record<string, unknown>): unknown {
    const [kind, detail] = Object.entries(request)[0] as [string, Record<string, unknown>];
    switch (kind) {
      case 'updateSheetProperties': {
        const properties = detail.properties as { sheetId: number; gridProperties: { rowCount: number; columnCount: number } };
        const sheet = this.sheets.find((candidate) => candidate.sheetId === properties.sheetId);
        if (!sheet || detail.fields !== 'gridProperties(rowCount,columnCount)') throw new Error('No grid with id, or another fields mask');
        sheet.rowCount = properties.gridProperties.rowCount;
        sheet.columnCount = properties.gridProperties.columnCount;
        return {};
      }
      case 'addNamedRange': {
        const named = detail.namedRange as { name: string; range: GridRange };
        if (this.namedRanges.some((range) => range.name === named.name)) throw new Error(`A named range with the name "${named.name}" already exists`);
        const added = { namedRangeId: `nr-${String(this.nextNamedRangeId++)}`, name: named.name, range: named.range };
        this.namedRanges.push(added);
        return { addNamedRange: { namedRange: added } };
      }
      case 'updateNamedRange': {
        const named = detail.namedRange as { namedRangeId: string; range: GridRange };
        const existing = this.namedRanges.find((range) => range.namedRangeId === named.namedRangeId);
        if (!existing || detail.fields !== 'range') throw new Error('No named range with that id, or fields is not "range"');
        existing.range = named.range;
        return {};
      }
      case 'updateDeveloperMetadata': {
        const [filter] = detail.dataFilters as { developerMetadataLookup: { metadataId: number } }[];
        const entry = this.sheets.flatMap((sheet) => sheet.metadata).find((candidate) => candidate.metadataId === filter?.developerMetadataLookup.metadataId);
        if (!entry || detail.fields !== 'metadataValue') throw new Error('No developer metadata with that id, or fields is not "metadataValue"');
        entry.metadataValue = (detail.developerMetadata as { metadataValue: string }).metadataValue;
        return { updateDeveloperMetadata: { developerMetadata: [entry] } };
      }
      default:
        throw new Error(`request ${kind} not known to the stand-in`);
    }
  }
}
