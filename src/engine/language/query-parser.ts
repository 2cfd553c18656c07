/**
 * `/v1/nlp_search` without a hosted model: a natural-language query → the legacy search's parameters, in
 * the spec's four recorded steps. Deterministic; everything it recognises comes from the data (the
 * gazetteer of the index's places, its tag vocabulary) or from the small lexicons below.
 *
 *   flag_detection             organization type ("startups", "universities", "public bodies"), size
 *                              ("small", "large enterprises", "more than 50 employees", "mit über 250
 *                              Mitarbeitern": headcounts.ts), recency ("new", "founded since 2020")
 *                              → custom_filters (a v2 filters object)
 *   location_extraction        place names of the index, longest first, German or English ("Bavaria" →
 *                              Bayern, "Munich" → München); a city is its municipality, a state its state.
 *                              A place after "not in" / "outside" / "except in" is dropped, not searched.
 *   keyword_generation         content words, merged into the index's multi-word tags ("solar panels");
 *                              after "not", "without", "except", "excluding", "no" → must_not; the
 *                              others → must_one ("bakeries and butchers": either); domains → domains,
 *                              or excludes after a negation. A word the keyword index does not know in
 *                              any form is split as a German compound into words it knows
 *                              ("Softwarefirmen" → software), else it is `not_understood` — never a
 *                              keyword that can only find nothing; so is a number nothing above used
 *   semantic_input_generation  the query without the place, flag and negated parts: what the
 *                              organizations are, for semantic search
 */
import type { QueryResponse } from '../../contract/language.js';
import { spellOutGerman } from '../german-spelling.js';
import { EXONYMS } from '../locations/exonyms.js';
import { textIndexOf } from '../relevance/store-relevance.js';
import type { ColumnStore } from '../store/store.js';
import { MAX_COMPOUND } from '../relevance/german-lexicon.js';
import type { TextIndex } from '../relevance/text-index.js';
import { stemMinimalEnglish } from '../relevance/tokenize.js';
import { headcountsIn } from './headcounts.js';

/** The payload of /v1/nlp_search: the legacy search's parameters (custom_filters: a v2 filters object). */
export type ParsedQuery = QueryResponse['payload'];
type LocationLevel = 'country' | 'state' | 'region' | 'district' | 'municipality';

export const WORKFLOW_STEPS = ['flag_detection', 'location_extraction', 'keyword_generation', 'semantic_input_generation'] as const;

/** Exonyms are place names even when short and lower case ("rome"). */
const EXONYM_KEYS = new Set(Object.keys(EXONYMS));

const TYPE_WORDS: Readonly<Record<string, string>> = {
  startup: 'Startup',
  'start-up': 'Startup',
  university: 'Academic',
  universitie: 'Academic', // "universities" after the plural stemmer
  'research institute': 'Academic',
  academic: 'Academic',
  'public body': 'Public',
  'public bodie': 'Public',
  'public institution': 'Public',
  authority: 'Public',
  authoritie: 'Public',
  municipality: 'Public',
  municipalitie: 'Public',
  // German, folded ("Universitäten" → "universitaten").
  hochschule: 'Academic',
  hochschulen: 'Academic',
  universitat: 'Academic',
  universitaten: 'Academic',
  forschungsinstitut: 'Academic',
  forschungsinstitute: 'Academic',
  behorde: 'Public',
  behorden: 'Public',
};

/**
 * Size words → the size classes they mean. "Small" is the EU's "small enterprise", fewer than 50 people,
 * so micro firms are small too; "SME" / "KMU" is every class below 250.
 */
