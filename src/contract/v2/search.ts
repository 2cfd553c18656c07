/** v2 POST /search: request (with rules 1–3), mode inference (rule 4) and response. */
import * as z from 'zod';
import { ANSWER_FIELDS, boundedInt, boundedNumber, ColumnsSchema, CursorSchema, CursorValueSchema, DomainSchema } from '../common.js';
import { boundedString, KeywordTermSchema, TEXT_LIMITS } from '../limits.js';
import { addIssue, documentedAs, field, WHEN_FIELDS_VALID, type LocSegment } from '../validation.js';
import { FiltersSchema, FilterValueWarningSchema, hasKeywordTerms, KeywordsSchema, type Filters, type Keywords } from './filters.js';
import { OrganizationRowSchema } from './rows.js';

export const SEARCH_LIMITS = {
  similarToEntries: 3,
  conceptTerms: 5,
  sizeMin: 1,
  sizeMax: 500,
  sizeDefault: 100,
  minScoreDefault: 0.35,
  searchBalanceDefault: 0.5,
  /** Scored modes page with an offset cursor and stop at this depth; filter mode has no cap. */
  scoredDepthCap: 10_000,
} as const;

/**
 * Named weights of a similar-to entry, pinned: `weak` halves an entry's pull, `normal` is the default
 * 1.0, `strong` is 1.5 — leaving 1.5–2.0 for callers who want more than "strong" numerically.
 */
export const SIMILARITY_WEIGHTS = { weak: 0.5, normal: 1.0, strong: 1.5 } as const;
export type SimilarityWeightName = keyof typeof SIMILARITY_WEIGHTS;

function isWeightName(raw: unknown): raw is SimilarityWeightName {
  return typeof raw === 'string' && Object.prototype.hasOwnProperty.call(SIMILARITY_WEIGHTS, raw);
}

/** A similar-to weight: a number 0–2 or a name, one clear message for every wrong shape. */
function parseWeight(raw: unknown, ctx: z.RefinementCtx): number {
  if (isWeightName(raw)) return SIMILARITY_WEIGHTS[raw];
  if (typeof raw === 'number' && Number.isFinite(raw)) {
    if (raw >= 0 && raw <= 2) return raw;
    const bound = raw < 0 ? { type: 'greater_than_equal', ctx: { ge: 0 } } : { type: 'less_than_equal', ctx: { le: 2 } };
    addIssue(ctx, raw < 0 ? 'Input should be greater than or equal to 0' : 'Input should be less than or equal to 2', [], bound);
    return z.NEVER;
  }
  addIssue(ctx, "Input should be a number from 0.0 to 2.0, or 'weak', 'normal' or 'strong'", [], {
    type: 'weight_type',
    ctx: { expected: "0.0 to 2.0, 'weak', 'normal' or 'strong'" },
  });
  return z.NEVER;
}

/** Checked in the transform; typed for callers; documented as what it accepts. */
const WeightSchema = documentedAs(z.custom<number | SimilarityWeightName>(() => true).transform(parseWeight), {
  anyOf: [{ type: 'number', minimum: 0, maximum: 2 }, { type: 'string', enum: Object.keys(SIMILARITY_WEIGHTS) }],
  default: 'normal',
});

const ConceptTermsSchema = z.array(KeywordTermSchema).max(SEARCH_LIMITS.conceptTerms).default([]);

const SimilarToObjectSchema = z
  .strictObject({
    domain: DomainSchema.meta(field('Domain', 'A known organization to find similar ones to, by its web domain, e.g. acme-solar.de')),
    boost: ConceptTermsSchema.meta(field('Boost words', `Up to ${SEARCH_LIMITS.conceptTerms} words that pull the results towards them, e.g. heat pumps`)),
    penalize: ConceptTermsSchema.meta(field('Penalize words', `Up to ${SEARCH_LIMITS.conceptTerms} words that push the results away from them, e.g. wholesale`)),
    repel_domains: z
      .array(DomainSchema)
      .max(SEARCH_LIMITS.conceptTerms)
      .default([])
      .meta(field('Unlike domains', `Up to ${SEARCH_LIMITS.conceptTerms} web domains of organizations the results should not resemble`)),
    weight: WeightSchema.optional().meta(field('Weight', 'How much this entry counts: weak, normal (the default) or strong')),
  })
  .superRefine((entry, ctx) => {
    const i = entry.repel_domains.indexOf(entry.domain);
    if (i >= 0) addIssue(ctx, `repel_domains may not contain the anchor domain ${entry.domain}`, ['repel_domains', i]);
  }, WHEN_FIELDS_VALID)
  .transform((entry) => ({ ...entry, weight: entry.weight ?? SIMILARITY_WEIGHTS.normal }));

