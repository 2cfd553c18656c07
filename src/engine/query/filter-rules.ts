/**
 * The engine's rules on keywords and filters that need no data, written once for the engine and for what
 * stores filters to apply later (an API key's visibility): what a writer accepts is what the engine runs.
 */
import { FiltersSchema, type Filters, type Keywords } from '../../contract/v2/filters.js';
import { validate, type LocSegment, type Validated, type ValidationErrorItem } from '../../contract/validation.js';
import { textsWithWords } from '../relevance/tokenize.js';

/**
 * Keywords whose must_all and must_any hold no word ("!!!" analyses to nothing) would match every
 * organization: the problem at `loc`, or null when they hold one.
 */
export function keywordsWithoutWord(keywords: Keywords, loc: LocSegment[]): ValidationErrorItem | null {
  if (textsWithWords([...keywords.must_all, ...keywords.must_any]) > 0) return null;
  const reason = 'must_all and must_any hold no searchable word (letters or digits)';
  return { type: 'value_error', loc, msg: `Value error, ${reason}`, input: keywords, ctx: { error: reason } };
}

/**
 * A visibility (a v2 filters object confining what a key sees) as the engine will apply it: the filters
 * contract and the rules above, each problem located under `visibility`. Values are spelt as the index
 * spells them later, by the view (that needs the data and refuses nothing).
 */
export function checkVisibility(visibility: unknown): Validated<Filters> {
  const parsed = validate(FiltersSchema, visibility);
  if (!parsed.ok) return { ok: false, error: { detail: parsed.error.detail.map((item) => ({ ...item, loc: ['visibility', ...item.loc.slice(1)] })) } };
  const keywords = parsed.value.text_keywords;
  const problem = keywords ? keywordsWithoutWord(keywords, ['visibility', 'text_keywords']) : null;
  return problem ? { ok: false, error: { detail: [problem] } } : parsed;
}
