/**
 * The host-neutral spreadsheet core (src/sheet/): argument parsing, error cells, ORG.FETCH planning and
 * shaping — against the real local engine where data is involved.
 */
import { AuthError, RateLimitError, ServerError, ValidationError } from '../../src/index.js';
import { SELECTABLE_COLUMNS } from '../../src/contract/common.js';
import { createLocalIndex, generateDataset } from '../../src/engine/index.js';
import { parseFieldList, parseOptions, type OptionSpec } from '../../src/sheet/arguments.js';
import { ArgumentError, errorCell, errorCellOf } from '../../src/sheet/cells.js';
import { cellOf, fetchTable, planFetch } from '../../src/sheet/fetch-plan.js';

const SPEC: OptionSpec = {
  size: { kind: 'int', min: 1, max: 500 },
  min_score: { kind: 'number', min: 0, max: 1 },
  dedup: { kind: 'bool' },
  headers: { kind: 'bool' },
  layout: { kind: 'choice', values: ['crosstab', 'long'] },
  must_not: { kind: 'list' },
};

describe('arguments', () => {
  test('field lists: comma text or a range, case-insensitive, duplicates once, blank → default', () => {
    expect(parseFieldList('columns', 'Name, country; NACE_code', SELECTABLE_COLUMNS, ['domain'])).toEqual(['name', 'country', 'nace_code']);
    expect(parseFieldList('columns', [['name', 'country'], ['name', '']], SELECTABLE_COLUMNS, ['domain'])).toEqual(['name', 'country']);
    expect(parseFieldList('columns', '', SELECTABLE_COLUMNS, ['domain', 'name'])).toEqual(['domain', 'name']);
    expect(parseFieldList('columns', null, SELECTABLE_COLUMNS, ['domain'])).toEqual(['domain']);
    expect(() => parseFieldList('columns', 'name, contry', SELECTABLE_COLUMNS, [])).toThrow(new ArgumentError('columns', 'unknown field "contry" — did you mean "country"?'));
  });

  test('options: "key=value; …" text or a two-column range, typed, with errors naming the option', () => {
    expect(parseOptions('options', 'size=50; Min_Score=0,4; dedup=1; headers=FALSE; layout=Long; must_not=wind, hydro', SPEC)).toEqual({
      size: 50,
      min_score: 0.4,
      dedup: true,
      headers: false,
      layout: 'long',
      must_not: ['wind', 'hydro'],
    });
    expect(parseOptions('options', [['size', 20], ['', ''], ['dedup', true]], SPEC)).toEqual({ size: 20, dedup: true });
    expect(parseOptions('options', '', SPEC)).toEqual({});
    const cases: [string, string][] = [
      ['size=0', 'size must be a whole number from 1 to 500 (got "0")'],
      ['size=2.5', 'size must be a whole number from 1 to 500 (got "2.5")'],
      ['min_score=high', 'min_score must be a number from 0 to 1 (got "high")'],
      ['dedup=maybe', 'dedup must be 1 or 0 (TRUE or FALSE) (got "maybe")'],
      ['layout=wide', 'layout must be one of crosstab, long (got "wide")'],
      ['sise=10', 'unknown option "sise" — did you mean "size"?'],
      ['size 10', '"size 10" is not key=value'],
    ];
    for (const [text, message] of cases) expect(() => parseOptions('options', text, SPEC)).toThrow(new ArgumentError('options', message));
  });
});

describe('error cells', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  test('bad arguments and 422s are #VALUE! pointing at the field; the rest #N/A with a message', () => {
    expect(errorCellOf(new ArgumentError('options', 'size must be …'), now)).toEqual(errorCell('#VALUE!', 'options: size must be …'));
    const validation = new ValidationError([{ type: 'greater_than_equal', loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', input: 0 }], 422);
    expect(errorCellOf(validation, now)).toEqual(errorCell('#VALUE!', 'size: Input should be greater than or equal to 1'));
    expect(errorCellOf(new AuthError('Invalid API key', 401), now)).toEqual(errorCell('#N/A', 'Not authorised (check the API key in the task pane): Invalid API key'));
    expect(errorCellOf(new ServerError('boom', 500), now).error).toBe('#N/A');
    expect(errorCellOf(new Error('x'), now)).toEqual(errorCell('#N/A', 'Unexpected error: x'));
  });

  test('rate limits and exhausted quotas say when they lift', () => {
    expect(errorCellOf(new RateLimitError('Rate limit exceeded', '2026-11-21T10:00:02Z'), now).message).toMatch(/^Rate limit reached: try again at 10:00 UTC\./);
    expect(errorCellOf(new RateLimitError('Monthly request quota exhausted', '2026-12-01T00:00:00Z'), now).message).toMatch(/^Monthly quota used up: try again on 1 Dec 2026, 00:00 UTC\./);
  });
});

describe('ORG.FETCH planning and shaping', () => {
  test('10,000 input cells with repeats, URLs and e-mails: two requests of distinct domains', () => {
    const cells = Array.from({ length: 10_000 }, (_, i) => (i % 4 === 0 ? `https://www.firm-${i % 6001}.de/impressum` : i % 4 === 1 ? `info@firm-${i % 6001}.de` : `firm-${i % 6001}.de`));
    const plan = planFetch(cells);
    expect(plan.chunks).toHaveLength(2);
    expect(plan.chunks[0]).toHaveLength(5_000);
    expect(new Set(plan.chunks.flat()).size).toBe(plan.chunks.flat().length);
    expect(plan.keys[0]).toBe('firm-0.de');
    expect(plan.keys[1]).toBe('firm-1.de');
  });

  test('one row per input cell, in input order: blanks stay blank, misses are #N/A in their row only, bad text #VALUE!', () => {
    const index = createLocalIndex(generateDataset({ count: 300, seed: 5, asOf: '2026-11-01' }));
    const known = index.search({ filters: { country: ['Deutschland'] }, size: 2, columns: ['domain'] }).data.map((row) => row.domain);
    const cells = [known[1], '', `https://www.${known[0]!}/about`, 'missing.example', 'not a domain', known[1]];
    const plan = planFetch(cells);
    expect(plan.chunks).toEqual([[known[1], known[0], 'missing.example']]);
    const columns = ['domain', 'name', 'summary_keywords'] as const;
    const response = index.fetch({ domains: plan.chunks[0]!, columns: [...columns] });
    const found = new Map(response.data.map((row) => [row.domain, row as Record<string, unknown>]));
    const table = fetchTable(plan, found, columns, true);
    expect(table[0]).toEqual(['domain', 'name', 'summary_keywords']);
    const rowOf = (domain: string) => [domain, cellOf(found.get(domain)!.name), cellOf(found.get(domain)!.summary_keywords)];
    expect(table.slice(1)).toEqual([
      rowOf(known[1]!),
      ['', '', ''],
      rowOf(known[0]!),
      [errorCell('#N/A', 'missing.example is not in the index'), '', ''],
      [expect.objectContaining({ error: '#VALUE!' }), '', ''],
      rowOf(known[1]!),
    ]);
    expect(typeof table[1]![2]).toBe('string'); // a list becomes "a; b"
  });
});
