/**
 * FNV-1a (32 bits) over the UTF-16 code units of a text: the one short hash of every layer — the engine's
 * term dictionary and search cursors, the spreadsheet cache's keys and a remote's cache scope. It lives in
 * the contract because every layer may import the contract and the contract imports nothing. Stable
 * across hosts and runs (stored cache keys and cursors depend on it), and needs no host crypto, which
 * Apps Script and Excel's runtime do not share; not for secrets.
 */

/** The FNV-1a offset basis, as a signed 32-bit integer (what `Math.imul` gives back). */
export const FNV1A_OFFSET = 0x811c9dc5 | 0;
export const FNV1A_PRIME = 0x01000193;

/** One code unit into a running hash, for callers that hash while they scan (start from FNV1A_OFFSET). */
export function fnv1aStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV1A_PRIME);
}

/** The FNV-1a hash of `text`, unsigned (`| 0` gives the signed value a scan with fnv1aStep ends with). */
export function fnv1a(text: string): number {
  let hash = FNV1A_OFFSET;
  for (let i = 0; i < text.length; i++) hash = fnv1aStep(hash, text.charCodeAt(i));
  return hash >>> 0;
}
