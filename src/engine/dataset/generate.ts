/**
 * The deterministic sample dataset: `generateDataset({count, seed})` gives the same organizations on
 * every machine and runtime. Organizations sit in real places (see geography.ts), weighted by
 * population; type, size, employees and revenue agree with each other; the NACE class drives the name,
 * the English summary, the keyword tags and the hidden text; registrations use real register courts'
 * naming and the legal form's register section. Some legal names repeat across domains (dedup has work).
 */
import { NACE_SECTIONS, sectionOf } from '../../contract/nace.js';
import type { OrganizationSize, OrganizationType } from '../../contract/v2/filters.js';
import { Random, WeightedPicker } from '../random.js';
import { spellOutGerman } from '../german-spelling.js';
import { geography, type Geography, type Place } from './geography.js';
import { INDUSTRY_CLASSES, type IndustryClass } from './industries.js';
import { GIVEN_NAMES, INTERNATIONAL_WORDS, legalFormsOf, registerKind, STARTUP_STEMS, surnamesOf } from './naming.js';
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

/** For classes without their own mix; public and academic bodies come only from classes that have them. */
const DEFAULT_TYPE_MIX: Partial<Record<OrganizationType, number>> = { Company: 94, Startup: 6 };
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
  countryCode: string;
}

interface Context {
  random: Random;
  geo: Geography;
  asOfMs: number;
  countryPicker: WeightedPicker<Geography['countries'][number]>;
  placePickers: Map<string, WeightedPicker<Place>>;
  industryPicker: WeightedPicker<IndustryClass>;
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

function pickEmployees(random: Random, industry: IndustryClass, type: OrganizationType): { employees: number; index: number } {
  // Young companies stay below 250 people: their profile has no large classes.
  const profile = type === 'Startup' ? SIZE_PROFILES.micro.slice(0, 6) : SIZE_PROFILES[industry.sizeSkew ?? 'default'];
  const index = weightedFrom(random, profile.map((w, i) => [String(i), w] as const));
  const bracket = employeeClass(Number(index));
  return { employees: random.int(bracket.min, bracket.max), index: Number(index) };
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

/** The legal name and the part of it a domain is made from. */
function makeName(ctx: Context, place: Place, industry: IndustryClass, type: OrganizationType): { name: string; slug: string; legalForm: string } {
  const { random } = ctx;
  const cc = place.country_code;
  const nameWord = random.pick(industry.nameWords);
  const placeName = (place.municipality ?? place.state ?? place.country).replace(/,.*$/, '').replace(/\s*\(.*\)$/, '');
  if (type === 'Public' || type === 'Academic') {
    // One institution of a kind per place: a second "Amtsgericht Passau" becomes a branch office.
    let name = institutionName(nameWord, place, placeName);
    if (ctx.institutions.has(name)) name = `${name} ${random.pick(['Außenstelle', 'Nebenstelle', 'Zweigstelle'])} ${random.int(2, 9)}`;
    ctx.institutions.add(name);
    return { name, slug: slugify(name), legalForm: '' };
  }
  const forms = legalFormsOf(cc);
  const legalForm = weightedFrom(random, forms[type] ?? forms.Company ?? [['', 1]]);
  const surname = random.pick(surnamesOf(cc));
  let core: string;
  if (type === 'Startup') {
    core = `${random.pick(STARTUP_STEMS)}${random.pick(['', 'ly', 'io', 'nic', 'tec', 'lab', 'ify', 'ora', 'net', 'ix', 'go', 'hub'])}`;
    core = random.chance(0.5) || !GERMAN_SPEAKING.has(cc) ? core : `${core} ${nameWord}`;
  } else if (!GERMAN_SPEAKING.has(cc)) {
    // The vocabulary's trade words are German: firms abroad are named after founders and places.
    const pattern = random.int(0, 9);
    if (pattern < 5) core = `${surname} ${random.pick(INTERNATIONAL_WORDS)}`;
    else if (pattern < 7) core = `${surname} & ${random.pick(surnamesOf(cc))}`;
    else core = `${placeName} ${random.pick(INTERNATIONAL_WORDS)}`;
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
  return { name, slug: slugify(core), legalForm };
}

function tld(random: Random, countryCode: string): string {
  const national = countryCode.toLowerCase();
  const roll = random.next();
  if (roll < 0.84) return national;
  return roll < 0.95 ? 'com' : random.pick(['eu', 'net', 'org']);
}

function uniqueDomain(ctx: Context, slug: string, place: Place): string {
  // Labels stay within 63 characters and never end in a hyphen, whatever the cut.
  const base = (slug || 'firma').slice(0, 40).replace(/-+$/, '');
  const ending = tld(ctx.random, place.country_code);
  const placeSlug = slugify(place.municipality ?? place.state ?? '').slice(0, 20).replace(/-+$/, '');
  const candidates = [`${base}.${ending}`, `${base}-${placeSlug}.${ending}`, `${base}.${place.country_code.toLowerCase()}`];
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

function describe(ctx: Context, name: string, place: Place, industry: IndustryClass, founded: number, employees: number) {
  const { random } = ctx;
  const city = (place.municipality ?? place.state ?? place.country).replace(/,.*$/, '');
  const [offerA, offerB, offerC] = random.sample(industry.offerings, 3);
  const [activityA, activityB] = random.sample(industry.activities, 2);
  const audience = random.pick(industry.audiences);
  const summary = random.chance(0.5)
    ? `${name} ${activityA ?? 'provides'} ${audience} in ${city}, with a focus on ${offerA ?? industry.title.toLowerCase()}.`
    : `Based in ${city}, ${name} ${activityA ?? 'offers'} — ${offerA ?? ''} and ${offerB ?? ''} ${audience}.`;
  const keywords = random.sample(industry.keywords, random.int(3, 6));
  const text = [
    `${name} is active in ${industry.title.toLowerCase()} (NACE ${industry.code}) and was founded in ${new Date(founded).getUTCFullYear()}.`,
    sentence(`${activityB ?? activityA ?? 'works'} ${audience}.`),
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
    industryPicker: new WeightedPicker(INDUSTRY_CLASSES, (c) => c.weight),
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
  const industry = reuse?.industry ?? ctx.industryPicker.pick(random);
  const type = reuse?.type ?? pickType(random, industry, countryCode);
  const ageYears = type === 'Startup' ? random.next() * 5 : Math.min(120, -Math.log(1 - random.next()) * 18);
  const founded = ctx.asOfMs - Math.round(ageYears * 365.25) * DAY_MS;
  const { employees, index } = pickEmployees(random, industry, type);
  const bracket = employeeClass(index);

  const naming = reuse ?? makeName(ctx, place, industry, type);
  if (!reuse && random.chance(0.05)) ctx.sharedNames.push({ ...naming, type, industry, countryCode });
  const domain = uniqueDomain(ctx, naming.slug, place);

  const { summary, keywords, text } = describe(ctx, naming.name, place, industry, founded, employees);
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
