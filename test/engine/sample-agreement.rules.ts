/**
 * What a reader of the sample expects to agree, written apart from the generator's tables: places from
 * the geography asset, legal forms and sizes, trade nouns and trade words, and sentences. Each rule
 * returns the rows that break it, so a test can count them over the whole sample and name them.
 */
import geographyJson from '../../src/engine/data/geography.json' with { type: 'json' };
import type { GeographyAsset } from '../../src/engine/dataset/geography.js';
import { spellOutGerman } from '../../src/engine/german-spelling.js';
import type { OrganizationRecord } from '../../src/engine/index.js';

// The asset is too large for TypeScript to infer its type; its shape is the generator's input type.
const geographyAsset = geographyJson as GeographyAsset;

export interface RuleResult {
  rule: string;
  /** Rows that break the rule, each as "domain: why". */
  violations: string[];
}

// ── Places ──────────────────────────────────────────────────────────────────────────────────────────

/** The ways a place is written in a name: as in the geography, without "(…)" or ", …", without "Landkreis". */
function nameForms(name: string): string[] {
  const forms = new Set([name]);
  forms.add(name.replace(/\s*\(.*\)$/, ''));
  forms.add(name.replace(/,.*$/, ''));
  forms.add(name.replace(/^(Landkreis|Kreis) /, ''));
  return [...forms].filter((form) => form.length > 1);
}

const PLACE_NAMES = new Set<string>();
for (const country of geographyAsset.countries) for (const form of nameForms(country.name)) PLACE_NAMES.add(form);
for (const area of geographyAsset.areas) for (const form of nameForms(area.name)) PLACE_NAMES.add(form);
for (const municipality of geographyAsset.municipalities) for (const form of nameForms(municipality.name)) PLACE_NAMES.add(form);
const LONGEST_PLACE = Math.max(...[...PLACE_NAMES].map((name) => name.split(/\s+/).length));

/** Lower-case ASCII words joined by hyphens, as domains spell names (German spelling rule: ü → ue, ß → ss). */
export function asciiSlug(text: string): string {
  return spellOutGerman(text)
    .replace(/&/g, '-und-')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const PLACE_SLUGS = new Set([...PLACE_NAMES].map(asciiSlug).filter((slug) => slug.length > 2));

function ownPlaceForms(row: OrganizationRecord): string[] {
  const chain = [row.municipality, row.district, row.region, row.state, row.country].filter((part): part is string => part !== null);
  return chain.flatMap(nameForms).sort((a, b) => b.length - a.length);
}

/** Runs of whole words of `words` (joined by `joiner`) that are in `set`, longest first at each start. */
function phrasesIn(words: readonly string[], set: ReadonlySet<string>, joiner: string): string[] {
  const found: string[] = [];
  for (let start = 0; start < words.length; start++) {
    for (let end = Math.min(words.length, start + LONGEST_PLACE); end > start; end--) {
      const phrase = words.slice(start, end).join(joiner);
      if (set.has(phrase)) {
        found.push(phrase);
        start = end - 1;
        break;
      }
    }
  }
  return found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A place named in the organization's name is the organization's own place (municipality, district, state …). */
export function placeInName(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    let rest = row.name ?? '';
    for (const own of ownPlaceForms(row)) rest = rest.replace(new RegExp(`(^|[\\s-])${escapeRegExp(own)}(?=$|[\\s-])`, 'g'), '$1 ');
    const words = rest.split(/\s+/).filter(Boolean);
    const parts = words.flatMap((word) => word.split('-')).filter(Boolean);
    const found = new Set([...phrasesIn(words, PLACE_NAMES, ' '), ...phrasesIn(parts, PLACE_NAMES, ' ')]);
    if (found.size > 0) violations.push(`${row.domain}: "${row.name ?? ''}" names ${[...found].join(', ')} but is in ${row.municipality ?? row.state ?? ''}`);
  }
  return { rule: 'a place in the name is where the organization is', violations };
}

/** A domain names at most one place, once, and only the organization's own. */
export function placeInDomain(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    const label = row.domain.slice(0, row.domain.lastIndexOf('.')).replace(/\d+$/, '');
    const own = new Set(ownPlaceForms(row).map(asciiSlug));
    const named = phrasesIn(label.split('-'), PLACE_SLUGS, '-');
    const foreign = named.filter((slug) => !own.has(slug));
    if (foreign.length > 0 || named.length > 1) violations.push(`${row.domain}: names ${named.join(' and ')} (in ${row.municipality ?? row.state ?? ''})`);
  }
  return { rule: 'a domain names one place at most, the own one', violations };
}

