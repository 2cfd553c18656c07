/**
 * What organizations are called in each country: common surnames (real, frequent family names), the
 * legal forms in use, and how public and academic bodies name themselves. Kept small on purpose: names
 * combine a surname or trade word with the place, as real firm names do.
 */
import type { OrganizationType } from '../../contract/v2/filters.js';

/**
 * Frequent family names per country (the most common ones of each country's name statistics), leaving
 * out those that are also places of the geography ("Roth", "Hahn"): a place in a name says where the
 * organization is.
 */
export const SURNAMES: Record<string, readonly string[]> = {
  DE: [
    'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann',
    'Schäfer', 'Koch', 'Bauer', 'Richter', 'Klein', 'Wolf', 'Schröder', 'Neumann', 'Schwarz', 'Zimmermann',
    'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schumacher', 'Werner', 'Schmitz', 'Krause', 'Meier',
    'Lehmann', 'Schmid', 'Schulze', 'Maier', 'Köhler', 'Herrmann', 'König', 'Walter', 'Mayer', 'Huber',
    'Kaiser', 'Fuchs', 'Peters', 'Krämer', 'Scholz', 'Möller', 'Weiß', 'Jung', 'Jäger', 'Schubert',
    'Vogel', 'Friedrich', 'Keller', 'Günther', 'Frank', 'Berger', 'Winkler', 'Brandt', 'Beck', 'Lorenz',
  ],
  AT: [
    'Gruber', 'Huber', 'Bauer', 'Wagner', 'Müller', 'Pichler', 'Steiner', 'Moser', 'Mayer', 'Hofer',
    'Leitner', 'Berger', 'Fuchs', 'Eder', 'Fischer', 'Schmid', 'Winkler', 'Weber', 'Schwarz', 'Maier',
  ],
  CH: [
    'Müller', 'Meier', 'Schmid', 'Keller', 'Weber', 'Huber', 'Schneider', 'Meyer', 'Steiner', 'Fischer',
    'Gerber', 'Brunner', 'Baumann', 'Frei', 'Zimmermann', 'Moser', 'Widmer', 'Wyss', 'Graf', 'Bühler',
  ],
  FR: [
    'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent',
    'Lefebvre', 'Michel', 'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Mercier',
    'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez', 'Legrand',
  ],
  IT: [
    'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo',
    'Conti', 'De Luca', 'Mancini', 'Costa', 'Giordano', 'Rizzo', 'Lombardi', 'Moretti', 'Barbieri', 'Fontana', 'Santoro',
    'Mariani', 'Rinaldi', 'Caruso', 'Ferrara', 'Galli', 'Martini', 'Leone',
  ],
  ES: [
    'García', 'Rodríguez', 'González', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Martín', 'Jiménez',
    'Ruiz', 'Hernández', 'Díaz', 'Moreno', 'Muñoz', 'Álvarez', 'Romero', 'Alonso', 'Gutiérrez', 'Navarro', 'Torres',
    'Domínguez', 'Vázquez', 'Ramos', 'Gil', 'Ramírez', 'Serrano', 'Blanco', 'Molina',
  ],
  NL: [
    'de Jong', 'Jansen', 'de Vries', 'van der Meer', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer',
    'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Leeuwen', 'Dekker', 'Brouwer',
  ],
  BE: [
    'Peeters', 'Janssens', 'Maes', 'Jacobs', 'Mertens', 'Willems', 'Claes', 'Goossens', 'Wouters', 'De Smet', 'Dubois',
    'Lambert', 'Dupont', 'Martens', 'Hermans', 'Michiels', 'Pauwels', 'Vermeulen', 'Aerts', 'Van den Broeck',
  ],
  PL: [
    'Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak',
    'Dąbrowski', 'Kozłowski', 'Jankowski', 'Mazur', 'Kwiatkowski', 'Krawczyk', 'Piotrowski', 'Grabowski', 'Nowakowski',
    'Pawłowski', 'Michalski', 'Nowicki', 'Adamczyk', 'Dudek', 'Zając',
  ],
  CZ: ['Novák', 'Svoboda', 'Novotný', 'Dvořák', 'Černý', 'Procházka', 'Kučera', 'Veselý', 'Horák', 'Němec'],
  DK: ['Nielsen', 'Jensen', 'Hansen', 'Pedersen', 'Andersen', 'Christensen', 'Larsen', 'Sørensen', 'Rasmussen', 'Jørgensen'],
  SE: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson'],
  LU: ['Schmit', 'Muller', 'Weber', 'Wagner', 'Hoffmann', 'Thill', 'Schmitz', 'Schroeder', 'Reuter', 'Klein'],
};

/** Legal forms by country and organization type, with relative frequencies. */
export type FormTable = Partial<Record<OrganizationType, readonly (readonly [string, number])[]>>;

