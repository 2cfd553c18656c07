/**
 * What an index's parts must look like before they are put back together (an index snapshot read from
 * disk): the shape of the tree, with the typed-array kinds each part may have, and the facts the engine
 * relies on without checking while it answers (offsets that stay inside their bytes, one value per row,
 * dictionary codes inside their dictionary, a domain on every row). A checksum tells only that a file is
 * the one its manifest lists; this tells whether the parts are ones this engine can serve.
 */
import * as z from 'zod';
import { CATEGORICAL_COLUMNS, TEXT_COLUMNS, type StoreParts } from '../store/store.js';
import type { Utf8ColumnParts } from '../store/utf8-column.js';
import { POSTED_COLUMNS, type ValuePostingsParts } from '../store/postings.js';
import { isDense, popcount, wordsFor } from '../store/position-set.js';
import type { IndexParts, PartArray, PartArrayType } from './index-parts.js';

export const PART_ARRAY_TYPES = ['Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array', 'Float64Array'] as const satisfies readonly PartArrayType[];

/** Bytes per element of each kind. */
export const ELEMENT_BYTES: Record<PartArrayType, number> = { Uint8Array: 1, Int8Array: 1, Uint16Array: 2, Int16Array: 2, Uint32Array: 4, Int32Array: 4, Float32Array: 4, Float64Array: 8 };

/** A part that is not what this engine reads: `part` is its path in the tree ("store.domains.offsets"). */
export class PartError extends Error {
  constructor(
    readonly part: string,
    readonly reason: string,
  ) {
    super(`part ${part}: ${reason}`);
  }
}

/** A typed array as the flattened tree refers to it (flattenParts). */
export interface ArrayRef {
  $array: number;
  type: PartArrayType;
}

/** The tree of parts with each typed array replaced by its reference. */
type Flat<T> = T extends PartArray ? ArrayRef : T extends readonly unknown[] ? { [K in keyof T]: Flat<T[K]> } : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;

const array = (...kinds: [PartArrayType, ...PartArrayType[]]) =>
  z.strictObject({ $array: z.int().min(0), type: z.enum(PART_ARRAY_TYPES) }).check((ctx) => {
    if (!kinds.includes(ctx.value.type)) ctx.issues.push({ code: 'custom', message: `declared ${ctx.value.type}, this orgindex reads ${kinds.join(' or ')}`, input: ctx.value, path: ['type'] });
  });
const count = z.int().min(0);
const real = z.number();
const utf8 = z.strictObject({ offsets: array('Uint32Array', 'Float64Array'), bytes: array('Uint8Array'), nulls: array('Uint8Array') });
const codes = array('Uint16Array', 'Uint32Array');
const categorical = z.strictObject({ values: utf8, codes });
const dayColumn = z.strictObject({ days: array('Int32Array'), codes });
const valuePostings = z.strictObject({ counts: array('Uint32Array'), offsets: array('Uint32Array'), positions: array('Uint32Array'), denseIds: array('Uint32Array'), denseBits: array('Uint32Array') });
const each = <K extends string, S extends z.ZodType>(keys: readonly K[], schema: S) => z.strictObject(Object.fromEntries(keys.map((key) => [key, schema])) as Record<K, S>);
const field = z.strictObject({
  termStart: array('Uint32Array'),
  docs: z.strictObject({ length: count, bases: array('Uint32Array'), offsets: array('Uint32Array'), widths: array('Uint8Array'), bytes: array('Uint8Array') }),
  tfs: array('Uint8Array', 'Uint16Array', 'Uint32Array'),
  posBlock: array('Uint32Array'),
  positions: array('Uint8Array', 'Uint16Array', 'Uint32Array'),
  lengths: array('Uint32Array'),
  maxPositions: count,
  docCount: count,
  avgLength: real,
  normBase: real,
  normPerToken: real,
});