// ── Legal forms and sizes ───────────────────────────────────────────────────────────────────────────

const EMPLOYEE_CLASSES = ['1-4', '5-9', '10-19', '20-49', '50-99', '100-249', '250-499', '500-999', '1000-4999', '5000+'];

/** Legal forms as names end in them (longest first, so "GmbH & Co. KG" is not read as "KG"). */
const LEGAL_FORM_SUFFIXES = [
  'UG (haftungsbeschränkt)', 'GmbH & Co. KG', 'GmbH & Co KG', 'PartG mbB', 'Einzelunternehmen', 'gGmbH', 'GmbH', 'PartG', 'e.K.', 'e.U.',
  'OHG', 'GbR', 'KG', 'OG', 'SE', 'AG', 'e.V.', 'eG', 'V.O.F.', 'S.n.c.', 'FlexKapG',
];

export function legalFormOf(name: string): string | null {
  return LEGAL_FORM_SUFFIXES.find((form) => name.endsWith(` ${form}`)) ?? null;
}

/** The largest (or smallest) employee class each form fits: a sole trader or a civil partnership is small, an SE is not. */
const FORM_SIZES: Record<string, { min?: string; max?: string }> = {
  'e.K.': { max: '20-49' },
  'e.U.': { max: '20-49' },
  Einzelunternehmen: { max: '20-49' },
  GbR: { max: '20-49' },
  'UG (haftungsbeschränkt)': { max: '20-49' },
  OHG: { max: '100-249' },
  OG: { max: '100-249' },
  PartG: { max: '100-249' },
  'PartG mbB': { max: '250-499' },
  'V.O.F.': { max: '100-249' },
  'S.n.c.': { max: '100-249' },
  SE: { min: '50-99' },
};

export function formFitsSize(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    const form = legalFormOf(row.name ?? '');
    const limits = form ? FORM_SIZES[form] : undefined;
    if (!form || !limits) continue;
    const at = EMPLOYEE_CLASSES.indexOf(row.employee_class ?? '');
    if ((limits.max && at > EMPLOYEE_CLASSES.indexOf(limits.max)) || (limits.min && at < EMPLOYEE_CLASSES.indexOf(limits.min))) {
      violations.push(`${row.domain}: ${form} with ${row.employee_class ?? '?'} employees`);
    }
  }
  return { rule: 'the legal form fits the number of employees', violations };
}

/** German and Austrian AGs with fewer than 10 employees, as a share of their AGs (a few exist; most are larger). */
export function microAgShare(rows: readonly OrganizationRecord[]): { share: number; micro: number; all: number } {
  const ags = rows.filter((row) => (row.country_code === 'DE' || row.country_code === 'AT') && legalFormOf(row.name ?? '') === 'AG');
  const micro = ags.filter((row) => row.organization_size === 'Micro (0-9)').length;
  return { share: ags.length === 0 ? 0 : micro / ags.length, micro, all: ags.length };
}

/** Liberal professions (Freie Berufe, PartGG § 1): only they form a PartG, and they are not merchants (e.K., OHG). */
const LIBERAL_PROFESSIONS = new Set([
  '69.10', '69.20', '70.20', '71.11', '71.12', '72.10', '74.12', '74.20', '74.30', '75.00', '85.59', '86.21', '86.22', '86.23',
  '86.91', '86.93', '86.95', '86.96', '86.99', '90.20',
]);

