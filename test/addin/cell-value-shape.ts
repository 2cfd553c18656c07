/**
 * STAND-IN for Excel's check of a cell value written through `Range.valuesAsJson` (Excel cannot run
 * here): the documented JSON shape of Office.js's `CellValue` types (ExcelApi 1.16; `Function` cell
 * values and "TwoColumn" card sections 1.19), as learn.microsoft.com's Excel.CellValue reference and
 * "Excel data types: entity value card" describe them. A value Excel would refuse gives the reasons;
 * an empty list means it passes.
 *
 * Stricter than Excel where Excel's behaviour is undocumented: unknown keys are refused (a misspelt
 * `propertyMetaData` would be silently dropped by a lenient host). `basicValue` / `basicType` of an
 * entity are accepted and ignored: Excel sets them itself.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** "1.16" < "1.19" by number, not by text. */
export function atLeast(version: string, wanted: string): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number);
  const [c = 0, d = 0] = wanted.split('.').map(Number);
  return a > c || (a === c && b >= d);
}

const BASE_KEYS = ['type', 'writable', 'writableNote'];

/** Per type — every one @types/office-js's `Excel.CellValueType` names, and no other: the keys it may carry beyond BASE_KEYS, and the API version it needs. */
const TYPES: Record<`${Excel.CellValueType}`, { keys: string[]; since: string }> = {
  Array: { keys: ['elements', 'basicValue', 'basicType', 'referencedValues'], since: '1.16' },
  Boolean: { keys: ['basicValue', 'basicType'], since: '1.16' },
  Double: { keys: ['basicValue', 'basicType'], since: '1.16' },
  Entity: { keys: ['text', 'properties', 'layouts', 'provider', 'referencedValues', 'basicValue', 'basicType'], since: '1.16' },
  Empty: { keys: ['basicValue', 'basicType'], since: '1.16' },
  Error: { keys: ['basicValue', 'basicType', 'errorType', 'errorSubType'], since: '1.16' },
  FormattedNumber: { keys: ['basicValue', 'basicType', 'numberFormat'], since: '1.16' },
  Function: { keys: ['basicValue', 'basicType', 'functionType', 'functionId', 'functionName', 'functionProperties'], since: '1.19' },
  LinkedEntity: { keys: ['id', 'text', 'properties', 'layouts', 'provider', 'cardLayout', 'basicValue', 'basicType'], since: '1.16' },
  Reference: { keys: ['reference', 'basicValue', 'basicType'], since: '1.16' },
  String: { keys: ['basicValue', 'basicType'], since: '1.16' },
  NotAvailable: { keys: ['basicValue', 'basicType'], since: '1.16' },
  WebImage: { keys: ['address', 'altText', 'relatedImagesAddress', 'attribution', 'provider', 'basicValue', 'basicType'], since: '1.16' },
};

const isCellValueType = (type: string): type is keyof typeof TYPES => Object.hasOwn(TYPES, type);

const METADATA_KEYS = ['excludeFrom', 'sublabel', 'attribution'];
const EXCLUDE_KEYS = ['cardView', 'autoComplete', 'calcCompare', 'dotNotation'];
const ATTRIBUTION_KEYS = ['sourceAddress', 'sourceText', 'licenseAddress', 'licenseText'];
const PROVIDER_KEYS = ['description', 'logoSourceAddress', 'logoTargetAddress'];
const SECTION_KEYS = ['layout', 'properties', 'title', 'collapsible', 'collapsed'];
const CARD_KEYS = ['layout', 'title', 'subTitle', 'mainImage', 'sections'];

function unknownKeys(value: Json, allowed: readonly string[], where: string, problems: string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) problems.push(`${where}: unknown key "${key}"`);
}

function strings(value: Json, keys: readonly string[], where: string, problems: string[]): void {
  for (const key of keys) if (key in value && typeof value[key] !== 'string') problems.push(`${where}.${key}: must be a string`);
}

