/**
 * What an everyday question about a company asks for, in English or German, and which pages of a site are
 * likely to say it. Portable: no Node modules, no host globals (the Sheets runtime uses it too).
 *
 * - `questionKind`: the kind of a question (`what` the company does, when it was `founded`, where it is —
 *   `location` —, how many `employees`, who runs it — `leadership` —, its `products` or services, how to
 *   `contact` it), else `other`. Patterns over the folded question (lower case, umlauts as plain vowels):
 *   "wann gegründet", "seit wann", "when founded"; "wer leitet", "Geschäftsführer", "CEO", "who runs";
 *   "wie viele Mitarbeiter", "how many employees"; "wo", "Sitz", "where based"; "was macht", "what does …
 *   do"; "Produkte", "Leistungen", "products", "services"; "Telefon", "E-Mail", "contact". Questions about
 *   money (revenue, profit, prices) are `other`: no page convention answers them.
 * - `pageKind`: what a page is, from its address and its link text or title (Impressum, Kontakt, Über uns,
 *   Produkte …); `linkPriority`: for page choice, how early a link should be read for a question.
 */

export type QuestionKind = 'what' | 'founded' | 'location' | 'employees' | 'leadership' | 'products' | 'contact' | 'other';

export interface QuestionIntent {
  kind: QuestionKind;
  /** For `contact`: the telephone number, the e-mail address, or either (both when the site gives both). */
  channel: 'phone' | 'email' | 'any';
  /** For `leadership`: the question asks for the founders rather than who runs the company today. */
  founders: boolean;
}

/**
 * Lower case, umlauts and ß as plain letters (the patterns below also accept the typed ae, oe, ue where a
 * German word has an umlaut).
 */
export function fold(text: string): string {
  return text.toLowerCase().replace(/[äàáâ]/g, 'a').replace(/[öòóô]/g, 'o').replace(/[üùúû]/g, 'u').replace(/[éèê]/g, 'e').replace(/ß/g, 'ss');
}

const MONEY = /\b(how much|wie ?viel|wie hoch|revenue|turnover|sales volume|profit|earn\w*|salar\w*|price\w*|cost\w*|umsatz\w*|gewinn\w*|jahresumsatz|preis\w*|kost\w*|gehalt\w*|verdien\w*)\b/;
const EMPLOYEES = new RegExp(
  [
    String.raw`\b(how many|wie viele?|number of|anzahl|size of)\b.*\b(people|persons?|employees?|staff|workers?|team|colleagues|mitarbeit\w*|beschae?ftigt\w*|angestellt\w*|leute|menschen|personen|kolleg\w*)`,
    String.raw`\b(employees|employ|staff|headcount|workforce|mitarbeiter\w*|mitarbeitende\w*|beschae?ftigte\w*|belegschaft|angestellte\w*)\b`,
    String.raw`\b(people|leute|menschen|personen)\b.*\b(work|arbeiten)\b`,
  ].join('|'),
);
const CONTACT = /\b(phone|telephone|call|ring|e-?mail|mail address|contact\w*|reach|fax|telefon\w*|tel|anruf\w*|anrufen|kontakt\w*|erreich\w*|mail|rufnummer|hotline)\b/;
const PHONE = /\b(phone|telephone|call|ring|fax|telefon\w*|tel|anruf\w*|anrufen|rufnummer|hotline|number|nummer)\b/;
const EMAIL = /\b(e-?mail|mail)\b/;
const FOUNDERS = /\b(founders?|co-?founders?|grue?nder\w*)\b|\b(who|wer)\b.*\b(founded|established|started|set up|gegrue?ndet)\b/;
const LEADERSHIP = /\b(ceo|chief executive|managing directors?|directors?|geschae?ftsfue?hr\w*|inhaber\w*|owners?|owns|proprietor|leads?|runs?|heads?|manages?|managers?|leitet|leiten|leitung|fue?hrt|fue?hren|chef\w*|boss|president|prae?sident\w*|vorstand\w*|eigentue?mer\w*|gehoe?rt|management|geschae?ftsleitung|chairman|chairwoman|partners?)\b/;
const WHO = /\b(who|whom|wer|wem|name|names|heisst|heissen|namen)\b/;
const FOUNDED = /\b(founded|established|since when|how old|year of foundation|founding|history|gegrue?ndet|grue?ndung\w*|seit wann|wie alt|grue?ndungsjahr|entstanden|gibt es (?:\w+ ){0,4}(?:schon|seit)|besteht (?:\w+ ){0,4}seit|eroe?ffnet|in business)\b|\bwhen (?:did|was|were)\b.*\b(start\w*|opened|open|set up|began|begin|created|launched)\b/;
const LOCATION = /\b(where|wo|located|location|based|headquarter\w*|hq|address|adresse|anschrift|sitz\w*|ansae?ssig|standort\w*|which (city|town|country)|welche[rnm]? (stadt|ort|land)|befindet|liegt|firmensitz|hauptsitz|woher)\b/;
const PRODUCTS = /\b(products?|services?|offer\w*|sell\w*|make|makes|build|builds|manufactur\w*|produc\w*|range|portfolio|solutions?|machines?|goods|produkt\w*|leistung\w*|angebot\w*|bietet|bieten|anbiet\w*|sortiment|verkauf\w*|herstell\w*|dienstleistung\w*|loe?sung\w*|waren|artikel)\b/;
const WHAT = /\bwhat (does|do|did) .*\bdo\b|\bwhat (is|are) .* (about|known for)\b|\bwhat kind of (company|business|firm)\b|\bwhat business\b|\btell me about\b|\bwas (macht|machen|tut|tun)\b|\bwas ist (?:\w+ ){0,4}fue?r (ein|eine)\b|\bwomit\b|\btae?tigkeit\w*|\bbranche\b|\bindustry\b|\bwas genau\b|\bbeschreib\w*/;