export function formFitsTrade(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    const form = legalFormOf(row.name ?? '');
    const liberal = LIBERAL_PROFESSIONS.has(row.nace_code ?? '');
    if ((form === 'PartG' || form === 'PartG mbB') && !liberal) violations.push(`${row.domain}: ${form} for NACE ${row.nace_code ?? '?'}`);
    if ((form === 'e.K.' || form === 'OHG') && liberal) violations.push(`${row.domain}: ${form} for the liberal profession NACE ${row.nace_code ?? '?'}`);
  }
  return { rule: 'PartG only for liberal professions, which are no merchants', violations };
}

/** Trades people open rather than found as start-ups (crafts, shops, practices, hospitality, farms). */
const ESTABLISHED_TRADES = /^(0[1-3]\.|10\.13|10\.71|41\.|42\.|43\.|47\.1|47\.5|47\.7[3-6]|47\.81|49\.33|55\.|56\.|68\.|69\.|75\.|81\.|85\.53|86\.|87\.|88\.|95\.31|96\.)/;

export function startupsInNewTrades(rows: readonly OrganizationRecord[]): RuleResult {
  const violations = rows
    .filter((row) => row.organization_type === 'Startup' && ESTABLISHED_TRADES.test(row.nace_code ?? ''))
    .map((row) => `${row.domain}: start-up "${row.name ?? ''}" in NACE ${row.nace_code ?? '?'}`);
  return { rule: 'start-ups only where young firms are founded', violations };
}

/** What only a public body is: a company, start-up or other organization is never described as one. */
const PUBLIC_BODIES = /\bis an? (local authority|municipal administration|military unit|judicial authority|court|public safety authority|social insurance fund)\b/;

export function onlyPublicBodiesArePublic(rows: readonly OrganizationRecord[]): RuleResult {
  const violations = rows
    .filter((row) => row.organization_type !== 'Public' && row.organization_type !== 'Academic' && PUBLIC_BODIES.test(row.summary ?? ''))
    .map((row) => `${row.domain}: ${row.organization_type ?? '?'} "${row.name ?? ''}" described as ${PUBLIC_BODIES.exec(row.summary ?? '')?.[1] ?? ''}`);
  return { rule: 'only public bodies are described as public bodies', violations };
}

// ── Trades: NACE, nouns, name words ─────────────────────────────────────────────────────────────────

/**
 * The everyday noun of a checked class (what a user types), its German keyword where there is one, and
 * who else may use the noun: a class's noun in another class's text makes that class match the search.
 */
interface TradeNoun {
  code: string;
  noun: RegExp;
  keyword: string;
  german?: string;
  sharedWith?: RegExp;
}

const TRADE_NOUNS: readonly TradeNoun[] = [
  { code: '10.71', noun: /\bbaker(?:y|ies|s)?\b/i, keyword: 'bakery', german: 'bäckerei' },
  { code: '10.13', noun: /\bbutchers?\b|\bbutchery\b/i, keyword: 'butcher', german: 'metzgerei' },
  { code: '11.05', noun: /\bbrewer(?:y|ies)\b/i, keyword: 'brewery', german: 'brauerei' },
  { code: '01.11', noun: /\bfarms?\b/i, keyword: 'farm', german: 'landwirtschaft', sharedWith: /^01\./ },
  { code: '43.21', noun: /\belectricians?\b/i, keyword: 'electrician', german: 'elektriker' },
  { code: '43.22', noun: /\bplumb(?:er|ers|ing)\b/i, keyword: 'plumbing', german: 'sanitär', sharedWith: /^46\.84$/ },
  { code: '47.11', noun: /\bsupermarkets?\b/i, keyword: 'supermarket', german: 'supermarkt' },
  { code: '47.73', noun: /\bpharmac(?:y|ies)\b/i, keyword: 'pharmacy', german: 'apotheke' },
  { code: '55.10', noun: /\bhotels?\b/i, keyword: 'hotel', german: 'hotel' },
  { code: '56.11', noun: /\brestaurants?\b/i, keyword: 'restaurant', german: 'gaststätte' },
  { code: '69.10', noun: /\blawyers?\b|\blaw firms?\b/i, keyword: 'law firm', german: 'rechtsanwalt' },
  { code: '86.23', noun: /\bdentists?\b/i, keyword: 'dentist', german: 'zahnarzt' },
  { code: '96.21', noun: /\bhairdressers?\b/i, keyword: 'hairdresser', german: 'friseur' },
];

