/**
 * PostgreSQL pg_trgm `similarity()` and `show_trgm()`, reimplemented bit for bit (checked against
 * PostgreSQL 15.18, pg_trgm 1.6, database encoding UTF8, LC_CTYPE C.UTF-8 on x86-64; see
 * test/fixtures/pg_trgm.json and scripts/data/pg-trgm-fixture.sh).
 *
 * What pg_trgm does, and so what this module does:
 * 1. Words. A word is a maximal run of characters for which glibc's `iswalpha` or `iswdigit` holds in the
 *    database's LC_CTYPE (pg_trgm's KEEPONLYALNUM). In C.UTF-8 that is close to "Unicode Alphabetic or Nd",
 *    but not equal in every runtime's Unicode version, so the set is not taken from the host's regex
 *    engine: WORD_CHAR_RANGES below is the exact set PostgreSQL reported for every code point. Combining
 *    marks such as U+0308 are NOT word characters: a decomposed "Mu\u0308nchen" is two words.
 * 2. Lower-casing per code point with glibc's `towlower` (LOWER_RUNS below, also taken from PostgreSQL):
 *    a simple one-to-one mapping — 'İ' → 'i', 'ẞ' → 'ß', final 'Σ' → 'σ' (never 'ς'); 'ß' stays 'ß'.
 * 3. Each word is padded with two spaces before and one after; every window of three characters is a
 *    trigram; the trigrams of all words form one set.
 * 4. A trigram is stored in three bytes. If its UTF-8 form is exactly three bytes (three ASCII characters)
 *    those are the bytes; otherwise it is the legacy PostgreSQL CRC-32 of its UTF-8 bytes (MSB-first
 *    update over the reflected table, init and final xor 0xFFFFFFFF) and the three bytes are the CRC's
 *    three low-order bytes in little-endian memory order. Two different trigrams can therefore share an
 *    id, exactly as in PostgreSQL; `show_trgm` prints such a trigram as `0x` + six hex digits.
 * 5. similarity = shared / (|A| + |B| − shared) as float4, 0 when either set is empty. Both operands are
 *    small integers, so `Math.fround(shared / union)` is exactly the float4 quotient.
 *
 * A trigram id here is the 24-bit number byte0 << 16 | byte1 << 8 | byte2. Sets are sorted Int32Arrays.
 * Pure, synchronous, no host globals.
 */

/** pg_trgm.similarity_threshold's default: `a % b` holds when similarity(a, b) >= 0.3 (compared as double). */
export const SIMILARITY_THRESHOLD = 0.3;

// ---------------------------------------------------------------------------------------------------------
// Character tables, extracted from PostgreSQL 15 / glibc 2.36 C.UTF-8 by scripts/data/pg-trgm-fixture.sh
// (which also stores them, decoded, in test/fixtures/pg_trgm.json; a test compares them exhaustively).
// WORD_CHAR_RANGES: base-36 pairs (start − previous end, end − start). LOWER_RUNS: base-36 quadruples
// (start − previous start, count, step, delta): code points start, start+step, … map to code point + delta.

