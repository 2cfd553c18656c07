/**
 * /v1/qna's answer, extractive and local: the question is answered with the sentence of the fetched pages
 * that answers it, quoted as it stands (nothing is invented), or not at all.
 *
 * - Context: the pages' sentences in page order, until the 40,000-token budget of the spec is spent
 *   (tokens counted by the injected tokenizer: the server passes a real one; a sentence with a run of more
 *   than LONG_RUN characters without a space is counted in pieces of LONG_RUN, which may count a token more
 *   per piece). A line of the page (a heading, a paragraph, a table cell, a line of an Impressum) ends a
 *   sentence; so does a sentence end before a capital, unless after an abbreviation (Dr., Ing., i. Br.) or
 *   an ordinal (1. Januar). Text is read only as far as the budget reaches; a run of more than MAX_SENTENCE
 *   characters without a sentence end is cut at a space.
 * - The question's kind (question-kind.ts: what the company does, founded, location, employees,
 *   leadership, products, contact) chooses an extractor (answer-extractors.ts) that looks for the evidence
 *   sites give for it, in English and German, sentence by sentence: the strongest evidence answers, with
 *   the sentences it needs (a name line with its role line, an address block, a telephone line and an
 *   e-mail line). `confidence` grows with the evidence (0.6 to 0.95).
 * - Otherwise (another kind of question, or no evidence): generic passage ranking. Score of a sentence: 0.6
 *   × the share of the question's information it contains (its content words in English and German, stop
 *   words of both out, stemmed, the words of the company's name out, weighted by idf over the sentences) +
 *   0.4 × the cosine of their SIF vectors. The best sentence answers (with a second one from another page
 *   when it scores nearly as well); `confidence` is its score. Below CAN_ANSWER_THRESHOLD, with less than
 *   half of the question's information, or when a word of the question occurs nowhere in the pages read
 *   (the site does not speak of it), `can_answer` is false with a message asking for another question.
 * - Each answer is cited with its page's label (the title) and address.
 * - Follow-up questions come from the strongest content words of the sentences, not quoted, that share most
 *   of the question's words.
 * - When fewer pages were read than asked (a time limit), the message says so.
 * - Step-wise: `answerSteps` does the work in steps of bounded size (about STEP_WORK characters of text
 *   each, a few ms), so that a host with an event loop can serve other requests between them;
 *   `answerQuestion` runs them all at once.
 */
import type { QnaResult } from '../../contract/language.js';
import { sifGloveEmbedder } from '../relevance/embedder.js';
import { foldTypedUmlauts } from '../relevance/tokenize.js';
import { AnswerExtractor, contentWords, foldedContentWords, phoneNumbers, rememberedStems, sameWord, type Sentence } from './answer-extractors.js';
import { fold, pageKind, questionIntent } from './question-kind.js';

export const MAX_CONTEXT_TOKENS = 40_000;
export const CAN_ANSWER_THRESHOLD = 0.35;
/** The least share of the question's information the generic ranking answers with. */
const MIN_OVERLAP = 0.5;
export const CANNOT_ANSWER_MESSAGE = 'The website does not seem to answer this question. Please ask another question, or give more context.';
/**
 * Work of one step of `answerSteps`, in characters of text read plus, for each sentence, the larger of its
 * characters, TOKEN_WORK per token (text of many tokens per character, CJK, costs more to count) and
 * PASSAGE_WORK (its fixed cost: tokens, words, vector), so that tiny sentences add up too.
 */
export const STEP_WORK = 16_384;
const TOKEN_WORK = 8;
const PASSAGE_WORK = 256;
/** Ranked passages taken between two steps when choosing the answer. */
const RANK_STEP = 512;
/** Sentences kept as the sources of follow-up questions (three are proposed, each of another topic). */
const FOLLOW_UP_CANDIDATES = 12;
/**
 * The longest sentence, in characters: longer runs without a sentence end are cut at a space. Counting the
 * tokens of a run without spaces costs more than in proportion to its length (~10 ms at 4,000 characters).
 */