const SIZE_WORDS: Readonly<Record<string, string | readonly string[]>> = {
  micro: 'Micro (0-9)',
  tiny: 'Micro (0-9)',
  'very small': 'Micro (0-9)',
  small: ['Micro (0-9)', 'Small (10-49)'],
  'medium-sized': 'Medium-sized (50-249)',
  'mid-sized': 'Medium-sized (50-249)',
  medium: 'Medium-sized (50-249)',
  sme: ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)'],
  smes: ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)'],
  large: 'Large enterprise (250+)',
  big: 'Large enterprise (250+)',
  'large enterprise': 'Large enterprise (250+)',
  enterprise: 'Large enterprise (250+)',
  // German, folded ("große" → "grosse").
  kleinst: 'Micro (0-9)',
  kleinstunternehmen: 'Micro (0-9)',
  klein: ['Micro (0-9)', 'Small (10-49)'],
  kleine: ['Micro (0-9)', 'Small (10-49)'],
  kleinen: ['Micro (0-9)', 'Small (10-49)'],
  kmu: ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)'],
  grossunternehmen: 'Large enterprise (250+)',
  konzerne: 'Large enterprise (250+)',
  konzern: 'Large enterprise (250+)',
  mittelstandisch: 'Medium-sized (50-249)',
  mittelstandische: 'Medium-sized (50-249)',
  mittelstandischen: 'Medium-sized (50-249)',
  mittlere: 'Medium-sized (50-249)',
  mittleren: 'Medium-sized (50-249)',
  gross: 'Large enterprise (250+)',
  grosse: 'Large enterprise (250+)',
  grossen: 'Large enterprise (250+)',
};

/** A word's entry in a lexicon table, its own keys only: "constructor" is a word, not the object's. */
function wordIn<T>(table: Readonly<Record<string, T>>, word: string): T | undefined {
  return Object.hasOwn(table, word) ? table[word] : undefined;
}

const NEGATIONS = new Set(['not', 'without', 'except', 'excluding', 'no', 'but not', 'other than', 'ohne', 'nicht', 'ausser', 'ausgenommen', 'kein', 'keine', 'keinen', 'aber nicht']);
const PLACE_NEGATIONS = /\b(?:not(?: in)?|outside(?: of)?|except(?: in)?|but not(?: in)?|excluding|without|nicht(?: in)?|ausserhalb(?: von)?|ausser(?: in)?|ohne)\s*$/;
// Words of a search request that name no trait (find, companies, near, founded, employees); not the function words
// (relevance/function-words.ts): a word here also ends a negation's scope and may be a compound's generic tail.
const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'for', 'in', 'at', 'on', 'from', 'with', 'by', 'to', 'near', 'around', 'based', 'located', 'that', 'which', 'who',
  'are', 'is', 'be', 'do', 'does', 'find', 'show', 'me', 'list', 'all', 'any', 'some', 'i', 'want', 'looking', 'search', 'please', 'or', 'and',
  'companies', 'company', 'firms', 'firm', 'businesses', 'business', 'organizations', 'organisations', 'organization', 'organisation', 'providers',
  'offering', 'offer', 'offers', 'which', 'there', 'whose', 'their', 'them', 'its', 'also', 'only', 'but', 'new', 'newly', 'recently', 'founded',
  'registered', 'since', 'after', 'established', 'young', 'like', 'similar', 'outside', 'before', 'until', 'prior', 'except', 'excluding', 'without',
  // German, folded.
  'im', 'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einer', 'und', 'oder', 'mit', 'fur', 'von', 'aus', 'bei', 'nahe',
  'zu', 'zum', 'zur', 'um', 'sind', 'ist', 'welche', 'finde', 'zeige', 'suche', 'alle', 'firmen', 'firma', 'unternehmen', 'betriebe',
  'gegrundet', 'gegruendet', 'registriert', 'eingetragen', 'seit', 'nach', 'vor', 'ab', 'bis', 'neu', 'neue', 'neuen', 'junge', 'jungen',
  'ahnlich', 'ahnliche', 'wie', 'ausserhalb', 'aber', 'jahr',
  // Function words that say nothing about what an organization is (a head count's words when no count follows).
  'than', 'more', 'less', 'fewer', 'many', 'much', 'very', 'most', 'has', 'have', 'having', 'had', 'was', 'were', 'been', 'being', 'can',
  'could', 'should', 'would', 'will', 'this', 'these', 'those', 'what', 'where', 'how', 'about', 'into', 'over', 'under', 'than', 'least',
  'employees', 'employee', 'staff', 'people', 'work', 'working', 'get', 'need', 'needs', 'help', 'good', 'best', 'top',
  'als', 'mehr', 'weniger', 'uber', 'unter', 'viele', 'vielen', 'sehr', 'einem', 'eines', 'kann', 'konnen', 'haben', 'hat', 'werden', 'wird',
  'es', 'sie', 'wir', 'ich', 'mich', 'mir', 'gibt', 'was', 'wo', 'wer', 'auf', 'an', 'am', 'gibt', 'mitarbeiter', 'mitarbeitern', 'beschaftigte',
  'beschaftigten', 'gute', 'guten', 'beste', 'besten', 'firma', 'betrieb', 'gesellschaft', 'anbieter', 'dienstleister',
]);
const DOMAIN = /^(?:https?:\/\/)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})(?:\/\S*)?$/i;