const WORD_CHAR_RANGES =
  '1c,9,8,p,7,p,1c,0,b,0,5,0,6,m,2,u,2,cp,5,b,f,4,8,0,2,0,2f,0,17,4,2,1,3,3,2,0,7,0,2,2,2,0,2,j,2,2a,2,' +
  '3u,9,4l,2,11,3,0,7,14,14,d,2,0,2,1,2,1,2,0,9,q,5,3,u,a,6,1j,2,g,5,2t,2,7,5,7,5,f,3,0,h,1b,e,2s,f,16,' +
  'a,1,5,0,6,n,3,i,k,o,8,a,6,n,2,5,i,15,b,b,4,6,7,23,2,f,2,2,5,e,3,9,2,i,2,7,3,1,3,l,2,6,2,0,4,3,4,7,3,' +
  '1,3,1,2,0,9,0,5,1,2,4,3,b,b,0,5,2,2,5,5,1,3,l,2,6,2,1,2,1,2,1,5,4,5,1,3,1,5,0,8,3,2,0,8,f,c,2,2,8,2,' +
  '2,2,l,2,6,2,1,2,4,4,8,2,2,2,1,4,0,g,3,3,9,a,3,5,2,2,7,3,1,3,l,2,6,2,1,2,4,4,7,3,1,3,1,a,1,5,1,2,4,3,' +
  '9,2,0,h,1,2,5,4,2,2,3,4,1,2,0,2,1,4,1,4,2,4,b,5,4,4,2,2,2,4,0,7,0,f,9,h,3,2,7,2,2,2,m,2,f,4,7,2,2,2,' +
  '2,9,1,2,2,3,0,3,3,3,9,h,3,2,7,2,2,2,m,2,9,2,4,4,7,2,2,2,2,9,1,7,1,2,3,3,9,2,1,e,c,2,2,2,14,3,7,2,2,2' +
  ',2,2,0,6,3,8,4,3,9,b,5,2,2,2,h,4,n,2,8,2,0,3,6,9,5,2,0,2,7,7,9,3,1,e,1l,6,6,7,0,3,9,14,1,2,0,2,4,2,n' +
  ',2,0,2,i,2,2,3,4,2,0,7,0,3,9,3,3,x,0,w,9,n,7,2,z,5,g,7,f,2,z,1w,1i,2,0,3,e,7,25,3,11,2,0,6,0,3,16,2,' +
  '98,2,3,3,6,2,0,2,3,3,14,2,3,3,w,2,3,3,6,2,0,2,3,3,e,2,1k,2,3,3,1u,12,f,h,2d,3,5,4,h7,3,g,2,p,6,22,4,' +
  'a,8,j,c,k,d,j,d,c,2,2,2,1,d,1f,3,i,f,0,5,0,4,9,13,9,7,2g,8,16,6,1x,b,u,2,b,5,8,e,13,3,4,c,17,5,p,7,9' +
  ',13,r,5,1q,3,j,c,9,7,9,e,0,o,1,c,2,1e,1f,2,e,2,7,4,9,13,15,3,1l,2,a,f,1i,a,9,4,1c,3,8,8,16,3,2,16,3,' +
  '2,5,2,1,4,0,6,5b,14,d,c,7p,3,5,3,11,3,5,3,7,2,0,2,0,2,0,2,u,3,1g,2,6,2,0,4,2,2,6,4,3,3,5,5,c,6,2,2,6' +
  ',39,0,e,0,h,c,2u,0,5,0,3,9,2,0,4,4,7,0,2,0,2,0,2,3,2,a,3,3,6,4,5,0,i,14,mm,1f,1ef,6c,7,3,4,1,d,11,2,' +
  '0,6,0,3,1j,8,0,h,m,a,6,2,6,2,6,2,6,2,6,2,6,2,6,2,6,2,v,1c,0,d2,2,q,8,8,4,3,4,5,2d,7,2,2,2h,2,3,6,16,' +
  '2,2l,i,v,1d,f,e9,533,1t,h3g,1w,19,3,7g,4,r,l,1a,6,7,4,34,14,8,3,2u,3,1r,6,1,2,0,2,4,p,j,2,w,p,1f,d,1' +
  'v,2,0,b,9,p,5,4,0,2,19,6,y,e,s,4,1e,2,b,g,a,7,u,2,1i,a,d,3,9,7,m,4,1w,2,0,2,0,p,2,3,f,3,3,c,5,3,5,3,' +
  '5,a,6,2,6,2,16,2,d,7,3e,6,9,7,8mb,d,m,5,1c,6it,a5,3,2x,13,6,d,4,6,b,2,c,2,4,2,0,2,1,2,1,2,2z,y,a2,j,' +
  '1r,3,1h,15,b,39,4,2,3q,k,9,8,p,7,p,c,2g,4,5,3,5,3,5,3,2,10,b,2,p,2,i,2,1,2,e,3,d,z,3e,1y,1g,7g,s,4,1' +
  'c,1c,v,e,t,6,16,6,t,3,z,5,7,2,4,17,4d,3,9,7,z,5,z,5,13,9,1f,d,a,2,e,2,6,2,1,2,a,2,e,2,6,2,1,1w,8m,a,' +
  'l,b,7,p,5,2,15,2,8,1y,5,3,0,2,17,2,1,4,0,3,m,b,m,a,u,1u,i,2,1,b,l,b,p,1z,1j,7,1,1t,3,2,1,6,7,2,2,2,s' +
  ',17,s,4,s,10,7,2,r,s,1h,b,l,b,i,e,h,33,20,1k,1e,e,1e,e,13,9,9,93,15,2,1,4,1,27,s,b,0,9,l,17,h,1b,k,s' +
  ',m,a,1x,x,9,2,4,d,1i,a,0,e,o,8,9,7,1e,4,9,5,3,9,y,4,0,a,1r,2,3,a,c,2,0,10,h,2,x,3,0,7,0,1u,6,2,0,2,3' +
  ',2,e,2,9,8,1k,8,9,7,3,2,7,3,1,3,l,2,6,2,1,2,4,4,7,3,1,3,1,4,0,7,0,6,6,4d,1t,2,2,2,3,6,9,6,2,v,1t,3,1' +
  ',2,0,9,9,4n,1h,3,6,q,5,z,1q,2,0,4,0,c,9,13,1h,3,0,8,9,1j,q,3,d,6,9,7,6,56,1k,2w,21,m,7,3,0,3,7,2,1,2' +
  ',t,2,1,3,1,3,3,e,9,1z,7,3,19,3,5,2,0,2,1,s,1e,3,9,i,1z,6,0,j,20,7c,8,2,18,2,6,2,0,g,9,p,t,3,l,2,d,22' +
  ',6,2,1,2,17,4,0,2,1,2,2,2,0,3,1,9,9,7,5,2,1,2,10,2,1,2,3,2,0,8,9,8n,m,56,0,28,pl,2v,32,i,5f,219,2o,g' +
  ',tq,34i,g6,6nu,fs,8,u,2,9,7,26,2,9,7,t,j,1b,h,3,d,9,a,k,6,i,j5,1r,3l,22,5,1k,8,g,1t,1,2,0,d,1,f,4qf,' +
  '9,yd,17,8,6w8,3,2,6,2,1,2,82,1a,2,i,3,9,az,1s5,2y,6,c,4,8,8,9,5,0,4ma,2c,2,1y,2,1,3,0,3,1,3,3,2,b,2,' +
  '0,2,6,2,1s,2,3,3,7,2,6,2,r,2,3,2,4,2,0,4,6,2,9f,3,o,2,o,2,u,2,o,2,u,2,o,2,u,2,o,2,u,2,o,2,7,3,1d,1dt' +
  ',u,6a,6,2,g,3,6,2,1,2,4,5y,18,b,6,3,9,5,0,8y,t,j,17,5,9,yv,6,2,3,2,1,2,e,2,5g,1o,1v,4,0,4,0,5,9,x3,3' +
  ',2,q,2,1,2,0,3,0,2,9,2,3,2,0,2,0,7,0,5,0,2,0,2,0,2,2,2,1,2,0,3,0,2,0,2,0,2,0,2,0,2,1,2,0,3,3,2,6,2,3' +
  ',2,3,2,0,2,9,2,g,6,2,2,4,2,g,hh,p,7,p,7,p,21z,9,sn,wyn,x,37c,8,65,3,4g1,f,5rk,2e8,f1,15v,3t6';

