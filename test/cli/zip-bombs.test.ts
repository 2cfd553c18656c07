/**
 * Workbooks whose zip unpacks far past what they weigh — zip bombs — against `orgindex refresh` and
 * `orgindex query`: a real workbook with a part of a gigabyte of spaces added (declared truthfully, or
 * declared as a kilobyte), a part packed a thousand to one, parts whose declared sizes add up past the
 * limit, ten thousand and one parts. Each is refused before it is unpacked: exit 2, a message naming the
 * workbook and the bound, within seconds, in a process whose heap is far smaller than the bomb, and the
 * file's bytes unchanged. The zips are written here byte by byte, as another program could have; a
 * workbook of 30,000 rows still refreshes. Every query runs on the embedded sample: no server is needed.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { ZIP_LIMITS } from '../../src/cli/workbook-zip.js';

const BIN = join(__dirname, '../../bin/orgindex.js');
const MB = 1024 * 1024;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-zip-bombs-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI in its own process, its heap far below what any of the bombs unpacks to, with a time limit. */
function run(args: string[]) {
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--max-old-space-size=256', BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

interface Entry {
  name: string;
  /** The part's bytes as stored in the zip (DEFLATE unless `stored`). */
  packed: Buffer;
  /** What the central directory says it unpacks to. */
  declared: number;
  stored?: boolean;
}

const deflated = (name: string, data: Buffer): Entry => ({ name, packed: deflateRawSync(data), declared: data.length });

/**
 * DEFLATE data unpacking to `megabytes` MB of spaces, made without compressing them: a 4 MB block ends
 * with a full flush (byte-aligned, no reference before it), so copies of it in a row are a valid stream.
 */
function spaces(megabytes: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(4 * MB, 0x20), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array<Buffer>(Math.ceil(megabytes / 4)).fill(block), deflateRawSync(Buffer.alloc(0))]);
}

/** A zip file: local headers and data, the central directory, its end record (CRCs left 0: nothing checks them). */
function zipOf(entries: readonly Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.stored ? 0 : 8, 8);
    local.writeUInt32LE(entry.packed.length, 18);
    local.writeUInt32LE(entry.declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.stored ? 0 : 8, 10);
    central.writeUInt32LE(entry.packed.length, 20);
    central.writeUInt32LE(entry.declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.packed);
    centrals.push(central, name);
    offset += local.length + name.length + entry.packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const STATS = { interface: 'v2', route: 'stats', body: { group_by: 'organization_type' } };

