/**
 * The language-processing interface's seam: a deployment may answer with a hosted language model by
 * implementing `LanguageProvider`; the default answers locally, deterministically, from the data.
 */
import type { BatchKeyword, QnaResponse, QueryResponse } from '../../contract/language.js';
import type { RequestOutput } from '../../contract/endpoints.js';
import type { ColumnStore } from '../store/store.js';
import { answerSteps, type QnaPage } from './qna.js';
import { relatedKeywords } from './related-keywords.js';
import { messageOf } from '../../contract/errors.js';

/** The language answers, each from the values of a body the contract has parsed (the server's routes parse each once). */
export interface LanguageProvider {
  /** Alternative keywords for a list of keywords (POST /v1/generate-keywords). */
  generateKeywords(keywords: readonly string[]): Promise<BatchKeyword> | BatchKeyword;
  /** A natural-language query as legacy search parameters (POST /v1/nlp_search). */
  /** A query its caller has parsed with the contract (the server's route). */
  nlpSearch(request: RequestOutput<'language.nlpSearch'>): Promise<QueryResponse> | QueryResponse;
  /** A question answered from a website's pages (POST /v1/qna), in the spec's envelope; `signal`: the caller left. */
  qna(question: string, domain: string, maxPages: number, signal?: AbortSignal): Promise<QnaResponse>;
}

/** What the local provider needs from its host: fetching pages (Node) and counting tokens. */
export interface LanguageHost {
  /**
   * The site's pages; `note` says why fewer than asked were read (a time limit). Aborting `signal` ends
   * the fetching (it then rejects). `question`: what the pages are read for (the pages likely to answer it
   * first: question-kind.ts `linkPriority`).
   */
  fetchPages?: (domain: string, maxPages: number, signal?: AbortSignal, question?: string) => Promise<{ pages: QnaPage[]; note?: string | null }>;
  /** A real tokenizer's count; without one, an estimate of one token per four characters. */
  countTokens?: (text: string) => number;
  /**
   * Runs step-wise work (the answer to a question: each step a few ms) to its end. A host with an event
   * loop gives it a turn between steps, so that other requests are served meanwhile; it may stop when
   * `signal` aborts (then it rejects). Without one, every step runs at once.
   */
  runSteps?: <T>(steps: Iterator<unknown, T>, signal?: AbortSignal) => Promise<T>;
}

/** Every step at once. */
function runAll<T>(steps: Iterator<unknown, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return Promise.resolve(step.value);
  }
}

/**
 * What the local provider reads of an index: its store (related keywords) and its nlp_search of a parsed
 * body. The engine's Engine is one; the language layer sits below it and does not import it.
 */
export interface LanguageIndex {
  readonly store: ColumnStore;
  nlpSearchParsed(request: RequestOutput<'language.nlpSearch'>, clock?: () => number): QueryResponse;
}

/** The local provider over an index: related terms from the corpus (see related-keywords.ts). */
export function localLanguageProvider(index: () => LanguageIndex | null, now: () => number, host: LanguageHost = {}): LanguageProvider {
  const current = (): LanguageIndex => {
    const value = index();
    if (!value) throw new Error('the index is not loaded');
    return value;
  };
  return {
    generateKeywords(keywords) {
      return { original_keywords: [...keywords], alternative_keywords: relatedKeywords(current().store, keywords) };
    },
    nlpSearch(request) {
      return current().nlpSearchParsed(request, now);
    },
    async qna(question, domain, maxPages, signal) {
      if (!host.fetchPages) return { success: false, can_answer: false, message: `Could not read ${domain}`, error: 'this host cannot fetch web pages' };
      let site: { pages: QnaPage[]; note?: string | null };
      try {
        site = await host.fetchPages(domain, maxPages, signal, question);
      } catch (error) {
        return { success: false, can_answer: false, message: `Could not read ${domain}`, error: messageOf(error) };
      }
      const steps = answerSteps(question, site.pages, { countTokens: host.countTokens ?? ((text) => Math.ceil(text.length / 4)), ...(site.note ? { incomplete: site.note } : {}) });
      try {
        return await (host.runSteps ?? runAll)(steps, signal);
      } catch (error) {
        // Stopped because the caller left: nobody reads this envelope; any other failure is a fault.
        if (signal?.aborted) return { success: false, can_answer: false, message: `Could not answer from ${domain}`, error: messageOf(error) };
        throw error;
      }
    },
  };
}
