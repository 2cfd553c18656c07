/** v2 `keywords` object and `filters` object (spec: "Filters object", "Keywords object"). */
import * as z from 'zod';
import { DateSchema } from '../common.js';
import { boundedString, KeywordTermListSchema, TEXT_LIMITS } from '../limits.js';
import { normalizeNaceCode } from '../nace.js';
import { addIssue, field, quoteAlternatives, WHEN_FIELDS_VALID } from '../validation.js';

const TermListSchema = KeywordTermListSchema.nullable().optional();

/** Rule 3 as a pure function: must_not is valid only together with must_all or must_any. */
export function mustNotRuleViolation(kw: {
  must_all?: readonly string[] | null;
  must_any?: readonly string[] | null;
  must_not?: readonly string[] | null;
}): { rule: 3; path: ['must_not']; message: string } | null {
  const positive = (kw.must_all?.length ?? 0) + (kw.must_any?.length ?? 0);
  if ((kw.must_not?.length ?? 0) > 0 && positive === 0) {
    return { rule: 3, path: ['must_not'], message: 'must_not is valid only together with must_all or must_any' };
  }
  return null;
}

/**
 * The keywords object. Rule 3: must_not needs must_all or must_any. An object with no terms at all is
 * treated as not supplied (null), so an empty form field in a sheet does not turn a search into BM25.
 */
export const KeywordsSchema = z
  .strictObject({
    must_all: TermListSchema.meta(field('All of', 'Words or phrases that must all appear, e.g. bakery, organic')),
    must_any: TermListSchema.meta(field('Any of', 'Words or phrases of which at least one must appear, e.g. bakery, patisserie')),
    must_not: TermListSchema.meta(field('None of', 'Words or phrases that must not appear, e.g. wholesale (needs All of or Any of)')),
  })
  .superRefine((kw, ctx) => {
    const violation = mustNotRuleViolation(kw);
    if (violation) addIssue(ctx, violation.message, violation.path, { ctx: { rule: violation.rule } });
  }, WHEN_FIELDS_VALID)
  .transform((kw) => {
    const normalized: Keywords = {
      must_all: kw.must_all ?? [],
      must_any: kw.must_any ?? [],
      must_not: kw.must_not ?? [],
    };
    return hasKeywordTerms(normalized) ? normalized : null;
  });

export interface Keywords {
  must_all: string[];
  must_any: string[];
  must_not: string[];
}

export function hasKeywordTerms(kw: Keywords | null | undefined): kw is Keywords {
  return !!kw && kw.must_all.length + kw.must_any.length > 0;
}

export const ORGANIZATION_TYPES = ['Company', 'Startup', 'Public', 'Academic', 'Other'] as const;
export type OrganizationType = (typeof ORGANIZATION_TYPES)[number];

export const ORGANIZATION_SIZES = ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)', 'Large enterprise (250+)'] as const;
export type OrganizationSize = (typeof ORGANIZATION_SIZES)[number];

/**
 * A list of allowed values matched case-insensitively, also by the label before " (" (so `micro` means
 * `Micro (0-9)`), and echoed in the spec's spelling.
 */
