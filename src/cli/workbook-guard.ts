/**
 * What `orgindex refresh` and `orgindex query` check in an .xlsx before exceljs reads it, and the defined names they keep
 * itself. exceljs expands some areas cell by cell while it loads a workbook — defined names, merged cells,
 * data validations, column definitions — so a few kilobytes naming the whole grid would take minutes and
 * gigabytes. Defined names never reach exceljs: they are taken out of xl/workbook.xml before it reads,
 * and written back after it writes, each as it was unless the refresher changed it. The others are
 * bounded, and rows and columns outside Excel's grid refused. The parts are read with a small
 * scanner of start tags (attribute values quoted, entities decoded) rather than an XML parser; a part
 * it could misread (comments, CDATA, a document type in xl/workbook.xml) is refused, never guessed at.
 */
import JSZip from 'jszip';
import { zipProblem } from './workbook-zip.js';
import { UsageError } from './usage.js';
import { messageOf } from '../contract/errors.js';

/** Excel's grid: rows 1–1,048,576, columns A–XFD. */
export const GRID = { rows: 1_048_576, columns: 16_384, range: 'A1:XFD1048576' } as const;

/** What a refresh reads, in cells: each is expanded one by one by exceljs, or walked by the refresher. */
export const LIMITS = {
  /** Merged cells in a workbook: titles and labels, never whole columns. */
  mergedCells: 100_000,
  /** Cells under data validations in a workbook: two whole columns (Excel writes "E:E" as E1:E1048576). */
  validatedCells: 2_097_152,
  /** Cells one saved query's defined name may cover: a whole column, far above the largest answer. */
  ownedCells: 1_048_576,
} as const;

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Text from a workbook as a message may show it: control and bidirectional-formatting characters
 * written as \u{…}, so a workbook cannot drive the terminal or disguise what a message says.
 */
