/**
 * A1 cell addresses: column letters ↔ numbers (A → 1, Z → 26, AA → 27, XFD → 16,384). The one
 * implementation for every host, the CLI and the test stand-ins.
 */

/** A column's number from its letters (A → 1, Z → 26, AA → 27). */
export function columnNumber(letters: string): number {
  let column = 0;
  for (let i = 0; i < letters.length; i++) column = column * 26 + letters.charCodeAt(i) - 64;
  return column;
}

/** Column letters of a 1-based column number (1 → A, 27 → AA). */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A cell's address as people write it ("B2", "b2", "$B$2") → its 1-based row and column; null when it is no cell. */
export function cellOf(address: string): { row: number; column: number } | null {
  // eslint-disable-next-line no-restricted-syntax -- the one A1 cell pattern
  const match = /^\$?([A-Z]+)\$?(\d+)$/.exec(address.trim().toUpperCase());
  if (!match) return null;
  const row = Number(match[2]);
  return row >= 1 ? { row, column: columnNumber(match[1] ?? '') } : null;
}