const LOWER_RUNS =
  '1t,q,1,w,3j,n,1,w,o,7,1,w,14,o,2,1,1c,1,1,-5j,2,3,2,1,7,8,2,1,h,n,2,1,1a,1,1,-3d,1,3,2,1,8,1,1,5u,1,' +
  '2,2,1,4,1,1,5q,1,1,1,1,2,2,1,5p,2,1,1,1,3,1,1,27,1,1,1,5m,1,1,1,5n,1,1,1,1,2,1,1,5p,1,1,1,5r,2,1,1,5' +
  'v,1,1,1,5t,1,1,1,1,4,1,1,5v,1,1,1,5x,2,1,1,5y,1,3,2,1,6,1,1,62,1,1,1,1,2,1,1,62,3,1,1,1,2,1,1,62,1,1' +
  ',1,1,2,2,1,61,2,2,2,1,4,1,1,63,1,1,1,1,4,1,1,1,8,1,1,2,1,1,1,1,2,1,1,2,1,1,1,1,2,1,1,2,1,9,2,1,j,9,2' +
  ',1,j,1,1,2,1,2,2,1,4,1,1,-2p,1,1,1,-1k,1,k,2,1,14,1,1,-3m,2,9,2,1,o,1,1,8bv,1,1,1,1,2,1,1,-4j,1,1,1,' +
  '8bs,3,1,1,1,2,1,1,-5f,1,1,1,1x,1,1,1,1z,1,5,2,1,8a,2,2,1,6,1,1,1,9,1,1,38,7,1,1,12,2,3,1,11,4,1,1,1s' +
  ',2,2,1,1r,3,h,1,w,i,9,1,w,18,1,1,8,9,c,2,1,s,1,1,-1o,3,1,1,1,2,1,1,-7,1,1,1,1,3,3,1,-3m,3,g,1,28,g,w' +
  ',1,w,28,h,2,1,16,r,2,1,1i,1,1,f,1,7,2,1,f,1c,2,1,2p,12,1,1c,29b,12,1,5ls,13,1,1,5ls,6,1,1,5ls,k3,28,' +
  '1,tzk,28,6,1,8,1pc,17,1,-2bk,19,3,1,-2bk,8z,23,2,1,4e,1,1,-5vj,2,1c,2,1,2w,8,1,-8,g,6,1,-8,g,8,1,-8,' +
  'g,8,1,-8,g,6,1,-8,h,4,2,-8,f,8,1,-8,w,8,1,-8,g,8,1,-8,g,8,1,-8,g,2,1,-8,2,2,1,-22,2,1,1,-9,c,4,1,-2e' +
  ',4,1,1,-9,c,2,1,-8,2,2,1,-2s,e,2,1,-8,2,2,1,-34,2,1,1,-7,c,2,1,-3k,2,2,1,-3i,2,1,1,-9,8a,1,1,-5st,4,' +
  '1,1,-6gv,1,1,1,-6di,7,1,1,s,1a,g,1,g,z,1,1,1,mr,q,1,q,1fu,1c,1,1c,2o,1,1,1,2,1,1,-8af,1,1,1,-2xy,1,1' +
  ',1,-89z,3,3,2,1,6,1,1,-8bg,1,1,1,-8al,1,1,1,-8bj,1,1,1,-8bi,2,1,1,1,3,1,1,1,9,2,1,-8cf,2,1e,2,1,2z,2' +
  ',2,1,7,1,1,1,nym,n,2,1,1s,e,2,1,4i,7,2,1,g,v,2,1,1z,2,2,1,4,1,1,-r9g,1,5,2,1,d,1,1,1,2,1,1,-wmg,3,2,' +
  '2,1,6,a,2,1,k,1,1,-wn8,1,1,1,-wnj,1,1,1,-wnf,1,1,1,-wn5,1,1,1,-wn8,2,1,1,-wlu,1,1,1,-wmi,1,1,1,-wlx,' +
  '1,1,1,ps,1,8,2,1,g,1,1,-1c,1,1,1,-wn7,1,1,1,-raw,1,2,2,1,9,1,1,1,6,2,2,1,v,1,1,1,h7w,q,1,w,yn,14,1,1' +
  '4,4w,10,1,14,5c,b,1,13,c,f,1,13,g,7,1,13,8,2,1,13,1d8,1f,1,1s,2e8,w,1,w,gww,w,1,w,o8w,y,1,y';

