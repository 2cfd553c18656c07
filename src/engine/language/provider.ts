/**
 * The language-processing interface's seam: a deployment may answer with a hosted language model by
 * implementing `LanguageProvider`; the default answers locally, deterministically, from the data.
 */
import type { BatchKeyword, QnaResponse, QueryResponse } from '../../contract/language.js';
import { answerQuestion, type QnaPage } from './qna.js';
import type { LocalIndex } from '../local-index.js';
import { parseQuery, WORKFLOW_STEPS } from './query-parser.js';
import { relatedKeywords } from './related-keywords.js';

export interface LanguageProvider {
  /** Alternative keywords for a list of keywords (POST /v1/generate-keywords). */
  generateKeywords(keywords: readonly string[]): Promise<BatchKeyword> | BatchKeyword;
  /** A natural-language query as legacy search parameters (POST /v1/nlp_search). */
  nlpSearch(userQuery: string, searchId: string): Promise<QueryResponse> | QueryResponse;
  /** A question answered from a website's pages (POST /v1/qna), in the spec's envelope. */
  qna(question: string, domain: string, maxPages: number): Promise<QnaResponse>;
}

/** What the local provider needs from its host: fetching pages (Node) and counting tokens. */
export interface LanguageHost {
  fetchPages?: (domain: string, maxPages: number) => Promise<QnaPage[]>;
  /** A real tokenizer's count; without one, an estimate of one token per four characters. */
  countTokens?: (text: string) => number;
}

/** The local provider over an index: related terms from the corpus (see related-keywords.ts). */
export function localLanguageProvider(index: () => LocalIndex | null, now: () => number, host: LanguageHost = {}): LanguageProvider {
  const current = (): LocalIndex => {
    const value = index();
    if (!value) throw new Error('the index is not loaded');
    return value;
  };
  return {
    generateKeywords(keywords) {
      return { original_keywords: [...keywords], alternative_keywords: relatedKeywords(current().store, keywords) };
    },
    nlpSearch(userQuery, searchId) {
      const started = now();
      const today = new Date(started).toISOString().slice(0, 10);
      const payload = parseQuery(current(), userQuery, today);
      return {
        payload,
        metadata: {
          search_id: searchId,
          user_query: userQuery,
          timestamp: new Date(started).toISOString(),
          processing_time: Math.max(0, (now() - started) / 1000),
          workflow_steps: [...WORKFLOW_STEPS],
        },
      };
    },
    async qna(question, domain, maxPages) {
      if (!host.fetchPages) return { success: false, can_answer: false, message: `Could not read ${domain}`, error: 'this host cannot fetch web pages' };
      let pages: QnaPage[];
      try {
        pages = await host.fetchPages(domain, maxPages);
      } catch (error) {
        return { success: false, can_answer: false, message: `Could not read ${domain}`, error: (error as Error).message };
      }
      return answerQuestion(question, pages, { countTokens: host.countTokens ?? ((text) => Math.ceil(text.length / 4)) });
    },
  };
}