/** The shape of a whole index's parts, flattened: each typed array with the kinds the engine reads there. */
export const INDEX_SHAPE: z.ZodType<Flat<IndexParts>> = z.strictObject({
  store: z.strictObject({
    size: count,
    domains: utf8,
    domainSlots: array('Int32Array'),
    byDomain: array('Uint32Array'),
    domainRank: array('Uint32Array'),
    categorical: each(CATEGORICAL_COLUMNS, categorical),
    text: each(TEXT_COLUMNS, utf8),
    indexText: utf8.nullable(),
    keywords: z.strictObject({ values: utf8, offsets: array('Uint32Array'), ids: codes }),
    registrations: z.strictObject({ offsets: array('Uint32Array'), court: categorical, day: array('Int32Array'), days: dayColumn, id: utf8 }),
    lat: array('Float64Array'),
    lon: array('Float64Array'),
    newRegisterEntry: array('Int8Array'),
    registerDay: array('Int32Array'),
    createdAt: array('Float64Array'),
    createdDays: dayColumn,
    updatedAt: array('Float64Array'),
  }),
  text: z.strictObject({
    docCount: count,
    dict: z.strictObject({ terms: utf8, hashes: array('Int32Array'), chars: array('Uint16Array'), charStart: array('Uint32Array'), slots: array('Int32Array') }),
    fields: z.tuple([field, field]),
    params: z.strictObject({ k1: real, b: real, nameBoost: real, stemmer: z.enum(['none', 'english-minimal', 'english-german']) }),
  }),
  vectors: z.strictObject({
    present: array('Uint8Array'),
    component: array('Float32Array'),
    scan: z.strictObject({ rows: count, dims: count, axis: array('Float64Array'), records: array('Uint8Array'), decodedPeak: real }),
  }),
  names: z.strictObject({ groupOf: array('Uint32Array'), starts: array('Uint32Array'), rows: array('Uint32Array') }),
  postings: z.strictObject({
    columns: each(POSTED_COLUMNS, valuePostings),
    tags: valuePostings,
    courts: valuePostings,
    registrationDays: z.strictObject({ days: array('Int32Array'), positions: array('Uint32Array') }),
  }),
});

/** Every typed-array reference of a checked shape, by its number: the part's path and declared kind. */
export function arrayRefs(shape: Flat<IndexParts>): Map<number, { part: string; type: PartArrayType }> {
  const refs = new Map<number, { part: string; type: PartArrayType }>();
  // The shape is checked, so its depth is the schema's: a plain walk is safe.
  const walk = (node: unknown, path: string): void => {
    if (node === null || typeof node !== 'object') return;
    if ('$array' in node && typeof node.$array === 'number' && 'type' in node) {
      if (refs.has(node.$array)) throw new PartError(path, `refers to array ${node.$array}, which ${refs.get(node.$array)?.part ?? 'another part'} refers to as well`);
      refs.set(node.$array, { part: path, type: node.type as PartArrayType });
      return;
    }
    for (const [key, value] of Object.entries(node)) walk(value, path === '' ? key : `${path}.${key}`);
  };
  walk(shape, '');
  return refs;
}

/**
 * Offsets of `rows` rows (rows + 1 entries) from 0, never going back, ending at `end`; with `nonEmpty`, every
 * row holds something.
 */
function checkOffsets(part: string, offsets: ArrayLike<number>, rows: number, end: number, nonEmpty = false): void {
  if (offsets.length !== rows + 1) throw new PartError(part, `has ${offsets.length} offsets, ${rows + 1} for ${rows} rows`);
  if (offsets[0] !== 0) throw new PartError(part, 'does not start at 0');
  for (let row = 0; row < rows; row++) {
    const from = offsets[row] ?? 0;
    const to = offsets[row + 1] ?? 0;
    if (!(to >= from) || !Number.isInteger(to)) throw new PartError(part, `row ${row} ends before it starts`);
    if (nonEmpty && to === from) throw new PartError(part, `row ${row} is empty`);
  }
  if (offsets[rows] !== end) throw new PartError(part, `ends at ${String(offsets[rows])}, its values at ${end}`);
}

/** A column of text whose rows lie inside its bytes: `rows` of them when known; its number of rows. */
function checkUtf8(part: string, column: Utf8ColumnParts, rows?: number, nonEmpty = false): number {
  const { offsets, bytes, nulls } = column;
  const size = rows ?? Math.max(0, offsets.length - 1);
  if (offsets instanceof Float64Array && bytes.length <= 0xffffffff) throw new PartError(`${part}.offsets`, `declared Float64Array, this orgindex reads Uint32Array for ${bytes.length} bytes`);
  checkOffsets(`${part}.offsets`, offsets, size, bytes.length, nonEmpty);
  if (nulls.length !== Math.ceil(size / 8)) throw new PartError(`${part}.nulls`, `has ${nulls.length} bytes, ${Math.ceil(size / 8)} for ${size} rows`);
  if (nonEmpty && nulls.some((bits) => bits !== 0)) throw new PartError(`${part}.nulls`, 'marks rows as having no value');
  return size;
}

