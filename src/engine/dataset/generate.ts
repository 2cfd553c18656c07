/**
 * The deterministic sample dataset: `generateDataset({count, seed})` gives the same organizations on
 * every machine and runtime. Organizations sit in real places (see geography.ts), weighted by
 * population, and a place's size weighs the trades (no farms in city centres); type, size, employees,
 * revenue and legal form agree with each other; the NACE class and the specialty its name word promises
 * drive the name, the English summary (which says what the organization is, in the word users search
 * for), the keyword tags and the hidden text; a place in a name is the organization's own. Registrations
 * use real register courts' naming and the legal form's register section. Some legal names repeat across
 * domains (dedup has work). test/engine/sample-agreement.test.ts reads the whole default sample for these.
 */
import { NACE_SECTIONS, sectionOf } from '../../contract/nace.js';
import type { OrganizationSize, OrganizationType } from '../../contract/v2/filters.js';
import { Random, WeightedPicker } from '../random.js';
import { spellOutGerman } from '../german-spelling.js';
import { geography, type Geography, type Place } from './geography.js';
import { INDUSTRY_CLASSES, type IndustryClass } from './industries.js';
import { formFits, GIVEN_NAMES, internationalWordsOf, legalFormsFor, registerKind, STARTUP_STEMS, surnamesOf } from './naming.js';
import type { OrganizationRecord, Registration } from './record.js';
import { registerCourt } from './registers.js';
import { FNV1A_OFFSET, fnv1aStep } from '../../contract/hash.js';

export interface GenerateOptions {
  count: number;
  seed: number;
  /** The "today" of the dataset (YYYY-MM-DD): dates are generated before it. Fixed, for reproducibility. */
  asOf?: string;
}

export const DEFAULT_DATASET = { count: 50_000, seed: 20_261_121, asOf: '2026-11-01' } as const;

const DAY_MS = 86_400_000;

/** Employee brackets, their size band and the range drawn inside them. */
const EMPLOYEE_CLASSES: readonly { label: string; size: OrganizationSize; min: number; max: number }[] = [
  { label: '1-4', size: 'Micro (0-9)', min: 1, max: 4 },
  { label: '5-9', size: 'Micro (0-9)', min: 5, max: 9 },
  { label: '10-19', size: 'Small (10-49)', min: 10, max: 19 },
  { label: '20-49', size: 'Small (10-49)', min: 20, max: 49 },
  { label: '50-99', size: 'Medium-sized (50-249)', min: 50, max: 99 },
  { label: '100-249', size: 'Medium-sized (50-249)', min: 100, max: 249 },
  { label: '250-499', size: 'Large enterprise (250+)', min: 250, max: 499 },
  { label: '500-999', size: 'Large enterprise (250+)', min: 500, max: 999 },
  { label: '1000-4999', size: 'Large enterprise (250+)', min: 1000, max: 4999 },
  { label: '5000+', size: 'Large enterprise (250+)', min: 5000, max: 60000 },
];

function employeeClass(index: number): (typeof EMPLOYEE_CLASSES)[number] {
  return EMPLOYEE_CLASSES[index] ?? { label: '1-4', size: 'Micro (0-9)', min: 1, max: 4 };
}

/** Revenue brackets in euros (upper bounds exclusive). */
const REVENUE_CLASSES: readonly { label: string; below: number }[] = [
  { label: '< 1 Mio. EUR', below: 1e6 },
  { label: '1-2 Mio. EUR', below: 2e6 },
  { label: '2-10 Mio. EUR', below: 1e7 },
  { label: '10-50 Mio. EUR', below: 5e7 },
  { label: '50-250 Mio. EUR', below: 2.5e8 },
  { label: '250 Mio.-1 Mrd. EUR', below: 1e9 },
  { label: '> 1 Mrd. EUR', below: Number.POSITIVE_INFINITY },
];

/** Share of each employee class per size skew (micro-heavy, as real business registers are). */
const SIZE_PROFILES: Record<NonNullable<IndustryClass['sizeSkew']> | 'default', readonly number[]> = {
  micro: [48, 24, 12, 8, 4, 2, 1, 0.6, 0.3, 0.1],
  small: [22, 20, 22, 18, 9, 5, 2, 1, 0.7, 0.3],
  medium: [8, 10, 16, 22, 18, 13, 6, 4, 2.4, 0.6],
  large: [4, 5, 9, 14, 16, 18, 12, 10, 9, 3],
  default: [34, 22, 16, 12, 7, 4.5, 2, 1.4, 0.8, 0.3],
};

