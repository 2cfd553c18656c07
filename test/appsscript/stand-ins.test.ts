/**
 * The spreadsheet stand-ins (SpreadsheetApp's, and the Sheets API's on a loopback port) address columns
 * past Z as Google does — AA is column 27, AZ 52, BA 53 — so a test of a wide answer checks the script,
 * not a stand-in that cannot count past 26.
 */
import { SheetsApiStandIn } from '../support/sheets-api-stand-in.js';
import { StandInSheet } from './spreadsheet-stand-in.js';

test('SpreadsheetApp stand-in: ranges past column Z, by number and by A1 notation', () => {
  const sheet = new StandInSheet('Wide');
  sheet.insertColumnsAfter(26, 30);
  expect(sheet.getRange(1, 27).getA1Notation()).toBe('AA1');
  expect(sheet.getRange(2, 52, 1, 2).getA1Notation()).toBe('AZ2:BA2');
  const range = sheet.getRange('AA3:BA4');
  expect([range.getRow(), range.getColumn(), range.getNumRows(), range.getNumColumns()]).toEqual([3, 27, 2, 27]);
  sheet.getRange('AZ5:BA5').setValues([['az', 'ba']]);
  expect(sheet.getRange(5, 52, 1, 2).getValues()).toEqual([['az', 'ba']]);
});

test('Sheets API stand-in: values written and read past column Z', async () => {
  const standIn = new SheetsApiStandIn('wide', [{ sheetId: 0, title: 'Wide', rowCount: 10, columnCount: 60, merges: [], cells: new Map(), metadata: [] }]);
  await standIn.start();
  try {
    const base = `${standIn.url}/v4/spreadsheets/wide`;
    const values = [Array.from({ length: 27 }, (_, i) => `column ${String(27 + i)}`)];
    const written = await fetch(`${base}/values:batchUpdate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: [{ range: "'Wide'!AA1:BA1", values }] }) });
    expect(written.status).toBe(200);
    expect(standIn.grid('Wide', 1, 27, 1, 27)).toEqual(values);
    const read = await fetch(`${base}/values:batchGet?ranges=${encodeURIComponent("'Wide'!AZ1:BA1")}`);
    const body = (await read.json()) as { valueRanges: { values: unknown[][] }[] };
    expect(body.valueRanges[0]?.values).toEqual([['column 52', 'column 53']]);
  } finally {
    await standIn.close();
  }
});
