/** Walking filter-mode pages over a generated dataset: every page, no duplicate, no gap, sum = total_hits. */
import { createEngine, generateDataset, type SearchRequestInput } from '../../src/index.js';

const records = generateDataset({ count: 4_000, seed: 11 });
const index = createEngine(records);

function walk(request: SearchRequestInput): { domains: string[]; totals: Set<number | null>; pages: number } {
  const domains: string[] = [];
  const totals = new Set<number | null>();
  let cursor: SearchRequestInput['search_after'] = null;
  let pages = 0;
  do {
    const page = index.search({ ...request, search_after: cursor });
    domains.push(...page.data.map((r) => r.domain));
    totals.add(page.metadata.total_hits);
    cursor = page.metadata.search_after;
    pages++;
  } while (cursor !== null && pages < 1_000);
  return { domains, totals, pages };
}

test.each([
  ['all rows', { filters: {}, size: 500 }],
  ['a country', { filters: { country: ['Deutschland'] }, size: 137 }],
  ['a selective filter', { filters: { organization_size: ['Large enterprise (250+)'], nace_code: ['C', 'K'] }, size: 7 }],
])('%s: the walk returns exactly the matching rows, in domain order', (_, request) => {
  const { domains, totals, pages } = walk(request);
  const expected = index.search({ ...request, size: 1 }).metadata.total_hits ?? -1;
  expect(totals).toEqual(new Set([expected]));
  expect(new Set(domains).size).toBe(domains.length);
  expect(domains).toHaveLength(expected);
  expect([...domains].sort()).toEqual(domains);
  expect(pages).toBe(Math.max(1, Math.ceil(expected / request.size)));
});

test('dedup across pages: every name once, the first domain of each name kept', () => {
  const { domains } = walk({ filters: {}, size: 250, dedup: true });
  const nameOf = new Map(records.map((r) => [r.domain, r.name!.toLowerCase().replace(/\s+/g, ' ')]));
  const names = domains.map((d) => nameOf.get(d));
  expect(new Set(names).size).toBe(names.length);
  expect(domains.length).toBeLessThan(records.length);
  const firstDomainOfName = new Map<string, string>();
  for (const domain of records.map((r) => r.domain).sort()) {
    const name = nameOf.get(domain)!;
    if (!firstDomainOfName.has(name)) firstDomainOfName.set(name, domain);
  }
  expect(new Set(domains)).toEqual(new Set(firstDomainOfName.values()));
});

describe('a filter on one column alone is paged from its value counts, as the full pass pages it', () => {
  // An excludes entry that matches no row changes nothing in the answer but forces the pass over every row.
  const fullPass = (body: SearchRequestInput): SearchRequestInput => ({ ...body, excludes: ['no-such-organization.example'] });
  const walk = (body: SearchRequestInput): { domains: string[]; totals: (number | null)[] } => {
    const domains: string[] = [];
    const totals: (number | null)[] = [];
    let cursor: unknown[] | null = null;
    for (let page = 0; page < 50; page++) {
      const answer = index.search({ ...body, search_after: cursor as never });
      domains.push(...answer.data.map((row) => row.domain));
      totals.push(answer.metadata.total_hits);
      cursor = answer.metadata.search_after;
      if (cursor === null) break;
    }
    return { domains, totals };
  };

  test.each<[string, SearchRequestInput]>([
    ['one country', { filters: { country: ['Deutschland'] }, size: 37 }],
    ['two states', { filters: { state: ['Bayern', 'Wien'] }, size: 100 }],
    ['a NACE section', { filters: { nace_code: ['NACE J'] }, size: 25 }],
    ['a size class', { filters: { organization_size: ['Micro (0-9)'] }, size: 200 }],
    ['a value too rare for the walk', { filters: { municipality: [records.find((record) => record.municipality)!.municipality!] }, size: 10 }],
  ])('%s', (_name, body) => {
    const fast = walk(body);
    const full = walk(fullPass(body));
    expect(fast.domains.length).toBeGreaterThan(0);
    expect(fast).toEqual(full);
  });
});
