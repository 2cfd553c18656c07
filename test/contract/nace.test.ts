/** NACE sections (spec table "Section values accepted by nace_code") and normalizeNaceCode. */
import { NACE_SECTIONS, NACE_SECTION_VALUES, normalizeNaceCode, sectionOf, sectionOfDivision } from '../../src/contract/index.js';

/** The spec's table, copied row by row. */
const SPEC_SECTION_VALUES = [
  'NACE A: Agriculture, forestry and fishing',
  'NACE B: Mining and quarrying',
  'NACE C: Manufacturing',
  'NACE D: Electricity, gas, steam and air conditioning supply',
  'NACE E: Water supply; sewerage, waste management and remediation activities',
  'NACE F: Construction',
  'NACE G: Wholesale and retail trade',
  'NACE H: Transportation and storage',
  'NACE I: Accommodation and food service activities',
  'NACE J: Publishing, broadcasting, and content production and distribution activities',
  'NACE K: Telecommunication, computer programming, consulting, computing infrastructure and other information service activities',
  'NACE L: Financial and insurance activities',
  'NACE M: Real estate activities',
  'NACE N: Professional, scientific and technical activities',
  'NACE O: Administrative and support service activities',
  'NACE P: Public administration and defence; compulsory social security',
  'NACE Q: Education',
  'NACE R: Human health and social work activities',
  'NACE S: Arts, sports and recreation',
  'NACE T: Other service activities',
  'NACE U: Activities of households as employers and undifferentiated goods- and service-producing activities of households for own use',
  'NACE V: Activities of extraterritorial organisations and bodies',
];

describe('NACE section table', () => {
  it('holds exactly the spec rows, in order', () => {
    expect(NACE_SECTION_VALUES).toEqual(SPEC_SECTION_VALUES);
  });

  it.each(SPEC_SECTION_VALUES)('section value %j normalises to itself', (value) => {
    const letter = value.charAt(5);
    expect(normalizeNaceCode(value)).toEqual({ ok: true, value, section: letter });
  });

  it.each(SPEC_SECTION_VALUES)('section letter of %j (upper and lower case) normalises to the section value', (value) => {
    const letter = value.charAt(5);
    expect(normalizeNaceCode(letter)).toEqual({ ok: true, value, section: letter });
    expect(normalizeNaceCode(letter.toLowerCase())).toEqual({ ok: true, value, section: letter });
  });
});

describe('normalizeNaceCode: accepted forms', () => {
  it.each([
    ['K', NACE_SECTIONS.K, 'K'],
    [' k ', NACE_SECTIONS.K, 'K'],
    ['NACE K', NACE_SECTIONS.K, 'K'],
    [NACE_SECTIONS.K.toUpperCase(), NACE_SECTIONS.K, 'K'],
    [NACE_SECTIONS.K.replace(': ', ':   '), NACE_SECTIONS.K, 'K'],
    ['62.01', '62.01', 'K'],
    ['6201', '62.01', 'K'],
    ['62', '62', 'K'],
    ['62.0', '62.0', 'K'],
    ['621', '62.1', 'K'],
    ['K62.01', '62.01', 'K'],
    ['K 6201', '62.01', 'K'],
    ['01.11', '01.11', 'A'],
    ['99', '99', 'V'],
  ])('%j → %j (section %s)', (raw, value, section) => {
    expect(normalizeNaceCode(raw)).toEqual({ ok: true, value, section });
  });
});

describe('normalizeNaceCode: rejections', () => {
  const hint =
    'use a section value such as "NACE K: Telecommunication, computer programming, consulting, computing infrastructure and other information service activities", a section letter such as "K" or a detailed code such as "62.01"';
  it.each([
    ['W', '"W" is not a NACE section; sections run from A to V'],
    ['NACE Z', '"NACE Z" is not a NACE section; sections run from A to V'],
    ['04', '"04": NACE division 04 does not exist'],
    ['00.10', '"00.10": NACE division 00 does not exist'],
    ['J62.01', '"J62.01": division 62 belongs to section K, not J'],
    ['6', `"6" is not a NACE code; ${hint}`],
    ['62.001', `"62.001" is not a NACE code; ${hint}`],
    ['NACE K: Software', `"NACE K: Software" is not a NACE code; ${hint}`],
    ['', `"" is not a NACE code; ${hint}`],
  ])('%j → %s', (raw, reason) => {
    expect(normalizeNaceCode(raw)).toEqual({ ok: false, reason });
  });
});

describe('section lookups', () => {
  it.each([
    [1, 'A'], [3, 'A'], [4, null], [10, 'C'], [33, 'C'], [34, null], [62, 'K'], [64, 'L'], [99, 'V'], [100, null],
  ])('sectionOfDivision(%i) → %s', (division, section) => {
    expect(sectionOfDivision(division)).toBe(section);
  });

  it.each([
    [NACE_SECTIONS.K, 'K'], ['62.01', 'K'], ['62', 'K'], ['47.11', 'G'], ['04', null], ['nonsense', null],
  ])('sectionOf(%j) → %s', (canonical, section) => {
    expect(sectionOf(canonical)).toBe(section);
  });
});
