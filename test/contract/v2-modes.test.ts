/** Rule 4 (mode inference) and rules 1–2 as pure functions: inferSearchMode, searchRuleViolations. */
import {
  SEARCH_MODES,
  SearchRequestSchema,
  inferSearchMode,
  mustNotRuleViolation,
  searchRuleViolations,
  type SearchInputs,
  type SimilarTo,
} from '../../src/contract/index.js';
import { valid } from './helpers.js';

const anchor: SimilarTo = { domain: 'a.com', boost: [], penalize: [], repel_domains: [], weight: 1 };
const none: SearchInputs = { similar_to: null, describe: null, keywords: null, filters: null };
const kw = { must_all: ['cloud'], must_any: [], must_not: [] };
const inputs = (over: Partial<SearchInputs>): SearchInputs => ({ ...none, ...over });

describe('SEARCH_MODES', () => {
  it('are the five metadata.mode values of the spec', () => {
    expect(SEARCH_MODES).toEqual(['filter', 'fulltext', 'semantic', 'vector_similarity', 'hybrid']);
  });
});

describe('inferSearchMode (pure)', () => {
  it.each<[string, Partial<SearchInputs>, string]>([
    ['only filters', { filters: { country: ['Deutschland'] } }, 'filter'],
    ['an empty filters object', { filters: {} }, 'filter'],
    ['keywords only', { keywords: kw }, 'fulltext'],
    ['describe only', { describe: 'dentist software' }, 'semantic'],
    ['similar_to only', { similar_to: [anchor] }, 'vector_similarity'],
    ['keywords + describe', { keywords: kw, describe: 'x' }, 'hybrid'],
    ['keywords + similar_to', { keywords: kw, similar_to: [anchor] }, 'hybrid'],
    // filters narrow every mode; they never decide it when another input is there
    ['filters + keywords', { filters: { country: ['X'] }, keywords: kw }, 'fulltext'],
    ['filters + describe', { filters: { country: ['X'] }, describe: 'x' }, 'semantic'],
    ['filters + similar_to', { filters: { country: ['X'] }, similar_to: [anchor] }, 'vector_similarity'],
    ['filters + keywords + describe', { filters: {}, keywords: kw, describe: 'x' }, 'hybrid'],
    ['filters + keywords + similar_to', { filters: {}, keywords: kw, similar_to: [anchor] }, 'hybrid'],
    // inputs without content do not count
    ['keywords with only must_not + filters', { filters: {}, keywords: { must_all: [], must_any: [], must_not: ['x'] } }, 'filter'],
    ['an empty similar_to list + filters', { filters: {}, similar_to: [] }, 'filter'],
  ])('%s → %s', (_name, over, mode) => {
    expect(inferSearchMode(inputs(over))).toBe(mode);
  });
});

describe('inferSearchMode on validated bodies', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ filters: { organization_type: ['startup'] } }, 'filter'],
    [{ keywords: { must_any: ['erp'] } }, 'fulltext'],
    [{ keywords: { must_any: ['erp'] }, filters: { country: ['Deutschland'] } }, 'fulltext'],
    [{ describe: 'ERP for breweries' }, 'semantic'],
    [{ describe: 'ERP for breweries', filters: {} }, 'semantic'],
    [{ similar_to: ['sap.com'] }, 'vector_similarity'],
    [{ similar_to: [{ domain: 'sap.com', weight: 'weak' }], filters: { country: ['Deutschland'] } }, 'vector_similarity'],
    [{ keywords: { must_all: ['erp'] }, describe: 'ERP for breweries' }, 'hybrid'],
    [{ keywords: { must_all: ['erp'] }, similar_to: ['sap.com'], filters: {} }, 'hybrid'],
    [{ keywords: {}, describe: '  ', filters: {} }, 'filter'],
  ])('%j → %s', (body, mode) => {
    expect(inferSearchMode(valid(SearchRequestSchema, body))).toBe(mode);
  });
});

describe('searchRuleViolations (pure)', () => {
  const RULE_1 = { rule: 1, path: [], message: 'At least one of filters, keywords, describe, similar_to must be supplied' };
  const RULE_2 = { rule: 2, path: ['describe'], message: 'similar_to and describe cannot be combined' };

  it.each<[string, Partial<SearchInputs>]>([
    ['filters', { filters: {} }],
    ['keywords', { keywords: kw }],
    ['describe', { describe: 'x' }],
    ['similar_to', { similar_to: [anchor] }],
    ['keywords + similar_to + filters', { keywords: kw, similar_to: [anchor], filters: {} }],
    ['keywords + describe', { keywords: kw, describe: 'x' }],
  ])('%s → no violation', (_name, over) => {
    expect(searchRuleViolations(inputs(over))).toEqual([]);
  });

  it('nothing supplied → rule 1', () => {
    expect(searchRuleViolations(none)).toEqual([RULE_1]);
  });

  it('only empty inputs → rule 1', () => {
    expect(searchRuleViolations(inputs({ similar_to: [], keywords: { must_all: [], must_any: [], must_not: ['x'] } }))).toEqual([RULE_1]);
  });

  it('similar_to with describe → rule 2 at describe', () => {
    expect(searchRuleViolations(inputs({ similar_to: [anchor], describe: 'x' }))).toEqual([RULE_2]);
  });

  it('an empty similar_to list does not conflict with describe', () => {
    expect(searchRuleViolations(inputs({ similar_to: [], describe: 'x' }))).toEqual([]);
  });

  it('does not modify its input', () => {
    const given = inputs({ similar_to: [anchor], describe: 'x' });
    const copy = structuredClone(given);
    searchRuleViolations(given);
    inferSearchMode(given);
    expect(given).toEqual(copy);
  });
});

describe('mustNotRuleViolation (rule 3, pure)', () => {
  const RULE_3 = { rule: 3, path: ['must_not'], message: 'must_not is valid only together with must_all or must_any' };

  it.each<[string, Parameters<typeof mustNotRuleViolation>[0]]>([
    ['must_not with must_all', { must_all: ['a'], must_not: ['b'] }],
    ['must_not with must_any', { must_any: ['a'], must_not: ['b'] }],
    ['no must_not', { must_all: ['a'] }],
    ['nothing at all', {}],
    ['an empty must_not', { must_not: [] }],
  ])('%s → no violation', (_name, kw) => {
    expect(mustNotRuleViolation(kw)).toBeNull();
  });

  it.each<[string, Parameters<typeof mustNotRuleViolation>[0]]>([
    ['must_not alone', { must_not: ['b'] }],
    ['must_not with empty and null positive lists', { must_all: [], must_any: null, must_not: ['b'] }],
  ])('%s → rule 3 at must_not', (_name, kw) => {
    expect(mustNotRuleViolation(kw)).toEqual(RULE_3);
  });
});
