/**
 * /v1/qna's answer, extractive and local: the question is answered with the passages of the fetched pages
 * that answer it best, quoted as they stand (nothing is invented), or not at all.
 *
 * - Context: the pages' passages (up to three sentences each) in page order, until the 40,000-token
 *   budget of the spec is spent (tokens counted by the injected tokenizer: the server passes a real one).
 * - Score of a passage: 0.6 × the share of the question's information it contains (its content words,
 *   plural-insensitive, weighted by idf over the passages) + 0.4 × the cosine of their SIF vectors.
 * - The best passage answers (with a second one from another page when it scores nearly as well);
 *   `confidence` is its score; below CAN_ANSWER_THRESHOLD, or sharing no content word with the question,
 *   `can_answer` is false with a message asking for another question.
 * - Follow-up questions come from the strongest content words of the next passages not yet used.
 */
import type { QnaResult } from '../../contract/language.js';
import { sifGloveEmbedder } from '../relevance/embedder.js';
import { stemMinimalEnglish } from '../relevance/tokenize.js';

export const MAX_CONTEXT_TOKENS = 40_000;
export const CAN_ANSWER_THRESHOLD = 0.35;
export const CANNOT_ANSWER_MESSAGE = 'The website does not seem to answer this question. Please ask another question, or give more context.';

export interface QnaPage {
  url: string;
  label: string;
  text: string;
}

export interface QnaOptions {
  /** Tokens of a text (the context budget); the server injects a real tokenizer. */
  countTokens: (text: string) => number;
  maxContextTokens?: number;
}

interface Passage {
  page: QnaPage;
  text: string;
  words: string[];
}

const STOP = new Set(
  'a an the of for in on at to from by with and or but is are was were be been do does did what which who whom whose when where why how whats is it its this that these those there their they them you your we our us i me my can could would should will shall may might must has have had about into over than then so not no yes any some all each more most other such own same very just also only'.split(' '),
);

/** Content words: lower case, letters and digits, stop words out, plural stems. */
function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 && !STOP.has(word)).map(stemMinimalEnglish);
}

function passagesOf(pages: readonly QnaPage[], options: QnaOptions): Passage[] {
  const budget = options.maxContextTokens ?? MAX_CONTEXT_TOKENS;
  let used = 0;
  const passages: Passage[] = [];
  for (const page of pages) {
    const sentences = page.text
      .split(/\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“])/u)
      .map((sentence) => sentence.trim())
      .filter((sentence) => sentence.length > 0);
    for (let i = 0; i < sentences.length; i += 3) {
      const text = sentences.slice(i, i + 3).join(' ');
      const tokens = options.countTokens(text);
      if (used + tokens > budget) return passages;
      used += tokens;
      passages.push({ page, text, words: contentWords(text) });
    }
  }
  return passages;
}

export function answerQuestion(question: string, pages: readonly QnaPage[], options: QnaOptions): QnaResult {
  const passages = passagesOf(pages, options);
  const asked = [...new Set(contentWords(question))];
  const documents = new Map<string, number>();
  for (const passage of passages) for (const word of new Set(passage.words)) documents.set(word, (documents.get(word) ?? 0) + 1);
  const idf = (word: string): number => Math.log(1 + (passages.length + 1) / ((documents.get(word) ?? 0) + 0.5));
  const askedWeight = asked.reduce((sum, word) => sum + idf(word), 0) || 1;
  const embedder = sifGloveEmbedder();
  const questionVector = embedder.embed(question);
  const scored = passages.map((passage) => {
    const present = new Set(passage.words);
    const matched = asked.filter((word) => present.has(word));
    const overlap = matched.reduce((sum, word) => sum + idf(word), 0) / askedWeight;
    const vector = questionVector ? embedder.embed(passage.text) : null;
    let cosine = 0;
    if (questionVector && vector) for (let d = 0; d < vector.length; d++) cosine += (questionVector[d] ?? 0) * (vector[d] ?? 0);
    return { passage, matched: matched.length, score: 0.6 * overlap + 0.4 * Math.max(0, cosine) };
  });
  const ranked = scored.map((entry, order) => ({ ...entry, order })).sort((a, b) => b.score - a.score || a.order - b.order);
  const best = ranked[0];
  if (!best || best.matched === 0 || best.score < CAN_ANSWER_THRESHOLD) {
    return { success: true, can_answer: false, message: CANNOT_ANSWER_MESSAGE, data: null };
  }
  const used = [best];
  const second = ranked.find((entry) => entry.passage.page !== best.passage.page && entry.matched > 0 && entry.score >= 0.8 * best.score);
  if (second) used.push(second);
  const sources = [...new Set(used.map((entry) => entry.passage.page.label))];
  const answer = used.map((entry) => `${entry.passage.text}\n\n— *${entry.passage.page.label}*`).join('\n\n');
  const askedSet = new Set(asked);
  const followUps: string[] = [];
  for (const entry of ranked) {
    if (used.includes(entry) || followUps.length >= 3) continue;
    const topic = entry.passage.words.filter((word) => !askedSet.has(word) && word.length > 3).sort((a, b) => idf(b) - idf(a))[0];
    if (topic && !followUps.some((question) => question.includes(`"${topic}"`))) followUps.push(`What does ${entry.passage.page.label} say about "${topic}"?`);
  }
  const confidence = Math.round(Math.min(1, best.score) * 100) / 100;
  return {
    success: true,
    can_answer: true,
    message: `Answered from ${sources.length} of ${pages.length} page(s)`,
    data: { answer, sources, confidence, follow_up_questions: followUps, can_answer: true },
  };
}
