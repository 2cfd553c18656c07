/** The industry vocabulary of the synthetic dataset (src/engine/dataset/industries.ts). */
import { NACE_SECTIONS, sectionOfDivision } from '../../src/contract/nace.js';
import type { NaceSectionLetter } from '../../src/contract/nace.js';
import { INDUSTRY_CLASSES } from '../../src/engine/dataset/industries.js';
import type { IndustryClass } from '../../src/engine/dataset/industries.js';

const ORGANIZATION_TYPES = ['Company', 'Startup', 'Public', 'Academic', 'Other'];
const SIZE_SKEWS = ['micro', 'small', 'medium', 'large'];

const sectionOfClass = (c: IndustryClass): NaceSectionLetter | null => sectionOfDivision(Number(c.code.slice(0, 2)));

/** Array name, minimum and maximum length, as the interface documents them. */
const BOUNDS: readonly [keyof IndustryClass & ('keywords' | 'offerings' | 'activities' | 'audiences' | 'nameWords'), number, number][] = [
  ['keywords', 10, 20],
  ['offerings', 8, 15],
  ['activities', 5, 10],
  ['audiences', 4, 8],
  ['nameWords', 4, 10],
];

const byCode = INDUSTRY_CLASSES.map((c) => [c.code, c] as const);

describe('INDUSTRY_CLASSES: codes and sections', () => {
  it('holds 120 to 180 classes', () => {
    expect(INDUSTRY_CLASSES.length).toBeGreaterThanOrEqual(120);
    expect(INDUSTRY_CLASSES.length).toBeLessThanOrEqual(180);
  });

  it('codes are unique', () => {
    const codes = INDUSTRY_CLASSES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it.each(byCode)('%s is a dotted class code whose division belongs to a section', (_code, c) => {
    expect(c.code).toMatch(/^\d{2}\.\d{2}$/);
    expect(sectionOfClass(c)).not.toBeNull();
  });

  it('covers all 22 NACE sections A–V', () => {
    const covered = new Set(INDUSTRY_CLASSES.map(sectionOfClass));
    expect([...covered].sort()).toEqual(Object.keys(NACE_SECTIONS).sort());
    expect(covered.size).toBe(22);
  });

  it('is ordered by code', () => {
    const codes = INDUSTRY_CLASSES.map((c) => c.code);
    expect(codes).toEqual([...codes].sort());
  });

  it.each([
    ['62.10', 'Computer programming activities', 'K'],
    ['58.29', 'Other software publishing', 'J'],
    ['68.20', 'Rental and operating of own or leased real estate', 'M'],
    ['69.20', 'Accounting, bookkeeping and auditing activities; tax consultancy', 'N'],
    ['86.23', 'Dental practice care activities', 'R'],
    ['95.31', 'Repair and maintenance of motor vehicles', 'T'],
  ])('%s keeps its Rev. 2.1 title and section', (code, title, section) => {
    const c = INDUSTRY_CLASSES.find((x) => x.code === code);
    expect(c?.title).toBe(title);
    expect(c && sectionOfClass(c)).toBe(section);
  });
});

describe('INDUSTRY_CLASSES: fields', () => {
  it.each(byCode)('%s has a title and a positive weight', (_code, c) => {
    expect(c.title.trim()).toBe(c.title);
    expect(c.title.length).toBeGreaterThan(0);
    expect(Number.isFinite(c.weight)).toBe(true);
    expect(c.weight).toBeGreaterThan(0);
  });

  it.each(byCode)('%s has vocabularies of the documented sizes without empty or repeated entries', (_code, c) => {
    for (const [field, min, max] of BOUNDS) {
      const values = c[field];
      expect({ field, size: values.length, inRange: values.length >= min && values.length <= max }).toEqual({ field, size: values.length, inRange: true });
      for (const value of values) {
        expect(value.length).toBeGreaterThan(0);
        expect(value.trim()).toBe(value);
        expect(value).not.toMatch(/\s{2}/);
      }
      expect(new Set(values.map((v) => v.toLowerCase())).size).toBe(values.length);
    }
  });

  it.each(byCode)('%s keywords are lower-case single words or short phrases', (_code, c) => {
    for (const keyword of c.keywords) {
      expect(keyword).toBe(keyword.toLowerCase());
      expect(keyword.split(' ').length).toBeLessThanOrEqual(4);
    }
  });

  it.each(byCode)('%s activities are 3rd-person verb phrases and audiences start with "for"', (_code, c) => {
    for (const activity of c.activities) expect(activity).toMatch(/^[a-z]+s\b/);
    for (const audience of c.audiences) expect(audience).toMatch(/^for \S/);
  });

  it.each(byCode)('%s has a valid optional type mix and size skew', (_code, c) => {
    if (c.typeMix) {
      const entries = Object.entries(c.typeMix);
      expect(entries.length).toBeGreaterThan(0);
      for (const [type, share] of entries) {
        expect(ORGANIZATION_TYPES).toContain(type);
        expect(share).toBeGreaterThan(0);
      }
    }
    if (c.sizeSkew !== undefined) expect(SIZE_SKEWS).toContain(c.sizeSkew);
  });

  it('each class has keywords of its own, so classes stay distinguishable', () => {
    const count = new Map<string, number>();
    for (const c of INDUSTRY_CLASSES) for (const k of c.keywords) count.set(k, (count.get(k) ?? 0) + 1);
    const withoutOwn = INDUSTRY_CLASSES.filter((c) => c.keywords.filter((k) => count.get(k) === 1).length < 3).map((c) => c.code);
    expect(withoutOwn).toEqual([]);
  });

  it('weights favour trade, construction, professional services and health over mining, households and extraterritorial bodies', () => {
    const bySection = new Map<string, number>();
    for (const c of INDUSTRY_CLASSES) {
      const section = sectionOfClass(c) ?? '?';
      bySection.set(section, (bySection.get(section) ?? 0) + c.weight);
    }
    const weight = (s: string): number => bySection.get(s) ?? 0;
    for (const big of ['F', 'G', 'N', 'R']) {
      for (const small of ['B', 'U', 'V']) expect(weight(big)).toBeGreaterThan(20 * weight(small));
    }
  });
});

describe('INDUSTRY_CLASSES: kinds, core words and specialties', () => {
  it.each(byCode)('%s names its kind and carries its core words as keywords', (_code, c) => {
    expect(c.kind).toMatch(/^[\p{L}']+(?:[ ,]+[\p{L}']+)*$/u);
    expect(c.kind.split(' ').length).toBeLessThanOrEqual(6);
    expect(c.core.length).toBeGreaterThanOrEqual(1);
    for (const word of c.core) expect(c.keywords).toContain(word);
  });

  const withSpecialties = byCode.filter(([, c]) => (c.specialties ?? []).length > 0);

  it.each(withSpecialties)('%s: specialties draw from the class, each name word promises one, each has enough to describe', (_code, c) => {
    const specialties = c.specialties ?? [];
    const claimed = new Set(specialties.flatMap((s) => [...s.activities, ...s.offerings, ...s.keywords, ...(s.audiences ?? [])]));
    const free = (list: readonly string[]) => list.filter((entry) => !claimed.has(entry));
    const promised = specialties.flatMap((s) => s.nameWords ?? []);
    expect(new Set(promised).size).toBe(promised.length);
    for (const s of specialties) {
      for (const word of s.nameWords ?? []) expect(c.nameWords).toContain(word);
      for (const entry of s.activities) expect(c.activities).toContain(entry);
      for (const entry of s.offerings) expect(c.offerings).toContain(entry);
      for (const entry of s.keywords) expect(c.keywords).toContain(entry);
      for (const entry of s.audiences ?? []) expect(c.audiences).toContain(entry);
      // A summary names one of the specialty's own activities and offerings; the text two and three.
      expect(s.activities.length).toBeGreaterThanOrEqual(1);
      expect(s.offerings.length).toBeGreaterThanOrEqual(1);
      expect(new Set([...s.activities, ...free(c.activities)]).size).toBeGreaterThanOrEqual(2);
      expect(new Set([...s.offerings, ...free(c.offerings)]).size).toBeGreaterThanOrEqual(3);
      expect(new Set([...(s.audiences ?? []), ...free(c.audiences)]).size).toBeGreaterThanOrEqual(1);
    }
  });
});
