/**
 * The formula grammar (src/sheet/formula-grammar.ts) and the task pane's formula writer (src/ui/search-form.ts):
 * every v2 search input written in a formula arrives as the intended body, and the formula "Insert
 * formula" writes asks exactly what the form previewed — checked by validating both through the contract.
 */
import { SearchRequestSchema } from '../../src/contract/v2/search.js';
import { ArgumentError } from '../../src/sheet/cells.js';
import { isoDateOfSerial } from '../../src/sheet/arguments.js';
import { flattenMarkdown } from '../../src/sheet/markdown.js';
import { clientOptionsOf, DEFAULT_CONNECTION, readConnection } from '../../src/sheet/connection.js';
import { asksForCards, fetchCall, parseFilters, parseKeywordSyntax, searchCall, statsCall } from '../../src/sheet/formula-grammar.js';
import { EMPTY_FORM, formulaOf, requestOf, type SearchForm } from '../../src/ui/search-form.js';

describe('keywords in the search-box syntax', () => {
  test('bare words and "phrases" rank (must_any), + requires, - excludes; duplicates once', () => {
    expect(parseKeywordSyntax('query', 'solar "heat pump" +battery -coal solar -"oil rig"')).toEqual({
      must_any: ['solar', 'heat pump'],
      must_all: ['battery'],
      must_not: ['coal', 'oil rig'],
    });
    expect(parseKeywordSyntax('query', '   ')).toBeNull();
    expect(() => parseKeywordSyntax('query', '-coal')).toThrow(ArgumentError);
    expect(() => parseKeywordSyntax('query', 'solar +')).toThrow(new ArgumentError('query', '"+" has no word after it'));
  });
});

describe('ORG.SEARCH arguments → the v2 body', () => {
  test('keywords, filters (text or range, dates as cells), columns and every option', () => {
    const call = searchCall(
      [['software +cloud -hardware']],
      [['country', 'Deutschland, Österreich'], ['organization_size', 'small'], ['register_date_from', 43831], ['text_keywords', 'gmbh -ag']],
      'domain, name',
      'size=25; min_score=0.2; balance=0.8; dedup=yes; headers=0; excludes=a.com, b.com',
    );
    expect(call.headers).toBe(false);
    expect(call.rows).toBe(25);
    expect(call.columns).toEqual(['domain', 'name']);
    expect(call.body).toEqual({
      keywords: { must_any: ['software'], must_all: ['cloud'], must_not: ['hardware'] },
      filters: {
        country: ['Deutschland', 'Österreich'],
        organization_size: ['small'],
        register_date_from: '2020-01-01',
        text_keywords: { must_any: ['gmbh'], must_all: [], must_not: ['ag'] },
      },
      columns: ['domain', 'name'],
      size: 25,
      min_score: 0.2,
      search_balance: 0.8,
      dedup: true,
      excludes: ['a.com', 'b.com'],
    });
    expect(SearchRequestSchema.safeParse(call.body).success).toBe(true);
  });

  test('describe and similar_to: as query prefixes or options; modifiers apply to the similar_to entries before them', () => {
    expect(searchCall('describe: makers of heat pumps for homes', null, null, null).body.describe).toBe('makers of heat pumps for homes');
    expect(searchCall('LIKE: a.com, b.com', null, null, null).body.similar_to).toEqual(['a.com', 'b.com']);
    expect(searchCall('like: a.com b.com', null, null, null).body.similar_to).toEqual(['a.com', 'b.com']);
    const hybrid = searchCall('solar', null, null, 'similar_to=a.com; boost=pv, storage; weight=strong; similar_to=b.com, c.com; penalize=coal; repel=d.com; weight=0.5').body;
    expect(hybrid.similar_to).toEqual([
      { domain: 'a.com', boost: ['pv', 'storage'], weight: 'strong' },
      { domain: 'b.com', penalize: ['coal'], repel_domains: ['d.com'], weight: 0.5 },
      { domain: 'c.com', penalize: ['coal'], repel_domains: ['d.com'], weight: 0.5 },
    ]);
    expect(SearchRequestSchema.parse(hybrid).similar_to?.[0]?.weight).toBe(1.5);
    expect(() => searchCall('solar', null, null, 'boost=pv')).toThrow(new ArgumentError('options', 'boost belongs to a similar_to entry: write it after similar_to=…'));
    expect(() => searchCall('like: a.com', null, null, 'similar_to=b.com')).toThrow(/similar_to is given twice/);
  });

  test('more rows than one request gives: the first page asks 500, the formula walks the rest', () => {
    const call = searchCall('solar', null, null, 'size=1200');
    expect([call.rows, call.body.size]).toEqual([1200, 500]);
    expect(() => searchCall('solar', null, null, 'size=10001')).toThrow(/size must be a whole number from 1 to 10000/);
  });

  test('a JSON body reaches every input; the other arguments override its fields', () => {
    const call = searchCall('{"keywords":{"must_all":["solar"]},"filters":{"country":["Deutschland"]},"columns":["name"],"size":7}', 'organization_type=Startup', null, 'size=9');
    expect(call.body).toEqual({ keywords: { must_all: ['solar'] }, filters: { country: ['Deutschland'], organization_type: ['Startup'] }, columns: ['name'], size: 9 });
    expect(() => searchCall('{"size": 5', null, null, null)).toThrow(/query: is not valid JSON/);
  });

  test('filters: unknown keys suggest, lists repeat and merge, a one-column range reads as key=value cells', () => {
    expect(() => parseFilters('contry=X')).toThrow(new ArgumentError('filters', 'unknown filter "contry" — did you mean "country"?'));
    expect(parseFilters([['country=Deutschland'], ['country=Schweiz'], ['']])).toEqual({ country: ['Deutschland', 'Schweiz'] });
    expect(parseFilters('')).toBeNull();
  });

  test('grammar corners: "1,000" is no silent 1; a row of key=value cells; a date serial written as text', () => {
    expect(() => searchCall('solar', null, null, 'size=1,000')).toThrow(new ArgumentError('options', 'size must be a whole number from 1 to 10000 (got "1,000")'));
    expect(searchCall('solar', null, null, [['size=5', 'dedup=1']]).body).toMatchObject({ size: 5, dedup: true });
    expect(parseFilters('register_date_from=43831')).toEqual({ register_date_from: '2020-01-01' });
  });

  test('a multi-cell range where one value belongs is refused, naming the argument', () => {
    expect(() => searchCall([['solar'], ['wind']], null, null, null)).toThrow(new ArgumentError('query', 'expects one cell or text, not a range of several values'));
  });
});

