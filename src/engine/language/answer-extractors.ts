/**
 * The evidence a site's sentences give for each kind of everyday question (question-kind.ts), in English
 * and German, the way small-company sites say it. Each extractor looks at one sentence (a line of an
 * Impressum is a sentence too) and its neighbours, and says how strongly it answers (0–1) and which
 * sentences make the answer:
 *
 * - founded: a year with a founding word (founded, established, gegründet, Gründung: strongest; "seit 1987",
 *   "since 1962": strong; opened, eröffnete, took over: weaker); the earliest year wins a tie.
 * - employees: a count with a staff word ("180 employees", "62 Mitarbeiterinnen", "unsere 48
 *   Mitarbeitenden", "team of 42", "beschäftigt 35"); number words count less, and a count in a range or
 *   after für/for/mit (the customers' size) much less.
 * - leadership: a role word (Geschäftsführer, Inhaber, Vorstand, vertreten durch, managing director, CEO,
 *   owner; "führt das Unternehmen", "run by"; founders when asked for them) with a person's name in the
 *   sentence, or a role line under or over a line that is only a name ("Priya Natarajan" / "Chief Executive
 *   Officer").
 * - location: "Sitz der Gesellschaft: Leipzig", "Firmensitz", "Registered office" lines; "based in",
 *   "ansässig in"; an address block (street, postcode and town, country) on the contact or legal page;
 *   "… ist eine Druckerei in Winterthur".
 * - contact: telephone numbers and e-mail addresses with their labels (Telefon, Tel., Phone, call us;
 *   E-Mail), on the contact and legal pages first, the site's most repeated number first, fax and
 *   secondary lines (support, jobs) last.
 * - what: the first descriptive sentences of the home page (and of an about page): full sentences, the
 *   company's name or "we" as their subject first; an Impressum's "Unternehmensgegenstand".
 * - products: enumerations of what the company makes or offers (not of its customers: a list after
 *   for/für is who it serves), a named product ("Tidemark is our …", "Werkbank ist unsere …"), "we make /
 *   wir backen …", on product pages and the home page first, words of the question counting too.
 *
 * Every regular expression here runs on one sentence (at most MAX_SENTENCE characters, qna.ts) and has no
 * nested quantifiers, so each sentence costs time in proportion to its length.
 */
import { ENGLISH_FUNCTION_WORDS, GERMAN_FUNCTION_WORDS } from '../relevance/function-words.js';
import { stemGerman, stemMinimalEnglish } from '../relevance/tokenize.js';
import { fold, type PageKind, type QuestionIntent } from './question-kind.js';

/** A sentence of the context as the extractors see it. */
export interface Sentence {
  /** As on the page. */
  text: string;
  /** `fold(text)`: lower case, umlauts as plain vowels. */
  folded: string;
  /** Stems of its content words (see `contentWords`). */
  words: readonly string[];
  /** Indexes (ascending) of the question's content words (`asked`) it contains. */
  matched: readonly number[];
  /** Its telephone numbers (`phoneNumbers`). */
  phones: readonly string[];
  /** Index of its page among the pages read (0: the start page, the home page). */
  pageIndex: number;
  pageKind: PageKind;
  /** Number of its line (a block of the page) in the whole context. */
  line: number;
  /** The first and the last sentence of its line. */
  first: boolean;
  last: boolean;
}

/** What a sentence gives for the question: how strongly it answers, and the sentences of the answer. */
export interface Evidence {
  score: number;
  /** Indexes of the sentences the answer quotes, in order. */
  parts: number[];
}

// ---------------------------------------------------------------------------------------------------------
// Words

/**
 * Function words the answerer matches as content all the same: relations ("before", "zwischen", "seit"),
 * persons ("he", "ihn", "mein"), conjunctions ("wenn", "dass") and a few more. Dropping them would change
 * the follow-up questions it proposes.
 */
const READ_AS_CONTENT = new Set(
  (
    'without after before under between through he she him her his here ' +
    'sondern ins beim zwischen bis seit ab wenn weil dass ob mochte euch ihn ihm ihnen mein meine meinen wohin woher keinen ' +
    'ganz gern gerne da jetzt immer etwas allen jede jeden einfach'
  ).split(' '),
);

/**
 * Words that carry no topic of their own, in English and German (questions are asked in either language):
 * the function words of both (but READ_AS_CONTENT), further forms of them, and the words a question asks or
 * a site tells with. The further forms stay out of function-words.ts, whose lists tell the embedder a text's language.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...[...ENGLISH_FUNCTION_WORDS, ...GERMAN_FUNCTION_WORDS].filter((word) => !READ_AS_CONTENT.has(word)),
  ...(
    'done whats shall yes each other own same much many last please tell know find give say says said mention mentions write writes ' +
    'seinem seiner ihrem ihrer unserem unserer wen wem wessen weshalb welchen welchem diesem alles ja nein konnte geben gab macht machen ' +
    'lautet lauten heisst etwa rund ca hoch letzten letzte letztes sagt sagen steht stehen schreibt ' +
    'company companies firm business firma unternehmen'
  ).split(' '),
]);

/** A word's stem for matching: folded, English plural and German inflection endings off. */
export function stem(word: string): string {
  return stemGerman(stemMinimalEnglish(word));
}