/** A similar-to entry after normalisation: always the object form, weight numeric. */
export type SimilarTo = z.output<typeof SimilarToObjectSchema>;

/** Each entry is a domain string or an object; both normalise to the object form. */
const SimilarToEntrySchema = z.union([DomainSchema, SimilarToObjectSchema], {
  error: 'Input should be a domain string or a similar-to object {domain, boost, penalize, repel_domains, weight}',
}).transform((entry): SimilarTo =>
  typeof entry === 'string'
    ? { domain: entry, boost: [], penalize: [], repel_domains: [], weight: SIMILARITY_WEIGHTS.normal }
    : entry,
).meta({ description: 'A known organization to find similar ones to, with optional words and domains that steer the results' });

/** A trimmed description (at most TEXT_LIMITS.describeLength characters); blank means "not supplied". */
export const DescribeSchema = z
  .string()
  .nullable()
  .optional()
  .transform((s) => {
    const trimmed = s?.trim();
    return trimmed ? trimmed : null;
  })
  .pipe(boundedString(TEXT_LIMITS.describeLength).nullable());

export const SEARCH_MODES = ['filter', 'fulltext', 'semantic', 'vector_similarity', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The inputs that decide the mode, after normalisation. */
export interface SearchInputs {
  similar_to: SimilarTo[] | null;
  describe: string | null;
  keywords: Keywords | null;
  filters: Filters | null;
}

export interface RuleViolation {
  rule: 1 | 2 | 3;
  path: LocSegment[];
  message: string;
}

/**
 * Rules 1 and 2 of the search request (rule 3 lives in the keywords schema, where must_not is).
 * Pure: given normalised inputs, the violated rules with the field they point at.
 */
export function searchRuleViolations(inputs: SearchInputs): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const hasSimilar = (inputs.similar_to?.length ?? 0) > 0;
  if (hasSimilar && inputs.describe !== null) {
    violations.push({ rule: 2, path: ['describe'], message: 'similar_to and describe cannot be combined' });
  }
  if (!hasSimilar && inputs.describe === null && !hasKeywordTerms(inputs.keywords) && inputs.filters === null) {
    violations.push({
      rule: 1,
      path: [],
      message: 'At least one of filters, keywords, describe, similar_to must be supplied',
    });
  }
  return violations;
}

/** Rule 4: the mode is never sent; it follows from the inputs. Filters narrow every mode. */
export function inferSearchMode(inputs: SearchInputs): SearchMode {
  const keywords = hasKeywordTerms(inputs.keywords);
  const vector = (inputs.similar_to?.length ?? 0) > 0;
  const semantic = inputs.describe !== null;
  if (keywords && (vector || semantic)) return 'hybrid';
  if (keywords) return 'fulltext';
  if (semantic) return 'semantic';
  if (vector) return 'vector_similarity';
  return 'filter';
}

