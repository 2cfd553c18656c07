/**
 * The engine's rules on filters that need no data, written once for the engine and for what stores filters
 * to apply later (an API key's visibility): what a writer accepts is what the engine runs. The keyword rule
 * is the analyzer's (`keywordsWithoutWord`, relevance/store-relevance.ts), shared with keyword search.
 */
import { FiltersSchema, type Filters } from '../../contract/v2/filters.js';
import { validate, type Validated } from '../../contract/validation.js';
import { keywordsWithoutWord } from '../relevance/store-relevance.js';

/**
 * A visibility (a v2 filters object confining what a key sees) as the engine will apply it: the filters
 * contract and the keyword rule, each problem located under `visibility`. Values are spelt as the index
 * spells them later, by the view (that needs the data and refuses nothing).
 */
export function checkVisibility(visibility: unknown): Validated<Filters> {
  const parsed = validate(FiltersSchema, visibility);
  if (!parsed.ok) return { ok: false, error: { detail: parsed.error.detail.map((item) => ({ ...item, loc: ['visibility', ...item.loc.slice(1)] })) } };
  const keywords = parsed.value.text_keywords;
  const problem = keywords ? keywordsWithoutWord(keywords, ['visibility', 'text_keywords']) : null;
  return problem ? { ok: false, error: { detail: [problem] } } : parsed;
}