/** A checked class says its noun in its summary and keywords (English, and German where there is one). */
export function tradeSaysItsNoun(rows: readonly OrganizationRecord[]): RuleResult {
  const byCode = new Map(TRADE_NOUNS.map((trade) => [trade.code, trade]));
  const violations: string[] = [];
  for (const row of rows) {
    const trade = byCode.get(row.nace_code ?? '');
    if (!trade) continue;
    const missing = [
      trade.noun.test(row.summary ?? '') ? null : 'summary',
      row.summary_keywords.includes(trade.keyword) ? null : `keyword "${trade.keyword}"`,
      !trade.german || row.summary_keywords.includes(trade.german) ? null : `keyword "${trade.german}"`,
    ].filter(Boolean);
    if (missing.length > 0) violations.push(`${row.domain} (${trade.code}): no ${trade.keyword} in ${missing.join(', ')}: "${row.summary ?? ''}"`);
  }
  return { rule: "a checked class names its trade's noun", violations };
}

/** No other class uses a checked class's noun (in its summary, keywords or text), so a search for it finds the trade only. */
export function nounBelongsToTrade(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    const code = row.nace_code ?? '';
    const words = `${row.summary ?? ''} ${row.summary_keywords.join(', ')} ${row.text ?? ''}`;
    for (const trade of TRADE_NOUNS) {
      if (code === trade.code || trade.sharedWith?.test(code)) continue;
      const match = trade.noun.exec(words);
      if (match) violations.push(`${row.domain} (${code}) says "${match[0]}", the noun of ${trade.code}`);
    }
  }
  return { rule: "no class uses another's noun", violations };
}

/** Trade words in names and the classes they belong to. */
const NAME_WORDS: readonly [RegExp, RegExp][] = [
  [/Bäckerei|Backhaus|Backstube|Konditorei|Brotmanufaktur/, /^10\.71$/],
  [/Café|Kaffeehaus/, /^56\.30$/],
  [/Metzgerei|Fleischerei|Schlachterei/, /^10\.13$/],
  [/Brauerei|Brauhaus|Bräu\b/, /^11\.05$/],
  [/Supermarkt|Frischemarkt|Biomarkt/, /^47\.11$/],
  [/Apotheke/, /^47\.73$/],
  [/Restaurant|Pizzeria|Trattoria|Ristorante|Gaststätte|Wirtshaus/, /^56\.11$/],
  [/Hotel/, /^55\.10$/],
  [/Friseur|Barber/, /^96\.21$/],
  [/Zahnarzt|Zahnärzte/, /^86\.23$/],
  [/Tierarzt|Tierklinik/, /^75\.00$/],
  [/Landwirtschaft|Agrar|Bauernhof|Ackerbau/, /^01\./],
  [/\b(?:Holding|Invest|Capital)\b/, /^6[4-8]\./],
  [/\bLogistics\b/, /^(?:49\.41|5[0-3]\.)/],
];

/** What a name's trade word promises, the summary says: a "Solar" firm runs solar plants, not biogas plants. */
const NAME_PROMISES: readonly [RegExp, RegExp][] = [
  [/Solar|Photovoltaik/, /solar|photovoltaic/i],
  [/Wind/, /\bwind/i],
  [/Biogas/, /biogas/i],
  [/Spargel/, /asparagus/i],
  [/Kartoffel/, /potato/i],
  [/Milch/, /milk|dairy/i],
  [/Konditorei/, /cake|pastr|tort|patisserie/i],
  [/Pizzeria/, /pizz/i],
  [/Kita|Kindertagesstätte|Krippe/, /child|day[- ]?care|nursery|toddler/i],
  [/Pferdeklinik/, /horse|equine/i],
  [/Augenarzt/, /\beye|ophthalm/i],
  [/Kinderarzt/, /child|paediatric|pediatric/i],
  [/Hautarzt/, /skin|dermatolog/i],
  [/Glaserei/, /glass|glaz/i],
  [/Fliesen/, /\btil(?:e|es|ing)\b/i],
  [/Parkett/, /parquet|wood(?:en)? floor/i],
  [/Zweirad|Fahrrad/, /bicycle|bike|cycl/i],
  [/Hörgeräte|Hörakustik|Hörzentrum/, /hearing/i],
  [/Optik|Brillen/, /optician|glasses|eyewear|lens/i],
  [/Zoofachhandel|Tierbedarf/, /\bpets?\b|animal/i],
  [/Nagelstudio|Nails/, /\bnails?\b/i],
  [/Yoga/, /yoga/i],
  [/Tanz/, /danc/i],
  [/Taxi/, /taxi/i],
];