const wordRangeStarts: number[] = [];
const wordRangeEnds: number[] = [];
{
  const nums = WORD_CHAR_RANGES.split(',');
  let end = 0;
  for (let i = 0; i + 1 < nums.length; i += 2) {
    const start = end + parseInt(nums[i] ?? '', 36);
    end = start + parseInt(nums[i + 1] ?? '', 36);
    wordRangeStarts.push(start);
    wordRangeEnds.push(end);
  }
}

const lowerMap = new Map<number, number>();
{
  const nums = LOWER_RUNS.split(',').map((n) => parseInt(n, 36));
  let start = 0;
  for (let i = 0; i + 3 < nums.length; i += 4) {
    start += nums[i] ?? 0;
    const count = nums[i + 1] ?? 0;
    const step = nums[i + 2] ?? 1;
    const delta = nums[i + 3] ?? 0;
    for (let k = 0; k < count; k++) lowerMap.set(start + k * step, start + k * step + delta);
  }
}

/** True when pg_trgm (UTF-8, C.UTF-8) treats the code point as part of a word. */
export function isWordChar(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || ((cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a);
  let lo = 0;
  let hi = wordRangeStarts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (wordRangeStarts[mid] ?? 0)) hi = mid - 1;
    else if (cp > (wordRangeEnds[mid] ?? 0)) lo = mid + 1;
    else return true;
  }
  return false;
}

