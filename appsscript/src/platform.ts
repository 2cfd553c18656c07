/**
 * What the bundle's libraries take from the platform and Apps Script lacks, installed before any of them
 * loads (main.ts imports this module first): `atob`. entities (htmlparser2's decoder) decodes its entity
 * tables from base64 when it loads, with `atob` or else Node's Buffer — Apps Script has neither.
 * Installed only where missing.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Map(Array.from({ length: ALPHABET.length }, (_, index) => [ALPHABET.charAt(index), index]));

/** Base64 to a binary string (one character per byte), as the standard `atob`; a bad character throws. */
export function decodeBase64(input: string): string {
  const text = input.replace(/[\t\n\f\r ]/g, '').replace(/={1,2}$/, '');
  if (text.length % 4 === 1) throw new Error('atob: the text is not valid base64');
  const bytes: string[] = [];
  let value = 0;
  let bits = 0;
  for (const char of text) {
    const digit = VALUES.get(char);
    if (digit === undefined) throw new Error('atob: the text is not valid base64');
    value = ((value << 6) | digit) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push(String.fromCharCode((value >> bits) & 0xff));
    }
  }
  return bytes.join('');
}

const scope = globalThis as { atob?: unknown };
if (typeof scope.atob !== 'function') scope.atob = decodeBase64;