export function nameWordFitsTrade(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    const name = row.name ?? '';
    for (const [word, codes] of NAME_WORDS) {
      if (word.test(name) && !codes.test(row.nace_code ?? '')) violations.push(`${row.domain}: "${name}" is NACE ${row.nace_code ?? '?'}`);
    }
    for (const [word, promise] of NAME_PROMISES) {
      if (word.test(name) && !promise.test(row.summary ?? '')) violations.push(`${row.domain}: "${name}" but "${row.summary ?? ''}"`);
    }
  }
  return { rule: "the name's trade word fits the class and the summary", violations };
}

// ── Sentences ───────────────────────────────────────────────────────────────────────────────────────

const SENTENCE_FAULTS: readonly [string, RegExp][] = [
  ['"for … for" in one clause', /\bfor\b[^.,;:—–]*\bfor\b/i],
  ['a word twice in a row', /(?<![\p{L}\p{N}])(\p{L}+)\s+\1(?![\p{L}\p{N}])/iu],
  ['an item twice in a list', /(?:covers |, )([^,.]+), \1[,.]/],
  ['a space before a comma or period', /\s[,.]/],
  ['two spaces', / {2}/],
];

/** Sentences read as written by a person: no doubled prepositions or words, clean spacing, a final period. */
export function sentencesReadWell(rows: readonly OrganizationRecord[]): RuleResult {
  const violations: string[] = [];
  for (const row of rows) {
    for (const [field, text] of [['summary', row.summary ?? ''], ['text', row.text ?? '']] as const) {
      // The organization's own name may say anything ("Bad und Heizung"); the sentence around it may not.
      const sentence = text.split(row.name ?? '\u0000').join('NAME');
      for (const [fault, pattern] of SENTENCE_FAULTS) if (pattern.test(sentence)) violations.push(`${row.domain} ${field}: ${fault}: "${text}"`);
      if (!/\.$/.test(text)) violations.push(`${row.domain} ${field}: no final period: "${text}"`);
    }
  }
  return { rule: 'sentences read as written by a person', violations };
}

// ── Places and trades ───────────────────────────────────────────────────────────────────────────────

const POPULATION = new Map(geographyAsset.municipalities.map((m) => [m.code ?? m.id, m.population]));

/** Farms, forests and mines in cities of 100,000 or more, against their share elsewhere. */
export function ruralTradesInCities(rows: readonly OrganizationRecord[]): { inCities: number; cityRows: number; elsewhere: number; otherRows: number } {
  const rural = /^0[1-9]\./;
  let inCities = 0;
  let cityRows = 0;
  let elsewhere = 0;
  let otherRows = 0;
  for (const row of rows) {
    const population = POPULATION.get(row.municipality_code ?? '');
    if (population === undefined) continue;
    const isRural = rural.test(row.nace_code ?? '');
    if (population >= 100_000) {
      cityRows++;
      if (isRural) inCities++;
    } else {
      otherRows++;
      if (isRural) elsewhere++;
    }
  }
  return { inCities, cityRows, elsewhere, otherRows };
}

export const ABSOLUTE_RULES = [
  placeInName,
  placeInDomain,
  formFitsSize,
  formFitsTrade,
  startupsInNewTrades,
  onlyPublicBodiesArePublic,
  tradeSaysItsNoun,
  nounBelongsToTrade,
  nameWordFitsTrade,
  sentencesReadWell,
] as const;