/** glibc `towlower` in C.UTF-8, as pg_trgm applies it to each code point of a word. */
export function lowerCodePoint(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  return lowerMap.get(cp) ?? cp;
}

// ---------------------------------------------------------------------------------------------------------
// The legacy CRC-32 of pg_crc.h (COMP_LEGACY_CRC32), used by pg_trgm's compact_trigram().

const CRC_TABLE = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[i] = c >>> 0;
}

function crcByte(crc: number, byte: number): number {
  return ((CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] ?? 0) ^ (crc << 8)) >>> 0;
}

/** Feeds the UTF-8 bytes of one code point into the CRC. */
function crcCodePoint(crc: number, cp: number): number {
  if (cp < 0x80) return crcByte(crc, cp);
  if (cp < 0x800) return crcByte(crcByte(crc, 0xc0 | (cp >> 6)), 0x80 | (cp & 0x3f));
  if (cp < 0x10000) {
    return crcByte(crcByte(crcByte(crc, 0xe0 | (cp >> 12)), 0x80 | ((cp >> 6) & 0x3f)), 0x80 | (cp & 0x3f));
  }
  const c1 = crcByte(crc, 0xf0 | (cp >> 18));
  return crcByte(crcByte(crcByte(c1, 0x80 | ((cp >> 12) & 0x3f)), 0x80 | ((cp >> 6) & 0x3f)), 0x80 | (cp & 0x3f));
}

/** The 24-bit id of the trigram (a, b, c), code points of a padded, lower-cased word. */
export function trigramId(a: number, b: number, c: number): number {
  if (a < 0x80 && b < 0x80 && c < 0x80) return (a << 16) | (b << 8) | c;
  const crc = ~crcCodePoint(crcCodePoint(crcCodePoint(0xffffffff, a), b), c) >>> 0;
  // CPTRGM copies the first three bytes of the uint32 in (little-endian) memory: its low-order bytes.
  return ((crc & 0xff) << 16) | (crc & 0xff00) | ((crc >>> 16) & 0xff);
}

// ---------------------------------------------------------------------------------------------------------
// Trigram extraction.

const SPACE = 0x20;

/**
 * Appends the trigram ids of `text` to `out`, in order of appearance, duplicates included (pg_trgm's
 * generate_trgm before its sort and unique). Returns `out`.
 */
