/**
 * Formula arguments as spreadsheet users write them, parsed once for every host:
 * - a field list: `"name, country"` text, or a range of names (a row or a column);
 * - options: `"size=50; min_score=0.4; dedup=1"` text, or a two-column range (key | value);
 *   keys are case-insensitive, values are typed by the option's spec, and every mistake is an
 *   `ArgumentError` naming the option and what it accepts.
 */
import { closestName } from '../contract/closest-name.js';
import { ArgumentError } from './cells.js';

/** A range as the host hands it over: rows of cell values (blank cells are "" or null). */
export type RangeValue = readonly (readonly unknown[])[];
export type Argument = string | number | boolean | null | undefined | RangeValue;

export function isRange(value: Argument): value is RangeValue {
  return Array.isArray(value);
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/**
 * A list of field names from text ("name, country") or a range; blank → `fallback`. Names are matched
 * case-insensitively against `allowed`; an unknown one is an error with a suggestion.
 */
export function parseFieldList<T extends string>(argument: string, value: Argument, allowed: readonly T[], fallback: readonly T[]): T[] {
  const raw = (isRange(value) ? value.flat().map(cellText) : [cellText(value)]).flatMap((text) => text.split(/[,;]/).map((part) => part.trim()));
  const names = raw.filter((name) => name !== '');
  if (names.length === 0) return [...fallback];
  const byLower = new Map(allowed.map((name) => [name.toLowerCase(), name]));
  const out: T[] = [];
  for (const name of names) {
    const known = byLower.get(name.toLowerCase());
    if (!known) {
      const suggestion = closestName(name, allowed);
      throw new ArgumentError(argument, `unknown field "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`);
    }
    if (!out.includes(known)) out.push(known);
  }
  return out;
}

const SERIAL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
/** 1 March 1900 and 31 December 9999: before the first, Excel's serials count a 29 February 1900 that never was. */
const FIRST_SERIAL = 61;
const LAST_SERIAL = 2_958_465;

/**
 * A spreadsheet date serial (days since 30 Dec 1899, the epoch Excel and Sheets share for dates after
 * February 1900) as an ISO date; null when it is no plausible date.
 */
export function isoDateOfSerial(serial: number): string | null {
  if (!Number.isFinite(serial) || serial < FIRST_SERIAL || serial > LAST_SERIAL) return null;
  return new Date(SERIAL_EPOCH_MS + Math.floor(serial) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The other way: an ISO date (`2019-05-27`) or UTC date and time (`2024-03-15T12:02:59Z`) as a date
 * serial (a time of day as its fraction), so that a sheet computes with it as a date; null when it is none.
 */
export function serialOfIsoDate(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)) return null;
  const serial = (Date.parse(text) - SERIAL_EPOCH_MS) / DAY_MS;
  return Number.isFinite(serial) && serial >= FIRST_SERIAL && serial < LAST_SERIAL + 1 ? serial : null;
}

/** How one option's value is read. */
export type OptionType =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'bool' }
  | { kind: 'text' }
  | { kind: 'list' }
  | { kind: 'date' }
  | { kind: 'choice'; values: readonly string[] };

export type OptionSpec = Readonly<Record<string, OptionType>>;
export type OptionValue = number | boolean | string | string[];

function describe(type: OptionType): string {
  switch (type.kind) {
    case 'int':
      return `a whole number from ${type.min} to ${type.max}`;
    case 'number':
      return `a number from ${type.min} to ${type.max}`;
    case 'bool':
      return '1 or 0 (TRUE or FALSE)';
    case 'choice':
      return `one of ${type.values.join(', ')}`;
    case 'date':
      return 'a date (a date cell, or text such as 2024-03-31)';
    default:
      return 'text';
  }
}

function typed(argument: string, key: string, raw: unknown, type: OptionType): OptionValue {
  const text = cellText(raw);
  const bad = (): never => {
    throw new ArgumentError(argument, `${key} must be ${describe(type)} (got "${text}")`);
  };
  switch (type.kind) {
    case 'int':
    case 'number': {
      // A decimal comma is read for numbers ("0,4"); for whole numbers "1,000" is refused, not read as 1.
      const number = typeof raw === 'number' ? raw : Number(type.kind === 'number' ? text.replace(',', '.') : text);
      if (text === '' || !Number.isFinite(number) || number < type.min || number > type.max || (type.kind === 'int' && !Number.isInteger(number))) return bad();
      return number;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const lower = text.toLowerCase();
      if (['1', 'true', 'yes', 'on', 'wahr'].includes(lower)) return true;
      if (['0', 'false', 'no', 'off', 'falsch'].includes(lower)) return false;
      return bad();
    }
    case 'choice': {
      const match = type.values.find((value) => value.toLowerCase() === text.toLowerCase());
      return match ?? bad();
    }
    case 'date':
      // A date cell arrives as its serial number; "from="&A1 turns it into the serial's text.
      if (typeof raw === 'number' || /^\d{5}$/.test(text)) return isoDateOfSerial(Number(text)) ?? bad();
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : bad();
    case 'list':
      return text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
    default:
      return text;
  }
}

/**
 * Options in the order written, from `"key=value; key=value"` text or a two-column range; blank → [].
 * Keys may repeat (ORG.SEARCH's similar_to entries each take the boost / penalize / … that follow them).
 * Unknown keys and badly typed values are errors naming them.
 */
export function parseOptionPairs(argument: string, value: Argument, spec: OptionSpec): [string, OptionValue][] {
  const pairs: [string, unknown][] = [];
  // One column of cells (Excel hands even a single value over as [[value]]), or cells that each hold a
  // whole "key=value" (a row of them, say), read as "key=value" text; otherwise a range is key | value.
  if (isRange(value)) {
    const cells = value.flat().map(cellText).filter((text) => text !== '');
    if (value.every((row) => row.length <= 1) || (cells.length > 0 && cells.every((text) => text.includes('=')))) value = cells.join(';');
  }
  if (isRange(value)) {
    for (const row of value) {
      const key = cellText(row[0]);
      if (key === '') continue;
      if (row.length < 2) throw new ArgumentError(argument, `a range of options needs two columns (key | value); "${key}" has no value column`);
      pairs.push([key, row[1]]);
    }
  } else {
    for (const part of cellText(value).split(';')) {
      if (part.trim() === '') continue;
      const at = part.indexOf('=');
      if (at < 0) throw new ArgumentError(argument, `"${part.trim()}" is not key=value`);
      pairs.push([part.slice(0, at).trim(), part.slice(at + 1).trim()]);
    }
  }
  const keys = Object.keys(spec);
  return pairs.map(([rawKey, raw]): [string, OptionValue] => {
    const key = keys.find((candidate) => candidate.toLowerCase() === rawKey.toLowerCase());
    const type = key === undefined ? undefined : spec[key];
    if (key === undefined || type === undefined) {
      const suggestion = closestName(rawKey, keys);
      throw new ArgumentError(argument, `unknown ${argument === 'filters' ? 'filter' : 'option'} "${rawKey}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`);
    }
    return [key, typed(argument, key, raw, type)];
  });
}

/** Options as a record (a repeated key: the last one wins). */
export function parseOptions(argument: string, value: Argument, spec: OptionSpec): Record<string, OptionValue> {
  return Object.fromEntries(parseOptionPairs(argument, value, spec));
}
