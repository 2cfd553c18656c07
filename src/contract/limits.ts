/**
 * Limits on the text and lists a request may send, so that every request does bounded work. Each is far
 * above what a person types or a sheet sends; beyond it a request is refused — 422 in the FastAPI layout
 * naming the limit (`string_too_long` with `ctx.max_length`, `too_long` for a list, `string_too_many_words`
 * with `ctx.max_words`), or the same message in the `{"detail": "…"}` 400 of the v1 and language routes —
 * instead of being answered slowly. The engine's own work is linear in its input without these limits;
 * the limits bound that input.
 *
 * A WORD (for the word limits) is a run of letters, digits and combining marks; anything else separates
 * words, so "e-commerce" and "86.21" are two words each — as many as the phrase positions the keyword
 * engine gives them, or more.
 */
import * as z from 'zod';
import { addIssue } from './validation.js';

export const TEXT_LIMITS = {
  /** Characters of one keyword term (after trimming): keywords, text_keywords, v1 keywords, boost, penalize. */
  termLength: 200,
  /** Words of one keyword term (a phrase). */
  termWords: 16,
  /** Terms in one keywords list (must_all, must_any, must_not, v1 must_one). */
  termsPerList: 100,
  /** Characters of `describe` (v2) and `semantic_input` (v1). */
  describeLength: 4_000,
  /** Characters of /v1/nlp_search's `user_query`. */
  userQueryLength: 1_000,
  /** Words of /v1/nlp_search's `user_query`. */
  userQueryWords: 250,
  /** Characters of /v1/qna's `question`. */
  questionLength: 1_000,
  /** Keywords of one /v1/generate-keywords request, and characters of each. */
  generateKeywords: 50,
  generateKeywordLength: 100,
  /** Values in one filter list (country … municipality, organization_type, organization_size, nace_code,
   * source, company_register_court, summary_keywords; v1 locations), and characters of each. */
  filterValues: 5_000,
  filterValueLength: 200,
  /** Characters of `q` of GET /locations/search, and of a location name (v1 sublocations' parent_value). */
  locationQueryLength: 200,
  /** Characters of an identifier: location_id, parent_id, pit_id, nlp_search's search_id. */
  idLength: 256,
  /** Characters of one domain, URL or e-mail address as sent (before it is reduced to a domain). */
  domainLength: 2_048,
  /** Domains in `excludes` (v2 and v1). */
  excludes: 5_000,
  /** Reference domains of a v1 search (`domains`). */
  referenceDomains: 1_000,
  /** Values in a `search_after` cursor, and how deep a value may nest. */
  cursorValues: 16,
  cursorDepth: 8,
} as const;

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

function isWordCodePoint(cp: number): boolean {
  if (cp < 128) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  return WORD_CHAR.test(String.fromCodePoint(cp));
}

/** The number of words of a text (see the module comment). */
export function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i) ?? 0;
    if (cp > 0xffff) i++;
    const word = isWordCodePoint(cp);
    if (word && !inWord) count++;
    inWord = word;
  }
  return count;
}

/**
 * A string of at most `maxLength` characters and, when given, `maxWords` words (`base` may add checks of
 * its own). Words are counted only in a string within the length limit: a string over it is reported
 * once, for its length.
 */
export function boundedString(maxLength: number, maxWords?: number, base: z.ZodString = z.string()) {
  const bounded = base.max(maxLength, { abort: true });
  if (maxWords === undefined) return bounded;
  return bounded.superRefine((text, ctx) => {
    const words = countWords(text);
    if (words > maxWords) {
      addIssue(ctx, `String should have at most ${maxWords} words, not ${words}`, [], {
        type: 'string_too_many_words',
        ctx: { max_words: maxWords, actual_words: words },
      });
    }
  });
}

/** A trimmed, non-blank string within the limits: blank strings are rejected, not silently dropped. */
export function boundedTerm(maxLength: number, maxWords?: number) {
  return z
    .string()
    .transform((s) => s.trim())
    .pipe(boundedString(maxLength, maxWords, z.string().min(1, 'must not be blank')));
}

/** One keyword term: a word, a compound or a phrase. */
export const KeywordTermSchema = boundedTerm(TEXT_LIMITS.termLength, TEXT_LIMITS.termWords);

/** A list of keyword terms. */
export const KeywordTermListSchema = z.array(KeywordTermSchema).max(TEXT_LIMITS.termsPerList);
