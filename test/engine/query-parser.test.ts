/**
 * nlp_search's local parser over the embedded default data: a table of natural-language queries and the
 * legacy search parameters each must give (every field of the payload is compared).
 */
import { createDefaultEngine } from '../../src/engine/index.js';
import { parseQuery, type ParsedQuery } from '../../src/engine/language/query-parser.js';

const index = createDefaultEngine();
const TODAY = '2026-11-21';

type Expected = {
  must_one?: string[];
  must_all?: string[];
  must_not?: string[];
  country?: string[];
  state?: string[];
  region?: string[];
  district?: string[];
  municipality?: string[];
  custom_filters?: Record<string, unknown>;
  domains?: string[];
  excludes?: string[];
  semantic_input?: string;
  not_understood?: string[];
};

function payload(e: Expected): ParsedQuery {
  return {
    keywords: { must_one: e.must_one ?? [], must_all: e.must_all ?? [], must_not: e.must_not ?? [] },
    locations: { country: e.country ?? [], state: e.state ?? [], region: e.region ?? [], district: e.district ?? [], municipality: e.municipality ?? [] },
    custom_filters: e.custom_filters ?? {},
    domains: e.domains ?? [],
    excludes: e.excludes ?? [],
    semantic_input: e.semantic_input ?? [...(e.must_all ?? []), ...(e.must_one ?? [])].join(' '),
    not_understood: e.not_understood ?? [],
  };
}