function checkLength(part: string, values: { length: number }, length: number): void {
  if (values.length !== length) throw new PartError(part, `has ${values.length} values, the index ${length}`);
}

/**
 * The first value at or above `limit`, or -1. A loop for each kind codes come in (`codes`), so that each
 * reads one kind only: this runs over every row of many parts, and a loop over two kinds runs slower.
 */
function firstAtLeast(values: ArrayLike<number>, limit: number): number {
  if (values instanceof Uint16Array) {
    for (let i = 0; i < values.length; i++) if ((values[i] ?? 0) >= limit) return i;
  } else {
    for (let i = 0; i < values.length; i++) if ((values[i] ?? 0) >= limit) return i;
  }
  return -1;
}

function checkCodes(part: string, values: ArrayLike<number>, length: number, dictionary: number): void {
  checkLength(part, values, length);
  const i = firstAtLeast(values, dictionary);
  if (i >= 0) throw new PartError(part, `value ${i} is ${String(values[i])}, past its ${dictionary} dictionary entries`);
}

function checkCategorical(part: string, column: StoreParts['categorical'][keyof StoreParts['categorical']], length: number): void {
  checkCodes(`${part}.codes`, column.codes, length, checkUtf8(`${part}.values`, column.values));
}

/**
 * Throws a PartError when the parts (of a checked shape, their arrays in place) are not ones this engine
 * can serve. Linear in the rows, without decoding any text.
 */
export function checkIndexParts(parts: IndexParts): void {
  const { store } = parts;
  const { size } = store;
  checkUtf8('store.domains', store.domains, size, true);
  checkLength('store.byDomain', store.byDomain, size);
  checkLength('store.domainRank', store.domainRank, size);
  for (const row of store.byDomain) if (row >= size) throw new PartError('store.byDomain', `refers to row ${row} of ${size}`);
  for (const key of CATEGORICAL_COLUMNS) checkCategorical(`store.categorical.${key}`, store.categorical[key], size);
  for (const key of TEXT_COLUMNS) checkUtf8(`store.text.${key}`, store.text[key], size);
  if (store.indexText) checkUtf8('store.indexText', store.indexText, size);
  const { keywords, registrations } = store;
  checkOffsets('store.keywords.offsets', keywords.offsets, size, keywords.ids.length);
  checkCodes('store.keywords.ids', keywords.ids, keywords.ids.length, checkUtf8('store.keywords.values', keywords.values));
  const registered = registrations.court.codes.length;
  checkOffsets('store.registrations.offsets', registrations.offsets, size, registered);
  checkCategorical('store.registrations.court', registrations.court, registered);
  checkLength('store.registrations.day', registrations.day, registered);
  checkCodes('store.registrations.days.codes', registrations.days.codes, registered, registrations.days.days.length);
  checkUtf8('store.registrations.id', registrations.id, registered);
  for (const key of ['lat', 'lon', 'newRegisterEntry', 'registerDay', 'createdAt', 'updatedAt'] as const) checkLength(`store.${key}`, store[key], size);
  checkCodes('store.createdDays.codes', store.createdDays.codes, size, store.createdDays.days.length);
  checkUtf8('text.dict.terms', parts.text.dict.terms);
  checkLength('vectors.present', parts.vectors.present, size);
  if (parts.vectors.scan.rows !== size) throw new PartError('vectors.scan.rows', `is ${parts.vectors.scan.rows}, the index has ${size} rows`);
  checkNameGroups(parts.names, store);
  checkPostings(parts);
}

/**
 * Ascending positions of the store, each below its size: positions[from … to). A range, not a subarray,
 * and the part's name made only for an error: this runs once for each of a column's many values.
 */
function checkPositions(part: () => string, positions: Uint32Array, from: number, to: number, size: number): void {
  let previous = -1;
  for (let i = from; i < to; i++) {
    const p = positions[i] ?? 0;
    if (p >= size) throw new PartError(part(), `value ${i - from} is position ${p} of ${size}`);
    if (p <= previous) throw new PartError(part(), `value ${i - from} does not ascend`);
    previous = p;
  }
}

/**
 * One column's postings (`values` dictionary entries): each sparse value's positions ascending and as many as
 * its count, each dense value a bitmap of the store with its count of bits, dense exactly where the count says.
 */
