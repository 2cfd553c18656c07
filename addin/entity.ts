/**
 * An organization card as an Excel data type (Office.js `EntityCellValue`, ExcelApi 1.16): what
 * `=ORG.FETCH(A2, , "as=card")` returns and what "Convert domains to organizations" writes. Excel shows
 * the name in the cell with a building icon; the card lists the fields in sections; `=A2.name`,
 * `FIELDVALUE(A2, "country")` and the Insert Data button reach every field.
 *
 * Written with the documented JSON shape (string literals, not the Excel.* enums, so it builds where
 * the enums are not loaded). The entity stays flat: no nested entities, so no `referencedValues`, and
 * `basicValue` / `basicType` are left to Excel (it computes with "#VALUE!" where a formula needs a plain value).
 * Fields are typed as their columns are, so that formulas over them compute as over any cell:
 * numbers (lat, lon) are Doubles (`=A2.lat*2`), true/false Booleans, dates and times date serials shown
 * as dates (FormattedNumber, `=YEAR(A2.company_register_date)`), the rest Strings.
 */
import { ORGANIZATION_COLUMNS } from '../src/contract/common.js';
import { serialOfIsoDate } from '../src/sheet/arguments.js';
import type { CardField, CardValue, OrgCard } from '../src/sheet/org-card.js';
import type { SourceLinks } from '../src/sheet/source-links.js';
import { hasExcelApi } from './requirements.js';

/**
 * The card's sections: a field without a value is left out of its section, and an empty section is
 * left out; fields of no section (a column the formula named) go under "More".
 */
const SECTIONS: readonly { title: string; fields: readonly CardField[]; collapsed?: boolean }[] = [
  { title: 'Location', fields: ['country', 'state', 'municipality'] },
  { title: 'Organization', fields: ['organization_size', 'organization_type', 'nace_section', 'nace_code'] },
  { title: 'Register', fields: ['company_register_court', 'company_register_date', 'company_register_id'] },
  { title: 'Summary', fields: ['summary'], collapsed: true },
];
/** Shown as the title and subtitle, not in a section. */
const HEADLINE: ReadonlySet<string> = new Set(['name', 'domain']);
const SECTIONED: ReadonlySet<string> = new Set([...SECTIONS.flatMap((section) => section.fields), ...HEADLINE]);

const text = (value: string): Excel.StringCellValue => ({ type: 'String', basicValue: value });

/** How Excel shows a date and a time of day (en-US format codes, as `valuesAsJson` takes them). */
const DATE_FORMATS = { date: 'yyyy-mm-dd', timestamp: 'yyyy-mm-dd hh:mm:ss' } as const;

const isColumn = (field: string): field is keyof typeof ORGANIZATION_COLUMNS => Object.hasOwn(ORGANIZATION_COLUMNS, field);

/**
 * A date serial shown as a date. FormattedNumber is the form of ExcelApi 1.16, which entities need; 1.19
 * deprecates it for a Double with a numberFormat, which older Excel does not take.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated
function dateValue(serial: number, format: string): Excel.FormattedNumberCellValue {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return { type: 'FormattedNumber', basicValue: serial, numberFormat: format };
}

/** A field as the cell value of its kind; a date Excel cannot hold (before March 1900) stays its text. */
function fieldValue(field: string, value: CardValue): Excel.CellValue {
  if (typeof value === 'number') {
    const double: Excel.DoubleCellValue = { type: 'Double', basicValue: value };
    return double;
  }
  if (typeof value === 'boolean') {
    const flag: Excel.BooleanCellValue = { type: 'Boolean', basicValue: value };
    return flag;
  }
  const kind = isColumn(field) ? ORGANIZATION_COLUMNS[field].kind : 'text';
  const serial = kind === 'date' || kind === 'timestamp' ? serialOfIsoDate(value) : null;
  return serial === null ? text(value) : dateValue(serial, DATE_FORMATS[kind === 'date' ? 'date' : 'timestamp']);
}

/** The card's properties, each typed by its column; the domain carries its web address as the property's source link. */
function properties(card: OrgCard): Record<string, Excel.EntityPropertyType> {
  const out: Record<string, Excel.EntityPropertyType> = {};
  for (const [field, value] of Object.entries(card.fields)) out[field] = fieldValue(field, value);
  const domain: Excel.CellValueAndPropertyMetadata = {
    ...text(card.domain),
    propertyMetadata: { attribution: [{ sourceAddress: `https://${card.domain}`, sourceText: card.domain }] },
  };
  out.domain = domain;
  return out;
}

export function orgEntity(card: OrgCard): Excel.EntityCellValue {
  const present = new Set(Object.keys(card.fields));
  const more = [...present].filter((field) => !SECTIONED.has(field));
  const sections: Excel.CardLayoutSection[] = [...SECTIONS, { title: 'More', fields: more as CardField[] }]
    .map((section) => ({
      layout: 'List' as const,
      title: section.title,
      properties: section.fields.filter((field) => present.has(field)),
      ...(section.collapsed ? { collapsible: true, collapsed: true } : {}),
    }))
    .filter((section) => section.properties.length > 0);
  const name = card.fields.name;
  // Without a name the domain is the title, and is not repeated as the subtitle.
  const headline: Pick<Excel.CardLayoutStandardProperties, 'title' | 'subTitle'> = name === undefined ? { title: { property: 'domain' } } : { title: { property: 'name' }, subTitle: { property: 'domain' } };
  return {
    type: 'Entity',
    text: String(name ?? card.domain),
    properties: properties(card),
    layouts: {
      compact: { icon: 'Building' },
      card: { ...headline, sections },
    },
    provider: { description: 'OrgIndex' },
  };
}

/**
 * ORG.ASK's sources as a card of links: the cell shows the page labels; the card lists each page, its
 * address as the property's value and as its source link (so `=C2.[About us]` gives the address, and
 * =HYPERLINK(C2.[About us]) a link in a cell).
 */
export function sourcesEntity(sources: SourceLinks): Excel.EntityCellValue {
  const properties: Record<string, Excel.EntityPropertyType> = {};
  for (const { label, url } of sources.links) {
    const value: Excel.CellValueAndPropertyMetadata = text(url || label);
    if (url) value.propertyMetadata = { attribution: [{ sourceAddress: url, sourceText: label }] };
    properties[label] = value;
  }
  const labels = sources.links.map((link) => link.label);
  return {
    type: 'Entity',
    text: labels.join('; '),
    properties,
    layouts: { compact: { icon: 'DocumentMultiple' }, card: { title: 'Sources', sections: [{ layout: 'List', properties: labels }] } },
    provider: { description: 'OrgIndex' },
  };
}

/** Whether this Excel shows data types (ExcelApi 1.16: Windows 2208, Mac 16.64, the web; not Office 2019/2021). */
export function entitiesSupported(): boolean {
  return hasExcelApi('1.16', false);
}
