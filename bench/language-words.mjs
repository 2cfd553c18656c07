// The content words of a text in the language eval (eval/language/): what the fulltext mode searches a
// query with, and what "shares a word" means in the eval's rule (see eval/language/README.md).
import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemmer as stemGerman } from '@orama/stemmers/german';

/** English function words (and the contractions' tails: it's, don't, we'll). */
const ENGLISH = `
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just let me more most my myself no nor
not now of off on once only or other our ours ourselves out over own same she should so some someone
something such than that the their theirs them themselves then there these they this those through to too
under until up us very was we were what when where which while who whom whose why will with within without
would you your yours yourself yourselves
s t d ll m re ve
`;

/** German function words: articles, pronouns, prepositions, conjunctions, auxiliaries and modals, particles. */
const GERMAN = `
aber alle allem allen aller alles als also am an ans auch auf aufs aus bei beim bin bis bist bitte da dadurch
daher damit dann darf darum das dass dein deine deinem deinen deiner dem den denen denn der deren des dessen
dich die dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines er es
etwas euch euer eure fuer fuers gegen gibt hab habe haben hat hatte hier ich ihm ihn ihnen ihr ihre ihrem ihren ihrer
im in ins ist ja jemand jemanden jemandem kann kannst koennen koennte kein keine keinem keinen keiner man
manche mehr mein meine meinem meinen meiner mich mir mit muss muessen nach nicht nichts noch nur ob oder ohne sehr
schon sein seine seinem seinen seiner selbst sich sie sind so soll sollen sollte um und uns unser unsere unserem unseren
unserer unter vom von vor waehrend war waren warum was weil welche welchem welchen welcher welches wenn wer
werden wie wieder wir wird wo woher wohin wurde zu zum zur zwischen ueber
`;

/**
 * A word folded for comparison: lower case, accents stripped, ß → ss, and the German umlauts in any
 * spelling to their plain vowel (ä, ae and a all → a; not the u after q: "quelle").
 */
export function fold(word) {
  return word
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/(?<!q)([aou])e/g, '$1');
}

const STOP_WORDS = new Set(`${ENGLISH} ${GERMAN}`.split(/\s+/).filter(Boolean).map(fold));

/** True when the word (in any spelling) is an English or German function word, or a single character. */
export function isStopWord(word) {
  const folded = fold(word);
  return folded.length < 2 || STOP_WORDS.has(folded);
}

/**
 * The content words of a query as the user typed them, lower-cased, each once: the words a keyword search
 * looks up. A hyphenated word stays whole ("e-bike"), as the keyword engine reads it.
 */
export function queryKeywords(text) {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*/gu) ?? [];
  return [...new Set(words.filter((w) => !isStopWord(w)))];
}

/** The content words of a text, folded, split at every non-letter (so "e-bike" is "bike"), each once. */
export function contentWords(text) {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => !isStopWord(w)).map(fold))];
}

/** A folded word's Snowball stems in both languages. */
export function stemsOf(word) {
  return { de: stemGerman(word), en: stemEnglish(word) };
}

/**
 * The query's content words that the text shares: equal German stems or equal English stems. Each entry
 * names the query word and the text's word ("radiators ~ radiator").
 */
export function sharedWords(query, text) {
  const german = new Map();
  const english = new Map();
  for (const word of contentWords(text)) {
    const { de, en } = stemsOf(word);
    if (!german.has(de)) german.set(de, word);
    if (!english.has(en)) english.set(en, word);
  }
  const shared = [];
  for (const word of contentWords(query)) {
    const { de, en } = stemsOf(word);
    const match = german.get(de) ?? english.get(en);
    if (match !== undefined) shared.push(`${word} ~ ${match}`);
  }
  return shared;
}
