/**
 * An organization as one value, host-neutral: what `ORG.FETCH(…, "as=card")` and the task pane's
 * "Convert domains to organizations" put into a cell. Excel draws it as a data type card
 * (addin/entity.ts); a host without data types shows plain columns instead.
 *
 * A card's field names are the ORG.FETCH column names (`name`, `organization_size`, …), so `=A2.name`
 * and `=ORG.FETCH(A2, "name")` say the same thing; `nace_section` is the one field no column has
 * (derived from the NACE code). A card carries CARD_COLUMNS, or the columns the formula names.
 */
import type { SelectableColumn } from '../contract/common.js';
import { NACE_SECTIONS, sectionOf } from '../contract/nace.js';
import { isErrorCell, type CellValue, type ErrorCell } from './cells.js';

/** The columns a card is made of, in the order the card lists them. */
export const CARD_COLUMNS = [
  'domain',
  'name',
  'country',
  'state',
  'municipality',
  'organization_size',
  'organization_type',
  'nace_code',
  'company_register_court',
  'company_register_date',
  'company_register_id',
  'summary',
] as const satisfies readonly SelectableColumn[];

export type CardField = SelectableColumn | 'nace_section';

/** A field's value as ORG.FETCH's cell holds it: numbers (lat, lon) and true/false stay what they are, for a host to type them. */
export type CardValue = string | number | boolean;

export interface OrgCard {
  readonly kind: 'organization';
  readonly domain: string;
  /** The fields that have a value (blank ones are left out, so the card shows no empty lines). */
  readonly fields: Readonly<Partial<Record<CardField, CardValue>>>;
}

/** A cell of a card column: a card, an error (bad or unknown domain), or blank for a blank input. */
export type CardCell = OrgCard | ErrorCell | '';
export type CardTable = CardCell[][];

export function isOrgCard(value: unknown): value is OrgCard {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'organization';
}

/** The columns of a card: the domain first, then those chosen (every card column when none is). */
export function cardColumns(chosen: readonly SelectableColumn[]): SelectableColumn[] {
  return chosen.length === 0 ? [...CARD_COLUMNS] : [...new Set<SelectableColumn>(['domain', ...chosen])];
}

/**
 * The card of a fetched row, given as ORG.FETCH's cells of `columns` (domain first); an error in the
 * first cell (the row of a bad or unknown domain) stays that error, a blank row stays blank.
 */
export function cardOf(row: readonly CellValue[], columns: readonly SelectableColumn[] = CARD_COLUMNS): CardCell {
  const first = row[0];
  if (isErrorCell(first)) return first;
  if (typeof first !== 'string' || first === '') return '';
  const fields: Partial<Record<CardField, CardValue>> = {};
  columns.forEach((column, i) => {
    const value = row[i];
    if (value !== null && value !== undefined && value !== '' && !isErrorCell(value)) fields[column] = value;
  });
  const letter = typeof fields.nace_code === 'string' ? sectionOf(fields.nace_code) : null;
  if (letter) fields.nace_section = NACE_SECTIONS[letter];
  return { kind: 'organization', domain: first, fields };
}