function checkMetadata(metadata: unknown, where: string, problems: string[]): void {
  if (!isObject(metadata)) return void problems.push(`${where}: must be an object`);
  unknownKeys(metadata, METADATA_KEYS, where, problems);
  strings(metadata, ['sublabel'], where, problems);
  if ('excludeFrom' in metadata) {
    const exclude = metadata.excludeFrom;
    if (!isObject(exclude)) problems.push(`${where}.excludeFrom: must be an object`);
    else {
      unknownKeys(exclude, EXCLUDE_KEYS, `${where}.excludeFrom`, problems);
      for (const [key, flag] of Object.entries(exclude)) if (typeof flag !== 'boolean') problems.push(`${where}.excludeFrom.${key}: must be true or false`);
    }
  }
  if ('attribution' in metadata) {
    const list = metadata.attribution;
    if (!Array.isArray(list)) problems.push(`${where}.attribution: must be an array`);
    else
      list.forEach((item, i) => {
        if (!isObject(item)) return void problems.push(`${where}.attribution[${i}]: must be an object`);
        unknownKeys(item, ATTRIBUTION_KEYS, `${where}.attribution[${i}]`, problems);
        strings(item, ATTRIBUTION_KEYS, `${where}.attribution[${i}]`, problems);
      });
  }
}

/** The property a layout names (`{ property: "name" }`) must exist; `kind` restricts its type (mainImage: WebImage). */
function checkPropertyRef(ref: unknown, properties: Json, where: string, problems: string[], kind?: string): void {
  if (!isObject(ref) || typeof ref.property !== 'string') return void problems.push(`${where}: must be { property: "<name>" }`);
  unknownKeys(ref, ['property'], where, problems);
  const target = properties[ref.property];
  if (target === undefined) return void problems.push(`${where}: no property "${ref.property}"`);
  if (kind && (!isObject(target) || target.type !== kind)) problems.push(`${where}: property "${ref.property}" must be a ${kind} value`);
}

function checkLayouts(layouts: unknown, properties: Json, version: string, where: string, problems: string[]): void {
  if (!isObject(layouts)) return void problems.push(`${where}: must be an object`);
  unknownKeys(layouts, ['compact', 'card'], where, problems);
  if ('compact' in layouts) {
    const compact = layouts.compact;
    if (!isObject(compact)) problems.push(`${where}.compact: must be an object`);
    else {
      unknownKeys(compact, ['icon'], `${where}.compact`, problems);
      strings(compact, ['icon'], `${where}.compact`, problems);
    }
  }
  if (!('card' in layouts)) return;
  const card = layouts.card;
  if (!isObject(card)) return void problems.push(`${where}.card: must be an object`);
  unknownKeys(card, CARD_KEYS, `${where}.card`, problems);
  if ('layout' in card && card.layout !== 'Entity') problems.push(`${where}.card.layout: must be "Entity"`);
  if ('title' in card && typeof card.title !== 'string') checkPropertyRef(card.title, properties, `${where}.card.title`, problems);
  if ('subTitle' in card) checkPropertyRef(card.subTitle, properties, `${where}.card.subTitle`, problems);
  // Not refused by Excel, but shown twice: a card's title and subtitle (a text, or a property's value) differ.
  const shown = (ref: unknown): unknown => {
    if (!isObject(ref) || typeof ref.property !== 'string') return ref;
    const target = properties[ref.property];
    return isObject(target) ? target.basicValue : undefined;
  };
  if ('subTitle' in card && shown(card.title) === shown(card.subTitle)) problems.push(`${where}.card.subTitle: shows what the title shows (the card would show it twice)`);
  if ('mainImage' in card) checkPropertyRef(card.mainImage, properties, `${where}.card.mainImage`, problems, 'WebImage');
  if (!('sections' in card)) return;
  if (!Array.isArray(card.sections)) return void problems.push(`${where}.card.sections: must be an array`);
  card.sections.forEach((section: unknown, i) => {
    const at = `${where}.card.sections[${i}]`;
    if (!isObject(section)) return void problems.push(`${at}: must be an object`);
    unknownKeys(section, SECTION_KEYS, at, problems);
    const layouts = atLeast(version, '1.19') ? ['List', 'Table', 'TwoColumn'] : ['List', 'Table'];
    if (!layouts.includes(section.layout as string)) problems.push(`${at}.layout: must be ${layouts.map((l) => `"${l}"`).join(' or ')}`);
    strings(section, ['title'], at, problems);
    for (const flag of ['collapsible', 'collapsed']) if (flag in section && typeof section[flag] !== 'boolean') problems.push(`${at}.${flag}: must be true or false`);
    if (!Array.isArray(section.properties)) return void problems.push(`${at}.properties: must be an array of property names`);
    for (const name of section.properties) if (typeof name !== 'string' || properties[name] === undefined) problems.push(`${at}.properties: no property ${JSON.stringify(name)}`);
  });
}

