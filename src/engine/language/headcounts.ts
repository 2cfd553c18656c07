/**
 * Head counts in plain words — "more than 50 employees", "mit über 250 Mitarbeitern", "between 10 and 49
 * staff", "bis 9 Beschäftigte", "250+ employees" — as the organization sizes they allow.
 *
 * The index knows a size class, not a head count, so a range becomes every class that overlaps it:
 * "more than 50 employees" (51 or more) is Medium-sized (50-249) and Large enterprise (250+). A count
 * needs its noun ("employees", "Mitarbeiter" …): a bare "more than 50" says nothing about people and is
 * left to the caller as not understood. Works on folded words (lower case, accents stripped: "über" →
 * "uber"), the parser's tokens.
 */
import { ORGANIZATION_SIZES, type OrganizationSize } from '../../contract/v2/filters.js';

/** The head-count range of each size class (the EU's SME thresholds, which the classes follow). */
const SIZE_RANGES: readonly [OrganizationSize, number, number][] = [
  ['Micro (0-9)', 0, 9],
  ['Small (10-49)', 10, 49],
  ['Medium-sized (50-249)', 50, 249],
  ['Large enterprise (250+)', 250, Infinity],
];

const PEOPLE = new Set([
  'employee', 'employees', 'staff', 'people', 'persons', 'workers', 'employes', 'headcount',
  'mitarbeiter', 'mitarbeitern', 'mitarbeiterinnen', 'mitarbeitende', 'mitarbeitenden', 'beschaftigte', 'beschaftigten',
  'beschaeftigte', 'beschaeftigten', 'angestellte', 'angestellten', 'personen', 'leute', 'leuten', 'ma',
]);

/** Words before a count that bound it from below ("more than 50": 51 or more) or from above. */
const AT_LEAST: readonly [string, number][] = [
  ['more than', 1], ['over', 1], ['above', 1], ['greater than', 1], ['in excess of', 1], ['at least', 0], ['minimum', 0], ['min', 0], ['from', 0],
  ['mehr als', 1], ['uber', 1], ['ueber', 1], ['mindestens', 0], ['ab', 0], ['von', 0], ['>', 1], ['>=', 0],
];
const AT_MOST: readonly [string, number][] = [
  ['fewer than', -1], ['less than', -1], ['under', -1], ['below', -1], ['up to', 0], ['at most', 0], ['maximum', 0], ['max', 0],
  ['weniger als', -1], ['unter', -1], ['bis zu', 0], ['bis', 0], ['hochstens', 0], ['hoechstens', 0], ['maximal', 0], ['<', -1], ['<=', 0],
];
const BETWEEN = new Set(['between', 'zwischen']);
const AND = new Set(['and', 'und', 'to', 'bis', '-']);

/** A number as people write counts: 50, 1,000, 1.000, 1 000 is two words (not handled). */
function countOf(word: string | undefined): number | null {
  if (word === undefined || !/^\d{1,3}(?:[.,]\d{3})*$|^\d+$/.test(word)) return null;
  return Number(word.replace(/[.,]/g, ''));
}

export interface Headcount {
  /** The first and the one-past-last token the phrase covers. */
  start: number;
  end: number;
  /** The size classes the range overlaps, in the contract's order. */
  sizes: OrganizationSize[];
}

/** The size classes that overlap [low, high]. */
function sizesOverlapping(low: number, high: number): OrganizationSize[] {
  const sizes = SIZE_RANGES.filter(([, from, to]) => from <= high && to >= low).map(([size]) => size);
  return ORGANIZATION_SIZES.filter((size) => sizes.includes(size));
}

/** The bound a comparator phrase at `i` gives, and the tokens it takes; null when none starts there. */
function comparatorAt(words: readonly string[], i: number): { lower: boolean; offset: number; length: number } | null {
  for (const [list, lower] of [[AT_LEAST, true], [AT_MOST, false]] as const) {
    for (const [phrase, offset] of list) {
      const parts = phrase.split(' ');
      if (parts.every((part, k) => words[i + k] === part)) return { lower, offset, length: parts.length };
    }
  }
  return null;
}

/** Every head-count phrase of the words, left to right, none overlapping. */
export function headcountsIn(words: readonly string[]): Headcount[] {
  const found: Headcount[] = [];
  for (let i = 0; i < words.length; i++) {
    const match = headcountAt(words, i);
    if (!match) continue;
    found.push(match);
    i = match.end - 1;
  }
  return found;
}

function headcountAt(words: readonly string[], i: number): Headcount | null {
  const word = words[i] ?? '';
  const people = (at: number): boolean => PEOPLE.has(words[at] ?? '');
  // "between 10 and 49 employees", "zwischen 10 und 49 Mitarbeitern"
  if (BETWEEN.has(word)) {
    const low = countOf(words[i + 1]);
    const high = countOf(words[i + 3]);
    if (low !== null && high !== null && AND.has(words[i + 2] ?? '') && people(i + 4)) return range(i, i + 5, Math.min(low, high), Math.max(low, high));
    return null;
  }
  // "more than 50 employees", "more than 50 and fewer than 250 employees", "über 250 Mitarbeitern"
  const comparator = comparatorAt(words, i);
  if (comparator) {
    const at = i + comparator.length;
    const count = countOf(words[at]);
    if (count === null) return null;
    const bound = count + comparator.offset;
    if (people(at + 1)) return comparator.lower ? range(i, at + 2, bound, Infinity) : range(i, at + 2, 0, bound);
    if (AND.has(words[at + 1] ?? '') && words[at + 1] !== '-') {
      const second = comparatorAt(words, at + 2);
      const next = at + 2 + (second?.length ?? 0);
      const other = countOf(words[next]);
      if (second && other !== null && second.lower !== comparator.lower && people(next + 1)) {
        const otherBound = other + second.offset;
        return range(i, next + 2, comparator.lower ? bound : otherBound, comparator.lower ? otherBound : bound);
      }
    }
    return null;
  }
  // "10-49 employees", "10 to 49 staff", "250+ employees", "with 12 employees"
  const plus = /^(\d+)\+$/.exec(word);
  if (plus && people(i + 1)) return range(i, i + 2, Number(plus[1]), Infinity);
  const span = /^(\d+)-(\d+)$/.exec(word);
  if (span && people(i + 1)) return range(i, i + 2, Number(span[1]), Number(span[2]));
  const count = countOf(word);
  if (count === null) return null;
  const high = countOf(words[i + 2]);
  if (AND.has(words[i + 1] ?? '') && high !== null && people(i + 3)) return range(i, i + 4, Math.min(count, high), Math.max(count, high));
  if (people(i + 1)) return range(i, i + 2, count, count);
  return null;
}

function range(start: number, end: number, low: number, high: number): Headcount | null {
  const sizes = sizesOverlapping(low, high);
  return sizes.length > 0 ? { start, end, sizes } : null;
}