/** Lower case, accents stripped, ß → ss; hyphens and dots stay (they are part of names and domains). */
function fold(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/ß/g, 'ss');
}

/** A phrase with each word's plural stem ("tax advisors" → "tax advisor"). */
function stemmedPhrase(phrase: string): string {
  return phrase.split(' ').map(stemMinimalEnglish).join(' ');
}

/** The spellings a user may type for a German name: accents stripped ("munchen") or spelt out ("muenchen"). */
function spellings(name: string): string[] {
  return [...new Set([fold(name), spellOutGerman(name)])];
}

interface Gazetteer {
  /** folded name → [level, the index's spelling], the highest level first. */
  places: Map<string, [LocationLevel, string]>;
  /** The levels at which each place name (the index's spelling) exists. */
  levelsOf: Map<string, Set<LocationLevel>>;
  /** folded multi-word tags of the index (for merging adjacent words into one keyword). */
  tags: Set<string>;
  longestPlace: number;
}

const gazetteers = new WeakMap<ColumnStore, Gazetteer>();
/** A name at several levels is read as the highest but one: a city ("Köln") before its Regierungsbezirk. */
const LEVEL_ORDER: (LocationLevel)[] = ['country', 'state', 'municipality', 'region', 'district'];

function gazetteerOf(store: ColumnStore): Gazetteer {
  let gazetteer = gazetteers.get(store);
  if (!gazetteer) {
    const places = new Map<string, [LocationLevel, string]>();
    const levelsOf = new Map<string, Set<LocationLevel>>();
    let longestPlace = 1;
    for (const level of LEVEL_ORDER) {
      for (const name of store.categorical[level].dict.values) {
        if (name === null) continue;
        const at = levelsOf.get(name) ?? new Set<LocationLevel>();
        at.add(level);
        levelsOf.set(name, at);
        for (const key of spellings(name)) {
          if (!places.has(key)) places.set(key, [level, name]);
          longestPlace = Math.max(longestPlace, key.split(' ').length);
        }
      }
    }
    for (const [exonym, natives] of Object.entries(EXONYMS)) {
      const target = natives.map((native) => places.get(fold(native))).find((place) => place !== undefined);
      if (target) places.set(fold(exonym), target);
    }
    const tags = new Set(store.keywords.dict.values.filter((tag): tag is string => tag !== null && tag.includes(' ')).map((tag) => stemmedPhrase(fold(tag))));
    gazetteer = { places, levelsOf, tags, longestPlace };
    gazetteers.set(store, gazetteer);
  }
  return gazetteer;
}

/** The word without the given characters at its start (`lead`) and end (`tail`). */
function trimChars(word: string, lead: string, tail: string): string {
  // Loops, not an end-anchored regex: that one rescans a long run of the characters from every position.
  let start = 0;
  let end = word.length;
  while (start < end && lead.includes(word.charAt(start))) start++;
  while (end > start && tail.includes(word.charAt(end - 1))) end--;
  return start === 0 && end === word.length ? word : word.slice(start, end);
}