/** Content words of a text folded already (`fold`): stop words out, stemmed by `stemOf`. */
export function foldedContentWords(folded: string, stemOf: (word: string) => string = stem): string[] {
  return (folded.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 && !STOP_WORDS.has(word)).map(stemOf);
}

/** Content words of a text: folded, stop words out, stemmed. */
export function contentWords(text: string): string[] {
  return foldedContentWords(fold(text));
}

/** `stem`, each word stemmed once: the sentences of one site repeat their words (for one answer's reading). */
export function rememberedStems(): (word: string) => string {
  const stems = new Map<string, string>();
  return (word) => {
    let found = stems.get(word);
    if (found === undefined) {
      found = stem(word);
      stems.set(word, found);
    }
    return found;
  };
}

/** Whether two stems are one word: equal, or one a prefix of the other by a short ending (druck, druckt). */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 5 && long.length - short.length <= 3 && long.startsWith(short);
}

// ---------------------------------------------------------------------------------------------------------
// Shared patterns

/** Words that are no part of a person's name (folded). */
const NOT_NAME = new Set(
  [
    'unternehmen firma betrieb team heute today damals then our unser unsere unseren wir we the die der das dem den des ein eine und and or oder mit with von by bei at in im seit since als as for fur',
    'sitz gesellschaft geschaftsfuhrer geschaftsfuhrerin geschaftsfuhrende geschaftsfuhrung geschaftsleitung inhaber inhaberin managing director directors chief executive officer ceo cto cfo coo president prasident prasidentin leiter leiterin head founder cofounder co grunder grunderin vorstand vorsitzender vorsitzende verwaltungsrat verwaltungsrates partner partnerin owner',
    'produktion verkauf vertrieb technik finanzen kunden customer success sales marketing support service operations engineering finance',
    'gmbh ag kg ohg ltd limited inc llc ug mbh plc sa sarl co amtsgericht registergericht handelsregister firmenbuch impressum imprint kontakt contact telefon phone email mail fax tel adresse anschrift address strasse street road weg platz',
    'januar februar marz april mai juni juli august september oktober november dezember january february march may june july october december montag dienstag mittwoch donnerstag freitag samstag sonntag monday tuesday wednesday thursday friday saturday sunday',
    'herr frau mr mrs ms dr prof ing mag dipl di bsc msc mba',
    'vertreten vertretungsberechtigte vertretungsberechtigt personen person verantwortlich responsible uid ust vat hrb hra fn register generation familie family',
  ]
    .join(' ')
    .split(' '),
);
/** Academic and professional titles before a name. */
const TITLE = /^(?:Dr|Prof|Ing|Mag|Dipl|DI|Mr|Mrs|Ms|Herr|Frau|Dkfm|MBA|BSc|MSc)(?:\.-?\p{L}+)*\.?$/u;
const NAME_WORD = /^\p{Lu}[\p{Ll}'’]+(?:-\p{Lu}[\p{Ll}'’]+)?$/u;
const PARTICLE = /^(?:von|van|de|der|zu|da|di|le|la)$/;

/**
 * The people a sentence names: runs of two to four capitalized words (titles and particles included) none
 * of which is a known non-name word, and not all of which are words of the company's name. `single` counts
 * capitalized words that may be a first name alone ("Priya leads …").
 */