/**
 * For classes without their own mix: companies. Start-ups and public and academic bodies come only from
 * classes that name them (nobody founds a bakery or a butcher's shop as a start-up).
 */
const DEFAULT_TYPE_MIX: Partial<Record<OrganizationType, number>> = { Company: 1 };
/** Countries whose public bodies and trade words the vocabulary names (German-speaking). */
const GERMAN_SPEAKING = new Set(['DE', 'AT', 'CH']);
const SOURCES = ['register', 'cache', 'request'] as const;
const SNAPSHOTS = ['dataset_03_2024', 'dataset_09_2024', 'dataset_03_2025', 'dataset_09_2025', 'dataset_03_2026'];

/** ASCII slug for domains: German transliteration first (ü → ue, ß → ss), then accents dropped. */
export function slugify(text: string): string {
  return spellOutGerman(text)
    .replace(/&/g, '-und-')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Courts register on working days: a Saturday or Sunday moves to the Monday after. */
function onWeekday(ms: number): number {
  const weekday = new Date(ms).getUTCDay();
  return weekday === 6 ? ms + 2 * DAY_MS : weekday === 0 ? ms + DAY_MS : ms;
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface SharedIdentity {
  name: string;
  slug: string;
  legalForm: string;
  type: OrganizationType;
  industry: IndustryClass;
  profile: Profile;
  countryCode: string;
}

/**
 * What one organization of a class does: a specialty's entries with the class's unclaimed ones, or the
 * class's entries no specialty claims. `lead…` are the ones the summary names (the specialty's own).
 */
interface Profile {
  /** What the organization is, with its article: "a bakery", "an IT consultancy". */
  kind: string;
  leadActivities: readonly string[];
  activities: readonly string[];
  leadOfferings: readonly string[];
  offerings: readonly string[];
  keywords: readonly string[];
  audiences: readonly string[];
}

/** A class's profiles: per name word that promises a specialty, and those a general name word may have. */
interface Profiles {
  byNameWord: Map<string, Profile>;
  general: readonly Profile[];
}

const profilesOf = new Map<IndustryClass, Profiles>();

function profiles(industry: IndustryClass): Profiles {
  let found = profilesOf.get(industry);
  if (found) return found;
  const specialties = industry.specialties ?? [];
  const claimed = new Set(specialties.flatMap((s) => [...s.activities, ...s.offerings, ...s.keywords, ...(s.audiences ?? [])]));
  const free = (list: readonly string[]) => list.filter((entry) => !claimed.has(entry) && !industry.core.includes(entry));
  const rest = { activities: free(industry.activities), offerings: free(industry.offerings), keywords: free(industry.keywords), audiences: free(industry.audiences) };
  // Entries in order, each once (an entry may belong to two specialties, or be a specialty's and free).
  const both = (own: readonly string[], free: readonly string[]) => [...new Set([...own, ...free])];
  const own = (s: NonNullable<IndustryClass['specialties']>[number]): Profile => ({
    kind: `${article(s.kind ?? industry.kind)} ${s.kind ?? industry.kind}`,
    leadActivities: s.activities.map(written),
    activities: both(s.activities, rest.activities).map(written),
    leadOfferings: s.offerings.map(written),
    offerings: both(s.offerings, rest.offerings).map(written),
    keywords: both(s.keywords.filter((k) => !industry.core.includes(k)), rest.keywords),
    audiences: both(s.audiences ?? [], rest.audiences).map(written),
  });
  const ofSpecialties = specialties.map(own);
  const byNameWord = new Map<string, Profile>();
  specialties.forEach((s, i) => s.nameWords?.forEach((word) => byNameWord.set(word, ofSpecialties[i] as Profile)));
  // The class's unclaimed entries make a profile of their own where they are enough for a description.
  const general: Profile[] =
    rest.activities.length >= 2 && rest.offerings.length >= 3 && rest.audiences.length >= 1
      ? [own({ activities: rest.activities, offerings: rest.offerings, keywords: [], audiences: [] })]
      : [];
  found = { byNameWord, general: [...ofSpecialties, ...general] };
  profilesOf.set(industry, found);
  return found;
}

interface Context {
  random: Random;
  geo: Geography;
  asOfMs: number;
  countryPicker: WeightedPicker<Geography['countries'][number]>;
  placePickers: Map<string, WeightedPicker<Place>>;
  /** Industries by settlement: farms and quarries lie in villages, not in city centres. */
  industryPickers: Record<Settlement, WeightedPicker<IndustryClass>>;
  domains: DomainSet;
  /** Names given so far that may be reused by another domain (brands, chains, groups). */
  /** Identities another domain may reuse: a group's second site, a brand's country domain. */
  sharedNames: SharedIdentity[];
  registerNumbers: Map<string, number>;
  /** Public and academic names given so far (one institution of a kind per place). */
  institutions: Set<string>;
}

/**
 * The domains given so far, as 53-bit hashes in an open-addressing table: a Set of 20 million strings
 * exceeds what one Set holds (2^24) and makes every garbage collection walk 1.5 GB of strings. Two
 * different domains sharing a hash (about one chance in 25 over 20 million) only makes the generator
 * pick another spelling for the second, as it does for a domain taken.
 */
class DomainSet {
  private keys = new Float64Array(1 << 16);
  private size = 0;

  has(domain: string): boolean {
    const key = domainKey(domain);
    for (let slot = key % this.keys.length; ; slot = (slot + 1) % this.keys.length) {
      const at = this.keys[slot] ?? 0;
      if (at === 0) return false;
      if (at === key) return true;
    }
  }

  add(domain: string): void {
    if ((this.size + 1) * 4 > this.keys.length * 3) this.grow();
    this.insert(domainKey(domain));
    this.size++;
  }

  private insert(key: number): void {
    let slot = key % this.keys.length;
    while ((this.keys[slot] ?? 0) !== 0 && this.keys[slot] !== key) slot = (slot + 1) % this.keys.length;
    this.keys[slot] = key;
  }

  private grow(): void {
    const old = this.keys;
    this.keys = new Float64Array(old.length * 2);
    for (const key of old) if (key !== 0) this.insert(key);
  }
}

/** A domain's 53-bit hash (two 32-bit hashes combined; never 0, the empty slot). */
function domainKey(domain: string): number {
  let a = FNV1A_OFFSET;
  let b = 0;
  for (let i = 0; i < domain.length; i++) {
    const code = domain.charCodeAt(i);
    a = fnv1aStep(a, code);
    b = (Math.imul(b, 31) + code) | 0;
  }
  return (a >>> 0) * 2 ** 21 + (b >>> 11) + 1;
}

function weightedFrom<T extends string>(random: Random, table: readonly (readonly [T, number])[]): T {
  const total = table.reduce((sum, [, w]) => sum + w, 0);
  let target = random.next() * total;
  for (const [value, weight] of table) {
    target -= weight;
    if (target < 0) return value;
  }
  return (table[table.length - 1] as readonly [T, number])[0];
}

function pickType(random: Random, industry: IndustryClass, countryCode: string): OrganizationType {
  // A class's own mix replaces the default (its shares are relative to each other).
  const type = weightedFrom(random, Object.entries(industry.typeMix ?? DEFAULT_TYPE_MIX) as [OrganizationType, number][]);
  // Public and academic bodies are named in German; elsewhere the same activity appears as a company.
  return (type === 'Public' || type === 'Academic') && !GERMAN_SPEAKING.has(countryCode) ? 'Company' : type;
}

const employeeTables = new Map<string, readonly (readonly [string, number])[]>();

/** The employee classes an organization is drawn from, with their shares (once per skew, type and form). */
function employeeTable(industry: IndustryClass, type: OrganizationType, legalForm: string | null): readonly (readonly [string, number])[] {
  const startup = type === 'Startup';
  const key = `${startup ? 'startup' : (industry.sizeSkew ?? 'default')}|${legalForm ?? ''}`;
  let table = employeeTables.get(key);
  if (!table) {
    // Young companies stay below 250 people: their profile has no large classes.
    const profile = startup ? SIZE_PROFILES.micro.slice(0, 6) : SIZE_PROFILES[industry.sizeSkew ?? 'default'];
    // Another site of a named organization keeps its legal form, so its size must fit that form.
    const fits = (w: number, i: number) => (legalForm === null || formFits(legalForm, employeeClass(i).min, employeeClass(i).max) ? w : 0);
    table = profile.map((w, i) => [String(i), fits(w, i)] as const);
    employeeTables.set(key, table);
  }
  return table;
}

function pickEmployees(random: Random, industry: IndustryClass, type: OrganizationType, legalForm: string | null): { employees: number; index: number } {
  const index = Number(weightedFrom(random, employeeTable(industry, type, legalForm)));
  const bracket = employeeClass(index);
  return { employees: random.int(bracket.min, bracket.max), index };
}

type Settlement = 'city' | 'town' | 'village' | 'abroad';

/**
 * A place's settlement size: a city of 100,000 people or more, a town of 10,000, else a village (a
 * state-level place counts as a town). Abroad, where public bodies cannot be named (their institution
 * words are German), is a town without the trades only public bodies practise.
 */
function settlementOf(place: Place): Settlement {
  if (!GERMAN_SPEAKING.has(place.country_code)) return 'abroad';
  if (place.municipality === null) return 'town';
  return place.population >= 100_000 ? 'city' : place.population >= 10_000 ? 'town' : 'village';
}

/** A trade that only public or academic bodies practise (a local authority, a court): no company can be one. */
function onlyPublic(industry: IndustryClass): boolean {
  const mix = industry.typeMix;
  return mix !== undefined && (mix.Company ?? 0) + (mix.Startup ?? 0) + (mix.Other ?? 0) === 0;
}

/**
 * How much more or less often a division occurs in a settlement than over the whole country: farming,
 * forestry and quarrying happen in the countryside (a city keeps a few, at its edge).
 */
function settlementFactor(code: string, settlement: Settlement): number {
  const division = Number(code.slice(0, 2));
  if (division <= 3) return { city: 0.04, town: 0.6, village: 2.2, abroad: 0.6 }[settlement];
  if (division <= 9) return { city: 0.1, town: 0.8, village: 1.8, abroad: 0.8 }[settlement];
  return 1;
}

function revenueClass(random: Random, employees: number): string {
  // Revenue per employee: log-normal around 150 k EUR.
  const revenue = employees * 150_000 * Math.exp(0.6 * random.normal());
  return REVENUE_CLASSES.find((c) => revenue < c.below)?.label ?? '> 1 Mrd. EUR';
}

/**
 * A public or academic body is named by its institution word and its place, as such bodies are
 * ("Amtsgericht Regensburg", "Stadtwerke Ulm", "Hochschule Aalen"); a district office only where there
 * is a Landkreis ("Landratsamt Neu-Ulm" for the Landkreis Neu-Ulm), a city administration otherwise.
 */
function institutionName(word: string, place: Place, placeName: string): string {
  if (word === 'Landratsamt' || word === 'Kreisverwaltung') {
    const county = /^(Landkreis|Kreis) (.+)$/.exec(place.district ?? '');
    return county ? `${county[1] === 'Kreis' ? 'Kreisverwaltung' : 'Landratsamt'} ${county[2] ?? ''}` : `Stadtverwaltung ${placeName}`;
  }
  return `${word} ${placeName}`;
}

interface Naming {
  name: string;
  slug: string;
  legalForm: string;
  /** Whether the name says its place ("Bäckerei Regensburg"): then no other site may carry it. */
  placeBound: boolean;
}

/** The legal name and the part of it a domain is made from. */
function makeName(ctx: Context, place: Place, industry: IndustryClass, type: OrganizationType, nameWord: string, bracket: { min: number; max: number }): Naming {
  const { random } = ctx;
  const cc = place.country_code;
  const placeName = nameFirmsWrite(place.municipality ?? place.state ?? place.country);
  if (type === 'Public' || type === 'Academic') {
    // One institution of a kind per place: a second "Amtsgericht Passau" becomes a branch office.
    let name = institutionName(nameWord, place, placeName);
    if (ctx.institutions.has(name)) name = `${name} ${random.pick(['Außenstelle', 'Nebenstelle', 'Zweigstelle'])} ${random.int(2, 9)}`;
    ctx.institutions.add(name);
    return { name, slug: slugify(name), legalForm: '', placeBound: true };
  }
  const legalForm = weightedFrom(random, legalFormsFor(cc, type, industry.liberalProfession === true, bracket.min, bracket.max));
  const surname = random.pick(surnamesOf(cc));
  let core: string;
  if (type === 'Startup') {
    core = `${random.pick(STARTUP_STEMS)}${random.pick(['', 'ly', 'io', 'nic', 'tec', 'lab', 'ify', 'ora', 'net', 'ix', 'go', 'hub'])}`;
    core = random.chance(0.5) || !GERMAN_SPEAKING.has(cc) ? core : `${core} ${nameWord}`;
  } else if (!GERMAN_SPEAKING.has(cc)) {
    // The vocabulary's trade words are German: firms abroad are named after founders and places.
    const pattern = random.int(0, 9);
    const words = internationalWordsOf(industry.code);
    if (pattern < 5) core = `${surname} ${random.pick(words)}`;
    else if (pattern < 7) core = `${surname} & ${random.pick(surnamesOf(cc))}`;
    // After a town, as firms are ("Lyon Conseil"); a region's administrative name ("Kalmar län") is no firm's.
    else core = `${place.municipality === null ? surname : placeName} ${random.pick(words)}`;
  } else {
    const pattern = random.int(0, 11);
    if (pattern < 3) core = `${surname} ${nameWord}`;
    else if (pattern < 5) core = `${nameWord} ${placeName}`;
    else if (pattern < 7) core = `${nameWord} ${surname} ${placeName}`;
    else if (pattern < 9) core = `${random.pick(GIVEN_NAMES)} ${surname} ${nameWord}`;
    else if (pattern < 10) core = `${nameWord} ${surname}`;
    else core = `${surname} & ${random.pick(surnamesOf(cc))} ${nameWord}`;
  }
  const name = legalForm ? `${core} ${legalForm}` : core;
  return { name, slug: slugify(core), legalForm, placeBound: core.includes(placeName) };
}

function tld(random: Random, countryCode: string): string {
  const national = countryCode.toLowerCase();
  const roll = random.next();
  if (roll < 0.84) return national;
  return roll < 0.95 ? 'com' : random.pick(['eu', 'net', 'org']);
}

/**
 * The part of a domain a slug gives: at most 40 characters, cut between words. A place is never cut into
 * a shorter word that names another place ("sontheim-an-der-br"): a slug ending in its place keeps it
 * whole within the 63 characters of a label, or drops it.
 */
function domainBase(slug: string, placeSlug: string): string {
  if (slug.length <= 40) return slug || 'firma';
  const at = placeSlug ? `-${slug}-`.indexOf(`-${placeSlug}-`) : -1;
  if (at >= 0 && slug.length <= 63) return slug;
  const cut = slug.slice(0, slug.lastIndexOf('-', 40) > 0 ? slug.lastIndexOf('-', 40) : 40);
  return (at >= 0 && at < cut.length ? slug.slice(0, Math.max(0, at - 1)) : cut).replace(/-+$/, '') || cut;
}

const placeSlugs = new WeakMap<Place, { full: string; short: string }>();

/** A place's name as firms write it: without the official qualifier ("Halle" for "Halle (Saale)", "Frankfurt, Stadt"). */
function nameFirmsWrite(name: string): string {
  return name.replace(/,.*$/, '').replace(/\s*\(.*\)$/, '');
}

/** A place's slug, and that of the name firms write ("halle" for Halle (Saale)); once per place. */
function placeSlugsOf(place: Place): { full: string; short: string } {
  let slugs = placeSlugs.get(place);
  if (!slugs) {
    const name = place.municipality ?? place.state ?? '';
    slugs = { full: slugify(name), short: slugify(nameFirmsWrite(name)) };
    placeSlugs.set(place, slugs);
  }
  return slugs;
}

function uniqueDomain(ctx: Context, slug: string, place: Place): string {
  const { full: placeSlug, short } = placeSlugsOf(place);
  const base = domainBase(slug, placeSlug);
  const ending = tld(ctx.random, place.country_code);
  const first = `${base}.${ending}`;
  if (!first.startsWith('-') && !ctx.domains.has(first)) return remember(ctx, first);
  // A slug that already says the place does not say it twice; the label stays within 63 characters.
  const says = [placeSlug, short].some((p) => p && `-${base}-`.includes(`-${p}-`));
  const withPlace = placeSlug && !says && base.length + placeSlug.length < 63 ? [`${base}-${placeSlug}.${ending}`] : [];
  const candidates = [...withPlace, `${base}.${place.country_code.toLowerCase()}`];
  for (const candidate of candidates) if (!candidate.startsWith('-') && !ctx.domains.has(candidate)) return remember(ctx, candidate);
  for (let n = 2; ; n++) {
    const candidate = `${base}${n}.${ending}`;
    if (!ctx.domains.has(candidate)) return remember(ctx, candidate);
  }
}

function remember(ctx: Context, domain: string): string {
  ctx.domains.add(domain);
  return domain;
}

function jitter(random: Random, place: Place): { lat: number | null; lon: number | null } {
  if (place.lat === null || place.lon === null || random.chance(0.03)) return { lat: null, lon: null };
  // Spread within the municipality: a radius growing with its size (≈ 1 km for 5,000 inhabitants).
  const radiusKm = Math.min(12, 0.5 + Math.sqrt(place.population) / 140);
  const distance = radiusKm * Math.sqrt(random.next());
  const angle = 2 * Math.PI * random.next();
  const lat = place.lat + (distance / 111.2) * Math.sin(angle);
  const lon = place.lon + (distance / (111.2 * Math.cos((place.lat * Math.PI) / 180))) * Math.cos(angle);
  return { lat: Math.round(lat * 1e5) / 1e5, lon: Math.round(lon * 1e5) / 1e5 };
}

function address(ctx: Context, place: Place): string | null {
  const { random, geo } = ctx;
  if (place.municipality === null || geo.streets.length === 0) return null;
  const street = `${random.pick(geo.streets)} ${random.int(1, 180)}${random.chance(0.08) ? random.pick(['a', 'b', 'c']) : ''}`;
  const postcode = place.postcodes.length > 0 ? `${random.pick(place.postcodes)} ` : '';
  return `${street}, ${postcode}${place.municipality.replace(/,.*$/, '')}`;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "a" or "an" before a word, by its sound ("an arable farm", "a university", "an IT consultancy"). */
function article(word: string): string {
  return /^(?:[aeio]|u(?![nrst][aeiou])|IT\b)/i.test(word) ? 'an' : 'a';
}

/** A phrase with its audience, unless it already says whom it is for ("cuts hair for women and men"). */
function forAudience(phrase: string, audience: string): string {
  return /\bfor\b/.test(phrase) ? phrase : `${phrase} ${audience}`;
}

/**
 * Two offerings as one phrase; "as well as" where one already has an "and" ("cakes and tarts as well as
 * pretzels"); the first alone where both say whom they are for.
 */
function pair(a: string, b: string): string {
  if (/\bfor\b/.test(a) && /\bfor\b/.test(b)) return a;
  return a.includes(' and ') || b.includes(' and ') ? `${a} as well as ${b}` : `${a} and ${b}`;
}

/** The vocabulary writes abbreviations in lower case, as keywords; sentences spell them as people do. */
const ABBREVIATIONS: Record<string, string> = {
  it: 'IT', erp: 'ERP', crm: 'CRM', api: 'API', saas: 'SaaS', mri: 'MRI', ct: 'CT', tv: 'TV', gmp: 'GMP', ems: 'EMS', ev: 'EV',
  'cad/cam': 'CAD/CAM', 'm&a': 'M&A',
};

function written(phrase: string): string {
  return phrase.replace(/(?<![\p{L}\p{N}])(cad\/cam|m&a|[a-z]+)(?![\p{L}\p{N}])/gu, (word) => ABBREVIATIONS[word] ?? word);
}

/** An entry of `lead`, then `count - 1` others of `all` (the lead one left out). */
function leadAndOthers(random: Random, lead: readonly string[], all: readonly string[], count: number): string[] {
  const first = random.pick(lead);
  return [first, ...random.sample(all.filter((entry) => entry !== first), count - 1)];
}

function describe(ctx: Context, name: string, place: Place, industry: IndustryClass, profile: Profile, founded: number, employees: number) {
  const { random } = ctx;
  const city = (place.municipality ?? place.state ?? place.country).replace(/,.*$/, '');
  const [offerA = industry.kind, offerB = offerA, offerC] = leadAndOthers(random, profile.leadOfferings, profile.offerings, 3);
  const [activityA = 'works', activityB = activityA] = leadAndOthers(random, profile.leadActivities, profile.activities, 2);
  const audience = random.pick(profile.audiences);
  const { kind } = profile;
  // Every summary says what the organization is, in the word a user searches for ("a bakery").
  const summary = random.chance(0.5)
    ? `${name} is ${kind} in ${city} that ${forAudience(activityA, audience)}, with a focus on ${offerA}.`
    : `Based in ${city}, ${name} is ${kind} that ${activityA}. It offers ${forAudience(pair(offerA, offerB), audience)}.`;
  const keywords = [...industry.core, ...random.sample(profile.keywords, random.int(2, 5))];
  const text = [
    `${name} is active in ${industry.title.toLowerCase()} (NACE ${industry.code}) and was founded in ${new Date(founded).getUTCFullYear()}.`,
    sentence(`${forAudience(activityB, audience)}.`),
    `Its offering covers ${[offerA, offerB, offerC].filter(Boolean).join(', ')}.`,
    `${teamOf(employees)} from ${[city, place.state, place.country].filter((part, i, parts) => part !== null && part !== parts[i - 1]).join(', ')}.`,
  ].join(' ');
  return { summary, keywords, text };
}

/** "The team of about 40 people works", in words that fit the number. */
function teamOf(employees: number): string {
  if (employees === 1) return 'One person runs it';
  if (employees < 10) return `A team of ${String(employees)} people works`;
  return `The team of about ${String(employees)} people works`;
}

function registrations(ctx: Context, place: Place, legalForm: string, type: OrganizationType, founded: number): Registration[] {
  const { random } = ctx;
  if (!['DE', 'AT', 'CH'].includes(place.country_code) || type === 'Public' || type === 'Academic' || random.chance(0.05)) return [];
  if (place.country_code === 'DE' && legalForm === '') return [];
  const count = weightedFrom(random, [['1', 84], ['2', 13], ['3', 3]] as const);
  const out: Registration[] = [];
  let date = founded + random.int(3, 60) * DAY_MS;
  for (let i = 0; i < Number(count) && date < ctx.asOfMs; i++) {
    const court = registerCourt(place, i > 0 ? random : null);
    const next = (ctx.registerNumbers.get(court.court) ?? random.int(1_000, 60_000)) + random.int(1, 40);
    ctx.registerNumbers.set(court.court, next);
    const id =
      place.country_code === 'DE'
        ? `${registerKind(legalForm)} ${next}`
        : place.country_code === 'AT'
          ? `FN ${100_000 + next}${random.pick(['a', 'b', 'd', 'f', 'g', 'h', 'i', 'k', 'm', 'p', 's', 't', 'v', 'w', 'x', 'y', 'z'])}`
          : `CHE-${String(100 + (next % 900))}.${String(random.int(100, 999))}.${String(random.int(100, 999))}`;
    out.push({ court: court.court, date: formatDate(onWeekday(date)), id });
    date += random.int(200, 3_000) * DAY_MS;
  }
  return out;
}

function createContext(seed: number, asOf: string): Context {
  const geo = geography();
  const placePickers = new Map<string, WeightedPicker<Place>>();
  for (const [code, places] of geo.places) placePickers.set(code, new WeightedPicker(places, (p) => p.population));
  return {
    random: new Random(seed),
    geo,
    asOfMs: Date.parse(`${asOf}T00:00:00Z`),
    countryPicker: new WeightedPicker(
      geo.countries.filter((c) => placePickers.has(c.country_code)),
      (c) => c.weight,
    ),
    placePickers,
    industryPickers: {
      city: new WeightedPicker(INDUSTRY_CLASSES, (c) => c.weight * settlementFactor(c.code, 'city')),
      town: new WeightedPicker(INDUSTRY_CLASSES, (c) => c.weight * settlementFactor(c.code, 'town')),
      village: new WeightedPicker(INDUSTRY_CLASSES, (c) => c.weight * settlementFactor(c.code, 'village')),
      abroad: new WeightedPicker(INDUSTRY_CLASSES, (c) => (onlyPublic(c) ? 0 : c.weight * settlementFactor(c.code, 'abroad'))),
    },
    domains: new DomainSet(),
    sharedNames: [],
    registerNumbers: new Map(),
    institutions: new Set(),
  };
}

function generateOne(ctx: Context): OrganizationRecord {
  const { random } = ctx;
  // A few organizations are another site of an organization already generated: same legal name, type,
  // industry and country, another place and domain.
  const reuse = ctx.sharedNames.length > 20 && random.chance(0.02) ? random.pick(ctx.sharedNames) : null;
  const countryCode = reuse?.countryCode ?? ctx.countryPicker.pick(random).country_code;
  const place = (ctx.placePickers.get(countryCode) as WeightedPicker<Place>).pick(random);
  const industry = reuse?.industry ?? ctx.industryPickers[settlementOf(place)].pick(random);
  const type = reuse?.type ?? pickType(random, industry, countryCode);
  const ageYears = type === 'Startup' ? random.next() * 5 : Math.min(120, -Math.log(1 - random.next()) * 18);
  const founded = ctx.asOfMs - Math.round(ageYears * 365.25) * DAY_MS;
  const { employees, index } = pickEmployees(random, industry, type, reuse?.legalForm ?? null);
  const bracket = employeeClass(index);

  // The name word decides the specialty ("Pizzeria" serves pizza); a general one leaves it to chance.
  const nameWord = random.pick(industry.nameWords);
  const { byNameWord, general } = profiles(industry);
  const profile = reuse?.profile ?? byNameWord.get(nameWord) ?? random.pick(general);
  let naming: Naming | SharedIdentity;
  if (reuse) naming = reuse;
  else {
    naming = makeName(ctx, place, industry, type, nameWord, bracket);
    // Another site shares a name that does not say a place (an institution's always does).
    if (random.chance(0.05) && !naming.placeBound) ctx.sharedNames.push({ ...naming, type, industry, profile, countryCode });
  }
  const domain = uniqueDomain(ctx, naming.slug, place);

  const { summary, keywords, text } = describe(ctx, naming.name, place, industry, profile, founded, employees);
  const regs = registrations(ctx, place, naming.legalForm, type, founded);
  const newest = regs[regs.length - 1];
  const createdMs = Math.max(founded, Date.parse('2019-01-01T00:00:00Z')) + Math.floor(random.next() * Math.max(1, ctx.asOfMs - Math.max(founded, Date.parse('2019-01-01T00:00:00Z'))));
  const updatedMs = createdMs + Math.floor(random.next() * (ctx.asOfMs - createdMs));
  const snapshot = SNAPSHOTS.filter((s) => Date.parse(`${s.slice(11)}-${s.slice(8, 10)}-01T00:00:00Z`) >= createdMs);
  const source =
    regs.length > 0 && random.chance(0.55)
      ? 'register'
      : snapshot.length > 0 && random.chance(0.3)
        ? random.pick(snapshot)
        : random.pick(SOURCES.slice(1));
  const { lat, lon } = jitter(random, place);
  const letter = sectionOf(industry.code);

  return {
    domain,
    name: naming.name,
    summary,
    summary_keywords: keywords,
    address: address(ctx, place),
    organization_type: type,
    organization_size: bracket.size,
    employee_class: bracket.label,
    revenue_class: revenueClass(random, employees),
    nace_code: letter ? industry.code : NACE_SECTIONS.S,
    continent: place.continent,
    country: place.country,
    country_code: place.country_code,
    state: place.state,
    state_code: place.state_code,
    region: place.region,
    region_code: place.region_code,
    district: place.district,
    district_code: place.district_code,
    municipality: place.municipality,
    municipality_code: place.municipality_code,
    lat,
    lon,
    new_register_entry: newest ? ctx.asOfMs - Date.parse(`${newest.date}T00:00:00Z`) < 365 * DAY_MS : false,
    company_register_date: newest?.date ?? null,
    company_register_id: newest?.id ?? null,
    created_at: new Date(createdMs).toISOString(),
    registrations: regs,
    source,
    updated_at: new Date(updatedMs).toISOString(),
    text,
  };
}

/** Organizations one at a time (constant memory, for large files). */
export function* generateRecords(options: GenerateOptions): Generator<OrganizationRecord> {
  const ctx = createContext(options.seed, options.asOf ?? DEFAULT_DATASET.asOf);
  for (let i = 0; i < options.count; i++) yield generateOne(ctx);
}

export function generateDataset(options: GenerateOptions): OrganizationRecord[] {
  return [...generateRecords(options)];
}
