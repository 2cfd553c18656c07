/**
 * An organization card as an Excel data type (Office.js `EntityCellValue`, ExcelApi 1.16): what
 * `=ORG.FETCH(A2, , "as=card")` returns and what "Convert domains to organizations" writes. Excel shows
 * the name in the cell with a building icon; the card lists the fields in sections; `=A2.name`,
 * `FIELDVALUE(A2, "country")` and the Insert Data button reach every field.
 *
 * Written with the documented JSON shape (string literals, not the Excel.* enums, so it builds where
 * the enums are not loaded). The entity stays flat: no nested entities, so no `referencedValues`, and
 * `basicValue` / `basicType` are left to Excel (it computes with "#VALUE!" where a formula needs a plain value).
 */
import type { CardField, OrgCard } from '../src/sheet/org-card.js';
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

/** Every card field is a string property; the domain carries its web address as the property's source link. */
const text = (value: string): Excel.StringCellValue => ({ type: 'String', basicValue: value });

function properties(card: OrgCard): Record<string, Excel.EntityPropertyType> {
  const out: Record<string, Excel.EntityPropertyType> = {};
  for (const [field, value] of Object.entries(card.fields)) out[field] = text(value);
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
  return {
    type: 'Entity',
    text: name ?? card.domain,
    properties: properties(card),
    layouts: {
      compact: { icon: 'Building' },
      card: { title: name ? { property: 'name' } : card.domain, subTitle: { property: 'domain' }, sections },
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
