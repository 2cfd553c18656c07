/** A1 addresses (src/sheet/a1.ts): the one parser and writer of cell addresses for every host, the CLI and the test stand-ins. */
import { cellOf, columnLetters, columnNumber } from '../../src/sheet/a1.js';

test('column letters and numbers are inverse over Excel\'s whole grid', () => {
  expect([columnNumber('A'), columnNumber('Z'), columnNumber('AA'), columnNumber('XFD')]).toEqual([1, 26, 27, 16_384]);
  for (let column = 1; column <= 16_384; column++) expect(columnNumber(columnLetters(column))).toBe(column);
});

test('a cell as people write it: any case, absolute or not, spaces around', () => {
  expect(cellOf('B2')).toEqual({ row: 2, column: 2 });
  expect(cellOf(' b2 ')).toEqual({ row: 2, column: 2 });
  expect(cellOf('$B$2')).toEqual({ row: 2, column: 2 });
  expect(cellOf('XFD1048576')).toEqual({ row: 1_048_576, column: 16_384 });
});

test('what is no cell is null', () => {
  for (const text of ['', 'B', '2', 'B0', '2B', 'B2:C3', 'Sheet1!B2', 'B-2', 'Ä2']) expect([text, cellOf(text)]).toEqual([text, null]);
});