export const printable = (text: string): string => text.replace(/[\p{Cc}\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (char) => `\\u{${char.charCodeAt(0).toString(16)}}`);

/** Parts of an .xlsx that exceljs does not write back: a refresh would silently drop them. */
const UNKEPT_PARTS: [RegExp, string][] = [
  [/^xl\/charts\//, 'charts'],
  [/^xl\/chartsheets\//, 'chart sheets'],
  [/^xl\/pivot(Tables|Cache)\//, 'pivot tables'],
  [/^xl\/(slicers|slicerCaches|timelines|timelineCaches)\//, 'slicers or timelines'],
  [/^xl\/externalLinks\//, 'links to other workbooks'],
  [/^xl\/vbaProject\.bin$/, 'macros'],
  [/^xl\/(activeX|ctrlProps|embeddings)\//, 'controls or embedded objects'],
  [/^xl\/(webextensions|threadedComments|persons|model|customData)\//, 'add-in data, threaded comments or a data model'],
  [/^xl\/(queryTables\/|connections\.xml$)/, 'data connections'],
  [/^(customXml\/|docProps\/custom\.xml$)/, 'custom properties (sensitivity labels)'],
];

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[entity] ?? whole;
  });
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Quoted attributes of a start tag, as an XML parser would hand them over. */
const ATTRIBUTES = String.raw`(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*`;

function attributesOf(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name = '', double, single] of text.matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes.set(name, decodeXml(double ?? single ?? ''));
  return attributes;
}

/**
 * Start tags of the given (unprefixed) elements, each with its attributes. A tag whose attributes do not
 * read as quoted values throws: exceljs's parser might see what this scan cannot.
 */
function* startTags(xml: string, elements: readonly string[]): Generator<{ element: string; attributes: Map<string, string> }> {
  const pattern = new RegExp(String.raw`<(${elements.join('|')})(?=[\s/>])(${ATTRIBUTES}\s*/?>)?`, 'g');
  for (const match of xml.matchAll(pattern)) {
    const [, element = '', tag] = match;
    if (tag === undefined) throw new Error(`a <${element}> tag that is not well formed`);
    yield { element, attributes: attributesOf(tag) };
  }
}

/** A cell address as exceljs decodes it: column letters, then digits; "$" and stray characters skipped. */
function looseAddress(text: string): { row: number; column: number } | null {
  let column = 0;
  let row = 0;
  let hasColumn = false;
  let hasRow = false;
  for (const char of text) {
    if (!hasRow && char >= 'A' && char <= 'Z') {
      hasColumn = true;
      column = column * 26 + char.charCodeAt(0) - 64;
    } else if (char >= '0' && char <= '9') {
      hasRow = true;
      row = row * 10 + char.charCodeAt(0) - 48;
    } else if (hasRow && hasColumn && char !== '$') {
      break;
    }
  }
  return hasRow && hasColumn ? { row, column } : null;
}

/** How many cells exceljs walks for a reference ("Sheet!A1:B2", "A1"): at least one. */
function cellsOf(reference: string): number {
  const [from = '', to] = reference.slice(reference.lastIndexOf('!') + 1).split(':');
  const start = looseAddress(from);
  const end = to === undefined ? start : looseAddress(to);
  if (!start || !end) return 1;
  return (Math.abs(end.row - start.row) + 1) * (Math.abs(end.column - start.column) + 1);
}

const quoted = (sheet: string): string => `'${sheet.replace(/'/g, "''")}'`;

interface NameEntry {
  /** The element as it is written: as read, until the refresher changes the name. */
  xml: string;
  name: string;
  text: string;
  attributes: Map<string, string>;
  /** The start tag's attributes as read, kept when the name is changed. */
  rawAttributes: string;
}

/**
 * The workbook's defined names, kept outside exceljs: looked up case-insensitively as Excel does,
 * changed by the refresher, and written back into the workbook exceljs writes.
 */
export class DefinedNames {
  constructor(private readonly entries: NameEntry[] = []) {}

  private find(name: string): NameEntry | undefined {
    const key = name.toUpperCase();
    return this.entries.find((entry) => entry.name.toUpperCase() === key);
  }

  /** The formula of a workbook-wide name ("Leads!$B$2:$C$4"), or null. */
  text(name: string): string | null {
    const entry = this.find(name);
    return entry && !entry.attributes.has('localSheetId') ? entry.text : null;
  }

  set(name: string, text: string): void {
    const entry = this.find(name);
    if (entry) {
      entry.text = text;
      entry.xml = `<definedName${entry.rawAttributes}>${escapeXml(text)}</definedName>`;
    } else {
      const rawAttributes = ` name="${escapeXml(name)}"`;
      this.entries.push({ name, text, attributes: new Map([['name', name]]), rawAttributes, xml: `<definedName${rawAttributes}>${escapeXml(text)}</definedName>` });
    }
  }

  /** Removes a name (a removed saved query no longer owns its cells); whether there was one. */
  delete(name: string): boolean {
    const entry = this.find(name);
    if (entry) this.entries.splice(this.entries.indexOf(entry), 1);
    return entry !== undefined;
  }

  get size(): number {
    return this.entries.length;
  }

  /** xl/workbook.xml as exceljs wrote it, with these names where the schema puts them (after the sheets). */
  writeInto(xml: string): string {
    if (this.entries.length === 0) return xml;
    const elements = this.entries.map((entry) => entry.xml).join('');
    const own = /<definedNames>/.exec(xml);
    if (own) return `${xml.slice(0, own.index + own[0].length)}${elements}${xml.slice(own.index + own[0].length)}`;
    const end = xml.indexOf('</sheets>');
    if (end < 0) throw new Error('the workbook exceljs wrote has no sheets');
    const at = end + '</sheets>'.length;
    return `${xml.slice(0, at)}<definedNames>${elements}</definedNames>${xml.slice(at)}`;
  }
}

const DEFINED_NAME = new RegExp(String.raw`\s*<definedName(${ATTRIBUTES})\s*(?:/>|>([^<]*)</definedName\s*>)\s*`, 'y');

/** The defined names of xl/workbook.xml, and the XML without them; throws what it cannot read safely. */
function takeDefinedNames(xml: string): { names: NameEntry[]; rest: string } {
  if (/<!--|<!\[CDATA\[|<!DOCTYPE/i.test(xml)) throw new Error('it holds XML comments, CDATA sections or a document type');
  const blocks = [...xml.matchAll(/<definedNames(?=[\s/>])/g)];
  if (blocks.length === 0) {
    if (/<definedName(?=[\s/>])/.test(xml)) throw new Error('a defined name outside <definedNames>');
    return { names: [], rest: xml };
  }
  if (blocks.length > 1) throw new Error('more than one <definedNames>');
  const start = blocks[0]?.index ?? 0;
  const block = new RegExp(String.raw`<definedNames${ATTRIBUTES}\s*(?:/>|>([\s\S]*?)</definedNames\s*>)`, 'y');
  block.lastIndex = start;
  const match = block.exec(xml);
  if (!match) throw new Error('a <definedNames> that is not well formed');
  const rest = xml.slice(0, start) + xml.slice(start + match[0].length);
  if (/<definedName(?=[\s/>])/.test(rest)) throw new Error('a defined name outside <definedNames>');
  const inner = match[1] ?? '';
  const names: NameEntry[] = [];
  DEFINED_NAME.lastIndex = 0;
  // Each match takes the white space around its element: the loop ends at the end of the block.
  while (DEFINED_NAME.lastIndex < inner.length && /\S/.test(inner)) {
    const at = DEFINED_NAME.lastIndex;
    const element = DEFINED_NAME.exec(inner);
    if (!element) throw new Error(`a defined name that is not well formed, at "${inner.slice(at, at + 40)}"`);
    const [whole, rawAttributes = '', text = ''] = element;
    const attributes = attributesOf(rawAttributes);
    names.push({ xml: whole.trim(), name: attributes.get('name') ?? '', text: decodeXml(text), attributes, rawAttributes });
  }
  return { names, rest };
}

/** Worksheet parts by path ("xl/worksheets/sheet1.xml") → sheet name, from the workbook and its relationships. */
function sheetNames(workbookXml: string, relsXml: string): Map<string, string> {
  const targets = new Map<string, string>();
  for (const { attributes } of startTags(relsXml, ['Relationship'])) {
    const target = attributes.get('Target') ?? '';
    targets.set(attributes.get('Id') ?? '', target.startsWith('/') ? target.slice(1) : `xl/${target}`);
  }
  const names = new Map<string, string>();
  for (const { attributes } of startTags(workbookXml, ['sheet'])) {
    const id = [...attributes].find(([name]) => /^[^:]+:id$/.test(name))?.[1];
    const part = id === undefined ? undefined : targets.get(id);
    if (part !== undefined) names.set(part, attributes.get('name') ?? '');
  }
  return names;
}

/**
 * Why exceljs may not read this worksheet (a bound passed, or a row or column outside the grid), or null.
 * Cells are not visited: exceljs places a cell by its row element and its column letters, which it checks.
 */
function worksheetProblem(xml: string, where: { sheet: string | undefined; part: string }, totals: { merged: number; validated: number }, command: string): string | null {
  const on = where.sheet === undefined ? `in ${where.part}` : `on the sheet ${quoted(where.sheet)} (${where.part})`;
  const area = (reference: string): string => (where.sheet === undefined ? reference : `${quoted(where.sheet)}!${reference}`);
  const damaged = 'the file is damaged; open it in Excel, let it repair the file, and save it again';
  for (const { element, attributes } of startTags(xml, ['row', 'col', 'mergeCell', 'dataValidation'])) {
    switch (element) {
      case 'row': {
        // exceljs reads row numbers with parseInt.
        const row = Number.parseInt(attributes.get('r') ?? '', 10);
        if (row > GRID.rows) return `has a row numbered ${count(row)} ${on}, past Excel's last row ${count(GRID.rows)}: ${damaged}`;
        break;
      }
      case 'col': {
        const min = Number.parseInt(attributes.get('min') ?? '', 10);
        const max = Number.parseInt(attributes.get('max') ?? '', 10);
        if (Math.max(min, max) > GRID.columns) return `defines columns ${count(min)} to ${count(max)} ${on}, past Excel's last column XFD (${count(GRID.columns)}): ${damaged}`;
        break;
      }
      case 'mergeCell': {
        const reference = attributes.get('ref') ?? '';
        const cells = cellsOf(reference);
        totals.merged += cells;
        if (totals.merged > LIMITS.mergedCells) return `has merged cells over ${area(reference)} (${count(cells)} cells), more than ${command} reads (${count(LIMITS.mergedCells)} merged cells in a workbook): unmerge them in Excel, then refresh again`;
        break;
      }
      case 'dataValidation': {
        // exceljs keeps one entry per cell of every range of the list.
        for (const reference of (attributes.get('sqref') ?? '').split(/\s+/).filter(Boolean)) {
          const cells = cellsOf(reference);
          totals.validated += cells;
          if (totals.validated > LIMITS.validatedCells) return `has a data validation over ${area(reference)} (${count(cells)} cells), more than ${command} reads (${count(LIMITS.validatedCells)} validated cells in a workbook): limit the validation to the rows in use in Excel, then refresh again`;
        }
        break;
      }
    }
  }
  return null;
}

/** Entries exceljs reads as `path` (it drops a leading "/"). */
const entriesNamed = (zip: JSZip, pattern: RegExp): JSZip.JSZipObject[] => Object.values(zip.files).filter((entry) => !entry.dir && pattern.test(entry.name.replace(/^\//, '')));

/** A refusal naming what the workbook holds, as a terminal may show it. */
const refusal = (message: string): UsageError => new UsageError(printable(message));

export interface PreparedWorkbook {
  /** The bytes exceljs reads: the workbook without its defined names. */
  readable: Buffer;
  names: DefinedNames;
}

/**
 * Refuses a workbook that unpacks past the bounds of workbook-zip.ts, that the rewrite would damage (parts
 * exceljs drops, legacy sheet passwords, sheet-scoped names) or that exceljs would expand past the bounds
 * above; else the bytes exceljs is to read and the defined names taken out of them. `command` is the one
 * a refusal names.
 */
export async function prepareWorkbook(bytes: Buffer, file: string, command = 'orgindex refresh'): Promise<PreparedWorkbook> {
  // Before JSZip inflates anything.
  const unpacking = zipProblem(bytes, command);
  if (unpacking !== null) throw refusal(`${file} ${unpacking}`);
  const zip = await JSZip.loadAsync(bytes);
  const files = Object.values(zip.files).filter((entry) => !entry.dir);
  const found = new Map<string, string>();
  for (const { name } of files) for (const [pattern, what] of UNKEPT_PARTS) if (pattern.test(name) && !found.has(what)) found.set(what, name);

  const workbookParts = entriesNamed(zip, /^xl\/workbook\.xml$/);
  if (workbookParts.length > 1) throw refusal(`${file} holds two workbook parts (${workbookParts.map((entry) => entry.name).join(', ')}): the file is damaged; open it in Excel, let it repair the file, and save it again`);
  const workbookPart = workbookParts[0];
  const workbookXml = (await workbookPart?.async('string')) ?? '';
  let taken: { names: NameEntry[]; rest: string };
  try {
    taken = takeDefinedNames(workbookXml);
  } catch (error) {
    throw refusal(`${file}: ${command} cannot read the defined names of xl/workbook.xml safely (${messageOf(error)}): open it in Excel and save it again`);
  }
  if (taken.names.some((entry) => entry.attributes.has('localSheetId'))) found.set('names scoped to one sheet', 'xl/workbook.xml');
  if (/<workbookProtection\b/.test(workbookXml)) found.set('workbook protection', 'xl/workbook.xml');

  const relsXml = (await entriesNamed(zip, /^xl\/_rels\/workbook\.xml\.rels$/)[0]?.async('string')) ?? '';
  const sheets = sheetNames(workbookXml, relsXml);
  const totals = { merged: 0, validated: 0 };
  let problem: string | null = null;
  // The worksheets exceljs reads: its pattern is anchored at neither end.
  for (const entry of entriesNamed(zip, /xl\/worksheets\/sheet\d+\.xml/)) {
    const xml = await entry.async('string');
    const part = entry.name.replace(/^\//, '');
    if (/<sheetProtection\b[^>]*\bpassword=/.test(xml)) found.set('sheet protection with a legacy password', part);
    try {
      problem ??= worksheetProblem(xml, { sheet: sheets.get(part), part }, totals, command);
    } catch (error) {
      problem ??= `has ${messageOf(error)} in ${part}: open it in Excel and save it again`;
    }
  }
  if (found.size > 0) {
    throw refusal(`${file} holds ${[...found].map(([what, part]) => `${what} (${part})`).join(', ')}, which ${command} could not keep: it rewrites the workbook with exceljs. Keep these in another workbook that links to this one, or refresh from Excel.`);
  }
  if (problem !== null) throw refusal(`${file} ${problem}`);

  if (!workbookPart || taken.names.length === 0) return { readable: bytes, names: new DefinedNames() };
  zip.file(workbookPart.name, taken.rest);
  // DEFLATE: the parts left as they were are copied compressed, not compressed again.
  return { readable: await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), names: new DefinedNames(taken.names) };
}

/** The workbook exceljs wrote, with the defined names put back into its xl/workbook.xml. */
export async function withDefinedNames(written: Buffer, names: DefinedNames): Promise<Buffer> {
  if (names.size === 0) return written;
  const zip = await JSZip.loadAsync(written);
  const part = zip.file('xl/workbook.xml');
  if (!part) throw new Error('the workbook exceljs wrote has no xl/workbook.xml');
  zip.file('xl/workbook.xml', names.writeInto(await part.async('string')));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}
