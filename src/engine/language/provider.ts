/**
 * The language-processing interface's seam: a deployment may answer with a hosted language model by
 * implementing `LanguageProvider`; the default answers locally, deterministically, from the data.
 */
import type { BatchKeyword } from '../../contract/language.js';
import type { LocalIndex } from '../local-index.js';
import { relatedKeywords } from './related-keywords.js';

export interface LanguageProvider {
  /** Alternative keywords for a list of keywords (POST /v1/generate-keywords). */
  generateKeywords(keywords: readonly string[]): Promise<BatchKeyword> | BatchKeyword;
}

/** The local provider over an index: related terms from the corpus (see related-keywords.ts). */
export function localLanguageProvider(index: () => LocalIndex | null): LanguageProvider {
  return {
    generateKeywords(keywords) {
      const current = index();
      return { original_keywords: [...keywords], alternative_keywords: current ? relatedKeywords(current.store, keywords) : [] };
    },
  };
}