describe('ORG.FETCH and ORG.STATS arguments', () => {
  test('fetch: columns and the headers switch (off by default)', () => {
    expect(fetchCall(null, null)).toEqual({ columns: ['domain', 'name', 'country'], headers: false, as: 'values' });
    expect(fetchCall([['name'], ['nace_code']], 'headers=1')).toEqual({ columns: ['name', 'nace_code'], headers: true, as: 'values' });
  });

  test('fetch: as=card asks for organization cards; the register court is a column too', () => {
    expect(fetchCall('name, company_register_court', 'as=card; headers=1')).toEqual({ columns: ['name', 'company_register_court'], headers: true, as: 'card' });
    expect(asksForCards('as=card')).toBe(true);
    expect(asksForCards([['as', 'Card']])).toBe(true);
    expect(asksForCards('as=values')).toBe(false);
    expect(asksForCards(null)).toBe(false);
    // Options that do not parse are the call's to report, not a reason to draw cards.
    expect(asksForCards('as=cards')).toBe(false);
    expect(() => fetchCall(null, 'as=cards')).toThrow(ArgumentError);
  });

  test('stats: dimensions, filters, date options, layout', () => {
    const call = statsCall('company_register_date', 'country', 'organization_type=Startup', 'date_trunc=year; limit=20; from=2015-01-01; to=2023-03-15; layout=long');
    expect(call).toEqual({
      body: {
        group_by: 'company_register_date',
        group_by_secondary: 'country',
        filters: { organization_type: ['Startup'] },
        date_trunc: 'year',
        limit: 20,
        date_range: { field: null, from_date: '2015-01-01', to_date: '2023-03-15' },
      },
      layout: 'long',
      headers: true,
    });
  });

  test('spreadsheet date serials: 1 Jan 2020 is 43831; implausible numbers are refused', () => {
    expect(isoDateOfSerial(43831)).toBe('2020-01-01');
    expect(isoDateOfSerial(61)).toBe('1900-03-01');
    expect(isoDateOfSerial(-3)).toBeNull();
    expect(statsCall('country', null, [['register_date_from', 45000]], null).body.filters).toEqual({ register_date_from: '2023-03-15' });
    expect(() => statsCall('country', null, 'register_date_from=12', null)).toThrow(/register_date_from must be a date/);
  });
});

