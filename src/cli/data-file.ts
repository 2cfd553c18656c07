/**
 * Reading a JSON Lines data file of any size: a chunk at a time, one line decoded and checked at a time,
 * the records handed on as they come (`ColumnStore.fromRecords` takes them one by one). Reading the file
 * as one string stops at V8's longest string, 512 MiB — about 350,000 organizations.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { RowChecker } from '../engine/dataset/read.js';
import { checkJsonLine } from '../engine/dataset/read.js';
import type { OrganizationRecord } from '../engine/dataset/record.js';

const CHUNK = 16 * 1024 * 1024;

/** The file's records, read as the caller takes them; bad rows go to `checker` (look at it afterwards). */
export function* jsonLinesRecords(path: string, checker: RowChecker, chunkBytes = CHUNK): Generator<OrganizationRecord> {
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(chunkBytes);
    let kept = 0;
    let line = 0;
    for (;;) {
      const read = readSync(fd, buffer, kept, buffer.length - kept, null);
      const end = kept + read;
      let start = 0;
      for (let newline = buffer.indexOf(10, start); newline !== -1 && newline < end; newline = buffer.indexOf(10, start)) {
        line++;
        const record = checkJsonLine(checker, line, buffer.toString('utf8', start, newline));
        if (record) yield record;
        start = newline + 1;
      }
      if (read === 0) {
        // The last line, without a line break after it.
        if (start < end) {
          const record = checkJsonLine(checker, line + 1, buffer.toString('utf8', start, end));
          if (record) yield record;
        }
        return;
      }
      // The unfinished line moves to the front; a line longer than the buffer doubles it.
      kept = end - start;
      if (start === 0 && kept === buffer.length) {
        const larger = Buffer.alloc(buffer.length * 2);
        buffer.copy(larger, 0, 0, kept);
        buffer = larger;
      } else buffer.copy(buffer, 0, start, end);
    }
  } finally {
    closeSync(fd);
  }
}
