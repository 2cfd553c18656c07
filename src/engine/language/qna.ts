/**
 * /v1/qna's answer, extractive and local: the question is answered with the passages of the fetched pages
 * that answer it best, quoted as they stand (nothing is invented), or not at all.
 *
 * - Context: the pages' passages (up to three sentences each) in page order, until the 40,000-token
 *   budget of the spec is spent (tokens counted by the injected tokenizer: the server passes a real one;
 *   a passage with a run of more than LONG_RUN characters without a space is counted in pieces of
 *   LONG_RUN, which may count a token more per piece). Text is read only as far as the budget reaches; a
 *   run of more than MAX_SENTENCE characters without a sentence end is cut at a space.
 * - Score of a passage: 0.6 × the share of the question's information it contains (its content words,
 *   plural-insensitive, weighted by idf over the passages) + 0.4 × the cosine of their SIF vectors.
 * - The best passage answers (with a second one from another page when it scores nearly as well);
 *   `confidence` is its score; below CAN_ANSWER_THRESHOLD, or sharing no content word with the question,
 *   `can_answer` is false with a message asking for another question.
 * - Follow-up questions come from the strongest content words of the next passages not yet used.
 * - When fewer pages were read than asked (a time limit), the message says so.
 * - Step-wise: `answerSteps` does the work in steps of bounded size (about STEP_WORK characters of text
 *   each, a few ms), so that a host with an event loop can serve other requests between them;
 *   `answerQuestion` runs them all at once.
 */
import type { QnaResult } from '../../contract/language.js';
import { sifGloveEmbedder } from '../relevance/embedder.js';
import { stemMinimalEnglish } from '../relevance/tokenize.js';

export const MAX_CONTEXT_TOKENS = 40_000;
export const CAN_ANSWER_THRESHOLD = 0.35;
export const CANNOT_ANSWER_MESSAGE = 'The website does not seem to answer this question. Please ask another question, or give more context.';
/**
 * Work of one step of `answerSteps`, in characters of text read plus, for each passage, the larger of its
 * characters, TOKEN_WORK per token (text of many tokens per character, CJK, costs more to count) and
 * PASSAGE_WORK (its fixed cost: tokens, words, vector), so that tiny passages add up too.
 */
export const STEP_WORK = 16_384;
const TOKEN_WORK = 8;
const PASSAGE_WORK = 256;
/** Ranked passages taken between two steps when choosing the answer and the follow-up questions. */
const RANK_STEP = 512;
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
const SENTENCE_END = /\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“])/gu;

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

interface Passage {
  page: QnaPage;
  text: string;
  words: string[];
  /** Indexes (ascending) of the question's content words this passage contains. */
  matched: number[];
  cosine: number;
  /** Position in the context: ties of score go to the earlier passage. */
  order: number;
  score: number;
}

const STOP = new Set(
  'a an the of for in on at to from by with and or but is are was were be been do does did what which who whom whose when where why how whats is it its this that these those there their they them you your we our us i me my can could would should will shall may might must has have had about into over than then so not no yes any some all each more most other such own same very just also only'.split(' '),
);

/** Content words: lower case, letters and digits, stop words out, plural stems. */
function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 && !STOP.has(word)).map(stemMinimalEnglish);
}

/**
 * The sentence of `text` that starts at `from` (untrimmed) and where the next one starts. The sentence end
 * is looked for within MAX_SENTENCE characters only, so that each call reads a bounded stretch of text.
 */