describe('the task pane writes formulas that ask what it previewed', () => {
  const nasty = ['-20%', '7" display', '"quoted', 'describe: x', 'like:acme.com', '{json}', 'a,b', 'semi;colon', 'x=y', ' padded ', 'heat pump', '+plus'];
  const forms: SearchForm[] = [
    { ...EMPTY_FORM, mustAny: ['software', 'cloud platform'], mustAll: ['saas'], mustNot: ['hardware'], filters: { state: ['Bayern'], organization_type: ['Startup', 'Company'] } },
    { ...EMPTY_FORM, describe: 'companies that "build" heat pumps = warmth', filters: { country: ['Deutschland'] }, size: 40, minScore: 0.5, balance: 0.2, dedup: true },
    { ...EMPTY_FORM, similarTo: ['acme.com', 'beta.de'], boost: ['solar'], penalize: ['coal'], registerDateFrom: '2020-01-01', columns: ['domain', 'name', 'nace_code'] },
    // must_not alone is no keyword search: the preview drops it, so must the formula.
    { ...EMPTY_FORM, mustNot: ['coal'], filters: { country: ['Deutschland'] } },
    { ...EMPTY_FORM, describe: 'x'.repeat(600), filters: { nace_code: Array.from({ length: 40 }, (_, i) => String(10 + i)) } },
    { ...EMPTY_FORM, mustAny: ['bakeries'], excludes: ['a.com', 'b.de'], filters: { municipality: ['München'] }, registerDateFrom: '2016-01-01' },
    // Every awkward chip the review found, one at a time, in each place it can go.
    ...nasty.flatMap((word): SearchForm[] => [
      { ...EMPTY_FORM, mustAny: [word, 'solar'] },
      { ...EMPTY_FORM, mustAny: ['solar'], mustAll: [word], mustNot: [word === '-20%' ? 'coal' : word] },
      { ...EMPTY_FORM, describe: word.trim() === '' ? 'x' : word, filters: { country: ['Deutschland'] } },
      { ...EMPTY_FORM, similarTo: ['acme.com'], boost: [word], filters: { state: [word] } },
      { ...EMPTY_FORM, mustAny: ['solar'], excludes: [word] },
    ]),
  ];
  test.each(forms.map((form, i) => [i, form] as const))('form %i', (_, form) => {
    const formula = formulaOf(form, 'ORG.SEARCH');
    for (const literal of formula.matchAll(/"((?:[^"]|"")*)"/g)) expect((literal[1] ?? '').replace(/""/g, '"').length).toBeLessThanOrEqual(255);
    const args = parseFormulaArguments(formula);
    const fromFormula = SearchRequestSchema.safeParse(searchCall(args[0] ?? null, args[1] ?? null, args[2] ?? null, args[3] ?? null).body);
    const fromForm = SearchRequestSchema.safeParse(requestOf(form));
    expect(fromFormula).toEqual(fromForm);
  });
});

/** The arguments of `=NAME("a", "b""c"&"d")` as Excel would hand them to the function (literals joined by & concatenated). */
function parseFormulaArguments(formula: string): string[] {
  const args: string[] = [];
  let current = '';
  let i = formula.indexOf('(') + 1;
  while (i < formula.length) {
    const char = formula[i];
    if (char === '"') {
      let j = i + 1;
      while (j < formula.length && !(formula[j] === '"' && formula[j + 1] !== '"')) j += formula[j] === '"' ? 2 : 1;
      current += formula.slice(i + 1, j).replace(/""/g, '"');
      i = j + 1;
    } else if (char === ',' || char === ')') {
      args.push(current);
      current = '';
      i++;
    } else i++;
  }
  return args;
}

describe('cells and settings', () => {
  test('Markdown answers read as plain text in a cell', () => {
    expect(flattenMarkdown('## Founded\n\n**Acme** was founded in *2009* — see [About us](https://acme.test/about).\n\n- Munich\n- Berlin\n\n\n\n`code`')).toBe(
      'Founded\n\nAcme was founded in 2009 — see About us (https://acme.test/about).\n\n• Munich\n• Berlin\n\ncode',
    );
  });

  test('a stored connection is read tolerantly; one service URL serves the three interfaces', () => {
    expect(readConnection('not json')).toEqual(DEFAULT_CONNECTION);
    expect(readConnection('{"backend":"remote","serviceUrl":"https://api.example.com/v2/","apiKey":"k","cacheHours":-1}')).toEqual({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: 'https://api.example.com/v2/', apiKey: 'k' });
    expect(clientOptionsOf({ ...DEFAULT_CONNECTION, serviceUrl: 'https://api.example.com/v2/' }).baseUrls).toEqual({ v2: 'https://api.example.com/v2', v1: 'https://api.example.com', language: 'https://api.example.com' });
    expect(clientOptionsOf({ ...DEFAULT_CONNECTION, serviceUrl: 'http://localhost:8787', languageUrl: 'https://llm.example.com/' }).baseUrls).toEqual({ v2: 'http://localhost:8787/v2', v1: 'http://localhost:8787', language: 'https://llm.example.com' });
  });
});