function checkValuePostings(part: string, postings: ValuePostingsParts, values: number, size: number): void {
  const { counts, offsets, positions, denseIds, denseBits } = postings;
  checkLength(`${part}.counts`, counts, values);
  checkOffsets(`${part}.offsets`, offsets, values, positions.length);
  const words = wordsFor(size);
  checkLength(`${part}.denseBits`, denseBits, denseIds.length * words);
  const denseAt = new Map(Array.from(denseIds, (id, k) => [id, k]));
  const positionsPart = (): string => `${part}.positions`;
  for (let v = 0; v < values; v++) {
    const count = counts[v] ?? 0;
    const listed = (offsets[v + 1] ?? 0) - (offsets[v] ?? 0);
    const k = denseAt.get(v);
    if ((k !== undefined) !== isDense(count, size) || (v === 0 && count !== 0)) throw new PartError(`${part}.denseIds`, `value ${v} of count ${count} is ${k === undefined ? 'not ' : ''}held as a bitmap`);
    if (k === undefined) {
      if (listed !== count) throw new PartError(`${part}.offsets`, `value ${v} lists ${listed} positions, its count is ${count}`);
      checkPositions(positionsPart, positions, offsets[v] ?? 0, offsets[v + 1] ?? 0, size);
      continue;
    }
    let bits = 0;
    for (let w = k * words; w < (k + 1) * words; w++) bits += popcount(denseBits[w] ?? 0);
    const tail = size & 31 ? (denseBits[(k + 1) * words - 1] ?? 0) >>> (size & 31) : 0;
    if (listed !== 0 || bits !== count || tail !== 0) throw new PartError(`${part}.denseBits`, `value ${v}'s bitmap holds ${bits} positions, its count is ${count}`);
  }
}

function checkPostings(parts: IndexParts): void {
  const { store, postings } = parts;
  const { size } = store;
  const entries = (values: Utf8ColumnParts): number => Math.max(0, values.offsets.length - 1);
  for (const key of POSTED_COLUMNS) checkValuePostings(`postings.columns.${key}`, postings.columns[key], entries(store.categorical[key].values), size);
  checkValuePostings('postings.tags', postings.tags, entries(store.keywords.values), size);
  checkValuePostings('postings.courts', postings.courts, entries(store.registrations.court.values), size);
  const { days, positions } = postings.registrationDays;
  checkLength('postings.registrationDays.positions', positions, days.length);
  for (let i = 0; i < days.length; i++) {
    if ((positions[i] ?? 0) >= size) throw new PartError('postings.registrationDays.positions', `value ${i} is position ${String(positions[i])} of ${size}`);
    if (i > 0 && (days[i] ?? 0) < (days[i - 1] ?? 0)) throw new PartError('postings.registrationDays.days', `value ${i} does not ascend`);
  }
}

/**
 * Name groups that dedup can trust: group 0 empty, every other group's rows in domain order, and each
 * row of the index either in no group (0) or listed once, in the group it names.
 */
function checkNameGroups(names: IndexParts['names'], store: StoreParts): void {
  const { groupOf, starts, rows } = names;
  const { size, domainRank } = store;
  checkLength('names.groupOf', groupOf, size);
  const groups = starts.length - 1;
  if (groups < 1 || starts[1] !== 0) throw new PartError('names.starts', 'does not start with an empty group 0');
  checkOffsets('names.starts', starts, groups, rows.length);
  const listed = new Uint8Array(size);
  for (let group = 1; group < groups; group++) {
    let previous = -1;
    for (let i = starts[group] ?? 0; i < (starts[group + 1] ?? 0); i++) {
      const row = rows[i] ?? 0;
      if (row >= size) throw new PartError('names.rows', `refers to row ${row} of ${size}`);
      if (groupOf[row] !== group) throw new PartError('names.groupOf', `puts row ${row} in group ${String(groupOf[row])}, names.rows in group ${group}`);
      if (listed[row]) throw new PartError('names.rows', `lists row ${row} twice`);
      listed[row] = 1;
      const rank = domainRank[row] ?? 0;
      if (rank <= previous) throw new PartError('names.rows', `group ${group} is not in domain order`);
      previous = rank;
    }
  }
  for (let row = 0; row < size; row++) if (groupOf[row] !== 0 && !listed[row]) throw new PartError('names.groupOf', `puts row ${row} in group ${String(groupOf[row])}, which does not list it`);
}