const TABLE: [string, Expected][] = [
  ['software companies in Bavaria', { must_one: ['software'], state: ['Bayern'] }],
  ['Softwarefirmen in Bayern', { must_one: ['software'], state: ['Bayern'] }],
  ['bakeries in Munich', { must_one: ['bakeries'], municipality: ['München'] }],
  ['bakeries in Muenchen', { must_one: ['bakeries'], municipality: ['München'] }],
  ['small bakeries in Munich without gluten', { must_one: ['bakeries'], must_not: ['gluten'], municipality: ['München'], custom_filters: { organization_size: ['Micro (0-9)', 'Small (10-49)'] } }],
  ['dentists in Vienna', { must_one: ['dentists'], state: ['Wien'] }],
  ['new dentists in Vienna', { must_one: ['dentists'], state: ['Wien'], custom_filters: { register_date_from: '2025-11-21' } }],
  ['recently founded law firms in Hamburg', { must_one: ['law firms'], state: ['Hamburg'], custom_filters: { register_date_from: '2025-11-21' } }],
  ['startups founded since 2022 in Berlin', { state: ['Berlin'], custom_filters: { organization_type: ['Startup'], register_date_from: '2022-01-01' } }],
  ['AI startups in Germany', { must_one: ['ai'], country: ['Deutschland'], custom_filters: { organization_type: ['Startup'] } }],
  ['universities in Austria', { country: ['Österreich'], custom_filters: { organization_type: ['Academic'] } }],
  ['large logistics firms in Lower Saxony', { must_one: ['logistics'], state: ['Niedersachsen'], custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  ['medium-sized machine builders in Baden-Württemberg', { must_one: ['machine', 'builders'], state: ['Baden-Württemberg'], custom_filters: { organization_size: ['Medium-sized (50-249)'] } }],
  ['micro breweries in Franconia', { must_one: ['breweries'], not_understood: ['Franconia'], custom_filters: { organization_size: ['Micro (0-9)'] } }],
  ['solar panels installers in North Rhine-Westphalia and Hesse', { must_one: ['solar panels', 'installers'], state: ['Nordrhein-Westfalen', 'Hessen'] }],
  ['heat pumps in Saxony', { must_one: ['heat pumps'], state: ['Sachsen'] }],
  ['tax advisors in Upper Austria', { must_one: ['tax advisors'], state: ['Oberösterreich'] }],
  ['hotels in Tyrol or Styria', { must_one: ['hotels'], state: ['Tirol', 'Steiermark'] }],
  ['web design agencies in Cologne', { must_one: ['web design', 'agencies'], municipality: ['Köln'] }],
  // "marketing agencies" is a tag of the data; "and" joins alternatives.
  ['web design and marketing agencies in Köln', { must_one: ['web design', 'marketing agencies'], municipality: ['Köln'] }],
  ['bakeries and butchers', { must_one: ['bakeries', 'butchers'] }],
  ['software companies without startups', { must_one: ['software'] }],
  ['large but not small firms', { custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  // Places at different levels cannot be OR-ed in v1 (levels AND): all at the level every one has.
  ['IT companies in Munich or Vienna', { must_one: ['it'], municipality: ['Wien', 'München'] }],
  ['bakeries in Germany except Bavaria', { must_one: ['bakeries'], country: ['Deutschland'] }],
  ['breweries founded before 2010', { must_one: ['breweries'], custom_filters: { register_date_to: '2009-12-31' } }],
  ['breweries founded in 1850', { must_one: ['breweries'], custom_filters: { register_date_from: '1850-01-01' } }],
  // "after 2015" leaves 2015 out, as "before 2010" leaves 2010 out.
  ['bakeries in Munich without gluten, founded after 2015', { must_one: ['bakeries'], must_not: ['gluten'], municipality: ['München'], custom_filters: { register_date_from: '2016-01-01' } }],
  ['breweries registered since 2015', { must_one: ['breweries'], custom_filters: { register_date_from: '2015-01-01' } }],
  // German, as users type it: negations, dates, sizes and types.
  ['Bäckereien in München ohne Gluten, gegründet nach 2015', { must_one: ['backereien'], must_not: ['gluten'], municipality: ['München'], custom_filters: { register_date_from: '2016-01-01' } }],
  ['kleine Softwarefirmen in Bayern seit 2020', { must_one: ['software'], state: ['Bayern'], custom_filters: { organization_size: ['Micro (0-9)', 'Small (10-49)'], register_date_from: '2020-01-01' } }],
  ['Brauereien gegründet vor 1900', { must_one: ['brauereien'], custom_filters: { register_date_to: '1899-12-31' } }],
  ['neue Zahnärzte in Wien', { must_one: ['zahnarzte'], state: ['Wien'], custom_filters: { register_date_from: '2025-11-21' } }],
  ['Bäckereien in Neu-Ulm', { must_one: ['backereien'], municipality: ['Neu-Ulm'] }],
  ['Hochschulen in Österreich', { country: ['Österreich'], custom_filters: { organization_type: ['Academic'] } }],
  ['große Logistikunternehmen außerhalb von Hamburg', { must_one: ['logistik'], custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  ['Restaurants in Berlin, keine Systemgastronomie', { must_one: ['restaurants'], not_understood: ['Systemgastronomie'], state: ['Berlin'] }],
  // Head counts become the size classes their range overlaps; a word the index does not know is not understood.
  ['software companies in Bavaria with more than 50 employees', { must_one: ['software'], state: ['Bayern'], custom_filters: { organization_size: ['Medium-sized (50-249)', 'Large enterprise (250+)'] } }],
  ['Maschinenbauer mit über 250 Mitarbeitern', { must_one: ['maschinenbauer'], custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  ['bakeries with fewer than 10 employees', { must_one: ['bakeries'], custom_filters: { organization_size: ['Micro (0-9)'] } }],
  ['Bäckereien mit 10 bis 49 Beschäftigten in Bayern', { must_one: ['backereien'], state: ['Bayern'], custom_filters: { organization_size: ['Small (10-49)'] } }],
  ['engineering firms between 20 and 100 staff', { must_one: ['engineering firms'], custom_filters: { organization_size: ['Small (10-49)', 'Medium-sized (50-249)'] } }],
  ['logistics companies with 250+ employees', { must_one: ['logistics'], custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  ['kleine Bäckereien in München', { must_one: ['backereien'], municipality: ['München'], custom_filters: { organization_size: ['Micro (0-9)', 'Small (10-49)'] } }],
  ['KMU im Maschinenbau in Sachsen', { must_one: ['maschinenbau'], state: ['Sachsen'], custom_filters: { organization_size: ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)'] } }],
  ['bakeries with more than 50', { must_one: ['bakeries'], not_understood: ['50'] }],
  ['bakeries xqzvbt in Munich', { must_one: ['bakeries'], municipality: ['München'], not_understood: ['xqzvbt'] }],
  // Words that name properties of JavaScript objects are words like any other.
  ['constructor toString __proto__ bakeries', { must_one: ['bakeries'], not_understood: ['constructor', 'toString', '__proto__'] }],
  ['restaurants not in Munich', { must_one: ['restaurants'] }],
  ['large logistics firms outside Hamburg', { must_one: ['logistics'], custom_filters: { organization_size: ['Large enterprise (250+)'] } }],
  ['consulting firms in Bavaria except in Nuremberg', { must_one: ['consulting'], state: ['Bayern'] }],
  ['companies similar to schulze-solar.de', { domains: ['schulze-solar.de'] }],
  ['companies similar to schulze-solar.de but not hartmann-solar.de', { domains: ['schulze-solar.de'], excludes: ['hartmann-solar.de'] }],
  ['firms like https://www.schulze-solar.de/about in Bavaria', { domains: ['schulze-solar.de'], state: ['Bayern'] }],
  ['IT service providers without cloud', { must_one: ['it service'], must_not: ['cloud'] }],
  ['vegan restaurants excluding fast food', { must_one: ['vegan', 'restaurants'], must_not: ['fast food'] }],
  ['car dealers in Graz', { must_one: ['car dealers'], municipality: ['Graz'] }],
  ['physiotherapy practices in Salzburg', { must_one: ['physiotherapy', 'practices'], state: ['Salzburg'] }],
  ['organic farms in Brandenburg with no livestock', { must_one: ['organic', 'farms'], must_not: ['livestock'], state: ['Brandenburg'] }],
  ['public bodies in Bremen', { state: ['Bremen'], custom_filters: { organization_type: ['Public'] } }],
  ['Find me kindergartens in Frankfurt', { must_one: ['kindergartens'], municipality: ['Frankfurt am Main'] }],
  ['', {}],
];

describe('nlp_search: natural-language queries → legacy search parameters', () => {
  test('the table has at least 30 queries', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
  });

  test.each(TABLE)('%s', (query, expected) => {
    expect(parseQuery(index.store, query, TODAY)).toEqual(payload(expected));
  });
});