export const LEGAL_FORMS: Record<string, FormTable> = {
  DE: {
    Company: [['GmbH', 55], ['GmbH & Co. KG', 12], ['e.K.', 8], ['KG', 4], ['AG', 3], ['OHG', 2], ['', 10], ['SE', 0.3]],
    Startup: [['GmbH', 70], ['UG (haftungsbeschränkt)', 28], ['AG', 2]],
    Other: [['e.V.', 70], ['eG', 20], ['gGmbH', 10]],
  },
  AT: {
    Company: [['GmbH', 60], ['KG', 10], ['OG', 8], ['e.U.', 12], ['AG', 4], ['GmbH & Co KG', 6]],
    Startup: [['GmbH', 90], ['FlexKapG', 10]],
    Other: [['Verein', 80], ['Genossenschaft', 20]],
  },
  CH: {
    Company: [['AG', 50], ['GmbH', 42], ['Einzelunternehmen', 8]],
    Startup: [['AG', 55], ['GmbH', 45]],
    Other: [['Verein', 60], ['Genossenschaft', 25], ['Stiftung', 15]],
  },
  FR: { Company: [['SAS', 50], ['SARL', 40], ['SA', 10]], Startup: [['SAS', 100]], Other: [['Association', 100]] },
  IT: { Company: [['S.r.l.', 75], ['S.p.A.', 15], ['S.n.c.', 10]], Startup: [['S.r.l.', 100]], Other: [['Associazione', 100]] },
  ES: { Company: [['S.L.', 80], ['S.A.', 20]], Startup: [['S.L.', 100]], Other: [['Asociación', 100]] },
  NL: { Company: [['B.V.', 85], ['N.V.', 5], ['V.O.F.', 10]], Startup: [['B.V.', 100]], Other: [['Stichting', 60], ['Vereniging', 40]] },
  BE: { Company: [['BV', 70], ['NV', 20], ['CommV', 10]], Startup: [['BV', 100]], Other: [['VZW', 100]] },
  PL: { Company: [['Sp. z o.o.', 80], ['S.A.', 10], ['Sp.k.', 10]], Startup: [['Sp. z o.o.', 100]], Other: [['Stowarzyszenie', 100]] },
  CZ: { Company: [['s.r.o.', 85], ['a.s.', 15]], Startup: [['s.r.o.', 100]], Other: [['z.s.', 100]] },
  DK: { Company: [['ApS', 75], ['A/S', 25]], Startup: [['ApS', 100]], Other: [['Forening', 100]] },
  SE: { Company: [['AB', 100]], Startup: [['AB', 100]], Other: [['Ideell förening', 100]] },
  LU: { Company: [['S.à r.l.', 75], ['S.A.', 25]], Startup: [['S.à r.l.', 100]], Other: [['a.s.b.l.', 100]] },
};

/** Legal forms of liberal professions (Freie Berufe), who are no merchants: no e.K. or OHG; partnerships are PartG. */
const LIBERAL_FORMS: Record<string, readonly (readonly [string, number])[]> = {
  DE: [['', 40], ['PartG mbB', 20], ['GmbH', 28], ['PartG', 12]],
  AT: [['', 50], ['GmbH', 35], ['OG', 15]],
};

/**
 * The head counts a legal form is chosen for: a sole trader, a mini-GmbH or a partnership of persons
 * stays small, and an SE is not set up for a handful of people. Forms not listed fit any size.
 */
const FORM_HEADCOUNTS: Record<string, { least?: number; most?: number }> = {
  'e.K.': { most: 49 },
  'e.U.': { most: 49 },
  Einzelunternehmen: { most: 49 },
  'UG (haftungsbeschränkt)': { most: 49 },
  OHG: { most: 249 },
  OG: { most: 249 },
  PartG: { most: 249 },
  'PartG mbB': { most: 499 },
  'V.O.F.': { most: 249 },
  'S.n.c.': { most: 249 },
  SE: { least: 50 },
};

/** Whether a legal form is used for organizations of `min` to `max` employees. */
export function formFits(legalForm: string, min: number, max: number): boolean {
  const limits = FORM_HEADCOUNTS[legalForm];
  return !limits || (max <= (limits.most ?? Infinity) && min >= (limits.least ?? 0));
}

const formChoices = new Map<string, readonly (readonly [string, number])[]>();

/**
 * The legal forms, with their frequencies, of an organization of this country, type, trade and
 * employee bracket (`min`–`max`): only forms that fit the size, and German or Austrian AGs seldom below
 * ten people. Cached: the generator asks for every organization.
 */
