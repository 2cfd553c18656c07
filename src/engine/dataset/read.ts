/**
 * Reading data files: JSON Lines (one organization per line) or CSV with the same column names
 * (`registrations` and `summary_keywords` as JSON cells; keywords may also be `;`-separated). Every bad
 * row is reported with its line number and reason; nothing is dropped silently — the caller decides
 * whether to stop or to go on without the reported rows.
 */
import Papa from 'papaparse';
import { summarizeDetail } from '../../contract/errors.js';
import { validate } from '../../contract/validation.js';
import { OrganizationRecordSchema, type OrganizationRecord } from './record.js';

export interface RowError {
  /** 1-based line of the file where the row starts. */
  line: number;
  reason: string;
}

export interface ReadResult {
  records: OrganizationRecord[];
  errors: RowError[];
}

/** Checks rows one by one into records and errors (a domain seen before is an error naming its first line). */
export class RecordCollector {
  readonly records: OrganizationRecord[] = [];
  readonly errors: RowError[] = [];
  private readonly lineOfDomain = new Map<string, number>();

  add(line: number, raw: unknown): void {
    const checked = validate(OrganizationRecordSchema, raw);
    if (!checked.ok) {
      this.errors.push({ line, reason: summarizeDetail(checked.error.detail) });
      return;
    }
    const { domain } = checked.value;
    const first = this.lineOfDomain.get(domain);
    if (first !== undefined) {
      this.errors.push({ line, reason: `duplicate domain ${domain} (first on line ${first})` });
      return;
    }
    this.lineOfDomain.set(domain, line);
    this.records.push(checked.value);
  }
}

/** Parses JSON Lines text. Blank lines are skipped; a line that is not a JSON object is an error. */
export function readJsonLines(text: string): ReadResult {
  const collector = new RecordCollector();
  const lines = text.split('\n');
  lines.forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      collector.errors.push({ line: index + 1, reason: `not JSON: ${(error as Error).message}` });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      collector.errors.push({ line: index + 1, reason: 'expected a JSON object per line' });
      return;
    }
    collector.add(index + 1, value);
  });
  return { records: collector.records, errors: collector.errors };
}

const NUMBER_COLUMNS = new Set(['lat', 'lon']);
const BOOLEAN_COLUMNS = new Set(['new_register_entry']);
const JSON_COLUMNS = new Set(['registrations', 'summary_keywords']);

/** Converts one CSV cell to the JSON value the row schema expects; throws with a reason. */
function cellValue(column: string, cell: string): unknown {
  const value = cell.trim();
  if (value === '') return null;
  if (NUMBER_COLUMNS.has(column)) {
    const n = Number(value.replace(',', '.'));
    if (!Number.isFinite(n)) throw new Error(`${column}: "${cell}" is not a number`);
    return n;
  }
  if (BOOLEAN_COLUMNS.has(column)) {
    if (/^(true|1|yes|ja)$/i.test(value)) return true;
    if (/^(false|0|no|nein)$/i.test(value)) return false;
    throw new Error(`${column}: "${cell}" is not true or false`);
  }
  if (JSON_COLUMNS.has(column)) {
    if (value.startsWith('[')) {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        throw new Error(`${column}: the cell is not valid JSON`);
      }
    }
    if (column === 'summary_keywords') return value.split(';').map((k) => k.trim()).filter((k) => k !== '');
    throw new Error(`${column}: expected a JSON array such as [{"court":"Amtsgericht München","date":"2020-01-31","id":"HRB 1"}]`);
  }
  return value;
}

/** 1-based line number of each character offset, counted incrementally as the parser moves forward. */
class LineCounter {
  private offset = 0;
  private line = 1;
  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    for (; this.offset < offset && this.offset < this.text.length; this.offset++) {
      if (this.text.charCodeAt(this.offset) === 10) this.line++;
    }
    return this.line;
  }
}

/**
 * Parses CSV text with a header row of column names (comma, semicolon or tab separated, detected).
 * Rows are read one by one so that every row — including a blank-line-separated or multi-line one — is
 * reported at the line where it starts; a row with the wrong number of fields (often a separator inside
 * an unquoted cell) or a quoting error is reported, never merged into another.
 */
export function readCsv(text: string): ReadResult {
  const collector = new RecordCollector();
  const lines = new LineCounter(text);
  let header: string[] | null = null;
  let rowStart = 0;
  Papa.parse<string[]>(text, {
    header: false,
    skipEmptyLines: false,
    step: (results) => {
      const line = lines.lineAt(rowStart);
      // Papa's cursor points past the row's line break, so the next row starts there.
      rowStart = results.meta.cursor;
      const cells = results.data;
      if (cells.every((cell) => cell.trim() === '')) return;
      const [error] = results.errors;
      if (error) {
        collector.errors.push({ line, reason: `CSV: ${error.message}${error.code === 'MissingQuotes' ? ' (the rest of the file is inside this cell)' : ''}` });
        return;
      }
      if (header === null) {
        header = cells.map((cell) => cell.trim());
        return;
      }
      if (cells.length !== header.length) {
        collector.errors.push({ line, reason: `CSV: expected ${header.length} fields as in the header, found ${cells.length} (a separator inside an unquoted cell?)` });
        return;
      }
      try {
        const record: Record<string, unknown> = {};
        header.forEach((column, i) => (record[column] = cellValue(column, cells[i] ?? '')));
        collector.add(line, record);
      } catch (error) {
        collector.errors.push({ line, reason: (error as Error).message });
      }
    },
  });
  return { records: collector.records, errors: collector.errors };
}

/** Chooses the reader by file name: `.csv` / `.tsv` → CSV, anything else → JSON Lines. */
export function readDataFile(fileName: string, text: string): ReadResult {
  return /\.(csv|tsv)$/i.test(fileName) ? readCsv(text) : readJsonLines(text);
}
