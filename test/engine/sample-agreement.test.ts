/**
 * The whole default sample, read as a user reads it: names, legal forms, sizes, trades, summaries,
 * keywords and places agree. The rules (sample-agreement.rules.ts) know nothing of the generator's
 * tables; each failure names the rows that break a rule.
 */
import { DEFAULT_DATASET, generateDataset } from '../../src/engine/index.js';
import { ABSOLUTE_RULES, microAgShare, ruralTradesInCities } from './sample-agreement.rules.js';

const rows = generateDataset(DEFAULT_DATASET);

test('the sample is the default dataset, all of it', () => {
  expect(rows).toHaveLength(50_000);
});

test.each(ABSOLUTE_RULES.map((rule) => [rule.name, rule] as const))('%s: no organization breaks it', (_name, rule) => {
  const { rule: what, violations } = rule(rows);
  // The message names the rule and the first offenders, so a failure says what to fix.
  expect({ rule: what, count: violations.length, first: violations.slice(0, 20) }).toEqual({ rule: what, count: 0, first: [] });
});

test('German and Austrian AGs are seldom micro firms', () => {
  const { share, all } = microAgShare(rows);
  expect(all).toBeGreaterThan(100);
  expect(share).toBeLessThan(0.1);
});

test('farms, forests and quarries lie outside the cities', () => {
  const { inCities, cityRows, elsewhere, otherRows } = ruralTradesInCities(rows);
  expect(elsewhere / otherRows).toBeGreaterThan(0.01);
  expect(inCities / cityRows).toBeLessThan((0.1 * elsewhere) / otherRows);
});
