/**
 * The bilingual eval (eval/language/): organizations written per intent in German and English, per intent
 * one English and one German query, and per dev intent two more of each by a second writer (part dev2). The
 * files parse, the counts per intent, part and language are as declared, every grade names an intent, the
 * split is every third intent, and no query shares a content word (by German or English stem) with its
 * grade-3 organizations.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OrganizationRecordSchema } from '../../src/engine/index.js';
import { contentWords, fold, isStopWord, queryKeywords, sharedWords } from '../../bench/language-words.mjs';

interface OrganizationEntry {
  intent: string;
  language: string;
  record: unknown;
}

interface QueryEntry {
  id: string;
  intent: string;
  language: string;
  part: string;
  query: string;
  grades: Record<string, number>;
}

const dir = path.join(__dirname, '../../eval/language');
const { organizations: entries } = JSON.parse(readFileSync(path.join(dir, 'organizations.json'), 'utf8')) as { organizations: OrganizationEntry[] };
const { queries } = JSON.parse(readFileSync(path.join(dir, 'queries.json'), 'utf8')) as { queries: QueryEntry[] };

/** The intents in their fixed order (the split holds out the intents at positions 3, 6, 9, …). */
const intents = [
  'plumbing-heating', 'bakery', 'dental-practice', 'tax-advisory', 'electrician', 'custom-software', 'it-security',
  'solar-installation', 'car-repair', 'hotel', 'restaurant', 'law-firm', 'architecture', 'freight-logistics',
  'building-cleaning', 'physiotherapy', 'veterinary', 'pharmacy', 'insurance-broker', 'real-estate-agency', 'print-shop',
  'translation', 'event-management', 'landscaping', 'roofing', 'joinery', 'hair-salon', 'fitness-studio', 'brewery',
  'organic-farm', 'childcare', 'driving-school', 'recruitment', 'marketing-agency', 'funeral-home', 'optician',
  'bicycle-shop', 'security-services', 'waste-recycling', 'elderly-care',
];
const records = entries.map((entry) => ({ ...entry, parsed: OrganizationRecordSchema.parse(entry.record) }));

describe('language eval: the shared words of the rule', () => {
  test('folding makes every spelling of an umlaut, ß and an accent one word', () => {
    expect(['Brötchen', 'Broetchen', 'Brotchen', 'BRÖTCHEN'].map(fold)).toEqual(['brotchen', 'brotchen', 'brotchen', 'brotchen']);
    expect([fold('Straße'), fold('Strasse'), fold('Café'), fold('Quelle')]).toEqual(['strasse', 'strasse', 'cafe', 'quelle']);
  });

  test('function words of both languages are dropped in any spelling, content words kept as typed', () => {
    expect(['the', 'für', 'fuer', 'fur', 'über', 'jemand', 'der', 'x'].every(isStopWord)).toBe(true);
    expect(queryKeywords('Jemand der für uns Dächer abdichtet, the e-bike')).toEqual(['dächer', 'abdichtet', 'e-bike']);
    expect(contentWords('Jemand der für uns Dächer abdichtet, the e-bike')).toEqual(['dacher', 'abdichtet', 'bike']);
  });

  test('words are shared by German or by English stem, across spellings', () => {
    expect(sharedWords('Bäckereien', 'Baeckerei am Markt')).toEqual(['backereien ~ backerei']);
    expect(sharedWords('leaking radiators', 'We fit a new radiator')).toEqual(['radiators ~ radiator']);
    expect(sharedWords('leaking radiators', 'Plumbing and heating')).toEqual([]);
  });
});

describe('language eval: organizations', () => {
  test('every organization is a valid record with a unique domain, a name, a summary and keywords', () => {
    const domains = records.map(({ parsed }) => parsed.domain);
    expect(new Set(domains).size).toBe(domains.length);
    for (const { parsed } of records) {
      expect(parsed.name).not.toBeNull();
      expect(parsed.summary).not.toBeNull();
      expect(parsed.summary_keywords.length).toBeGreaterThan(0);
    }
  });

  test('every intent has 4 organizations, 2 with German and 2 with English texts; the rest are traps', () => {
    for (const intent of intents) {
      const languages = records.filter((r) => r.intent === intent).map((r) => r.language).sort();
      expect({ intent, languages }).toEqual({ intent, languages: ['de', 'de', 'en', 'en'] });
    }
    const others = records.filter((r) => !intents.includes(r.intent));
    expect(others.map((r) => r.intent)).toEqual(others.map(() => 'none'));
    expect(others.length).toBe(20);
  });
});

describe('language eval: queries', () => {
  test('ids are unique; every intent has one English and one German dev or heldout query; every grade is 1–3 and names an intent', () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => q.intent))).toEqual(new Set(intents));
    for (const intent of intents) {
      const languages = queries.filter((q) => q.intent === intent && q.part !== 'dev2').map((q) => q.language).sort();
      expect({ intent, languages }).toEqual({ intent, languages: ['de', 'en'] });
    }
    for (const query of queries) {
      expect({ id: query.id, own: query.grades[query.intent] }).toEqual({ id: query.id, own: 3 });
      for (const [intent, grade] of Object.entries(query.grades)) {
        expect({ id: query.id, intent, known: intents.includes(intent) }).toEqual({ id: query.id, intent, known: true });
        expect([1, 2, 3]).toContain(grade);
      }
    }
  });

  test('the split: the intents at positions 3, 6, 9, … are heldout (both queries), the others dev (dev2 aside)', () => {
    for (const query of queries) {
      if (query.part === 'dev2') continue;
      const position = intents.indexOf(query.intent) + 1;
      expect({ id: query.id, part: query.part }).toEqual({ id: query.id, part: position % 3 === 0 ? 'heldout' : 'dev' });
    }
    expect(queries.filter((q) => q.part === 'heldout')).toHaveLength(26);
  });

  test('dev2: every dev intent has two more English and two more German queries, <intent>-en-2, -en-3, -de-2, -de-3; heldout intents none', () => {
    expect(queries.filter((q) => !['dev', 'dev2', 'heldout'].includes(q.part))).toEqual([]);
    for (const [i, intent] of intents.entries()) {
      const ids = queries.filter((q) => q.intent === intent && q.part === 'dev2').map((q) => `${q.id} ${q.language}`).sort();
      const expected = (i + 1) % 3 === 0 ? [] : ['de-2 de', 'de-3 de', 'en-2 en', 'en-3 en'].map((tail) => `${intent}-${tail}`);
      expect({ intent, ids }).toEqual({ intent, ids: expected });
    }
    expect(queries.filter((q) => q.part === 'dev2')).toHaveLength(108);
    expect(queries.filter((q) => q.part === 'dev')).toHaveLength(54);
  });

  test('no query shares a content word with the name, summary or keywords of its grade-3 organizations', () => {
    const shared: string[] = [];
    for (const query of queries) {
      for (const { intent, parsed } of records) {
        if (query.grades[intent] !== 3) continue;
        const text = `${parsed.name ?? ''} ${parsed.summary ?? ''} ${parsed.summary_keywords.join(' ')}`;
        for (const word of sharedWords(query.query, text)) shared.push(`${query.id} / ${parsed.domain}: ${word}`);
      }
    }
    expect(shared).toEqual([]);
  });
});
