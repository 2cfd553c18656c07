/** Language-processing interface (paths under /v1 on the language base URL; Bearer token). */
import * as z from 'zod';
import { PageAddressSchema } from './common.js';
import { boundedTerm, TEXT_LIMITS } from './limits.js';
import { integer } from './validation.js';

/** At most 50 keywords of at most 100 characters: related terms of more would take seconds to compute. */
export const KeywordRequestSchema = z.strictObject({
  keywords: z.array(boundedTerm(TEXT_LIMITS.generateKeywordLength)).min(1).max(TEXT_LIMITS.generateKeywords),
});
export type KeywordRequestInput = z.input<typeof KeywordRequestSchema>;

export const BatchKeywordSchema = z.looseObject({
  original_keywords: z.array(z.string()),
  alternative_keywords: z.array(z.string()),
});
export type BatchKeyword = z.infer<typeof BatchKeywordSchema>;

/** max_pages: default 1; we cap it at 10 pages (the 40,000-token context fills long before that). */
export const QNA_MAX_PAGES = 10;

export const QnaRequestSchema = z.strictObject({
  question: boundedTerm(TEXT_LIMITS.questionLength),
  domain: PageAddressSchema,
  max_pages: integer().min(1).max(QNA_MAX_PAGES).default(1),
});
export type QnaRequestInput = z.input<typeof QnaRequestSchema>;
export type QnaRequest = z.output<typeof QnaRequestSchema>;

export const QAResponseSchema = z.looseObject({
  answer: z.string(),
  sources: z.array(z.string()),
  /** OrgIndex's extension: the address of each source, in the order of `sources` (a service without it leaves it out). */
  source_urls: z.array(z.string()).optional(),
  confidence: z.number().min(0).max(1),
  follow_up_questions: z.array(z.string()),
  can_answer: z.boolean(),
});
export type QAResponse = z.infer<typeof QAResponseSchema>;

/** The three forms of a /qna (and, for errors, /generate-keywords) answer. */
export const QnaAnsweredSchema = z.looseObject({
  success: z.literal(true),
  can_answer: z.literal(true),
  message: z.string(),
  data: QAResponseSchema,
});
export const QnaCannotAnswerSchema = z.looseObject({
  success: z.literal(true),
  can_answer: z.literal(false),
  message: z.string(),
  data: z.null(),
});
export const LanguageErrorSchema = z.looseObject({
  success: z.literal(false),
  can_answer: z.literal(false),
  message: z.string(),
  error: z.string(),
});
/** Every form a /qna 200 body may take, the error envelope included (what a server may send). */
export const QnaResponseSchema = z.union([QnaAnsweredSchema, QnaCannotAnswerSchema, LanguageErrorSchema]);
export type QnaResponse = z.infer<typeof QnaResponseSchema>;
/** The forms a caller receives: the client turns the error envelope into a ServiceError. */
export const QnaResultSchema = z.union([QnaAnsweredSchema, QnaCannotAnswerSchema]);
export type QnaResult = z.infer<typeof QnaResultSchema>;

export const QueryRequestSchema = z.strictObject({
  user_query: boundedTerm(TEXT_LIMITS.userQueryLength, TEXT_LIMITS.userQueryWords),
  search_id: z.string().min(1).max(TEXT_LIMITS.idLength),
});
export type QueryRequestInput = z.input<typeof QueryRequestSchema>;

const stringList = z.array(z.string());

export const QueryResponseSchema = z.looseObject({
  payload: z.looseObject({
    keywords: z.looseObject({ must_one: stringList, must_all: stringList, must_not: stringList }),
    locations: z.looseObject({
      country: stringList,
      state: stringList,
      region: stringList,
      district: stringList,
      municipality: stringList,
    }),
    custom_filters: z.record(z.string(), z.unknown()),
    domains: z.array(z.string()),
    excludes: z.array(z.string()),
    semantic_input: z.string(),
    /** Words of the query that none of the other fields took (OrgIndex's own parser says so; others may not). */
    not_understood: stringList.optional(),
  }),
  metadata: z.looseObject({
    search_id: z.string(),
    user_query: z.string(),
    timestamp: z.string(),
    processing_time: z.number().nonnegative(),
    workflow_steps: z.array(z.string()),
  }),
});
export type QueryResponse = z.infer<typeof QueryResponseSchema>;