function nextSentence(text: string, from: number): { sentence: string; next: number } {
  const window = text.slice(from, from + MAX_SENTENCE);
  SENTENCE_END.lastIndex = 0;
  const end = SENTENCE_END.exec(window);
  if (end) return { sentence: window.slice(0, end.index), next: from + end.index + end[0].length };
  if (from + window.length >= text.length) return { sentence: window, next: text.length };
  let cut = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
  if (cut <= 0) {
    cut = window.length;
    const last = window.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut--; // never between the halves of a surrogate pair
  }
  return { sentence: window.slice(0, cut), next: from + cut };
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
  const asked = [...new Set(contentWords(question))];
  const askedIndex = new Map(asked.map((word, index) => [word, index]));
  const embedder = sifGloveEmbedder();
  const questionVector = embedder.embed(question);
  const budget = options.maxContextTokens ?? MAX_CONTEXT_TOKENS;
  const documents = new Map<string, number>();
  const passages: Passage[] = [];
  let used = 0;
  let work = 0;

  // The context: passages in page order until the token budget is spent (text past it is never read).
  const add = (page: QnaPage, text: string): boolean => {
    const tokens = tokensOf(text, options.countTokens);
    if (used + tokens > budget) return false;
    used += tokens;
    const words = contentWords(text);
    const matched: number[] = [];
    for (const word of new Set(words)) {
      documents.set(word, (documents.get(word) ?? 0) + 1);
      const index = askedIndex.get(word);
      if (index !== undefined) matched.push(index);
    }
    matched.sort((a, b) => a - b);
    let cosine = 0;
    const vector = questionVector ? embedder.embed(text) : null;
    if (questionVector && vector) for (let d = 0; d < vector.length; d++) cosine += (questionVector[d] ?? 0) * (vector[d] ?? 0);
    passages.push({ page, text, words, matched, cosine, order: passages.length, score: 0 });
    work += Math.max(PASSAGE_WORK, text.length, TOKEN_WORK * tokens);
    return true;
  };
  collect: for (const page of pages) {
    const group: string[] = [];
    for (let at = 0; at < page.text.length; ) {
      const { sentence, next } = nextSentence(page.text, at);
      work += next - at;
      at = next;
      const trimmed = sentence.trim();
      if (trimmed) group.push(trimmed);
      if (group.length === 3) {
        if (!add(page, group.join(' '))) break collect;
        group.length = 0;
      }
      if (work >= STEP_WORK) {
        work = 0;
        yield;
      }
    }
    if (group.length > 0 && !add(page, group.join(' '))) break;
  }

  const idf = (word: string): number => Math.log(1 + (passages.length + 1) / ((documents.get(word) ?? 0) + 0.5));
  const askedWeight = asked.reduce((sum, word) => sum + idf(word), 0) || 1;
  for (const passage of passages) {
    const overlap = passage.matched.reduce((sum, index) => sum + idf(asked[index] as string), 0) / askedWeight;
    passage.score = 0.6 * overlap + 0.4 * Math.max(0, passage.cosine);
  }
  yield;

  // Passages in rank order, taken from the heap only as far as they are needed.
  const heap = new RankHeap(passages);
  const ranked: Passage[] = [];
  function* rankedAt(index: number): Generator<void, Passage | undefined, void> {
    while (ranked.length <= index && heap.size > 0) {
      ranked.push(heap.pop() as Passage);
      if (ranked.length % RANK_STEP === 0) yield;
    }
    return ranked[index];
  }

  const best = yield* rankedAt(0);
  if (!best || best.matched.length === 0 || best.score < CAN_ANSWER_THRESHOLD) {
    const message = options.incomplete ? `${CANNOT_ANSWER_MESSAGE} Only ${pages.length} page(s) were read: ${options.incomplete}.` : CANNOT_ANSWER_MESSAGE;
    return { success: true, can_answer: false, message, data: null };
  }
  const chosen = [best];
  for (let index = 1; ; index++) {
    const entry = yield* rankedAt(index);
    // Ranked by score: past 0.8 × the best one, no passage qualifies any more.
    if (!entry || entry.score < 0.8 * best.score) break;
    if (entry.page !== best.page && entry.matched.length > 0) {
      chosen.push(entry);
      break;
    }
  }
  // Labels as the interface gives them, each with the address of its first page (an OrgIndex extension).
  const addresses = new Map<string, string>();
  for (const entry of chosen) if (!addresses.has(entry.page.label)) addresses.set(entry.page.label, entry.page.url);
  const sources = [...addresses.keys()];
  const answer = chosen.map((entry) => `${entry.text}\n\n— *${entry.page.label}*`).join('\n\n');
  const followUps: string[] = [];
  for (let index = 0; followUps.length < 3; index++) {
    const entry = yield* rankedAt(index);
    if (!entry) break;
    if (chosen.includes(entry)) continue;
    // The entry's strongest content word not in the question (the first of equally strong ones).
    let topic: string | undefined;
    let strength = Number.NEGATIVE_INFINITY;
    for (const word of entry.words) {
      if (word.length <= 3 || askedIndex.has(word)) continue;
      const weight = idf(word);
      if (weight > strength) {
        topic = word;
        strength = weight;
      }
    }
    if (topic && !followUps.some((followUp) => followUp.includes(`"${topic}"`))) followUps.push(`What does ${entry.page.label} say about "${topic}"?`);
  }
  const confidence = Math.round(Math.min(1, best.score) * 100) / 100;
  return {
    success: true,
    can_answer: true,
    message: `Answered from ${sources.length} of ${pages.length} page(s)${options.incomplete ? `; ${options.incomplete}` : ''}`,
    data: { answer, sources, source_urls: [...addresses.values()], confidence, follow_up_questions: followUps, can_answer: true },
  };
}

/** The answer to `question` from `pages`, all at once (see `answerSteps` for the same work in steps). */
export function answerQuestion(question: string, pages: readonly QnaPage[], options: QnaOptions): QnaResult {
  const steps = answerSteps(question, pages, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
