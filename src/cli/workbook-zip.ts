/**
 * The bounds of a workbook's zip container, checked before exceljs (through JSZip) unpacks it: JSZip
 * inflates each part whole into memory, so a file of a few megabytes that unpacks to gigabytes — a zip
 * bomb — would take minutes and gigabytes before failing or, worse, succeeding. The zip's central
 * directory (its table of contents, at the end of the file) is read here as JSZip reads it, so both see
 * the same parts; the number of parts, each part's declared unpacked size, their total and each part's
 * compression ratio are bounded before a byte is inflated. Declared sizes can lie, so every part is then
 * inflated with its declared size as a hard cap (zlib's maxOutputLength, output discarded): a part that
 * unpacks to more than it declares is refused, and memory stays within the largest part allowed.
 * Format: PKWARE's APPNOTE.TXT, sections 4.3.12 (central directory), 4.3.14–16 (end records, ZIP64)
 * and 4.5.3 (the ZIP64 extra field).
 */
import { inflateRawSync } from 'node:zlib';
import { NamedError } from '../contract/errors.js';

const MB = 1024 * 1024;

/** What a workbook may unpack to: far above a real one (50,000 rows × 12 columns unpack to about 31 MB). */
export const ZIP_LIMITS = {
  /** Parts (files in the zip): a workbook has one or a few per sheet, picture and comment. */
  parts: 10_000,
  /** One part unpacked: a worksheet of about two million cells. */
  partBytes: 100 * MB,
  /** All parts unpacked: exceljs takes some ten times this in memory. */
  totalBytes: 200 * MB,
  /** Unpacked size over packed size: Excel's XML packs 3 to 30 times; DEFLATE's most is about 1,030. */
  ratio: 200,
  /** Parts smaller than this unpacked may pack any amount (a short, repetitive part). */
  ratioFrom: MB,
} as const;

const SIGNATURE = {
  local: 0x04034b50,
  central: 0x02014b50,
  end: Buffer.from([0x50, 0x4b, 0x05, 0x06]),
  zip64Locator: Buffer.from([0x50, 0x4b, 0x06, 0x07]),
  zip64End: Buffer.from([0x50, 0x4b, 0x06, 0x06]),
} as const;

/** The start of an OLE compound file: what Excel saves for a password-protected workbook, and an .xls. */
const COMPOUND_FILE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const STORED = 0;
const DEFLATED = 8;

interface Part {
  name: string;
  flags: number;
  method: number;
  packed: number;
  unpacked: number;
  offset: number;
}

/** A zip the way a refusal words it; thrown inside this module only. */
class ZipProblem extends NamedError {}

const count = (n: number): string => n.toLocaleString('en-US');

/** A size as a message shows it: "1,843.5 MB", "12,345 bytes". */
export const sizeText = (bytes: number): string => (bytes >= MB ? `${(bytes / MB).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB` : `${count(bytes)} bytes`);

const DAMAGED = 'the file is damaged; open it in Excel, let it repair the file, and save it again';

/** Little-endian reads that refuse to run past the end of the file (as JSZip's reader throws). */
function reader(bytes: Buffer) {
  const within = (at: number, length: number): void => {
    if (at < 0 || at + length > bytes.length) throw new ZipProblem(`is cut short (its zip directory points past the end of the file): ${DAMAGED}`);
  };
  return {
    u16: (at: number): number => (within(at, 2), bytes.readUInt16LE(at)),
    u32: (at: number): number => (within(at, 4), bytes.readUInt32LE(at)),
    /** Above 2^53 no offset or size of a file in memory can be meant: read as infinite, so every bound refuses it. */
    u64: (at: number): number => {
      within(at, 8);
      const value = bytes.readBigUInt64LE(at);
      return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
    },
    slice: (at: number, length: number): Buffer => (within(at, length), bytes.subarray(at, at + length)),
  };
}

/** Where the central directory starts and where JSZip counts offsets from (data prepended to a zip shifts them). */
function directoryOf(bytes: Buffer, read: ReturnType<typeof reader>): { start: number; base: number } {
  // JSZip takes the last end record in the file, wherever it is.
  const end = bytes.lastIndexOf(SIGNATURE.end);
  if (end < 0) {
    if (bytes.subarray(0, COMPOUND_FILE.length).equals(COMPOUND_FILE)) throw new ZipProblem('is encrypted with a password, or is an old .xls workbook: save it from Excel as an Excel Workbook (.xlsx) without a password');
    throw new ZipProblem('is not an .xlsx workbook (it has no zip directory): save it from Excel as an Excel Workbook (.xlsx)');
  }
  let size = read.u32(end + 12);
  let start = read.u32(end + 16);
  let expectedEnd = start + size;
  // A field at its largest means "see the ZIP64 end record".
  if (read.u16(end + 4) === 0xffff || read.u16(end + 6) === 0xffff || read.u16(end + 8) === 0xffff || read.u16(end + 10) === 0xffff || size === 0xffffffff || start === 0xffffffff) {
    const locator = bytes.lastIndexOf(SIGNATURE.zip64Locator);
    if (locator < 0) throw new ZipProblem(`has no ZIP64 end record: ${DAMAGED}`);
    if (read.u32(locator + 16) > 1) throw new ZipProblem('is a zip split over several files: save it from Excel as one Excel Workbook (.xlsx)');
    let zip64End = read.u64(locator + 8);
    if (!(zip64End + 4 <= bytes.length && bytes.subarray(zip64End, zip64End + 4).equals(SIGNATURE.zip64End))) zip64End = bytes.lastIndexOf(SIGNATURE.zip64End);
    if (zip64End < 0) throw new ZipProblem(`has no ZIP64 end record: ${DAMAGED}`);
    size = read.u64(zip64End + 40);
    start = read.u64(zip64End + 48);
    expectedEnd = start + size + 20 + 12 + read.u64(zip64End + 4);
  }
  const extra = end - expectedEnd;
  if (extra < 0) throw new ZipProblem(`is cut short (its zip directory ends past where it should): ${DAMAGED}`);
  return { start, base: extra };
}