export const MAX_SENTENCE = 1_000;
/**
 * Runs without whitespace longer than this are counted in pieces: a BPE tokenizer's cost grows faster than
 * the length of a run it cannot split (1,000 letters without a space: ~1–5 ms; 2,000: ~3–15 ms).
 */
export const LONG_RUN = 200;
/** A line break, or the end of a sentence before a capital, a digit or a quote. */
const SENTENCE_END = /\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“„])/gu;
/** A word before a period that does not end a sentence: abbreviations, titles, initials, ordinals. */
const NO_SENTENCE_END = /(?:^|[\s(])(?:dr|prof|ing|mag|dipl|nr|str|st|abs|art|ca|bzw|ggf|inkl|zzgl|evtl|mr|mrs|ms|jr|sr|vs|no|tel|fa|gem|vgl|usw|co|inc|ltd|u|z|b|i|d|h|e|v|a|o|br|\p{L}|\d{1,2})\.$/iu;

export interface QnaPage {
  url: string;
  label: string;
  text: string;
}

export interface QnaOptions {
  /** Tokens of a text (the context budget); the server injects a real tokenizer. */
  countTokens: (text: string) => number;
  maxContextTokens?: number;
  /** Why fewer pages were read than asked (e.g. a time limit passed): added to the message. */
  incomplete?: string;
}

interface Passage extends Sentence {
  page: QnaPage;
  cosine: number;
  /** Position in the context: ties of score go to the earlier sentence. */
  order: number;
  score: number;
}

/**
 * The sentence of `text` that starts at `from` (untrimmed), where the next one starts, and whether a line
 * ends with it. The sentence end is looked for within MAX_SENTENCE characters only, so that each call reads
 * a bounded stretch of text.
 */
function nextSentence(text: string, from: number): { sentence: string; next: number; lineEnd: boolean } {
  const window = text.slice(from, from + MAX_SENTENCE);
  SENTENCE_END.lastIndex = 0;
  for (let end = SENTENCE_END.exec(window); end; end = SENTENCE_END.exec(window)) {
    const lineEnd = end[0].includes('\n');
    // "Dr. Martin Vogt", "Ing. Markus Gruber", "Freiburg i. Br.", "am 1. Januar": no sentence ends there.
    if (!lineEnd && NO_SENTENCE_END.test(window.slice(Math.max(0, end.index - 8), end.index))) continue;
    return { sentence: window.slice(0, end.index), next: from + end.index + end[0].length, lineEnd };
  }
  if (from + window.length >= text.length) return { sentence: window, next: text.length, lineEnd: true };
  let cut = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
  if (cut <= 0) {
    cut = window.length;
    const last = window.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut--; // never between the halves of a surrogate pair
  }
  return { sentence: window.slice(0, cut), next: from + cut, lineEnd: false };
}

/** The words of a company's name, from its site's host name (brunner-druck.ch: brunner, druck). */
function hostWords(pages: readonly QnaPage[]): Set<string> {
  const host = /^[a-z]+:\/\/(?:[^/@]*@)?([^/:?#]+)/i.exec(pages[0]?.url ?? '')?.[1] ?? '';
  const labels = host.toLowerCase().split('.');
  // The registrable name: the label before the public suffix (co.uk, com.au: two labels).
  const name = labels.length >= 3 && /^(co|com|org|net|ac|gv|or)$/.test(labels[labels.length - 2] ?? '') ? labels[labels.length - 3] : labels[labels.length - 2];
  const words = new Set<string>();
  for (const part of (name ?? '').split('-')) {
    if (part.length < 3) continue;
    words.add(part);
    // Typed transliterations: baeckerei is Bäckerei, folded bäckerei.
    words.add(foldTypedUmlauts(part));
  }
  return words;
}

/** Whether `text` has more than LONG_RUN characters in a row without whitespace (one pass, no backtracking). */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Space, tab, line breaks, no-break space: what the tokenizer's pre-split breaks runs at (near enough).
    if (code === 32 || (code >= 9 && code <= 13) || code === 0xa0) run = 0;
    else if (++run > LONG_RUN) return true;
  }
  return false;
}

/** The tokens of a passage: exact, or (with a long run in it) the sum over pieces of LONG_RUN characters. */
function tokensOf(text: string, countTokens: (text: string) => number): number {
  if (!hasLongRun(text)) return countTokens(text);
  let tokens = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + LONG_RUN);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // never between the halves of a surrogate pair
    tokens += countTokens(text.slice(at, end));
    at = end;
  }
  return tokens;
}