export function personNames(text: string, companyWords: ReadonlySet<string>): { names: string[]; single: number } {
  const names: string[] = [];
  let single = 0;
  let run: string[] = [];
  let titled = false;
  const flush = (): void => {
    const real = run.filter((word) => !PARTICLE.test(word));
    if (real.length >= 2 && real.length <= 4 && !real.every((word) => companyWords.has(fold(word)))) names.push(run.join(' '));
    else if (real.length === 1 && (titled || !companyWords.has(fold(real[0] as string)))) single++;
    run = [];
    titled = false;
  };
  for (const token of text.split(/\s+/)) {
    const word = token.replace(/^[("„“‚‘'«»]+|[)"“”’'«»,;:!?]+$/g, '');
    const ended = /[,;:!?)]$/.test(token) || (/\.$/.test(token) && !TITLE.test(word.replace(/\.$/, '') + '.') && !TITLE.test(word));
    const bare = word.replace(/\.$/, '');
    if (TITLE.test(word) || TITLE.test(bare)) {
      if (run.length > 0) flush();
      titled = true;
      continue;
    }
    if (run.length > 0 && PARTICLE.test(bare)) {
      run.push(bare);
      continue;
    }
    if (NAME_WORD.test(bare) && !NOT_NAME.has(fold(bare))) run.push(bare);
    else if (run.length > 0 || titled) flush();
    if (ended && run.length > 0) flush();
  }
  if (run.length > 0) flush();
  return { names, single };
}

/** A line that is nothing but a person's name ("Priya Natarajan", "Dr. Martin Vogt"). */
function isNameLine(sentence: Sentence, companyWords: ReadonlySet<string>): boolean {
  if (!sentence.first || !sentence.last || sentence.text.length > 60 || /[.!?:]$/.test(sentence.text.replace(/\b(?:Dr|Prof|Ing|Mag)\.$/, ''))) return false;
  const { names } = personNames(sentence.text, companyWords);
  return names.length === 1 && (names[0] as string).split(' ').length >= sentence.text.split(/\s+/).filter((word) => !TITLE.test(word)).length;
}

const PAGE_WEIGHT: Record<PageKind, number> = { imprint: 0.1, contact: 0.1, about: 0.05, products: 0, other: 0, news: -0.1, careers: -0.15, privacy: -0.3 };

// ---------------------------------------------------------------------------------------------------------
// founded

/** A year (not part of a date, a number or a decade: 1990s, 1990er). */
const YEAR = /(?<![\d.,/-])(1[5-9]\d\d|20\d\d)(?![\d/]|[.,-]\d|s\b|er\b|er-)/g;
const FOUNDING = /\b(founded|co-?founded|established|est\.|incorporated|gegrue?ndet|grue?ndete[n]?|grue?ndung|gegr\.|grue?ndungsjahr|ins leben gerufen|aus der taufe)/;
const SINCE_YEAR = /\b(since|seit|sinds|depuis|family company since|familienunternehmen seit)\s+(?:(?:dem |the )?(?:jahre?|year)\s+)?(1[5-9]\d\d|20\d\d)\b/;
const OPENED = /\b(opened|opens|started|began|set up|took over|eroe?ffnete|eroe?ffnet|begann|startete|ue?bernahm|ue?bernommen|erste[n]? (?:backstube|werkstatt|laden|filiale|geschae?ft))\b/;
/** Built: a house's founding year, weaker (machines are built too). */
const BUILT = /\b(built|erbaut|gebaut)\b/;
const RUNNING = /\b(leitet|geleitet|fue?hrt|gefue?hrt|geschae?ftsfue?hrer\w*|ceo|managing|leads|runs|director|leiter\w*|zog|moved|umgewandelt|renamed|umbenannt)\b/;
const NOT_FOUNDING_YEAR = /©|\bcopyright\b|\bstand\b|\blast updated\b|\bzuletzt\b|\baktualisiert\b|\bupdated\b/;

function founded(sentence: Sentence): (Evidence & { year: number }) | null {
  const { folded } = sentence;
  if (NOT_FOUNDING_YEAR.test(folded)) return null;
  const years = [...folded.matchAll(YEAR)].map((match) => Number(match[1]));
  if (years.length === 0) return null;
  const since = SINCE_YEAR.exec(folded);
  let score = 0;
  let year = Math.min(...years);
  if (FOUNDING.test(folded)) score = 1;
  else if (since) {
    score = RUNNING.test(folded) ? 0.5 : 0.8;
    year = Number(since[2]);
  } else if (OPENED.test(folded)) score = RUNNING.test(folded) ? 0.35 : 0.6;
  else if (BUILT.test(folded)) score = 0.5;
  return score > 0 ? { score, parts: [], year } : null;
}

// ---------------------------------------------------------------------------------------------------------
// employees

const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  [
    'two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty',
    'zwei drei vier funf sechs sieben acht neun zehn elf zwolf dreizehn vierzehn funfzehn sechzehn siebzehn achtzehn neunzehn zwanzig',
  ].flatMap((words) => words.split(' ').map((word, index): [string, number] => [word, index + 2])),
);
Object.assign(NUMBER_WORDS, { thirty: 30, forty: 40, fifty: 50, sixty: 60, hundred: 100, dreissig: 30, vierzig: 40, funfzig: 50, sechzig: 60, hundert: 100 });
const COUNT = String.raw`(\d{1,3}(?:[.,'’ ]\d{3})+|\d+|${Object.keys(NUMBER_WORDS).join('|')})`;
const ABOUT = String.raw`(?:(?:around|about|approximately|roughly|over|more than|almost|nearly|some|rund|etwa|ca\.?|ue?ber|mehr als|knapp|fast|heute|inzwischen|derzeit|aktuell)\s+)?`;
const STAFF_STRONG = String.raw`employees|employee|staff|colleagues|workers|team members|members of staff|mitarbeiter\w*|mitarbeitende\w*|beschae?ftigte\w*|angestellte\w*|kolleg\w*|fachkrae?fte\w*|koe?pfe`;
const STAFF_WEAK = String.raw`people|persons|menschen|leute|personen`;
const WEAK_STAFF = new RegExp(`^(?:${STAFF_WEAK})$`);
const AT_WORK = /\b(work\w*|arbeit\w*|employ\w*|beschae?ftigt\w*|team|staff)\b/;
const COUNT_THEN_STAFF = new RegExp(String.raw`\b${COUNT}\+?\s+(?:[\p{L}-]+\s+){0,3}?(${STAFF_STRONG}|${STAFF_WEAK})\b`, 'u');
const TEAM_OF = new RegExp(String.raw`\b(?:team|staff|belegschaft|workforce)\s+(?:of|aus|von|mit|besteht aus|umfasst|zae?hlt|is|ist)\s+${ABOUT}${COUNT}\b`);
const EMPLOYS = new RegExp(String.raw`\b(?:employs?|employing|beschae?ftigt|beschae?ftigen)\s+(?:[\p{L}]+\s+){0,3}?${ABOUT}${COUNT}\b`, 'u');
/** Before a count: a range or who a product is for ("für Betriebe mit zwei bis hundert Beschäftigten"). */
const NOT_OWN_STAFF = /\b(fur|for|mit|with|bis|to|up to|zwischen|between|customers|kunden|betriebe)\s+(?:\S+\s+){0,2}$/;

function countValue(text: string): { value: number; word: boolean } {
  const word = NUMBER_WORDS[text];
  if (word !== undefined) return { value: word, word: true };
  return { value: Number(text.replace(/[.,'’ ]/g, '')), word: false };
}

function employees(sentence: Sentence): Evidence | null {
  const { folded } = sentence;
  let best = 0;
  const consider = (match: RegExpExecArray | null, countGroup: number, weight: number): void => {
    const raw = match?.[countGroup];
    if (!match || raw === undefined) return;
    const { value, word } = countValue(raw);
    if (!(value >= 2) || (value >= 1900 && value <= 2100)) return;
    let score = weight * (word ? 0.7 : 1);
    if (NOT_OWN_STAFF.test(folded.slice(Math.max(0, match.index - 30), match.index + match[0].indexOf(raw)))) score *= 0.3;
    best = Math.max(best, score);
  };
  const counted = COUNT_THEN_STAFF.exec(folded);
  // "people" and "Menschen" are staff only where they work ("180 people work at …", not "15 young people started training").
  consider(counted, 1, counted?.[2] && WEAK_STAFF.test(counted[2]) ? (AT_WORK.test(folded) ? 0.7 : 0.35) : 1);
  consider(TEAM_OF.exec(folded), 1, 0.9);
  consider(EMPLOYS.exec(folded), 1, 1);
  return best > 0 ? { score: best, parts: [] } : null;
}

// ---------------------------------------------------------------------------------------------------------
// leadership

const ROLE_STRONG = /\b(geschae?ftsfue?hrer(?:in|innen)?|geschae?ftsfue?hrende[rn]?|geschae?ftsfue?hrung|geschae?ftsleitung|managing directors?|managing partners?|ceo|chief executive(?: officer)?|\w*inhaber(?:in)?|owners?|proprietors?|general manager|vorstand\w*|vorstae?nde|vertreten durch|vertretungsberechtigte?\w*|represented by|authori[sz]ed (?:to represent|representatives?)|betriebsleiter(?:in)?|gastgeber(?:in|innen)?|your hosts?|hotel (?:manager|director)|hoteldirektor(?:in)?)\b/;
/** Who runs it, in the passive ("run by the Steiner family", "wird von Reto Brunner geführt"). */
const ROLE_PASSIVE = /\b(run|led|headed|managed|owned)\s+by\b|\b(geleitet|gefue?hrt)\b/;
/** In the active, with the company as the object ("führt das Unternehmen", "leads Brightwater as CEO"). */
const ROLE_VERB = /\b(runs?|leads?|heads?|manages|leitet|leiten|fue?hrt|fue?hren)\b/;
const ROLE_OBJECT = /\b(unternehmen|betrieb\w*|firma|gesche?ae?ft\w*|company|business|firm|kanzlei|praxis|hotel|haus|generation|ceo|bae?ckerei|werkstatt|druckerei)\b/;
const ROLE_CHAIR = /\b(president|prae?sident(?:in)?|chairman|chairwoman|chair|vorsitzende[r]?)\b/;
/** Partners run law, tax and consulting firms; elsewhere a partner may be another company. */
const ROLE_PARTNER = /\b((?:managing |equity |senior )?partners?|partnerin(?:nen)?|gesellschafter(?:in)?)\b/;
const ROLE_FOUNDER = /\b(founders?|co-?founders?|grue?nder(?:in|innen)?|grue?ndete[n]?)\b|\b(founded|established|set up|started)\b.*\bby\b|\bvon\b.*\bgegrue?ndet\b/;
/** A director of something (of customer success, of sales) is not who runs the company; a director alone may be. */
const ROLE_DIRECTOR = /\b(directors?|direktor(?:in)?)\b(?! (?:of|fue?r)\b)/;
const ROLE_WEAK = /\b(directors?|direktor(?:in)?|leiter(?:in)?|head of|leitung)\b/;

function roleWeight(folded: string, founders: boolean): number {
  if (founders) return ROLE_FOUNDER.test(folded) ? 1 : ROLE_STRONG.test(folded) ? 0.5 : 0;
  if (ROLE_STRONG.test(folded)) return 1;
  if (ROLE_PASSIVE.test(folded)) return 0.9;
  if (ROLE_VERB.test(folded)) return ROLE_OBJECT.test(folded) ? 0.9 : 0.4;
  if (ROLE_FOUNDER.test(folded)) return 0.6;
  if (ROLE_DIRECTOR.test(folded)) return 0.7;
  if (ROLE_CHAIR.test(folded)) return 0.55;
  if (ROLE_PARTNER.test(folded)) return 0.5;
  if (ROLE_WEAK.test(folded)) return 0.4;
  return 0;
}

function leadership(sentences: readonly Sentence[], index: number, intent: QuestionIntent, companyWords: ReadonlySet<string>): Evidence | null {
  const sentence = sentences[index] as Sentence;
  const weight = roleWeight(sentence.folded, intent.founders);
  if (weight === 0) return null;
  const page = PAGE_WEIGHT[sentence.pageKind];
  const { names, single } = personNames(sentence.text, companyWords);
  if (names.length > 0) return { score: weight + page, parts: [index] };
  // A role line under a name line ("Priya Natarajan" / "Chief Executive Officer and co-founder"), or over one.
  const before = sentences[index - 1];
  const after = sentences[index + 1];
  const short = sentence.first && sentence.last && sentence.text.length <= 120;
  if (short && before && before.pageIndex === sentence.pageIndex && before.line === sentence.line - 1 && isNameLine(before, companyWords)) return { score: 0.95 * weight + page, parts: [index - 1, index] };
  if (short && after && after.pageIndex === sentence.pageIndex && after.line === sentence.line + 1 && isNameLine(after, companyWords)) return { score: 0.9 * weight + page, parts: [index, index + 1] };
  if (single > 0) return { score: 0.8 * weight + page, parts: [index] };
  return { score: 0.3 * weight, parts: [index] };
}

// ---------------------------------------------------------------------------------------------------------
// location

const SEAT_LABEL = /^(sitz(?: der gesellschaft| des unternehmens| der firma)?|firmensitz|hauptsitz|unternehmenssitz|gesellschaftssitz|registered office|registered address|headquarters|head office|hq|domicile|sitz und registergericht|standort)\s*[:：]\s*\S/;
const ADDRESS_HEADING = /^(headquarters|head office|hauptsitz|firmensitz|unser standort|our office|our address|anschrift|adresse|address|postanschrift|visit us|so finden sie uns|besuchen sie uns|hier finden sie uns|find us|standort)$/;
const BASED_IN = /\b(based in|located in|situated in|headquartered in|head office is in|registered in|sitz(?:t)? in|mit sitz in|ansae?ssig in|befindet sich in|beheimatet in|zu ?hause in|niedergelassen in|gelegen in|liegt (?:mitten )?in|headquarters (?:are|is) in)\s+\S/;
const MADE_IN = /\b(made in|hergestellt in|produziert in|gefertigt in|manufactured in|gedruckt in|gebacken in|designed and built in)\s+\p{Lu}/u;
const OUR_PLACE = /\bour (?:own |new |main )?(office|offices|plant|factory|workshop|headquarters|premises|shop|store|studio|site)\b.{0,30}?\b(in|at)\s+\S/;
const IS_A_IN = /\b(is|ist|sind)\s+(?:a|an|ein|eine|einer|der|die|das|ihr|ihre|your)\s+[^.,;]{0,60}?\b(in|aus)\s+\p{Lu}/u;
const POSTCODE_TOWN = /^(?:[A-Z]{1,2}-)?\d{4,5}\s+\p{Lu}[\p{L}.'’ -]*$/u;
const UK_POSTCODE = /^\p{Lu}[\p{L} .'’-]*\s+[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/u;
const INLINE_ADDRESS = /\d+\s?[a-zA-Z]?,\s*(?:[A-Z]{1,2}-)?\d{4,5}\s+\p{Lu}/u;
const COUNTRY = /^(germany|deutschland|austria|osterreich|switzerland|schweiz|suisse|svizzera|united kingdom|uk|england|scotland|wales|ireland|liechtenstein|luxembourg|luxemburg|netherlands|niederlande|italy|italien|france|frankreich|usa|united states)$/;

function location(sentences: readonly Sentence[], index: number): Evidence | null {
  const sentence = sentences[index] as Sentence;
  const { folded, text } = sentence;
  const page = PAGE_WEIGHT[sentence.pageKind];
  if (SEAT_LABEL.test(folded)) return { score: 1 + page, parts: [index] };
  if (BASED_IN.test(folded)) return { score: 0.95 + page, parts: [index] };
  if (sentence.first && sentence.last && ADDRESS_HEADING.test(folded.replace(/[:.]$/, ''))) {
    const block = addressBlockAfter(sentences, index);
    if (block) return { score: 0.9 + page, parts: block };
  }
  const whole = sentence.first && sentence.last;
  if (whole && (POSTCODE_TOWN.test(text) || UK_POSTCODE.test(text))) return { score: 0.75 + page, parts: addressBlockAround(sentences, index) };
  if (INLINE_ADDRESS.test(text)) return { score: 0.6 + page, parts: [index] };
  if (IS_A_IN.test(text)) return { score: 0.8 + page, parts: [index] };
  if (OUR_PLACE.test(folded)) return { score: 0.75 + page, parts: [index] };
  if (MADE_IN.test(text)) return { score: 0.65 + page, parts: [index] };
  return null;
}

/** Same page, consecutive lines. */
function adjacent(a: Sentence | undefined, b: Sentence | undefined): boolean {
  return a !== undefined && b !== undefined && a.pageIndex === b.pageIndex && Math.abs(a.line - b.line) === 1 && a.first && a.last && b.first && b.last;
}

/** An address line: a short line without a sentence end (a name, a street and number, a postcode and town). */
function isAddressLine(sentence: Sentence): boolean {
  return sentence.first && sentence.last && sentence.text.length <= 80 && !/[.!?:]$/.test(sentence.text) && !/@|\b(?:tel|telefon|phone|fax|e-?mail)\b/i.test(sentence.text);
}

/** The address block whose postcode line is `index`: up to two lines before it, and a country after. */
function addressBlockAround(sentences: readonly Sentence[], index: number): number[] {
  const parts = [index];
  for (let at = index - 1; at >= index - 2; at--) {
    const line = sentences[at];
    if (!line || !adjacent(line, sentences[at + 1]) || !isAddressLine(line) || ADDRESS_HEADING.test(line.folded)) break;
    parts.unshift(at);
  }
  const next = sentences[index + 1];
  if (next && adjacent(sentences[index], next) && COUNTRY.test(next.folded)) parts.push(index + 1);
  return parts;
}

/** The address block that follows a heading such as "Headquarters" (its postcode line within four lines). */
function addressBlockAfter(sentences: readonly Sentence[], heading: number): number[] | null {
  for (let at = heading + 1; at <= heading + 4; at++) {
    const line = sentences[at];
    if (!line || !adjacent(sentences[at - 1], line) || !isAddressLine(line)) return null;
    if (POSTCODE_TOWN.test(line.text) || UK_POSTCODE.test(line.text)) return addressBlockAround(sentences, at).filter((part) => part > heading);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// contact

const PHONE_NUMBER = /(?<![\w@.+/-])(?:\+|00|0)\d[\d \u00a0()/.\-–]{5,22}\d(?![\d])/g;
const PHONE_LABEL = /\b(tel|telefon\w*|phone|telephone|fon|call|ring|ruf\w*|hotline|mobil\w*|handy|anrufen)\b|☎|📞/;
const FAX = /fax\b/;
const EMAIL_ADDRESS = /[\p{L}\d._%+-]+@[\p{L}\d-]+(?:\.[\p{L}\d-]+)+/gu;
const EMAIL_LABEL = /\b(e-?mail|mail|email us|write|schreiben sie|schreib)\b|✉/;
const SECONDARY = /\b(support|hotline|notdienst|bewerbung\w*|jobs?|careers?|karriere|press|presse|datenschutz|privacy|vertrieb|sales|abroad|ausland|usa|north america)\b/;
const MAIN_MAILBOX = /^(info|hello|hallo|office|kontakt|contact|mail|post|team|service|welcome|anfrage|enquiries|inquiries)@/;
const SECONDARY_MAILBOX = /^(support|jobs|careers|bewerbung|privacy|datenschutz|press|presse|abuse|noreply|no-reply|webmaster|billing|rechnung|torten)/;

/** The telephone numbers of a text, as digits only (dates and short runs left out). */
export function phoneNumbers(text: string): string[] {
  const numbers: string[] = [];
  for (const match of text.matchAll(PHONE_NUMBER)) {
    const raw = match[0];
    if (/^\d{1,2}\.\d{1,2}\.\d{2,4}$/.test(raw)) continue;
    const digits = raw.replace(/\D/g, '');
    if (digits.length >= 7 && digits.length <= 15) numbers.push(digits.replace(/^00/, '').replace(/^0/, ''));
  }
  return numbers;
}

function phoneScore(sentence: Sentence, counts: ReadonlyMap<string, number>): number {
  const numbers = sentence.phones;
  if (numbers.length === 0) return 0;
  const { folded } = sentence;
  if (FAX.test(folded) && !PHONE_LABEL.test(folded)) return 0;
  const repeated = Math.max(...numbers.map((number) => counts.get(number) ?? 0)) >= 2;
  return 0.6 + (PHONE_LABEL.test(folded) ? 0.2 : 0) + (repeated ? 0.1 : 0) + PAGE_WEIGHT[sentence.pageKind] - (SECONDARY.test(folded) ? 0.15 : 0);
}

function emailScore(sentence: Sentence): number {
  const addresses = [...sentence.folded.matchAll(EMAIL_ADDRESS)].map((match) => match[0]);
  if (addresses.length === 0) return 0;
  const main = addresses.some((address) => MAIN_MAILBOX.test(address));
  const secondary = addresses.every((address) => SECONDARY_MAILBOX.test(address));
  return 0.6 + (EMAIL_LABEL.test(sentence.folded) ? 0.2 : 0) + (main ? 0.1 : 0) - (secondary ? 0.2 : 0) + PAGE_WEIGHT[sentence.pageKind] - (SECONDARY.test(sentence.folded) ? 0.1 : 0);
}

// ---------------------------------------------------------------------------------------------------------
// what

const BOILERPLATE = /\b(cookies?|javascript|browser|newsletter|datenschutzerklae?rung|privacy policy|all rights reserved|alle rechte)\b/;
/** A greeting says nothing about the company ("Herzlich willkommen in unserer Kanzlei!"). */
const GREETING = /^(?:(?:herzlich|recht herzlich) )?willkommen\b|^welcome\b|^hello\b|^hallo\b|^gru(?:e|ss) gott\b|^guten tag\b|^schoe?n, dass\b|^nice to\b/;
const PURPOSE_LABEL = /^(unternehmensgegenstand|gegenstand des unternehmens|geschae?ftszweck|business purpose|nature of business)\s*:\s*\S/;
const IS_A = /\b(is|ist|are|sind)\s+(?:a|an|ein|eine|einer|the|der|die|das|ihr|ihre|your)\b/;
const FIRST_PERSON = /^(?:\S+\s+){0,2}?(we|wir|our|unser\w*)\b/;

/** A full sentence of `words` words that can describe something: a sentence end (or many words), no question, no boilerplate. */
function isDescriptive(sentence: Sentence, words: number): boolean {
  return words >= 4 && (/[.!]$/.test(sentence.text) || words >= 12) && !/\?/.test(sentence.text) && !BOILERPLATE.test(sentence.folded) && !GREETING.test(sentence.folded);
}

const FIRST_TWO_WORDS = /^(\S*)(?:\s+(\S*))?/;

/** Whether the sentence starts with a word of the company's name (the company as its subject). */
function startsWithCompany(sentence: Sentence, companyWords: ReadonlySet<string>): boolean {
  const [, first = '', second = ''] = FIRST_TWO_WORDS.exec(sentence.folded) ?? [];
  return [first, second].some((word) => companyWords.has(word.replace(/[^\p{L}\p{N}]/gu, '')));
}

// ---------------------------------------------------------------------------------------------------------
// products

const OFFER_VERB = /\b(offer\w*|sell\w*|make|makes|build\w*|produc\w*|manufactur\w*|develop\w*|design\w*|print\w*|bake\w*|install\w*|supply|supplies|provide\w*|deliver\w*|bieten|biete|bietet|verkauf\w*|fertig\w*|bau\w*|produzier\w*|entwickel\w*|druck\w*|back\w*|installier\w*|liefer\w*|plan\w*|herstell\w*|stell\w* her|vertreib\w*|erstell\w*|repar\w*|wart\w*|fuhren|fue?hren)\b/;
const OUR_RANGE = /\b(our|unser\w*)\s+(?:\w+\s+){0,2}?(products?|services?|range|portfolio|solutions?|machines?|produkte?|leistungen|sortiment|angebot|dienstleistungen|loe?sungen|maschinen)\b/;
const NAMED_PRODUCT = /^\p{Lu}[\p{L}\d-]*(?:\s\p{Lu}[\p{L}\d-]*)?(?:,\s+(?:our|unser\w*)\b|\s+(?:is|ist)\s+(?:our|unser\w*)\b)/u;
/** Words before a list that make it a list of customers or places, not of products. */
const FOR_WHOM = /\b(for|fur|from|aus|in|across|von|to|an|bei|with|mit|customers|kunden|clients)\b/;

/** Whether the sentence enumerates things (three or more, or two with a comma and a conjunction), and for whom. */
function enumeration(sentence: Sentence): { list: boolean; forWhom: boolean; ours: boolean } {
  const { folded } = sentence;
  const commas = (folded.match(/,/g) ?? []).length;
  const conjunction = /\b(und|and|sowie|oder|or)\b|&/.test(folded);
  const letterWords = (folded.match(/\p{L}{4,}/gu) ?? []).length;
  const list = letterWords >= 3 && (commas >= 2 || (commas >= 1 && conjunction));
  if (!list) return { list: false, forWhom: false, ours: false };
  const before = folded.slice(0, folded.indexOf(',')).split(/\s+/);
  const lead = before.slice(-5).join(' ');
  return { list, forWhom: FOR_WHOM.test(lead), ours: /\b(our|unser\w*|we|wir)\b/.test(before.slice(0, 3).join(' ')) };
}

/** Share of the question's words (name and stop words out) in the sentence. */
function overlap(sentence: Sentence, asked: readonly string[]): number {
  return asked.length === 0 ? 0 : sentence.matched.length / asked.length;
}

function products(sentence: Sentence, asked: readonly string[], companyWords: ReadonlySet<string>): number {
  if (BOILERPLATE.test(sentence.folded)) return 0;
  const { list, forWhom, ours } = enumeration(sentence);
  let score = 0;
  if (list && !forWhom) score += ours ? 0.5 : 0.35;
  if (NAMED_PRODUCT.test(sentence.text)) score += 0.6;
  const subject = FIRST_PERSON.test(sentence.folded) || startsWithCompany(sentence, companyWords);
  if (subject && OFFER_VERB.test(sentence.folded)) score += 0.2;
  if (OUR_RANGE.test(sentence.folded)) score += 0.15;
  if (score === 0) return 0;
  const home = sentence.pageIndex === 0 ? 0.1 : 0;
  const page = sentence.pageKind === 'products' ? 0.15 : sentence.pageKind === 'imprint' || sentence.pageKind === 'privacy' || sentence.pageKind === 'careers' ? -0.3 : 0;
  return score + home + page + 0.25 * overlap(sentence, asked);
}

// ---------------------------------------------------------------------------------------------------------
// The extractor

/** What the extractors know of the site: its name's words, and how often each telephone number appears. */
export interface SiteFacts {
  companyWords: ReadonlySet<string>;
  phoneCounts: ReadonlyMap<string, number>;
}

/** Evidence below this is no answer (the generic passage ranking may still find one). */
const MIN_EVIDENCE = 0.45;

/**
 * The best evidence among `sentences` for `intent`, or null. `asked`: the question's content words (name
 * and stop words out). Reads each sentence once, in `consider` calls, so that the caller can spread the
 * work over steps; `best()` gives the result.
 */
export class AnswerExtractor {
  private readonly scores: number[] = [];
  private readonly evidence: (Evidence | null)[] = [];
  private readonly years: number[] = [];
  /** Descriptive sentences seen so far, per page (for "what": the first ones count most). */
  private readonly descriptive = new Map<number, number>();

  constructor(
    private readonly intent: QuestionIntent,
    private readonly sentences: readonly Sentence[],
    private readonly asked: readonly string[],
    private readonly site: SiteFacts,
  ) {}

  /** Looks at the sentence `index` (each once, in order). */
  consider(index: number): void {
    const found = this.evidenceFor(index);
    this.evidence[index] = found;
    this.scores[index] = found?.score ?? 0;
  }

  private evidenceFor(index: number): Evidence | null {
    const sentence = this.sentences[index] as Sentence;
    const { companyWords, phoneCounts } = this.site;
    switch (this.intent.kind) {
      case 'founded': {
        const found = founded(sentence);
        if (!found) return null;
        this.years[index] = found.year;
        return { score: found.score + PAGE_WEIGHT[sentence.pageKind] / 2, parts: [index] };
      }
      case 'employees': {
        const found = employees(sentence);
        return found ? { score: found.score + PAGE_WEIGHT[sentence.pageKind] / 2, parts: [index] } : null;
      }
      case 'leadership':
        return leadership(this.sentences, index, this.intent, companyWords);
      case 'location':
        return location(this.sentences, index);
      case 'contact': {
        const phone = this.intent.channel === 'email' ? 0 : phoneScore(sentence, phoneCounts);
        const email = this.intent.channel === 'phone' ? 0 : emailScore(sentence);
        const score = this.intent.channel === 'any' ? Math.max(phone, email) + (phone > 0 && email > 0 ? 0.1 : 0) : Math.max(phone, email);
        return score > 0 ? { score, parts: [index] } : null;
      }
      case 'what': {
        if (PURPOSE_LABEL.test(sentence.folded)) return { score: 0.7, parts: [index] };
        if (sentence.pageIndex !== 0 && sentence.pageKind !== 'about') return null;
        const words = sentence.text.split(/\s+/).length;
        if (!isDescriptive(sentence, words)) return null;
        const rank = this.descriptive.get(sentence.pageIndex) ?? 0;
        this.descriptive.set(sentence.pageIndex, rank + 1);
        let score = (sentence.pageIndex === 0 ? 0.75 : 0.6) - 0.08 * rank;
        if (startsWithCompany(sentence, companyWords)) score += 0.2;
        else if (FIRST_PERSON.test(sentence.folded)) score += 0.1;
        if (IS_A.test(sentence.folded)) score += 0.1;
        const parts = [index];
        const next = this.sentences[index + 1];
        if (!sentence.last && next && words < 12) parts.push(index + 1);
        return score > 0 ? { score, parts } : null;
      }
      case 'products': {
        const score = products(sentence, this.asked, companyWords);
        return score > 0 ? { score, parts: [index] } : null;
      }
      case 'other':
        return null;
    }
  }

  /** The strongest evidence (the earlier sentence on a tie), at least MIN_EVIDENCE, or null. */
  best(): Evidence | null {
    let bestIndex = -1;
    let bestScore = MIN_EVIDENCE - 1e-9;
    // A sparse array: reduce visits the sentences with a year only.
    const earliest = this.years.reduce((min, year) => (year < min ? year : min), Number.POSITIVE_INFINITY);
    for (let index = 0; index < this.scores.length; index++) {
      let score = this.scores[index] ?? 0;
      if (score <= 0) continue;
      // Founding: of the sentences with a year, the earliest year is the founding one.
      if (this.intent.kind === 'founded' && this.years[index] === earliest) score += 0.05;
      if (score > bestScore) {
        bestScore = score;
        bestIndex = index;
      }
    }
    const found = this.evidence[bestIndex];
    if (!found) return null;
    const parts = [...found.parts];
    if (this.intent.kind === 'products') {
      // The next sentence of the same paragraph when it lists products too.
      const next = bestIndex + 1;
      const sentence = this.sentences[bestIndex];
      if (sentence && !sentence.last && (this.scores[next] ?? 0) >= MIN_EVIDENCE) parts.push(next);
    }
    if (this.intent.kind === 'contact' && this.intent.channel === 'any') {
      // A telephone number and an e-mail address: the best line of the other kind on the same page.
      const chosen = this.sentences[bestIndex] as Sentence;
      const hasPhone = chosen.phones.length > 0;
      const hasEmail = /@/.test(chosen.text);
      if (!(hasPhone && hasEmail)) {
        let other = -1;
        let otherScore = 0;
        for (let index = 0; index < this.sentences.length; index++) {
          const sentence = this.sentences[index] as Sentence;
          if (sentence.pageIndex !== chosen.pageIndex || index === bestIndex) continue;
          const score = hasPhone ? emailScore(sentence) : phoneScore(sentence, this.site.phoneCounts);
          if (score > otherScore) {
            other = index;
            otherScore = score;
          }
        }
        if (other >= 0 && otherScore >= MIN_EVIDENCE) parts.push(other);
        parts.sort((a, b) => a - b);
      }
    }
    return { score: Math.min(1, bestScore), parts: [...new Set(parts)] };
  }
}
