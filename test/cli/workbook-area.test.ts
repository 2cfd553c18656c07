/** A defined name's area (src/cli/workbook-store.ts areaOf): the sheet part as Excel quotes it, each corner read by a1.ts. */
import { areaOf } from '../../src/cli/workbook-store.js';

test('a quoted sheet with a range, a plain sheet with one cell, corners in either order', () => {
  expect(areaOf("'My ''own'' sheet'!$B$2:$C$4")).toEqual({ sheet: "My 'own' sheet", top: 2, left: 2, rows: 3, columns: 2 });
  expect(areaOf('Leads!$B$2')).toEqual({ sheet: 'Leads', top: 2, left: 2, rows: 1, columns: 1 });
  expect(areaOf('Leads!C4:B2')).toEqual({ sheet: 'Leads', top: 2, left: 2, rows: 3, columns: 2 });
});

test('what is no area is null', () => {
  for (const text of [null, '', 'Leads', '$B$2', 'Leads!', 'Leads!B2:C3:D4', 'Leads!B0', 'Leads!#REF!', "'Leads'!B2!C3"]) expect([text, areaOf(text)]).toEqual([text, null]);
});
