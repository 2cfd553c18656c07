/**
 * The question-answering eval (eval/ask/): eight small-company websites and questions about them. The
 * files parse; every question's site exists and is whole (its pages linked from the home page, no link
 * to a missing page); what a question expects is in its site's text as the engine reads it (or, for a
 * question the site does not answer, the words that would answer it are not); and the split is as
 * declared: one English and one German site heldout, the other six dev.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PageReader } from '../../src/engine/language/site-reading.js';

interface Question {
  id: string;
  domain: string;
  part: string;
  language: string;
  question: string;
  kind: string;
  sentence?: string;
  expect: { can_answer: boolean; any_of?: string[]; absent?: string[] };
}
interface Site {
  language: string;
  country: string;
  industry: string;
}

const dir = path.join(__dirname, '../../eval/ask');
const set = JSON.parse(readFileSync(path.join(dir, 'questions.json'), 'utf8')) as { about: string; max_pages: number; sites: Record<string, Site>; questions: Question[] };
const { questions, sites } = set;
const domains = Object.keys(sites);
const KINDS = ['what', 'founded', 'location', 'employees', 'leadership', 'products', 'contact', 'unanswerable'];

/** A site as the engine reads it: each page's text (PageReader, as /v1/qna reads pages) and its same-site links. */
interface Page {
  file: string;
  text: string;
  links: string[];
}
/** The file a same-site path names, as the eval's server maps it: `/` and `/dir/` are their index.html. */
const fileOf = (pathname: string): string => decodeURIComponent(pathname.endsWith('/') ? `${pathname}index.html` : pathname).replace(/^\//, '');

function readSite(domain: string): Page[] {
  const siteDir = path.join(dir, 'sites', domain);
  return readdirSync(siteDir)
    .filter((file) => file.endsWith('.html'))
    .map((file) => {
      const links: string[] = [];
      const reader = new PageReader((href) => {
        const url = new URL(href, `http://${domain}/${file}`);
        if (url.host === domain && (url.protocol === 'http:' || url.protocol === 'https:')) links.push(fileOf(url.pathname));
      });
      reader.write(readFileSync(path.join(siteDir, file), 'utf8'));
      return { file, text: reader.end().text, links };
    });
}
const siteText = new Map(domains.map((domain) => [domain, readSite(domain)]));
const textOf = (domain: string): string => (siteText.get(domain) ?? []).map((page) => page.text).join('\n');
const squeezed = (text: string): string => text.replace(/\s+/g, ' ').toLowerCase();

describe('ask eval: sites', () => {
  test('eight sites, each a directory of eval/ask/sites/; three English (GB, DE, CH), five German (four DE/AT, one CH)', () => {
    expect(readdirSync(path.join(dir, 'sites')).sort()).toEqual([...domains].sort());
    const english = domains.filter((domain) => sites[domain]?.language === 'en');
    const german = domains.filter((domain) => sites[domain]?.language === 'de');
    expect(english.map((domain) => sites[domain]?.country).sort()).toEqual(['CH', 'DE', 'GB']);
    expect(german.map((domain) => sites[domain]?.country).sort()).toEqual(['AT', 'CH', 'DE', 'DE', 'DE']);
    expect(new Set(domains.map((domain) => sites[domain]?.industry)).size).toBe(domains.length);
  });

  test.each(domains)('%s: a home page linking 3–6 pages, every page linked from it, no link to a missing page', (domain) => {
    const pages = siteText.get(domain) ?? [];
    const files = pages.map((page) => page.file);
    const home = pages.find((page) => page.file === 'index.html');
    expect(home).toBeDefined();
    const linked = new Set(home?.links.filter((file) => file !== 'index.html'));
    expect(linked.size).toBeGreaterThanOrEqual(3);
    expect(linked.size).toBeLessThanOrEqual(6);
    expect([...linked].sort()).toEqual(files.filter((file) => file !== 'index.html').sort());
    for (const page of pages) for (const link of page.links) expect({ page: page.file, link, exists: existsSync(path.join(dir, 'sites', domain, link)) }).toEqual({ page: page.file, link, exists: true });
    for (const page of pages) expect(page.text.length).toBeGreaterThan(200);
  });
});

describe('ask eval: questions', () => {
  test('ids are unique; every field is of its kind; a site for every question', () => {
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(Number.isInteger(set.max_pages) && set.max_pages >= 1 && set.max_pages <= 10).toBe(true);
    for (const q of questions) {
      expect({ id: q.id, site: q.domain in sites }).toEqual({ id: q.id, site: true });
      expect(['dev', 'heldout']).toContain(q.part);
      expect(['en', 'de']).toContain(q.language);
      expect(KINDS).toContain(q.kind);
      expect(q.question.trim()).not.toBe('');
      expect(q.kind === 'unanswerable').toBe(!q.expect.can_answer);
      if (q.expect.can_answer) {
        expect(q.expect.any_of?.length).toBeGreaterThan(0);
        expect(q.sentence).toBeDefined();
      } else {
        expect(q.expect.any_of).toBeUndefined();
      }
    }
  });

  test.each(domains)('%s: 5–6 questions, in both languages, at least one the site does not answer', (domain) => {
    const asked = questions.filter((q) => q.domain === domain);
    expect(asked.length).toBeGreaterThanOrEqual(5);
    expect(asked.length).toBeLessThanOrEqual(6);
    expect(new Set(asked.map((q) => q.language))).toEqual(new Set(['en', 'de']));
    expect(asked.some((q) => !q.expect.can_answer)).toBe(true);
  });

  test('what an answerable question expects is in its site, as the engine reads it: every any_of string and the answering sentence', () => {
    const missing: string[] = [];
    for (const q of questions.filter((question) => question.expect.can_answer)) {
      const text = squeezed(textOf(q.domain));
      for (const expected of q.expect.any_of ?? []) if (!text.includes(expected.toLowerCase())) missing.push(`${q.id}: ${expected}`);
      if (q.sentence && !text.includes(squeezed(q.sentence))) missing.push(`${q.id}: sentence "${q.sentence}"`);
    }
    expect(missing).toEqual([]);
  });

  test('a question the site does not answer: none of the words that would answer it is in the site', () => {
    const found: string[] = [];
    for (const q of questions.filter((question) => !question.expect.can_answer)) {
      const text = squeezed(textOf(q.domain));
      for (const word of q.expect.absent ?? []) if (text.includes(word.toLowerCase())) found.push(`${q.id}: ${word}`);
    }
    expect(found).toEqual([]);
  });

  test('the split: one English and one German site heldout, every question of a site in its part, the rest dev', () => {
    const parts = new Map<string, Set<string>>();
    for (const q of questions) parts.set(q.domain, (parts.get(q.domain) ?? new Set()).add(q.part));
    for (const [domain, seen] of parts) expect({ domain, parts: seen.size }).toEqual({ domain, parts: 1 });
    const heldout = domains.filter((domain) => parts.get(domain)?.has('heldout'));
    expect(heldout.map((domain) => sites[domain]?.language).sort()).toEqual(['de', 'en']);
    expect(domains.filter((domain) => parts.get(domain)?.has('dev'))).toHaveLength(6);
  });
});
