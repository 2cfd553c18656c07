/**
 * `orgindex serve --data postgres://…/database/table`: organizations read from a table in a real
 * PostgreSQL (typed columns: jsonb, date, timestamptz, double precision, boolean), checked row by row as a
 * data file's rows are, and served.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { serve } from '../../src/cli/serve.js';
import { generateDataset, type OrganizationRecord } from '../../src/engine/index.js';
import { organizationTableDdl, parseTableUrl, readOrganizationTable } from '../../src/server/database/pg-organizations.js';
import { usePostgres } from '../support/postgres.js';

const cluster = usePostgres();

const TABLE_DDL = organizationTableDdl('crm.organizations');

/** A database with schema crm and table organizations holding these rows; its --data URL. */
async function tableOf(rows: readonly Record<string, unknown>[]): Promise<string> {
  const url = await cluster().createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE SCHEMA crm');
    await client.query(TABLE_DDL);
    await client.query('INSERT INTO crm.organizations SELECT * FROM json_populate_recordset(NULL::crm.organizations, $1)', [JSON.stringify(rows)]);
  } finally {
    await client.end();
  }
  return `${url}/crm.organizations`;
}

const records = generateDataset({ count: 300, seed: 11, asOf: '2026-11-01' });

test('a table is read in domain order with its typed columns as a data file gives them', async () => {
  const data = await tableOf(records);
  const read = await readOrganizationTable(data);
  expect(read.errors).toEqual([]);
  expect(read.records.map((record) => record.domain)).toEqual(records.map((record) => record.domain).sort());
  const byDomain = new Map(records.map((record) => [record.domain, record]));
  for (const record of read.records) expect(record).toEqual(byDomain.get(record.domain));
});

test('bad rows are named by their row in domain order; a column the format lacks, or no domain column, is refused', async () => {
  const [a, b, c] = records as [OrganizationRecord, OrganizationRecord, OrganizationRecord];
  const data = await tableOf([{ ...a, lat: 123 }, b, { ...c, domain: b.domain }]);
  const read = await readOrganizationTable(data);
  expect(read.records).toHaveLength(1);
  expect(read.errors.map((error) => error.reason)).toEqual([expect.stringContaining('lat'), expect.stringContaining(`duplicate domain ${b.domain}`)]);

  const url = await cluster().createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE TABLE extra (domain text, colour text)');
  await client.query('CREATE TABLE nameless (name text)');
  await client.end();
  await expect(readOrganizationTable(`${url}/extra`)).rejects.toThrow('the table extra has columns a data row does not have: colour');
  await expect(readOrganizationTable(`${url}/nameless`)).rejects.toThrow('the table nameless has no domain column');
  await expect(readOrganizationTable(`${url}/missing`)).rejects.toThrow(/cannot read the table missing .*does not exist/);
});

test('the URL names a database and a table, plain identifiers only; its password never shows', () => {
  expect(parseTableUrl('postgres://u:pw@db.example:5432/crm/public.orgs')).toEqual({ connection: 'postgres://u:pw@db.example:5432/crm', table: '"public"."orgs"', name: 'public.orgs' });
  expect(() => parseTableUrl('postgres://u:secret@db.example/crm')).toThrow('must end in /<database>/<table>');
  expect(() => parseTableUrl('postgres://u:secret@db.example/crm/orgs;drop')).toThrow(/postgres:\/\/u:\*\*\*@db\.example\/crm\/orgs;drop must end in/);
});

test('orgindex serve --data postgres://… serves the table', async () => {
  const data = await tableOf(records);
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-data-table-'));
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key: 'data-table-test-key-000000001', tier: 'tier_2' }] }));
  const running = await serve({ host: '127.0.0.1', port: 0, data, keys: join(dir, 'keys.json'), stateDir: join(dir, 'state'), logLevel: 'silent' }, () => undefined);
  try {
    const response = await fetch(`${running.url}/v2/fetch`, {
      method: 'POST',
      headers: { 'x-api-key': 'data-table-test-key-000000001', 'content-type': 'application/json' },
      body: JSON.stringify({ domains: [records[5]!.domain], columns: ['domain', 'name'] }),
    });
    expect(await response.json()).toMatchObject({ data: [{ domain: records[5]!.domain, name: records[5]!.name }] });
  } finally {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