export const SearchRequestSchema = z
  .strictObject({
    similar_to: z
      .array(SimilarToEntrySchema)
      .max(SEARCH_LIMITS.similarToEntries)
      .nullable()
      .optional()
      .transform((list) => (list && list.length > 0 ? list : null))
      .meta(field('Similar to', `Up to ${SEARCH_LIMITS.similarToEntries} known organizations (web domains) to find similar ones to; cannot be combined with Description`)),
    describe: DescribeSchema.meta(field('Description', 'What the organizations you look for do, in plain words, e.g. "installers of solar panels for homes"; cannot be combined with Similar to')),
    keywords: KeywordsSchema.nullable()
      .optional()
      .transform((k) => k ?? null)
      .meta(field('Keywords', 'Words or phrases to look for in names, descriptions and tags; the results are ranked by them')),
    filters: FiltersSchema.nullable()
      .optional()
      .transform((f) => f ?? null)
      .meta(field('Filters', 'Which organizations qualify: place, type, size, industry, source, register data; the values of one filter are alternatives, and every filter given must hold')),
    excludes: z
      .array(DomainSchema)
      .max(TEXT_LIMITS.excludes)
      .default([])
      .transform((list) => [...new Set(list)])
      .meta(field('Exclude domains', 'Web domains to leave out of the results, e.g. organizations you already have')),
    columns: ColumnsSchema,
    size: boundedInt(SEARCH_LIMITS.sizeMin, SEARCH_LIMITS.sizeMax, SEARCH_LIMITS.sizeDefault).meta(
      field('Number of results', `How many organizations to return, ${SEARCH_LIMITS.sizeMin} to ${SEARCH_LIMITS.sizeMax} (default ${SEARCH_LIMITS.sizeDefault}); use Continue after for more`),
    ),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .optional()
      .transform((v) => v ?? SEARCH_LIMITS.minScoreDefault)
      .meta(field('Minimum score', `With Description or Similar to: how close, from 0 to 1, a result must be (default ${SEARCH_LIMITS.minScoreDefault})`)),
    search_balance: boundedNumber(0, 1, SEARCH_LIMITS.searchBalanceDefault).meta(
      field('Balance', `With Keywords and Description or Similar to: 0 ranks by the keywords only, 1 by meaning only (default ${SEARCH_LIMITS.searchBalanceDefault})`),
    ),
    search_after: CursorSchema.transform((c) => c ?? null).meta(field('Continue after', 'For the next page: the Continue after value (search_after) of the previous answer, unchanged')),
    explain: z.boolean().default(false).meta(field('Explain', 'Add to the answer how the search ran, step by step (Explanation)')),
    dedup: z.boolean().default(false).meta(field('One per name', 'Keep only the best-ranked organization of each name, e.g. one of several sites of one company')),
  })
  .superRefine(
    (req, ctx) => {
      for (const v of searchRuleViolations(req)) addIssue(ctx, v.message, v.path, { ctx: { rule: v.rule } });
    },
    WHEN_FIELDS_VALID,
  )
  .meta({ description: 'What to look for (at least one of Filters, Keywords, Description and Similar to), how many results and which columns' });

/** What a caller may send (defaults optional). */
export type SearchRequestInput = z.input<typeof SearchRequestSchema>;
/** The request after validation and normalisation: defaults applied, domains normalised, mode-ready. */
export type SearchRequest = z.output<typeof SearchRequestSchema>;

export const SearchMetadataSchema = z.looseObject({
  total_hits: z.int().nonnegative().nullable().meta(field('Total matches', 'How many organizations match in all')),
  returned: z.int().nonnegative().meta(field('Returned', 'How many organizations this answer holds')),
  mode: z.enum(SEARCH_MODES).meta(field('Search mode', 'How the search ran, which follows from the inputs: filter, fulltext (keywords), semantic (description), vector_similarity (similar to) or hybrid')),
  elapsed_ms: z.number().nonnegative().meta(ANSWER_FIELDS.elapsed_ms),
  search_after: z.array(CursorValueSchema).nullable().meta(field('Continue after', 'Send this back as Continue after (search_after) for the next page; empty when there is none')),
  filters_applied: z.record(z.string(), z.unknown()).nullable().meta(ANSWER_FIELDS.filters_applied),
  explain_plan: z.array(z.string()).nullable().meta(ANSWER_FIELDS.explain_plan),
  warnings: z.array(FilterValueWarningSchema).optional().meta(ANSWER_FIELDS.warnings),
});

export const SearchResponseSchema = z.looseObject({
  data: z.array(OrganizationRowSchema).meta(field('Organizations', 'The organizations found, best match first (by domain when only filters were given)')),
  metadata: SearchMetadataSchema.meta(field('Details', 'About the answer: counts, search mode and how to get the next page')),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