function canonicalChoiceList<const T extends readonly string[]>(allowed: T) {
  const byKey = new Map<string, T[number]>();
  for (const value of allowed) {
    byKey.set(value.toLowerCase(), value);
    byKey.set(value.replace(/ \(.*$/, '').toLowerCase(), value);
  }
  const expected = quoteAlternatives(allowed);
  return z
    .array(
      boundedString(TEXT_LIMITS.filterValueLength).transform((raw, ctx) => {
        const value = byKey.get(raw.trim().toLowerCase());
        if (value !== undefined) return value;
        addIssue(ctx, `Input should be ${expected}`, [], { type: 'literal_error', ctx: { expected } });
        return z.NEVER;
      }),
    )
    .max(TEXT_LIMITS.filterValues)
    .nullable()
    .optional();
}

const NaceListSchema = z
  .array(
    boundedString(TEXT_LIMITS.filterValueLength).transform((raw, ctx) => {
      const result = normalizeNaceCode(raw);
      if (result.ok) return result.value;
      addIssue(ctx, result.reason, [], { type: 'nace_code', ctx: { reason: result.reason } });
      return z.NEVER;
    }),
  )
  .max(TEXT_LIMITS.filterValues)
  .nullable()
  .optional();

/** `register`, `cache`, `request`, or a dated snapshot `dataset_MM_YYYY` (this interface's brand word). */
export const SOURCE_PATTERN = /^(register|cache|request|dataset_(0[1-9]|1[0-2])_\d{4})$/;
const SourceListSchema = z
  .array(
    boundedString(TEXT_LIMITS.filterValueLength).regex(SOURCE_PATTERN, {
      error: "Input should be 'register', 'cache', 'request' or 'dataset_MM_YYYY' (for example 'dataset_03_2025')",
    }),
  )
  .max(TEXT_LIMITS.filterValues)
  .nullable()
  .optional();

const StringListSchema = z.array(boundedString(TEXT_LIMITS.filterValueLength)).max(TEXT_LIMITS.filterValues).nullable().optional();

const filterShape = {
  country: StringListSchema.meta(field('Country', 'Only organizations in these countries, e.g. Deutschland (Germany and DE work too)')),
  state: StringListSchema.meta(field('State', 'Only organizations in these states, e.g. Bayern (Bavaria and DE-BY work too)')),
  region: StringListSchema.meta(field('Region', 'Only organizations in these regions (in Germany the Regierungsbezirke), e.g. Oberbayern')),
  district: StringListSchema.meta(field('District', 'Only organizations in these districts, e.g. Landkreis Starnberg')),
  municipality: StringListSchema.meta(field('Municipality', 'Only organizations in these towns or cities, e.g. München (Munich works too)')),
  organization_type: canonicalChoiceList(ORGANIZATION_TYPES).meta(field('Organization type', `Only organizations of these types: ${ORGANIZATION_TYPES.join(', ')}`)),
  organization_size: canonicalChoiceList(ORGANIZATION_SIZES).meta(field('Size', `Only organizations of these sizes: ${ORGANIZATION_SIZES.join(', ')} (micro, small … work too)`)),
  nace_code: NaceListSchema.meta(field('Industry code', 'Only organizations in these industries, as a NACE section letter or code, e.g. J, 62 or 62.10; a code includes the codes under it')),
  source: SourceListSchema.meta(field('Source', 'Only records from these sources: register, cache, request, or a dated snapshot such as dataset_03_2025')),
  company_register_court: StringListSchema.meta(field('Register court', 'Only organizations registered at these courts, e.g. Amtsgericht München')),
  register_date_from: DateSchema.nullable().optional().meta(field('Registered from', 'Only organizations with a register entry on or after this date, YYYY-MM-DD, e.g. 2020-01-01')),
  register_date_to: DateSchema.nullable().optional().meta(field('Registered until', 'Only organizations with a register entry on or before this date, YYYY-MM-DD, e.g. 2024-12-31')),
  summary_keywords: StringListSchema.meta(field('Tags', 'Only organizations with one of these tags, e.g. solar installation')),
  text_keywords: KeywordsSchema.nullable().optional().meta(field('Text contains', 'Words or phrases the text of an organization must or must not contain; narrows the results without changing their order')),
};

export type FilterKey = keyof typeof filterShape;
export const FILTER_KEYS = Object.keys(filterShape) as FilterKey[];

/** The normalised filters: only constraining keys remain; lists are de-duplicated, in first-seen order. */
export type Filters = {
  [K in Exclude<FilterKey, 'register_date_from' | 'register_date_to' | 'text_keywords'>]?: string[];
} & {
  register_date_from?: string;
  register_date_to?: string;
  text_keywords?: Keywords;
};

function refineDateOrder(f: { register_date_from?: string | null; register_date_to?: string | null }, ctx: z.RefinementCtx): void {
  if (f.register_date_from && f.register_date_to && f.register_date_from > f.register_date_to) {
    addIssue(ctx, 'register_date_from must be on or before register_date_to', ['register_date_to']);
  }
}

/**
 * Drops keys that do not constrain anything. An empty list counts as "no constraint", like null:
 * a filter form with nothing ticked should not match nothing.
 */
function compactFilters(raw: Record<string, unknown>): Filters {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      out[key] = [...new Set(value as string[])];
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * In a search's or stats' `metadata.warnings` (present only when there is one): a filter value that
 * matches no organization the key can see, as sent, with the closest values the index knows. Values are
 * matched ignoring case and accents, and by common exonyms and codes ("germany", "DE" → "Deutschland");
 * `filters_applied` echoes the index's spelling.
 */
export const FilterValueWarningSchema = z.object({
  field: z.string().meta(field('Filter', 'Where the value was sent, e.g. filters.country')),
  value: z.string().meta(field('Value', 'The value as it was sent, e.g. Germny')),
  message: z.string().meta(field('Message', 'What is wrong, in words')),
  closest: z.array(z.string()).meta(field('Closest values', 'The values OrgIndex knows that come closest, e.g. Deutschland')),
});
export type FilterValueWarning = z.infer<typeof FilterValueWarningSchema>;

export const FiltersSchema = z
  .strictObject(filterShape)
  .superRefine(refineDateOrder, WHEN_FIELDS_VALID)
  .transform((f) => compactFilters(f));

/** True for null and for a keywords-shaped object whose lists are all empty: nothing to evaluate. */
function isEmptyKeywords(value: unknown): boolean {
  if (value == null) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((list) => list == null || (Array.isArray(list) && list.length === 0));
}

/** text_keywords with anything to evaluate is refused in /stats, whatever its shape: stats do no text scoring. */
const TextKeywordsNotInStats = z
  .unknown()
  .transform((value, ctx) => {
    if (!isEmptyKeywords(value)) {
      addIssue(ctx, 'text_keywords is not supported in /stats (stats count by plain grouping, without text scoring)');
    }
    return undefined;
  })
  .optional();

/** /stats filters: the same keys except text_keywords, which stats cannot evaluate. */
export const StatsFiltersSchema = z
  .strictObject({ ...filterShape, text_keywords: TextKeywordsNotInStats.meta(field('Text contains', 'Not available when counting: leave it empty')) })
  .superRefine(refineDateOrder, WHEN_FIELDS_VALID)
  .transform((f) => compactFilters(f));
