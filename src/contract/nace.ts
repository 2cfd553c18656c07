/**
 * NACE Rev. 2.1 sections as the v2 spec lists them, and the normalisation of the three accepted forms of
 * a `nace_code` filter value:
 *   - the section value from the spec's table  `NACE K: Telecommunication, …`  → itself
 *   - a bare section letter                     `K`, `k`                       → the section value
 *   - a detailed code (division, group, class)  `62`, `62.0`, `62.01`, `6201`  → dotted code `62.01`
 * The canonical forms are what `filters_applied` echoes; a detailed code keeps its precision because
 * widening `62.01` to its section would change what the filter matches.
 */
export const NACE_SECTIONS = {
  A: 'NACE A: Agriculture, forestry and fishing',
  B: 'NACE B: Mining and quarrying',
  C: 'NACE C: Manufacturing',
  D: 'NACE D: Electricity, gas, steam and air conditioning supply',
  E: 'NACE E: Water supply; sewerage, waste management and remediation activities',
  F: 'NACE F: Construction',
  G: 'NACE G: Wholesale and retail trade',
  H: 'NACE H: Transportation and storage',
  I: 'NACE I: Accommodation and food service activities',
  J: 'NACE J: Publishing, broadcasting, and content production and distribution activities',
  K: 'NACE K: Telecommunication, computer programming, consulting, computing infrastructure and other information service activities',
  L: 'NACE L: Financial and insurance activities',
  M: 'NACE M: Real estate activities',
  N: 'NACE N: Professional, scientific and technical activities',
  O: 'NACE O: Administrative and support service activities',
  P: 'NACE P: Public administration and defence; compulsory social security',
  Q: 'NACE Q: Education',
  R: 'NACE R: Human health and social work activities',
  S: 'NACE S: Arts, sports and recreation',
  T: 'NACE T: Other service activities',
  U: 'NACE U: Activities of households as employers and undifferentiated goods- and service-producing activities of households for own use',
  V: 'NACE V: Activities of extraterritorial organisations and bodies',
} as const;

export type NaceSectionLetter = keyof typeof NACE_SECTIONS;
export type NaceSectionValue = (typeof NACE_SECTIONS)[NaceSectionLetter];
export const NACE_SECTION_VALUES = Object.values(NACE_SECTIONS) as NaceSectionValue[];

/** Division ranges of NACE Rev. 2.1 per section (inclusive). */
const DIVISIONS: readonly (readonly [NaceSectionLetter, number, number])[] = [
  ['A', 1, 3], ['B', 5, 9], ['C', 10, 33], ['D', 35, 35], ['E', 36, 39], ['F', 41, 43], ['G', 46, 47],
  ['H', 49, 53], ['I', 55, 56], ['J', 58, 60], ['K', 61, 63], ['L', 64, 66], ['M', 68, 68], ['N', 69, 75],
  ['O', 77, 82], ['P', 84, 84], ['Q', 85, 85], ['R', 86, 88], ['S', 90, 93], ['T', 94, 96], ['U', 97, 98],
  ['V', 99, 99],
];

/** The section a NACE division (two-digit number) belongs to, or null when the division does not exist. */
export function sectionOfDivision(division: number): NaceSectionLetter | null {
  for (const [letter, from, to] of DIVISIONS) if (division >= from && division <= to) return letter;
  return null;
}

/** The section letter of a canonical nace value (section value or detailed code), or null. */
export function sectionOf(canonical: string): NaceSectionLetter | null {
  const section = /^NACE ([A-V]):/.exec(canonical);
  if (section) return section[1] as NaceSectionLetter;
  const division = /^(\d{2})/.exec(canonical);
  return division ? sectionOfDivision(Number(division[1])) : null;
}

export type NaceResult = { ok: true; value: string; section: NaceSectionLetter } | { ok: false; reason: string };

const SECTION_BY_VALUE = new Map<string, NaceSectionLetter>(
  Object.entries(NACE_SECTIONS).map(([letter, value]) => [value.toLowerCase(), letter as NaceSectionLetter]),
);

/** Normalises one accepted `nace_code` form to its canonical form (see the module comment). */
export function normalizeNaceCode(raw: string): NaceResult {
  const input = raw.trim();
  const letterOnly = /^(?:NACE\s+)?([A-Za-z])$/.exec(input);
  if (letterOnly) {
    const letter = (letterOnly[1] ?? '').toUpperCase();
    if (letter in NACE_SECTIONS) {
      const section = letter as NaceSectionLetter;
      return { ok: true, value: NACE_SECTIONS[section], section };
    }
    return { ok: false, reason: `"${raw}" is not a NACE section; sections run from A to V` };
  }
  const byValue = SECTION_BY_VALUE.get(input.replace(/\s+/g, ' ').toLowerCase());
  if (byValue) return { ok: true, value: NACE_SECTIONS[byValue], section: byValue };

  // Detailed code, optionally prefixed by its section letter: "62.01", "6201", "J 62.01", "62.1", "62".
  const detailed = /^(?:([A-Za-z])\s*)?(\d{2})(?:\.?(\d{1,2}))?$/.exec(input);
  if (detailed) {
    const [, prefix, divisionText = '', rest = ''] = detailed;
    const section = sectionOfDivision(Number(divisionText));
    if (!section) return { ok: false, reason: `"${raw}": NACE division ${divisionText} does not exist` };
    if (prefix && prefix.toUpperCase() !== section) {
      return { ok: false, reason: `"${raw}": division ${divisionText} belongs to section ${section}, not ${prefix.toUpperCase()}` };
    }
    return { ok: true, value: rest === '' ? divisionText : `${divisionText}.${rest}`, section };
  }
  return {
    ok: false,
    reason: `"${raw}" is not a NACE code; use a section value such as "${NACE_SECTIONS.K}", a section letter such as "K" or a detailed code such as "62.01"`,
  };
}