/** A real workbook (exceljs): a sheet of `rows` rows of data, and a saved query on the embedded sample. */
async function workbookBytes(rows = 3): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const leads = workbook.addWorksheet('Leads');
  for (let r = 0; r < rows; r++) leads.addRow([`org-${String(r)}.example.de`, `Organisation ${String(r)} GmbH`, 'Deutschland', r * 7, r % 13, `Street ${String(r % 500)}`]);
  workbook.addWorksheet('Counts');
  const store = workbook.addWorksheet('_orgindex', { state: 'hidden' });
  store.addRow(['id', 'where', 'last refreshed (UTC)', 'status', 'saved query']);
  const query = { id: 'counts', sheet: 'Counts', cell: 'A1', request: STATS, service: null, output: { headers: true, layout: 'crosstab' }, extent: null, last_refreshed: null, status: null };
  store.addRow([query.id, 'Counts!A1', '', '', JSON.stringify(query)]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The parts of a real workbook, packed again by zipOf. */
async function partsOf(bytes: Buffer): Promise<Entry[]> {
  const zip = await JSZip.loadAsync(bytes);
  return Promise.all(Object.values(zip.files).filter((file) => !file.dir).map(async (file) => deflated(file.name, await file.async('nodebuffer'))));
}

function save(name: string, bytes: Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

test('zip bombs are refused before they are unpacked: exit 2, the workbook and the bound named, in seconds, bytes unchanged', async () => {
  const parts = await partsOf(await workbookBytes());
  const gigabyte = spaces(1024);
  const tight = spaces(16);
  const count = (n: number): string => n.toLocaleString('en-US');
  const cases: [string, Entry[], string][] = [
    ['declared', [{ name: 'xl/worksheets/sheet9.xml', packed: gigabyte, declared: 1024 * MB }], 'declared.xlsx holds "xl/worksheets/sheet9.xml", which unpacks to 1,024 MB (limit 100 MB a part): orgindex refresh does not read a workbook that large'],
    ['understated', [{ name: 'xl/worksheets/sheet9.xml', packed: gigabyte, declared: 1000 }], 'understated.xlsx holds "xl/worksheets/sheet9.xml", which unpacks to more than the 1,000 bytes its zip directory declares'],
    ['packed-tight', [{ name: 'xl/media/image1.png', packed: tight, declared: 16 * MB }], `packed-tight.xlsx holds "xl/media/image1.png", which unpacks to ${count(Math.floor((16 * MB) / tight.length))} times its packed size (${count(tight.length)} bytes to 16 MB; limit 200 times for parts over 1 MB)`],
    // Declared sizes alone: a packed size in proportion, so only their sum is past a bound.
    ['summed', [1, 2, 3].map((n) => ({ name: `xl/media/image${String(n)}.png`, packed: randomBytes(MB), declared: 90 * MB })), 'summed.xlsx unpacks to more than 200 MB (its parts declare 270 MB; limit 200 MB unpacked in a workbook)'],
    ['many', Array.from({ length: ZIP_LIMITS.parts }, (_, n) => ({ name: `customXml/item${String(n)}.xml`, packed: Buffer.alloc(0), declared: 0, stored: true })), 'many.xlsx holds more than 10,000 parts (limit 10,000 files in the zip of a workbook)'],
  ];
  for (const [name, added, message] of cases) {
    const bytes = zipOf([...parts, ...added]);
    expect(bytes.length).toBeLessThan(4 * MB);
    const file = save(`${name}.xlsx`, bytes);
    const result = run(['refresh', file]);
    expect({ name, code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({ name, code: 2, signal: null, stdout: '' });
    expect(result.stderr).toContain(`orgindex refresh: ${join(dir, message)}`);
    expect(result.ms).toBeLessThan(30_000);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  }
}, 300_000);

test('orgindex query add, list and remove refuse a bomb too, leaving it as it was', async () => {
  const bytes = zipOf([...(await partsOf(await workbookBytes())), { name: 'xl/sharedStrings2.xml', packed: spaces(1024), declared: 2048 }]);
  const file = save('query.xlsx', bytes);
  for (const args of [['query', 'list', file], ['query', 'add', file, '--sheet', 'Leads', '--cell', 'H1', '--stats', '{"group_by": "country"}'], ['query', 'remove', file, 'counts']]) {
    const result = run(args);
    expect({ args, code: result.code, signal: result.signal }).toEqual({ args, code: 2, signal: null });
    expect(result.stderr).toBe(
      `orgindex query ${args[1] ?? ''}: ${file} holds "xl/sharedStrings2.xml", which unpacks to more than the 2,048 bytes its zip directory declares (limit: what the directory declares, at most 100 MB a part): the file is damaged or made to exhaust memory; orgindex query does not read it\n`,
    );
    expect(result.ms).toBeLessThan(30_000);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  }
}, 120_000);

test('a workbook of 30,000 rows still refreshes, and so does a workbook packed again by another program', async () => {
  const large = save('large.xlsx', await workbookBytes(30_000));
  // The bombs' own workbook, without a bomb: the zips written here are ones exceljs reads.
  const repacked = save('repacked.xlsx', zipOf(await partsOf(await workbookBytes())));
  for (const [file, rows] of [[large, 30_000], [repacked, 3]] as const) {
    const result = run(['refresh', file]);
    expect({ file, code: result.code, stderr: result.stderr }).toEqual({ file, code: 0, stderr: `1 of 1 saved queries refreshed in ${file}\n` });
    expect(result.stdout).toMatch(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)\n$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    expect(workbook.getWorksheet('Leads')?.rowCount).toBe(rows);
    expect(workbook.getWorksheet('Counts')?.getCell('A1').value).toBe('organization_type');
  }
}, 180_000);