export function legalFormsFor(countryCode: string, type: OrganizationType, liberal: boolean, min: number, max: number): readonly (readonly [string, number])[] {
  const key = `${countryCode}|${type}|${liberal ? 'L' : ''}|${String(min)}`;
  let choices = formChoices.get(key);
  if (!choices) {
    const forms = legalFormsOf(countryCode);
    const table = (liberal && type === 'Company' ? LIBERAL_FORMS[countryCode] : undefined) ?? forms[type] ?? forms.Company ?? [['', 1]];
    const rareAg = (countryCode === 'DE' || countryCode === 'AT') && max < 10;
    const fitting = table.filter(([form]) => formFits(form, min, max)).map(([form, weight]) => [form, form === 'AG' && rareAg ? weight / 25 : weight] as const);
    choices = fitting.length > 0 ? fitting : table;
    formChoices.set(key, choices);
  }
  return choices;
}

/** The surnames of a country (German ones where the table has none). */
export function surnamesOf(countryCode: string): readonly string[] {
  return SURNAMES[countryCode] ?? SURNAMES.DE ?? ['Müller'];
}

/** The legal forms of a country (German ones where the table has none). */
export function legalFormsOf(countryCode: string): FormTable {
  return LEGAL_FORMS[countryCode] ?? LEGAL_FORMS.DE ?? {};
}

/** Frequent German given names, for owner-named firms ("Thomas Becker Elektrotechnik e.K."). */
export const GIVEN_NAMES = [
  'Thomas', 'Michael', 'Andreas', 'Stefan', 'Peter', 'Christian', 'Frank', 'Markus', 'Martin', 'Jürgen', 'Ralf', 'Wolfgang',
  'Sabine', 'Susanne', 'Petra', 'Claudia', 'Andrea', 'Nicole', 'Stefanie', 'Julia', 'Katrin', 'Anja', 'Monika', 'Birgit',
];

/**
 * Words international firms put after a founder's name ("Rossi Solutions S.r.l."), by the NACE divisions
 * they fit (from, to): a hairdresser is no "Holding", a bicycle shop no "Invest".
 */
const INTERNATIONAL_WORDS: readonly (readonly [number, number, readonly string[]])[] = [
  [1, 3, ['Agricola', 'Farming']],
  [5, 33, ['Industries', 'Manufacturing', 'Engineering', 'Group']],
  [35, 39, ['Energy', 'Utilities', 'Environmental']],
  [41, 43, ['Construction', 'Building', 'Engineering']],
  [45, 47, ['Trading', 'Store', 'Retail']],
  [49, 49, ['Transport', 'Mobility']],
  [50, 53, ['Logistics', 'Transport', 'Express']],
  [55, 56, ['Hospitality', 'Kitchen', 'Food']],
  [58, 63, ['Solutions', 'Systems', 'Technologies', 'Digital', 'Media']],
  [64, 66, ['Holding', 'Invest', 'Capital', 'Finance']],
  [68, 68, ['Real Estate', 'Properties', 'Invest']],
  [69, 75, ['Consulting', 'Partners', 'Advisory', 'Design']],
  [77, 82, ['Services', 'Partners', 'Group']],
  [84, 99, ['Services', 'Care', 'Studio']],
];

export function internationalWordsOf(code: string): readonly string[] {
  const division = Number(code.slice(0, 2));
  return INTERNATIONAL_WORDS.find(([from, to]) => division >= from && division <= to)?.[2] ?? ['Group'];
}

/** Brand stems for young companies (coined names, as start-ups choose them). */
export const STARTUP_STEMS = [
  'Nova', 'Vireo', 'Lumen', 'Quanta', 'Kiwa', 'Orbit', 'Helio', 'Zentro', 'Auro', 'Fluxo', 'Mira', 'Tessa',
  'Cubix', 'Nuvo', 'Veda', 'Sono', 'Kairo', 'Lyra', 'Pivo', 'Ardo', 'Brisk', 'Solvi', 'Tandem', 'Vela',
  'Aeris', 'Bloom', 'Corvo', 'Delta', 'Elara', 'Ferro', 'Glint', 'Hyla', 'Ionix', 'Jaro', 'Kelvo', 'Loom',
  'Mosaic', 'Nimbus', 'Opal', 'Pebble', 'Quill', 'Ravel', 'Sylva', 'Torus', 'Umbra', 'Vanta', 'Wyre', 'Zephyr',
];

/**
 * The German register (and its section) a legal form is entered in: capital companies in HRB,
 * partnerships and sole traders in HRA, associations VR, cooperatives GnR, professional partnerships PR.
 */
export function registerKind(legalForm: string): 'HRB' | 'HRA' | 'VR' | 'GnR' | 'PR' {
  if (/e\.V\.|Verein/.test(legalForm)) return 'VR';
  if (/\beG\b|Genossenschaft/.test(legalForm)) return 'GnR';
  if (/PartG/.test(legalForm)) return 'PR';
  if (/KG|OHG|e\.K\./.test(legalForm)) return 'HRA';
  return 'HRB';
}