export function appendTrigramIds(text: string, out: number[]): number[] {
  // The sliding window holds the previous two code points of the padded word.
  let p1 = -1;
  let p2 = -1;
  let inWord = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const cp = text.codePointAt(i) ?? 0;
    if (cp > 0xffff) i++; // a surrogate pair: one code point, two code units
    // A lone surrogate cannot come from PostgreSQL text; it is treated as a separator.
    if (isWordChar(cp)) {
      const lower = lowerCodePoint(cp);
      if (!inWord) {
        inWord = true;
        p1 = SPACE;
        p2 = SPACE;
      }
      out.push(trigramId(p1, p2, lower));
      p1 = p2;
      p2 = lower;
    } else if (inWord) {
      out.push(trigramId(p1, p2, SPACE));
      inWord = false;
    }
  }
  if (inWord) out.push(trigramId(p1, p2, SPACE));
  return out;
}

/** Sorts ascending and removes duplicates in place; returns the new length. */
export function sortUnique(ids: number[]): number {
  if (ids.length < 2) return ids.length;
  ids.sort((x, y) => x - y);
  let w = 1;
  for (let r = 1; r < ids.length; r++) {
    const v = ids[r] ?? 0;
    if (v !== ids[w - 1]) ids[w++] = v;
  }
  ids.length = w;
  return w;
}

/** The trigram set of `text`: ascending, distinct 24-bit ids. */
export function trigramSet(text: string): Int32Array {
  const ids = appendTrigramIds(text, []);
  sortUnique(ids);
  return Int32Array.from(ids);
}

/**
 * Size of the intersection of two ascending, distinct id arrays (merge, no allocation); `b` may be a
 * slice `[bFrom, bTo)` of a larger array (the location index keeps all names' trigrams in one array).
 */
export function countShared(a: ArrayLike<number>, b: ArrayLike<number>, bFrom = 0, bTo = b.length): number {
  let i = 0;
  let j = bFrom;
  let shared = 0;
  const na = a.length;
  while (i < na && j < bTo) {
    const x = a[i] ?? 0;
    const y = b[j] ?? 0;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}

/** pg_trgm's CALCSML in float4: shared / (sizeA + sizeB − shared), 0 when a set is empty. */
export function similarityFromCounts(shared: number, sizeA: number, sizeB: number): number {
  if (sizeA <= 0 || sizeB <= 0) return 0;
  return Math.fround(shared / (sizeA + sizeB - shared));
}

/** Similarity of two trigram sets from `trigramSet`. */
export function setSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return similarityFromCounts(countShared(a, b), a.length, b.length);
}

/** PostgreSQL's `similarity(a, b)`: a float4 value (as a JS number, exactly representable in float32). */
export function similarity(a: string, b: string): number {
  return setSimilarity(trigramSet(a), trigramSet(b));
}

/** PostgreSQL's `a % b` with the default threshold: similarity(a, b) >= pg_trgm.similarity_threshold. */
export function isSimilar(a: string, b: string, threshold: number = SIMILARITY_THRESHOLD): boolean {
  return similarity(a, b) >= threshold;
}

/**
 * PostgreSQL's `show_trgm(text)`: the set in pg_trgm's storage order (bytes compared as signed chars on
 * x86-64), each trigram as its three characters when all are ASCII letters, digits or spaces, otherwise
 * as `0x` + six hex digits of its stored bytes.
 */
export function showTrgm(text: string): string[] {
  const ids = Array.from(trigramSet(text));
  // XOR 0x80 on every byte turns signed-char order into unsigned order.
  ids.sort((x, y) => (x ^ 0x808080) - (y ^ 0x808080));
  return ids.map(formatTrigram);
}

function isPrintable(byte: number): boolean {
  return byte === SPACE || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a);
}

/** One trigram id as `show_trgm` prints it. */
export function formatTrigram(id: number): string {
  const b0 = (id >>> 16) & 0xff;
  const b1 = (id >>> 8) & 0xff;
  const b2 = id & 0xff;
  if (isPrintable(b0) && isPrintable(b1) && isPrintable(b2)) return String.fromCharCode(b0, b1, b2);
  return '0x' + ('00000' + id.toString(16)).slice(-6);
}