/**
 * The reasons Excel would refuse `value` as a cell value: `nested` for a value inside an entity's
 * properties (where `propertyMetadata` is allowed and `referencedValues` is not).
 */
export function cellValueProblems(value: unknown, version: string, where = 'value', nested = false): string[] {
  const problems: string[] = [];
  if (!isObject(value)) return [`${where}: must be an object with a "type"`];
  const spec = typeof value.type === 'string' && isCellValueType(value.type) ? TYPES[value.type] : undefined;
  if (!spec) return [`${where}.type: unknown cell value type ${JSON.stringify(value.type)}`];
  if (!atLeast(version, spec.since)) problems.push(`${where}: ${String(value.type)} values need ExcelApi ${spec.since}`);
  unknownKeys(value, [...BASE_KEYS, ...spec.keys, ...(nested ? ['propertyMetadata'] : [])], where, problems);
  strings(value, ['writableNote'], where, problems);
  if (nested && 'propertyMetadata' in value) checkMetadata(value.propertyMetadata, `${where}.propertyMetadata`, problems);
  switch (value.type) {
    case 'String':
      if (typeof value.basicValue !== 'string') problems.push(`${where}.basicValue: must be a string`);
      break;
    case 'Double':
    case 'FormattedNumber':
      if (typeof value.basicValue !== 'number' || !Number.isFinite(value.basicValue)) problems.push(`${where}.basicValue: must be a finite number`);
      if (value.type === 'FormattedNumber' && (typeof value.numberFormat !== 'string' || value.numberFormat === '')) problems.push(`${where}.numberFormat: must be a number format`);
      break;
    case 'Boolean':
      if (typeof value.basicValue !== 'boolean') problems.push(`${where}.basicValue: must be true or false`);
      break;
    case 'WebImage':
      if (typeof value.address !== 'string' || !value.address.startsWith('https://')) problems.push(`${where}.address: must be an https address`);
      break;
    case 'Entity': {
      strings(value, ['text'], where, problems);
      if (nested && 'referencedValues' in value) problems.push(`${where}.referencedValues: only the outermost entity may carry referencedValues`);
      const properties = isObject(value.properties) ? value.properties : {};
      if ('properties' in value && !isObject(value.properties)) problems.push(`${where}.properties: must be an object`);
      for (const [key, property] of Object.entries(properties)) problems.push(...cellValueProblems(property, version, `${where}.properties.${key}`, true));
      if ('layouts' in value) checkLayouts(value.layouts, properties, version, `${where}.layouts`, problems);
      if ('provider' in value) {
        if (!isObject(value.provider)) problems.push(`${where}.provider: must be an object`);
        else {
          unknownKeys(value.provider, PROVIDER_KEYS, `${where}.provider`, problems);
          strings(value.provider, PROVIDER_KEYS, `${where}.provider`, problems);
        }
      }
      break;
    }
    default:
      break;
  }
  return problems;
}