/** Rank order: higher score first, then the earlier passage. */
const before = (a: Passage, b: Passage): boolean => a.score > b.score || (a.score === b.score && a.order < b.order);

/** A binary heap of passages in rank order: the best few are taken without sorting them all. */
class RankHeap {
  private readonly items: Passage[];
  constructor(items: Passage[]) {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
  get size(): number {
    return this.items.length;
  }
  pop(): Passage | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }
  private down(start: number): void {
    const items = this.items;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < items.length && before(items[left] as Passage, items[best] as Passage)) best = left;
      if (right < items.length && before(items[right] as Passage, items[best] as Passage)) best = right;
      if (best === i) return;
      const swap = items[i] as Passage;
      items[i] = items[best] as Passage;
      items[best] = swap;
      i = best;
    }
  }
}

/**
 * The answer, in steps: each `next()` does a bounded amount of work (about STEP_WORK characters of text,
 * or RANK_STEP ranked passages) and the last one returns the result. Same result as `answerQuestion`.
 */
export function* answerSteps(question: string, pages: readonly QnaPage[], options: QnaOptions): Generator<void, QnaResult, void> {
  const companyWords = hostWords(pages);
  const companyStems = new Set([...companyWords].flatMap((word) => contentWords(word)));
  // The question's content words; the words of the company's name are no information (every page has them).
  const questionWords = [...new Set(contentWords(question))];
  const asked = questionWords.filter((word) => ![...companyStems].some((name) => sameWord(word, name)));
  let intent = questionIntent(question);
  // "What is Brightwater Analytics?", "Wer ist Datenwerk?": nothing asked but the company itself.
  if (intent.kind === 'other' && asked.length === 0 && questionWords.length > 0 && /^\s*(what|who|was|wer)\b/i.test(question)) intent = { ...intent, kind: 'what' };
  const embedder = sifGloveEmbedder();
  const questionVector = embedder.embed(question);
  const budget = options.maxContextTokens ?? MAX_CONTEXT_TOKENS;
  const documents = new Map<string, number>();
  /** Sentences each question word occurs in. */
  const askedDocuments = asked.map(() => 0);
  const passages: Passage[] = [];
  const phoneCounts = new Map<string, number>();
  let used = 0;
  let work = 0;
  let line = 0;
  const stemOf = rememberedStems();

  // The context: sentences in page order until the token budget is spent (text past it is never read).
  // Each sentence is folded, split into words and searched for telephone numbers here, once: the
  // extractors and the ranking read the results.
  const add = (page: QnaPage, pageIndex: number, kind: Sentence['pageKind'], text: string, first: boolean, last: boolean): boolean => {
    const tokens = tokensOf(text, options.countTokens);
    if (used + tokens > budget) return false;
    used += tokens;
    const folded = fold(text);
    const words = foldedContentWords(folded, stemOf);
    const matched: number[] = [];
    const distinct = new Set(words);
    for (const word of distinct) documents.set(word, (documents.get(word) ?? 0) + 1);
    asked.forEach((word, index) => {
      for (const other of distinct) {
        if (!sameWord(word, other)) continue;
        matched.push(index);
        askedDocuments[index] = (askedDocuments[index] ?? 0) + 1;
        break;
      }
    });
    const phones = phoneNumbers(text);
    for (const number of phones) phoneCounts.set(number, (phoneCounts.get(number) ?? 0) + 1);
    let cosine = 0;
    const vector = questionVector ? embedder.embed(text) : null;
    if (questionVector && vector) for (let d = 0; d < vector.length; d++) cosine += (questionVector[d] ?? 0) * (vector[d] ?? 0);
    passages.push({ page, text, folded, words, matched, phones, pageIndex, pageKind: kind, line, first, last, cosine, order: passages.length, score: 0 });
    work += Math.max(PASSAGE_WORK, text.length, TOKEN_WORK * tokens);
    return true;
  };
  collect: for (const [pageIndex, page] of pages.entries()) {
    // What the page is, from its address and title; the start page's title describes the company, not the page.
    const kind = pageKind(/^[a-z]+:\/\/[^/]*(\/[^?#]*)?/i.exec(page.url)?.[1] ?? '/', pageIndex === 0 ? '' : page.label);
    let first = true;
    for (let at = 0; at < page.text.length; ) {
      const { sentence, next, lineEnd } = nextSentence(page.text, at);
      work += next - at;
      at = next;
      const trimmed = sentence.trim();
      const last = lineEnd || at >= page.text.length;
      if (trimmed) {
        if (!add(page, pageIndex, kind, trimmed, first, last)) break collect;
        first = false;
      }
      if (last) {
        if (!first) line++;
        first = true;
      }
      if (work >= STEP_WORK) {
        work = 0;
        yield;
      }
    }
    line++;
  }

  // The question's kind: the extractor's evidence, sentence by sentence.
  const extractor = new AnswerExtractor(intent, passages, asked, { companyWords, phoneCounts });
  if (intent.kind !== 'other') {
    for (let index = 0; index < passages.length; index++) {
      extractor.consider(index);
      work += (passages[index] as Passage).text.length + PASSAGE_WORK;
      if (work >= STEP_WORK) {
        work = 0;
        yield;
      }
    }
  }
  const evidence = extractor.best();

  const idfAsked = (index: number): number => Math.log(1 + (passages.length + 1) / ((askedDocuments[index] ?? 0) + 0.5));
  const idf = (word: string): number => Math.log(1 + (passages.length + 1) / ((documents.get(word) ?? 0) + 0.5));
  const askedWeight = asked.reduce((sum, _word, index) => sum + idfAsked(index), 0) || 1;
  for (const passage of passages) {
    const overlap = passage.matched.reduce((sum, index) => sum + idfAsked(index), 0) / askedWeight;
    passage.score = 0.6 * overlap + 0.4 * Math.max(0, passage.cosine);
    work += PASSAGE_WORK / 4;
    if (work >= STEP_WORK) {
      work = 0;
      yield;
    }
  }
  yield;

  // Passages in rank order, taken from the heap only as far as they are needed.
  const heap = new RankHeap([...passages]);
  const ranked: Passage[] = [];
  function* rankedAt(index: number): Generator<void, Passage | undefined, void> {
    while (ranked.length <= index && heap.size > 0) {
      ranked.push(heap.pop() as Passage);
      if (ranked.length % RANK_STEP === 0) yield;
    }
    return ranked[index];
  }

  let chosen: Passage[];
  let confidence: number;
  if (evidence) {
    chosen = evidence.parts.map((index) => passages[index] as Passage);
    confidence = 0.6 + 0.35 * Math.min(1, Math.max(0, evidence.score - 0.45) / 0.55);
  } else {
    const best = yield* rankedAt(0);
    // A word of the question that no page read contains: the site does not speak of it.
    const unknown = askedDocuments.some((count) => count === 0);
    const share = best ? best.matched.reduce((sum, index) => sum + idfAsked(index), 0) / askedWeight : 0;
    // A question of a known kind whose extractor found nothing: one word in common is chance ("based" in
    // "paper-based"), two are a match.
    const needed = intent.kind === 'other' ? 1 : Math.min(2, asked.length);
    if (!best || best.matched.length < Math.max(1, needed) || best.score < CAN_ANSWER_THRESHOLD || share < MIN_OVERLAP || unknown) {
      const message = options.incomplete ? `${CANNOT_ANSWER_MESSAGE} Only ${pages.length} page(s) were read: ${options.incomplete}.` : CANNOT_ANSWER_MESSAGE;
      return { success: true, can_answer: false, message, data: null };
    }
    chosen = [best];
    for (let index = 1; ; index++) {
      const entry = yield* rankedAt(index);
      // Ranked by score: past 0.8 × the best one, no passage qualifies any more.
      if (!entry || entry.score < 0.8 * best.score) break;
      if (entry.page !== best.page && entry.matched.length > 0) {
        chosen.push(entry);
        break;
      }
    }
    confidence = Math.min(1, best.score);
  }
  // The answer: the chosen sentences of each page (a line each), then the page's label; labels as the
  // interface gives them, each with the address of its first page (an OrgIndex extension).
  const addresses = new Map<string, string>();
  const byPage = new Map<QnaPage, Passage[]>();
  for (const entry of chosen) {
    if (!addresses.has(entry.page.label)) addresses.set(entry.page.label, entry.page.url);
    byPage.set(entry.page, [...(byPage.get(entry.page) ?? []), entry]);
  }
  const sources = [...addresses.keys()];
  const answer = [...byPage].map(([page, entries]) => `${joinSentences(entries)}\n\n— *${page.label}*`).join('\n\n');
  // Follow-up questions: the sentences sharing most of the question's information after the answer (then
  // the earliest), by words alone, so that every host (each with its own word vectors) proposes the same.
  const candidates: { passage: Passage; share: number }[] = [];
  for (const passage of passages) {
    const share = passage.matched.reduce((sum, index) => sum + idfAsked(index), 0);
    if (!chosen.includes(passage) && (candidates.length < FOLLOW_UP_CANDIDATES || share > (candidates[candidates.length - 1]?.share ?? 0))) {
      let at = candidates.length;
      while (at > 0 && share > (candidates[at - 1]?.share ?? 0)) at--;
      candidates.splice(at, 0, { passage, share });
      if (candidates.length > FOLLOW_UP_CANDIDATES) candidates.pop();
    }
    work += PASSAGE_WORK / 4;
    if (work >= STEP_WORK) {
      work = 0;
      yield;
    }
  }
  const followUps: string[] = [];
  for (const { passage: entry } of candidates) {
    if (followUps.length === 3) break;
    // The entry's strongest content word not in the question (the first of equally strong ones).
    let topic: string | undefined;
    let strength = Number.NEGATIVE_INFINITY;
    for (const word of entry.words) {
      if (word.length <= 3 || asked.includes(word) || companyStems.has(word)) continue;
      const weight = idf(word);
      if (weight > strength) {
        topic = word;
        strength = weight;
      }
    }
    const shown = topic === undefined ? undefined : surfaceOf(entry.text, topic);
    if (shown && !followUps.some((followUp) => followUp.includes(`"${shown}"`))) followUps.push(`What does ${entry.page.label} say about "${shown}"?`);
  }
  return {
    success: true,
    can_answer: true,
    message: `Answered from ${sources.length} of ${pages.length} page(s)${options.incomplete ? `; ${options.incomplete}` : ''}`,
    data: { answer, sources, source_urls: [...addresses.values()], confidence: Math.round(confidence * 100) / 100, follow_up_questions: followUps, can_answer: true },
  };
}

/** The word of `text` whose stem is `stem`, lower case as a follow-up question shows it. */
function surfaceOf(text: string, stem: string): string | undefined {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => word.toLowerCase()).find((word) => contentWords(word)[0] === stem);
}

/**
 * Sentences of one page as one text: sentences of one line joined by a space, lines by a comma (an address
 * block, a name and its role) or, after a sentence end, by a space.
 */
function joinSentences(entries: readonly Passage[]): string {
  let text = '';
  entries.forEach((entry, index) => {
    const before = entries[index - 1];
    if (!before) text = entry.text;
    else if (before.line === entry.line || /[.!?:;]$/.test(before.text)) text += ` ${entry.text}`;
    else text += `, ${entry.text}`;
  });
  return text;
}

/** The answer to `question` from `pages`, all at once (see `answerSteps` for the same work in steps). */
export function answerQuestion(question: string, pages: readonly QnaPage[], options: QnaOptions): QnaResult {
  const steps = answerSteps(question, pages, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