/** What `question` asks for (see the module comment). */
export function questionIntent(question: string): QuestionIntent {
  const text = fold(question).replace(/[’']s\b/g, '').replace(/\s+/g, ' ');
  const intent = (kind: QuestionKind): QuestionIntent => ({
    kind,
    channel: kind === 'contact' ? (PHONE.test(text) && !EMAIL.test(text) ? 'phone' : EMAIL.test(text) && !PHONE.test(text) ? 'email' : 'any') : 'any',
    founders: kind === 'leadership' && FOUNDERS.test(text),
  });
  if (MONEY.test(text)) return intent('other');
  if (EMPLOYEES.test(text)) return intent('employees');
  if (EMAIL.test(text)) return intent('contact');
  if (LOCATION.test(text) && /\b(address|adresse|anschrift)\b/.test(text)) return intent('location');
  if (CONTACT.test(text)) return intent('contact');
  if (FOUNDERS.test(text) || (WHO.test(text) && LEADERSHIP.test(text)) || /\b(ceo|managing directors?|geschae?ftsfue?hr\w*|inhaber\w*|owner)\b/.test(text)) return intent('leadership');
  if (FOUNDED.test(text)) return intent('founded');
  if (LOCATION.test(text)) return intent('location');
  if (WHAT.test(text)) return intent('what');
  if (PRODUCTS.test(text)) return intent('products');
  return intent('other');
}

/** The kind of a question (see `questionIntent`). */
export function questionKind(question: string): QuestionKind {
  return questionIntent(question).kind;
}

// ---------------------------------------------------------------------------------------------------------
// Pages

export type PageKind = 'imprint' | 'contact' | 'about' | 'products' | 'privacy' | 'careers' | 'news' | 'other';

const PAGE_PATTERNS: readonly [PageKind, RegExp][] = [
  ['privacy', /datenschutz|privacy|cookie|\bagb\b|terms|nutzungsbedingung|geschae?ftsbedingung|widerruf|dsgvo|gdpr|disclaimer|haftungsausschluss/],
  ['imprint', /impressum|imprint|legal|rechtliche|offenlegung|anbieterkennzeichnung/],
  ['contact', /kontakt|contact|anfahrt|directions|find us|find-us|standorte?\b|locations?\b|reach us|anreise|how to get/],
  ['careers', /karriere|career|jobs?\b|stellen|vacanc|ausbildung|bewerb|join us|arbeiten bei|work with us/],
  ['about', /about|ue?ber uns|ue?ber-uns|ueber-uns|wir ue?ber uns|unternehmen|company|firma|geschichte|history|story|portrait|portrae?t|profil|profile|who we are|wer wir sind|philosophie|leitbild|\bteam\b|kanzlei|betrieb\b|familie|family/],
  ['products', /produkt|product|leistung|services?\b|dienstleistung|angebot|sortiment|solutions?|loe?sungen|shop|katalog|catalog|portfolio|machines?|maschinen|range|menu|speisekarte|rooms?\b|zimmer|offer/],
  ['news', /news|aktuell|blog|presse|press|events?|termine/],
];

/** What a page is, from its path (a path that names it decides), else its link text or title. */
export function pageKind(path: string, text: string): PageKind {
  return kindOf(decodeSafely(path)) ?? kindOf(text) ?? 'other';
}

function kindOf(text: string): PageKind | null {
  const folded = fold(text).replace(/[_/.=?&]+/g, ' ');
  for (const [kind, pattern] of PAGE_PATTERNS) if (pattern.test(folded)) return kind;
  return null;
}

function decodeSafely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** How early pages of each kind are read for a question of each kind: higher first, 0 in link order. */
const PRIORITY: Record<QuestionKind, Partial<Record<PageKind, number>>> = {
  what: { about: 3, products: 2, privacy: -2, careers: -1, news: -1 },
  founded: { about: 3, imprint: 1, privacy: -2, news: -1 },
  location: { imprint: 3, contact: 3, about: 2, privacy: -2, news: -1 },
  employees: { about: 3, careers: 1.5, imprint: 0.5, privacy: -2, news: -1 },
  leadership: { imprint: 3, about: 2.5, contact: 1, privacy: -2, news: -1 },
  products: { products: 3, about: 1.5, privacy: -2, careers: -1, news: -1 },
  contact: { contact: 3, imprint: 2.5, about: 1, privacy: -2, news: -1 },
  other: { privacy: -1 },
};

/**
 * For page choice: how early the page a link leads to should be read for `question` (higher first; links of
 * equal priority in the order they were found). `path` is the link's path, `text` its link text.
 */
export function linkPriority(question: string): (path: string, text: string) => number {
  const priorities = PRIORITY[questionKind(question)];
  return (path, text) => priorities[pageKind(path, text)] ?? 0;
}
