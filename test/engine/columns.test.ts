/**
 * The organization columns are written once, in the contract's table (ORGANIZATION_COLUMNS); the row
 * schema, the `columns` lists, the data file's row, the CSV reader and the store derive from it. The
 * types prove the names; these tests hold what they cannot: the order each layer shows, the kind of
 * value each layer reads, and that the columns other contract lists name (stats, filters) are the
 * table's and stored the way those lists need.
 */
import * as z from 'zod';
import {
  EXTENSION_COLUMNS,
  ORGANIZATION_COLUMN_NAMES,
  ORGANIZATION_COLUMNS,
  SELECTABLE_COLUMNS,
  type ColumnKind,
} from '../../src/contract/common.js';
import { OrganizationRowSchema } from '../../src/contract/v2/rows.js';
import { STATS_GROUP_FAMILIES } from '../../src/contract/v2/stats.js';
import { FILTER_KEYS } from '../../src/contract/v2/filters.js';
import { V1_COLUMNS, V1_EXTRA_COLUMNS } from '../../src/contract/v1.js';
import { DEFAULT_DATASET, generateDataset, readCsv, RECORD_KEYS } from '../../src/engine/index.js';
import { CATEGORICAL_COLUMNS, ColumnStore, TEXT_COLUMNS } from '../../src/engine/store/store.js';

/** The JSON Schema type a row's value of each kind has (besides null). */
const JSON_TYPE: Record<ColumnKind, string> = {
  domain: 'string',
  text: 'string',
  category: 'string',
  keywords: 'array',
  number: 'number',
  boolean: 'boolean',
  date: 'string',
  timestamp: 'string',
};

describe('one column table', () => {
  it('the row schema has the columns in the table order, each typed by its kind and documented with its title', () => {
    expect(Object.keys(OrganizationRowSchema.shape)).toEqual([...ORGANIZATION_COLUMN_NAMES]);
    const { properties = {}, required } = z.toJSONSchema(OrganizationRowSchema, { io: 'output' });
    expect(required).toEqual(['domain']);
    for (const column of ORGANIZATION_COLUMN_NAMES) {
      const { kind, title, description } = ORGANIZATION_COLUMNS[column];
      expect(properties[column]).toMatchObject({ title, description });
      const schema = JSON.stringify(properties[column]);
      expect(schema).toContain(`"${JSON_TYPE[kind]}"`);
      // Every column but the domain may be null.
      expect(schema.includes('"null"')).toBe(kind !== 'domain');
    }
  });

  it('a request names the interface columns in table order, then the extensions; v1 adds its own after them', () => {
    expect(new Set([...SELECTABLE_COLUMNS, ...EXTENSION_COLUMNS])).toEqual(new Set(ORGANIZATION_COLUMN_NAMES));
    expect(SELECTABLE_COLUMNS).toEqual(ORGANIZATION_COLUMN_NAMES.filter((column) => !('extension' in ORGANIZATION_COLUMNS[column])));
    expect(EXTENSION_COLUMNS).toEqual(['company_register_court']);
    expect(V1_COLUMNS).toEqual([...SELECTABLE_COLUMNS, ...V1_EXTRA_COLUMNS]);
    expect(V1_EXTRA_COLUMNS.filter((column) => column in ORGANIZATION_COLUMNS)).toEqual([]);
  });

  it("a data file's row holds the interface columns in table order, then what only a data file has", () => {
    expect(RECORD_KEYS).toEqual([...SELECTABLE_COLUMNS, 'registrations', 'source', 'updated_at', 'text']);
  });

  it('a CSV file with every column reads back each kind as the JSON record has it', () => {
    const records = generateDataset({ ...DEFAULT_DATASET, count: 40, seed: 11 });
    const cell = (value: unknown): string => {
      if (value === null) return '';
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return `"${text.replace(/"/g, '""')}"`;
    };
    const csv = [RECORD_KEYS.join(','), ...records.map((record) => RECORD_KEYS.map((key) => cell(record[key])).join(','))].join('\n');
    const { records: read, errors } = readCsv(csv);
    expect(errors).toEqual([]);
    expect(read).toEqual(records);
  });

  it('the store keeps every category dictionary-encoded and every free text as strings, each once', () => {
    const kindOf = (kind: ColumnKind) => SELECTABLE_COLUMNS.filter((column) => ORGANIZATION_COLUMNS[column].kind === kind);
    expect(CATEGORICAL_COLUMNS).toEqual([...kindOf('category'), 'source']);
    expect(TEXT_COLUMNS).toEqual(kindOf('text'));
    const store = ColumnStore.fromRecords(generateDataset({ ...DEFAULT_DATASET, count: 5, seed: 3 }));
    expect(Object.keys(store.categorical)).toEqual(CATEGORICAL_COLUMNS);
    expect(Object.keys(store.text)).toEqual(TEXT_COLUMNS);
  });

  it('the columns stats counts by and filters name are columns of the table (or the data file’s source)', () => {
    const counted: readonly string[] = [...STATS_GROUP_FAMILIES.geographic, ...STATS_GROUP_FAMILIES.classification, ...STATS_GROUP_FAMILIES.source];
    // Counting reads dictionary codes: each of these must be stored as a category.
    for (const column of counted) expect(CATEGORICAL_COLUMNS).toContain(column);
    const allStats: readonly string[] = Object.values(STATS_GROUP_FAMILIES).flat();
    const known = new Set<string>([...ORGANIZATION_COLUMN_NAMES, 'source']);
    expect(allStats.filter((column) => !known.has(column))).toEqual([]);
    const notColumns = ['register_date_from', 'register_date_to', 'text_keywords'];
    expect(FILTER_KEYS.filter((key) => !known.has(key) && !notColumns.includes(key))).toEqual([]);
  });
});
