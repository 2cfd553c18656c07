/**
 * Makes examples/sample-workbook.xlsx with `orgindex query add` (npm run examples:workbook builds the
 * library first): three saved queries on the embedded 50,000-organization sample, not yet refreshed —
 * `orgindex refresh` on a copy writes their values. Built in a temporary folder beside it and moved into
 * place, so the committed workbook is never half written. An argument names another file to write
 * (tests compare what the script makes with the committed workbook).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const target = resolve(process.argv[2] ?? join(root, 'examples/sample-workbook.xlsx'));

/** Each saved query: its id, where its table goes, and the v2 route and body it asks. */
const QUERIES = [
  {
    id: 'bakeries-bavaria',
    sheet: 'Bakeries',
    cell: 'A1',
    route: 'search',
    body: { filters: { state: ['Bayern'], nace_code: ['10.71'] }, columns: ['domain', 'name', 'municipality', 'organization_size'], size: 25 },
  },
  { id: 'country-by-type', sheet: 'Counts', cell: 'A1', route: 'stats', body: { group_by: 'country', group_by_secondary: 'organization_type' } },
  {
    id: 'known-domains',
    sheet: 'Domains',
    cell: 'A1',
    route: 'fetch',
    body: { domains: ['baeckerei-winkler.de', 'cafe-muenchen.de', 'nahversorger-baumann.ch', 'buergerenergie-wien.at'], columns: ['domain', 'name', 'country', 'municipality', 'organization_type'] },
  },
];

// Beside the target: the same file system, so the rename is atomic.
const dir = mkdtempSync(join(dirname(target), '.sample-workbook-'));
try {
  const file = join(dir, 'sample-workbook.xlsx');
  for (const { id, sheet, cell, route, body } of QUERIES) {
    execFileSync(process.execPath, [join(root, 'bin/orgindex.js'), 'query', 'add', file, '--id', id, '--sheet', sheet, '--cell', cell, `--${route}`, JSON.stringify(body)], { stdio: 'pipe' });
  }
  execFileSync(process.execPath, [join(root, 'bin/orgindex.js'), 'query', 'list', file], { stdio: ['ignore', 'inherit', 'inherit'] });
  renameSync(file, target);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.error(`wrote ${target}`);
