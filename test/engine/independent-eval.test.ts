/**
 * The independent relevance eval (eval/independent/): hand-written organizations and queries. The files
 * parse, every graded organization exists, no query shares a content word with its grade-3 organizations,
 * and the dev / heldout split is as declared.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OrganizationRecordSchema } from '../../src/engine/index.js';

interface QueryEntry {
  id: string;
  part: string;
  query: string;
  relevant: Record<string, number>;
}

const dir = path.join(__dirname, '../../eval/independent');
const organizations = JSON.parse(readFileSync(path.join(dir, 'organizations.json'), 'utf8')) as { industries: Record<string, unknown[]> };
const { queries } = JSON.parse(readFileSync(path.join(dir, 'queries.json'), 'utf8')) as { queries: QueryEntry[] };

/** Words that carry no content in a query (function words and the filler of a request). */
const STOP_WORDS = new Set([
  'a', 'about', 'after', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'for', 'from', 'i', 'in', 'into', 'is', 'it',
  'me', 'my', 'of', 'on', 'or', 'our', 'someone', 'that', 'the', 'to', 'we', 'where', 'which', 'who', 'with', 'within', 'you', 'your',
]);

/** A plural strip: -ies → -y, -s → '' (not -ss, not short words). */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Content words of a text: lower-cased, letters and digits, stop words dropped, plural-stripped. */
function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => !STOP_WORDS.has(w)).map(stem));
}

const records = Object.entries(organizations.industries).flatMap(([industry, rows]) => rows.map((row) => ({ industry, row })));
const parsed = records.map(({ row }) => OrganizationRecordSchema.parse(row));
const byDomain = new Map(parsed.map((record) => [record.domain, record]));

describe('independent eval: organizations', () => {
  test('every organization is a valid record with a unique domain, a summary, keywords and a NACE code', () => {
    expect(parsed.length).toBeGreaterThanOrEqual(140);
    expect(byDomain.size).toBe(parsed.length);
    for (const record of parsed) {
      expect(record.name).not.toBeNull();
      expect(record.summary).not.toBeNull();
      expect(record.summary_keywords.length).toBeGreaterThan(0);
      expect(record.nace_code).toMatch(/^\d{2}\.\d{2}$/);
    }
    // Domains are written normalised, so the queries' grades can name them as written.
    expect(parsed.map((r) => r.domain)).toEqual(records.map(({ row }) => (row as { domain: string }).domain));
  });

  test('they span at least 12 industries', () => {
    expect(Object.keys(organizations.industries).length).toBeGreaterThanOrEqual(12);
  });
});

describe('independent eval: queries', () => {
  test('ids are unique, grades are 1–3, every graded organization exists, every query has a grade-3 organization', () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    for (const query of queries) {
      const grades = Object.entries(query.relevant);
      expect(grades.some(([, grade]) => grade === 3)).toBe(true);
      for (const [domain, grade] of grades) {
        expect({ query: query.id, domain, exists: byDomain.has(domain) }).toEqual({ query: query.id, domain, exists: true });
        expect([1, 2, 3]).toContain(grade);
      }
    }
  });

  test('no query shares a content word with the name, summary or keywords of its grade-3 organizations', () => {
    const shared: string[] = [];
    for (const query of queries) {
      const words = contentWords(query.query);
      for (const [domain, grade] of Object.entries(query.relevant)) {
        const record = byDomain.get(domain);
        if (grade !== 3 || !record) continue;
        const text = contentWords(`${record.name ?? ''} ${record.summary ?? ''} ${record.summary_keywords.join(' ')}`);
        for (const word of words) if (text.has(word)) shared.push(`${query.id} / ${domain}: ${word}`);
      }
    }
    expect(shared).toEqual([]);
  });

  test('the split is fixed by the part field: every fifth query from the third and the fifth on is heldout, about 40 %', () => {
    queries.forEach((query, i) => {
      expect({ id: query.id, part: query.part }).toEqual({ id: query.id, part: i % 5 === 2 || i % 5 === 4 ? 'heldout' : 'dev' });
    });
    const heldout = queries.filter((q) => q.part === 'heldout').length;
    expect(heldout / queries.length).toBeGreaterThan(0.3);
    expect(heldout / queries.length).toBeLessThan(0.5);
  });
});
