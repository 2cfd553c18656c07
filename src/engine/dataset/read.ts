/**
 * Reading data files: JSON Lines (one organization per line) or CSV with the same column names
 * (`registrations` and `summary_keywords` as JSON cells; keywords may also be `;`-separated). Every bad
 * row is reported with its line number and reason; nothing is dropped silently — the caller decides
 * whether to stop or to go on without the reported rows.
 */
import Papa from 'papaparse';
import { messageOf, summarizeDetail } from '../../contract/errors.js';
import { validate } from '../../contract/validation.js';
import { BOOLEAN_COLUMNS, LIST_COLUMNS, NUMBER_COLUMNS, OrganizationRecordSchema, type OrganizationRecord } from './record.js';

export interface RowError {
  /** 1-based line of the file where the row starts. */
  line: number;
  reason: string;
}

export interface ReadResult {
  records: OrganizationRecord[];
  /** The first REPORTED_ERRORS bad rows. */
  errors: RowError[];
  /** Every bad row, counted. */
  errorCount: number;
}

/** Errors kept to report (all are counted). */
export const REPORTED_ERRORS = 1_000;

/**
 * Checks rows one by one (a domain seen before is an error naming its first line): `check` returns the
 * record or null, keeping the error. For files of any size: the domains seen are kept in shards (one Map
 * holds at most 2^24 entries), and only the first REPORTED_ERRORS errors are kept, all counted.
 */
export class RowChecker {
  readonly errors: RowError[] = [];
  errorCount = 0;
  private readonly lineOfDomain = Array.from({ length: 16 }, () => new Map<string, number>());

  check(line: number, raw: unknown): OrganizationRecord | null {
    const checked = validate(OrganizationRecordSchema, raw);
    if (!checked.ok) {
      this.fail(line, summarizeDetail(checked.error.detail));
      return null;
    }
    const { domain } = checked.value;
    const shard = this.shardOf(domain);
    const first = shard.get(domain);
    if (first !== undefined) {
      this.fail(line, `duplicate domain ${domain} (first on line ${first})`);
      return null;
    }
    shard.set(domain, line);
    return checked.value;
  }

  fail(line: number, reason: string): void {
    this.errorCount++;
    if (this.errors.length < REPORTED_ERRORS) this.errors.push({ line, reason });
  }

  private shardOf(domain: string): Map<string, number> {
    let hash = 0;
    for (let i = 0; i < domain.length; i++) hash = (hash * 31 + domain.charCodeAt(i)) | 0;
    return this.lineOfDomain[hash & 15] ?? new Map<string, number>();
  }
}

/** Checks rows one by one into a list of records and one of errors. */
export class RecordCollector {
  readonly records: OrganizationRecord[] = [];
  private readonly checker = new RowChecker();

  get errors(): RowError[] {
    return this.checker.errors;
  }

  get errorCount(): number {
    return this.checker.errorCount;
  }

  add(line: number, raw: unknown): void {
    const record = this.checker.check(line, raw);
    if (record) this.records.push(record);
  }

  /** A row that could not be read at all (not JSON, a CSV quoting error). */
  fail(line: number, reason: string): void {
    this.checker.fail(line, reason);
  }
}

/** One JSON Lines line: the record, or null with its error kept. */
export function checkJsonLine(checker: RowChecker, lineNumber: number, rawLine: string): OrganizationRecord | null {
  const line = rawLine.trim();
  if (line === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    checker.fail(lineNumber, `not JSON: ${messageOf(error)}`);
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    checker.fail(lineNumber, 'expected a JSON object per line');
    return null;
  }
  return checker.check(lineNumber, value);
}

/** Parses JSON Lines text. Blank lines are skipped; a line that is not a JSON object is an error. */
export function readJsonLines(text: string): ReadResult {
  const checker = new RowChecker();
  const records: OrganizationRecord[] = [];
  text.split('\n').forEach((line, index) => {
    const record = checkJsonLine(checker, index + 1, line);
    if (record) records.push(record);
  });
  return { records, errors: checker.errors, errorCount: checker.errorCount };
}

const NUMBERS = new Set<string>(NUMBER_COLUMNS);
const BOOLEANS = new Set<string>(BOOLEAN_COLUMNS);
const LISTS = new Set<string>(LIST_COLUMNS);

/** Converts one CSV cell to the JSON value the row schema expects; throws with a reason. */
function cellValue(column: string, cell: string): unknown {
  const value = cell.trim();
  if (value === '') return null;
  if (NUMBERS.has(column)) {
    const n = Number(value.replace(',', '.'));
    if (!Number.isFinite(n)) throw new Error(`${column}: "${cell}" is not a number`);
    return n;
  }
  if (BOOLEANS.has(column)) {
    if (/^(true|1|yes|ja)$/i.test(value)) return true;
    if (/^(false|0|no|nein)$/i.test(value)) return false;
    throw new Error(`${column}: "${cell}" is not true or false`);
  }
  if (column === 'registrations' || LISTS.has(column)) {
    if (value.startsWith('[')) {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        throw new Error(`${column}: the cell is not valid JSON`);
      }
    }
    if (LISTS.has(column)) return value.split(';').map((k) => k.trim()).filter((k) => k !== '');
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
        collector.fail(line, `CSV: ${error.message}${error.code === 'MissingQuotes' ? ' (the rest of the file is inside this cell)' : ''}`);
        return;
      }
      if (header === null) {
        header = cells.map((cell) => cell.trim());
        return;
      }
      if (cells.length !== header.length) {
        collector.fail(line, `CSV: expected ${header.length} fields as in the header, found ${cells.length} (a separator inside an unquoted cell?)`);
        return;
      }
      try {
        const record: Record<string, unknown> = {};
        header.forEach((column, i) => (record[column] = cellValue(column, cells[i] ?? '')));
        collector.add(line, record);
      } catch (error) {
        collector.fail(line, messageOf(error));
      }
    },
  });
  return { records: collector.records, errors: collector.errors, errorCount: collector.errorCount };
}

/** Chooses the reader by file name: `.csv` / `.tsv` → CSV, anything else → JSON Lines. */
export function readDataFile(fileName: string, text: string): ReadResult {
  return /\.(csv|tsv)$/i.test(fileName) ? readCsv(text) : readJsonLines(text);
}