/** The central directory's parts, read while their signature repeats (as JSZip does), no more than the bound allows. */
function partsOf(bytes: Buffer): { parts: Part[]; base: number } {
  const read = reader(bytes);
  const { start, base } = directoryOf(bytes, read);
  const parts: Part[] = [];
  let at = base + start;
  while (at + 4 <= bytes.length && bytes.readUInt32LE(at) === SIGNATURE.central) {
    if (parts.length === ZIP_LIMITS.parts) throw new ZipProblem(`holds more than ${count(ZIP_LIMITS.parts)} parts (limit ${count(ZIP_LIMITS.parts)} files in the zip of a workbook)`);
    const nameLength = read.u16(at + 28);
    const extraLength = read.u16(at + 30);
    const commentLength = read.u16(at + 32);
    const part: Part = {
      name: read.slice(at + 46, nameLength).toString('utf8'),
      flags: read.u16(at + 8),
      method: read.u16(at + 10),
      packed: read.u32(at + 20),
      unpacked: read.u32(at + 24),
      offset: read.u32(at + 42),
    };
    // The ZIP64 extra field holds, in this order, each of these that its 32-bit field leaves at its largest.
    const extras = read.slice(at + 46 + nameLength, extraLength);
    for (let e = 0; e + 4 <= extras.length; e += 4 + extras.readUInt16LE(e + 2)) {
      if (extras.readUInt16LE(e) !== 0x0001) continue;
      const field = reader(extras.subarray(e + 4, e + 4 + extras.readUInt16LE(e + 2)));
      let f = 0;
      for (const key of ['unpacked', 'packed', 'offset'] as const) {
        if (part[key] === 0xffffffff) {
          part[key] = field.u64(f);
          f += 8;
        }
      }
    }
    parts.push(part);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return { parts, base };
}

/**
 * Why exceljs may not unpack this workbook (too many parts, a part or the whole too large, a part packed
 * past any real workbook's ratio or unpacking to more than it declares), worded after the file's name;
 * or null. `command` is the one a refusal names.
 */
export function zipProblem(bytes: Buffer, command: string): string | null {
  const tooLarge = `${command} does not read a workbook that large: split it, or keep the saved queries in a smaller workbook`;
  const name = (part: Part): string => JSON.stringify(part.name);
  try {
    const { parts, base } = partsOf(bytes);
    let total = 0;
    for (const part of parts) {
      if (part.flags & 0x0001) return `holds an encrypted part (${name(part)}): save it from Excel without a password`;
      if (part.method !== STORED && part.method !== DEFLATED) return `holds a part packed in a way Excel does not use (${name(part)}, method ${String(part.method)}): save it from Excel as an Excel Workbook (.xlsx)`;
      if (part.unpacked > ZIP_LIMITS.partBytes) return `holds ${name(part)}, which unpacks to ${sizeText(part.unpacked)} (limit ${sizeText(ZIP_LIMITS.partBytes)} a part): ${tooLarge}`;
      if (part.unpacked >= ZIP_LIMITS.ratioFrom && part.unpacked > part.packed * ZIP_LIMITS.ratio) {
        return `holds ${name(part)}, which unpacks to ${count(Math.floor(part.unpacked / Math.max(part.packed, 1)))} times its packed size (${sizeText(part.packed)} to ${sizeText(part.unpacked)}; limit ${count(ZIP_LIMITS.ratio)} times for parts over ${sizeText(ZIP_LIMITS.ratioFrom)}): no workbook packs that tightly; ${command} does not read it`;
      }
      total += part.unpacked;
    }
    if (total > ZIP_LIMITS.totalBytes) return `unpacks to more than ${sizeText(ZIP_LIMITS.totalBytes)} (its parts declare ${sizeText(total)}; limit ${sizeText(ZIP_LIMITS.totalBytes)} unpacked in a workbook): ${tooLarge}`;

    // The declared sizes are bounded: each part is unpacked to be sure they are true.
    const read = reader(bytes);
    for (const part of parts) {
      const local = base + part.offset;
      if (read.u32(local) !== SIGNATURE.local) return `has a zip directory that points at no part for ${name(part)}: ${DAMAGED}`;
      const packed = read.slice(local + 30 + read.u16(local + 26) + read.u16(local + 28), part.packed);
      let unpacked = packed.length;
      if (part.method === DEFLATED) {
        try {
          // One byte past the declared size is enough to know it lies.
          unpacked = inflateRawSync(packed, { maxOutputLength: part.unpacked + 1 }).length;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') unpacked = part.unpacked + 1;
          else return `holds ${name(part)}, which cannot be unpacked: ${DAMAGED}`;
        }
      }
      if (unpacked > part.unpacked) return `holds ${name(part)}, which unpacks to more than the ${sizeText(part.unpacked)} its zip directory declares (limit: what the directory declares, at most ${sizeText(ZIP_LIMITS.partBytes)} a part): the file is damaged or made to exhaust memory; ${command} does not read it`;
      if (unpacked < part.unpacked) return `holds ${name(part)}, which unpacks to less than its zip directory declares: ${DAMAGED}`;
    }
    return null;
  } catch (error) {
    if (error instanceof ZipProblem) return error.message;
    throw error;
  }
}
