/**
 * The language-processing interface's seam: a deployment may answer with a hosted language model by
 * implementing `LanguageProvider`; the default answers locally, deterministically, from the data.
 */
import type { BatchKeyword, QueryResponse } from '../../contract/language.js';
import type { LocalIndex } from '../local-index.js';
import { parseQuery, WORKFLOW_STEPS } from './query-parser.js';
import { relatedKeywords } from './related-keywords.js';

export interface LanguageProvider {
  /** Alternative keywords for a list of keywords (POST /v1/generate-keywords). */
  generateKeywords(keywords: readonly string[]): Promise<BatchKeyword> | BatchKeyword;
  /** A natural-language query as legacy search parameters (POST /v1/nlp_search). */
  nlpSearch(userQuery: string, searchId: string): Promise<QueryResponse> | QueryResponse;
}

/** The local provider over an index: related terms from the corpus (see related-keywords.ts). */
export function localLanguageProvider(index: () => LocalIndex | null, now: () => number): LanguageProvider {
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
  };
}
