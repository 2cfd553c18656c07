/**
 * Organizations read from a PostgreSQL table (`--data postgres://user@host/database/table`): the system of
 * record a team already keeps. The table's columns are named like the fields of a data file's rows
 * (docs/library.md, "The data file format"); columns it lacks are null, columns the format does not know are an error, and
 * every row is checked as a file's row is (each bad row reported with its row number in domain order).
 * Rows are read in domain order through a cursor, a page at a time, from one snapshot of the table, so
 * every server reading the same table numbers its rows alike.
 */
import pg from 'pg';
import { RecordCollector, type ReadResult } from '../../engine/dataset/read.js';
import { OrganizationRecordSchema } from '../../engine/dataset/record.js';
import { DatabaseUnavailable, redactedUrl } from './database.js';
import { messageOf } from '../../contract/errors.js';

const PAGE_ROWS = 10_000;
/** A table name as `--data` takes it: table or schema.table, plain SQL identifiers. */
const TABLE = /^(?:([A-Za-z_][A-Za-z0-9_]{0,62})\.)?([A-Za-z_][A-Za-z0-9_]{0,62})$/;

/**
 * The layout of a table this reader takes: a data row's columns (docs/library.md, "The data file format") in the PostgreSQL
 * types it parses. For an operator's (or a test's or benchmark's) CREATE TABLE.
 */
export const organizationTableDdl = (table: string): string => `
  CREATE TABLE ${table} (
    domain text, name text, summary text, summary_keywords jsonb, address text,
    organization_type text, organization_size text, employee_class text, revenue_class text, nace_code text,
    continent text, country text, country_code text, state text, state_code text, region text, region_code text,
    district text, district_code text, municipality text, municipality_code text,
    lat double precision, lon double precision, new_register_entry boolean,
    company_register_date date, company_register_id text, created_at timestamptz, registrations jsonb,
    source text, updated_at timestamptz, text text
  )`;

/** Whether `--data` names a database table rather than a file. */
export const isTableUrl = (data: string): boolean => /^postgres(ql)?:\/\//i.test(data);

/** The connection URL and the quoted table of `postgres://…/database/[schema.]table`. */
export function parseTableUrl(data: string): { connection: string; table: string; name: string } {
  let url: URL;
  try {
    url = new URL(data);
  } catch {
    throw new DatabaseUnavailable(`--data ${redactedUrl(data)} is not a URL such as postgres://user@host:5432/database/organizations`);
  }
  const parts = url.pathname.split('/').filter((part) => part !== '');
  const name = decodeURIComponent(parts[1] ?? '');
  const match = TABLE.exec(name);
  if (parts.length !== 2 || !match) {
    throw new DatabaseUnavailable(`--data ${redactedUrl(data)} must end in /<database>/<table> (or <schema>.<table>), e.g. postgres://user@host:5432/crm/organizations`);
  }
  url.pathname = `/${parts[0] ?? ''}`;
  const table = match[1] ? `"${match[1]}"."${match[2] ?? ''}"` : `"${match[2] ?? ''}"`;
  return { connection: url.toString(), table, name };
}

const { builtins } = pg.types;
type TypeId = (typeof builtins)[keyof typeof builtins];

/** Values the row schema wants as text or numbers rather than as pg's JavaScript objects; the rest as pg parses them. */
const typeParser = (oid: TypeId): ((value: string) => unknown) => {
  if (oid === builtins.DATE) return (value) => value;
  if (oid === builtins.TIMESTAMPTZ) return (value) => new Date(value).toISOString();
  // Without a zone, a timestamp is taken as UTC.
  if (oid === builtins.TIMESTAMP) return (value) => `${value.replace(' ', 'T')}Z`;
  if (oid === builtins.NUMERIC || oid === builtins.INT8) return (value) => Number(value);
  return pg.types.getTypeParser(oid, 'text') as (value: string) => unknown;
};

/** Every row of the table as a checked record, in domain order; bad rows as errors naming their row and domain. */
export async function readOrganizationTable(data: string): Promise<ReadResult & { name: string }> {
  const { connection, table, name } = parseTableUrl(data);
  const client = new pg.Client({ connectionString: connection, types: { getTypeParser: typeParser as typeof pg.types.getTypeParser } });
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseUnavailable(`cannot reach the database of --data ${redactedUrl(data)}: ${messageOf(error)}`, { cause: error });
  }
  try {
    const known = new Set(Object.keys(OrganizationRecordSchema.shape));
    const { fields } = await client.query(`SELECT * FROM ${table} LIMIT 0`).catch((error: unknown) => {
      throw new DatabaseUnavailable(`cannot read the table ${name} of --data ${redactedUrl(data)}: ${messageOf(error)}`, { cause: error });
    });
    const columns = fields.map((field) => field.name);
    const unknown = columns.filter((column) => !known.has(column));
    if (!columns.includes('domain')) throw new DatabaseUnavailable(`the table ${name} has no domain column: every organization is identified by its domain`);
    if (unknown.length > 0) throw new DatabaseUnavailable(`the table ${name} has columns a data row does not have: ${unknown.join(', ')} (docs/library.md, "The data file format", lists the fields); select the others in a view and name the view`);
    const collector = new RecordCollector();
    let row = 0;
    // A cursor in one transaction: one snapshot of the table, read a page at a time (rows without a domain last).
    await client.query('BEGIN READ ONLY');
    await client.query(`DECLARE organizations NO SCROLL CURSOR FOR SELECT * FROM ${table} ORDER BY domain`);
    for (;;) {
      const page = await client.query<Record<string, unknown>>(`FETCH ${PAGE_ROWS} FROM organizations`);
      for (const values of page.rows) {
        row++;
        // Nulls stand for absent fields (the schema's optional ones included).
        collector.add(row, Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null)));
      }
      if (page.rows.length < PAGE_ROWS) break;
    }
    await client.query('COMMIT');
    return { records: collector.records, errors: collector.errors, errorCount: collector.errorCount, name };
  } finally {
    await client.end();
  }
}