/** Words of the query: punctuation split off (a URL or domain kept whole), hyphens and dots kept inside words. */
function words(text: string): string[] {
  return text
    .split(/\s+/)
    .flatMap((word) => {
      const bare = trimChars(word, '', ',;!?()"');
      return DOMAIN.test(bare) ? [bare] : word.replace(/[,;:!?()"]+/g, ' ').split(' ');
    })
    .map((word) => trimChars(word, ".'’", ".'’"))
    .filter(Boolean);
}

/** The shortest part of a compound that counts as a word of it ("Bio" in "Biobäckerei"). */
const MIN_COMPOUND_PART = 3;
/** German linking elements between the parts of a compound ("Heizung-s-bau", "Kinder-garten"). */
const LINKING = ['', 's', 'es', 'n', 'en'];

/**
 * A folded word as keywords the index knows: the word itself, or the parts of a German compound split
 * once where both sides are known or a generic word (a stop word: "Softwarefirmen" → software; the
 * longest known head first); none when nothing is known. Not GermanLexicon's split (german-lexicon.ts),
 * which reads a word's meaning: lexicon lemmas and their inflections, the longest last part first, the
 * first part split again, "e" a linking letter too; this one asks the keyword index for terms as written.
 */
function knownWords(text: TextIndex, word: string): string[] {
  if (text.knows(word)) return [word];
  if (word.length > MAX_COMPOUND) return [];
  for (let cut = word.length - MIN_COMPOUND_PART; cut >= MIN_COMPOUND_PART; cut--) {
    const tail = word.slice(cut);
    const tailKnown = STOP_WORDS.has(tail) || text.knows(tail);
    if (!tailKnown) continue;
    for (const link of LINKING) {
      const head = word.slice(0, cut);
      if (!head.endsWith(link) || head.length - link.length < MIN_COMPOUND_PART) continue;
      const stem = head.slice(0, head.length - link.length);
      if (!text.knows(stem)) continue;
      return STOP_WORDS.has(tail) ? [stem] : [stem, tail];
    }
  }
  return [];
}

/**
 * A query as its words, typed and folded, with the words a phase has taken (later phases skip them), and
 * an adder that puts a value into a list once.
 */
class QueryWords {
  readonly tokens: string[];
  readonly folded: string[];
  readonly used: boolean[];
  private readonly added = new Map<string[], Set<string>>();

  constructor(userQuery: string) {
    this.tokens = words(userQuery);
    this.folded = this.tokens.map(fold);
    this.used = new Array<boolean>(this.tokens.length).fill(false);
  }

  get length(): number {
    return this.tokens.length;
  }

  /** Appends `value` to `list` unless the list holds it. */
  add(list: string[], value: string): void {
    let seen = this.added.get(list);
    if (!seen) this.added.set(list, (seen = new Set(list)));
    if (seen.has(value)) return;
    seen.add(value);
    list.push(value);
  }

  /** Words i … i + n − 1, folded, as one phrase. */
  phraseAt(i: number, n: number): string {
    return this.folded.slice(i, i + n).join(' ');
  }

  /** Whether the words before word i end in a negation ("not", "but not", "ohne"). */
  negatedAt(i: number): boolean {
    const before = this.folded.slice(Math.max(0, i - 3), i).join(' ');
    return [...NEGATIONS].some((negation) => before === negation || before.endsWith(` ${negation}`));
  }

  /** Marks words i … i + n − 1 as taken. */
  take(i: number, n: number): void {
    for (let j = i; j < i + n; j++) this.used[j] = true;
  }

  /** Whether one of words i … i + n − 1 is taken. */
  anyTaken(i: number, n: number): boolean {
    return this.used.slice(i, i + n).some(Boolean);
  }
}

/** Phase 1 (flag_detection): head counts, then type and size words → custom_filters' lists. */
function organizationFlags(query: QueryWords): Record<string, string[]> {
  const filters: Record<string, string[]> = {};
  const addFilter = (key: string, value: string | readonly string[]): void => {
    const values = filters[key] ?? [];
    for (const item of typeof value === 'string' ? [value] : value) if (!values.includes(item)) values.push(item);
    filters[key] = values;
  };
  for (const { start, end, sizes } of headcountsIn(query.folded)) {
    query.take(start, end - start);
    addFilter('organization_size', sizes);
  }
  for (let i = 0; i < query.length; i++) {
    if (query.used[i]) continue;
    for (const n of [2, 1]) {
      const phrase = query.phraseAt(i, n);
      const stemmed = stemmedPhrase(phrase);
      const type = wordIn(TYPE_WORDS, phrase) ?? wordIn(TYPE_WORDS, stemmed);
      const size = wordIn(SIZE_WORDS, phrase) ?? wordIn(SIZE_WORDS, stemmed);
      const value = type ?? size;
      if (value !== undefined) {
        query.take(i, n);
        // "without startups", "not small": a negated flag is left out (v1 filters cannot exclude).
        if (query.negatedAt(i)) break;
        addFilter(type ? 'organization_type' : 'organization_size', value);
        break;
      }
    }
  }
  return filters;
}

/**
 * Phase 1 (flag_detection), register dates: "since 2015", "before 2020", "new" (the last year) → the
 * first and last day (null: none), and the years the query spent on them.
 */
function registerDates(userQuery: string, today: string): { from: string | null; to: string | null; years: Set<string> } {
  const thisYear = Number(today.slice(0, 4));
  const yearOf = (text: string | undefined): number | null => {
    const year = Number(text);
    return year >= 1800 && year <= thisYear ? year : null;
  };
  // "since 2015" and "founded in 2015" include 2015; "after 2015", like "before 2015", does not. German
  // the same: "seit 2015", "gegründet 2015" include it; "nach 2015", "vor 2015" do not.
  const query = fold(userQuery);
  const since =
    /\b(founded|registered|established|since|after|from)\s+(?:(in|since|after)\s+)?(\d{4})\b/i.exec(userQuery) ??
    /\b(gegrundet|gegruendet|registriert|eingetragen|seit|nach|ab)\s+(?:(im|in|seit|nach|ab)\s+)?(?:jahr\s+)?(\d{4})\b/.exec(query);
  const sinceYear = yearOf(since?.[3]);
  const exclusive = ['after', 'nach'].includes((since?.[2] ?? since?.[1] ?? '').toLowerCase());
  const fromYear = sinceYear !== null && exclusive ? sinceYear + 1 : sinceYear;
  const untilText = (/\b(?:before|until|prior to)\s+(\d{4})\b/i.exec(userQuery) ?? /\b(?:vor|bis)\s+(?:dem\s+jahr\s+)?(\d{4})\b/.exec(query))?.[1];
  const until = yearOf(untilText);
  const years = new Set([since?.[3], untilText].filter((year) => year !== undefined));
  const to = until !== null ? `${until - 1}-12-31` : null;
  if (fromYear !== null) return { from: `${fromYear}-01-01`, to, years };
  if (
    until === null &&
    (/\b(?:new(?!\s+[A-Z])|newly (?:founded|registered)|recently (?:founded|registered)|founded recently|young)\b/.test(userQuery.replace(/^New\b/, 'new')) ||
      // Not inside a name: "Neu-Ulm".
      /\b(?:neu|neue[nmrs]?|neugegrundete[nmrs]?|junge[nmrs]?|kurzlich gegrundete[nmrs]?)(?![-\w])/.test(query))
  ) {
    const date = new Date(`${today}T00:00:00Z`);
    date.setUTCFullYear(date.getUTCFullYear() - 1);
    return { from: date.toISOString().slice(0, 10), to, years };
  }
  return { from: null, to, years };
}

/**
 * Phase 2 (location_extraction): place names of the index, longest first; a negated one ("not in Munich")
 * is taken, not searched.
 */
function findPlaces(query: QueryWords, gazetteer: Gazetteer, locations: ParsedQuery['locations']): void {
  const { tokens, folded } = query;
  for (let i = 0; i < tokens.length; i++) {
    if (query.used[i]) continue;
    for (let n = Math.min(gazetteer.longestPlace, tokens.length - i); n >= 1; n--) {
      if (query.anyTaken(i, n)) continue;
      const place = gazetteer.places.get(query.phraseAt(i, n));
      if (!place) continue;
      // A lower-case common word that happens to be a place name ("hart", "au") is a word, not a place.
      if (n === 1 && tokens[i] === folded[i] && !EXONYM_KEYS.has(folded[i] ?? '') && (folded[i] ?? '').length < 5) continue;
      // The longest negation is three words ("but not in"): the three words before the place decide.
      const before = folded.slice(Math.max(0, i - 3), i).join(' ');
      if (!PLACE_NEGATIONS.test(before)) query.add(locations[place[0]], place[1]);
      query.take(i, n);
      i += n - 1;
      break;
    }
  }
}

/**
 * Places at several levels cannot be OR-ed in the v1 layout (levels AND): names them all at one level
 * where every one of them exists ("Munich or Vienna" → both municipalities).
 */
function placesAtOneLevel(gazetteer: Gazetteer, locations: ParsedQuery['locations']): void {
  const levels = LEVEL_ORDER.filter((level) => locations[level].length > 0);
  if (levels.length <= 1) return;
  const names = levels.flatMap((level) => locations[level]);
  const common = LEVEL_ORDER.find((level) => names.every((name) => gazetteer.levelsOf.get(name)?.has(level)));
  if (!common) return;
  for (const level of levels) locations[level] = [];
  locations[common] = names;
}

/**
 * Phase 3 (keyword_generation): the words no phase took — domains (excludes after a negation), the
 * index's multi-word tags, known words and compounds (must_one; must_not after a negation). Returns the
 * words it made nothing of.
 */
function keywordsAndDomains(query: QueryWords, gazetteer: Gazetteer, text: TextIndex, yearsUsed: ReadonlySet<string>, result: ParsedQuery): string[] {
  const { tokens, folded } = query;
  const notUnderstood: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (query.used[i]) continue;
    const word = folded[i] ?? '';
    const domain = DOMAIN.exec(tokens[i] ?? '');
    if (domain && (tokens[i] ?? '').includes('.')) {
      query.add(query.negatedAt(i) ? result.excludes : result.domains, (domain[1] ?? '').toLowerCase());
      query.take(i, 1);
      continue;
    }
    if (STOP_WORDS.has(word) || NEGATIONS.has(word)) continue;
    if (/^\d+$/.test(word)) {
      if (!yearsUsed.has(word)) query.add(notUnderstood, tokens[i] ?? word);
      continue;
    }
    // Merge with following words into a tag of the index ("solar panels", "heat pumps").
    let n = 1;
    for (let m = 4; m >= 2; m--) {
      if (i + m <= tokens.length && !query.anyTaken(i, m) && gazetteer.tags.has(stemmedPhrase(query.phraseAt(i, m)))) {
        n = m;
        break;
      }
    }
    const negated = query.negatedAt(i);
    if (negated && n === 1) {
      // A negation covers the words that follow it, up to a stop word: "excluding fast food".
      while (n < 3 && i + n < tokens.length && !query.used[i + n] && !STOP_WORDS.has(folded[i + n] ?? '') && !NEGATIONS.has(folded[i + n] ?? '')) n++;
    }
    query.take(i, n);
    // Only words the index knows become keywords: an unknown one could only find nothing.
    const keywords = n > 1 ? [query.phraseAt(i, n)] : knownWords(text, word);
    if (keywords.length === 0) query.add(notUnderstood, tokens[i] ?? word);
    // "bakeries and butchers" means either: positive terms are alternatives (must_one).
    for (const keyword of keywords) query.add(negated ? result.keywords.must_not : result.keywords.must_one, keyword);
    i += n - 1;
  }
  return notUnderstood;
}

/** Phase 4 (semantic_input_generation): what the organizations are, for semantic search — the positive keywords. */
function semanticInput(keywords: ParsedQuery['keywords']): string {
  return [...keywords.must_all, ...keywords.must_one].join(' ');
}

/** Parses a natural-language query into the legacy search parameters, phase by phase (see the module comment). */
export function parseQuery(store: ColumnStore, userQuery: string, today: string): ParsedQuery {
  const gazetteer = gazetteerOf(store);
  const text = textIndexOf(store);
  const query = new QueryWords(userQuery);
  const result: ParsedQuery = {
    keywords: { must_one: [], must_all: [], must_not: [] },
    locations: { country: [], state: [], region: [], district: [], municipality: [] },
    custom_filters: {},
    domains: [],
    excludes: [],
    semantic_input: '',
  };
  const filters: Record<string, unknown> = organizationFlags(query);
  const dates = registerDates(userQuery, today);
  if (dates.to !== null) filters.register_date_to = dates.to;
  if (dates.from !== null) filters.register_date_from = dates.from;
  result.custom_filters = filters;
  findPlaces(query, gazetteer, result.locations);
  placesAtOneLevel(gazetteer, result.locations);
  const notUnderstood = keywordsAndDomains(query, gazetteer, text, dates.years, result);
  result.semantic_input = semanticInput(result.keywords);
  result.not_understood = notUnderstood;
  return result;
}
