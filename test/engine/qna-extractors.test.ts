/**
 * The built-in answerer on everyday questions about a company (what it does, founded, location, employees,
 * leadership, products, contact), asked in English and German of small English and German pages written
 * for this test the way company sites are written (Impressum lines, "Über uns" prose, contact blocks); the
 * question kinds; the page text (chrome dropped, link texts) and page choice for a question.
 */
import { answerQuestion, type QnaPage } from '../../src/engine/language/qna.js';
import { linkPriority, pageKind, questionIntent, questionKind } from '../../src/engine/language/question-kind.js';
import { personNames, phoneNumbers } from '../../src/engine/language/answer-extractors.js';
import { crawlSteps, PageReader, type CrawlStep, type FetchAnswer, type PageContent } from '../../src/engine/language/site-reading.js';

const words = (text: string): number => text.split(/\s+/).length;
const ask = (question: string, pages: readonly QnaPage[]) => answerQuestion(question, pages, { countTokens: words });
/** The answer without its source lines. */
const answerOf = (question: string, pages: readonly QnaPage[]): string | null => {
  const result = ask(question, pages);
  return result.can_answer ? result.data.answer.replace(/\n\n— \*[^*]*\*/g, '').trim() : null;
};

/** A German joinery's site, as PageReader gives it (a line per block). */
const TISCHLEREI: QnaPage[] = [
  {
    url: 'https://www.tischlerei-lindner.de/',
    label: 'Tischlerei Lindner – Möbel nach Maß aus Kassel',
    text: [
      'Herzlich willkommen!',
      'Möbel nach Maß aus Kassel',
      'Die Tischlerei Lindner baut Küchen, Einbauschränke, Treppen und Haustüren nach Maß. Wir planen mit Ihnen, fertigen in der eigenen Werkstatt und montieren bei Ihnen zu Hause.',
      'Für Privatkunden, Architekten, Hausverwaltungen und Arztpraxen in ganz Nordhessen.',
    ].join('\n'),
  },
  {
    url: 'https://www.tischlerei-lindner.de/ueber-uns.html',
    label: 'Über uns – Tischlerei Lindner',
    text: [
      'Über uns',
      'Unsere Geschichte',
      'Seit 1964 arbeiten wir mit Holz. Damals eröffnete Tischlermeister Karl Lindner die Werkstatt in der Wilhelmshöher Allee.',
      'Heute führt Dipl.-Ing. Eva Lindner den Betrieb in dritter Generation. 1999 zog die Werkstatt in das Gewerbegebiet Waldau.',
      'Unser Team aus 14 Mitarbeiterinnen und Mitarbeitern, darunter drei Auszubildende, plant und baut jedes Stück selbst.',
    ].join('\n'),
  },
  {
    url: 'https://www.tischlerei-lindner.de/impressum.html',
    label: 'Impressum – Tischlerei Lindner',
    text: [
      'Impressum',
      'Angaben gemäß § 5 DDG',
      'Tischlerei Lindner GmbH',
      'Osterholzstraße 41',
      '34123 Kassel',
      'Vertreten durch die Geschäftsführerin: Eva Lindner',
      'Sitz der Gesellschaft: Kassel',
      'Registergericht: Amtsgericht Kassel, HRB 4711',
      'Telefon: 0561 98 76 54-0',
      'Telefax: 0561 98 76 54-9',
      'E-Mail: info@tischlerei-lindner.de',
    ].join('\n'),
  },
];

/** An English consultancy's site. */
const HARBOUR: QnaPage[] = [
  {
    url: 'https://harbourline-consulting.co.uk/',
    label: 'Harbourline Consulting',
    text: [
      'Logistics that just works',
      'Harbourline Consulting helps wholesalers and manufacturers plan their warehouses and transport.',
      'Get in touch',
    ].join('\n'),
  },
  {
    url: 'https://harbourline-consulting.co.uk/about',
    label: 'About | Harbourline Consulting',
    text: [
      'Our story',
      'Harbourline was established in 2004 by Rachel Moore and Dev Patel in a small office above a chandlery in Bristol.',
      'We are based in Bristol and work with clients across the South West. Around 26 people work for Harbourline today.',
      'Leadership',
      'Rachel Moore',
      'Managing Director',
      'Dev Patel',
      'Director of Operations',
    ].join('\n'),
  },
  {
    url: 'https://harbourline-consulting.co.uk/services',
    label: 'Services | Harbourline Consulting',
    text: [
      'What we do',
      'We offer warehouse design, transport planning, inventory reviews and software selection.',
      'Our clients include food wholesalers, spare-parts distributors and online retailers.',
    ].join('\n'),
  },
  {
    url: 'https://harbourline-consulting.co.uk/contact',
    label: 'Contact | Harbourline Consulting',
    text: [
      'Contact us',
      'Phone: 0117 496 0555',
      'Email: hello@harbourline-consulting.co.uk',
      'Harbourline Consulting Ltd',
      '12 Narrow Quay',
      'Bristol BS1 4QA',
      'United Kingdom',
    ].join('\n'),
  },
];

describe('question kinds, English and German', () => {
  test.each([
    ['What does Harbourline do?', 'what'],
    ['Was macht die Firma?', 'what'],
    ['When was the company founded?', 'founded'],
    ['Seit wann gibt es den Betrieb?', 'founded'],
    ['Wann wurde die Tischlerei gegründet?', 'founded'],
    ['Where is the company based?', 'location'],
    ['Wo hat die Firma ihren Sitz?', 'location'],
    ['How many employees does it have?', 'employees'],
    ['Wie viele Mitarbeiter hat die Tischlerei?', 'employees'],
    ['Who runs the company?', 'leadership'],
    ['Wer ist der Geschäftsführer?', 'leadership'],
    ['Who is the CEO?', 'leadership'],
    ['Which services do they offer?', 'products'],
    ['Welche Leistungen bietet die Tischlerei an?', 'products'],
    ['What is the phone number?', 'contact'],
    ['Wie kann ich die Firma per E-Mail erreichen?', 'contact'],
    ['What was the revenue last year?', 'other'],
    ['Wie viel Umsatz macht die Firma?', 'other'],
    ['How much does the chief executive earn?', 'other'],
    ['When is the office open?', 'other'],
  ])('%s → %s', (question, kind) => {
    expect(questionKind(question)).toBe(kind);
  });

  test('contact: the telephone, the e-mail address, or either; leadership: the founders', () => {
    expect(questionIntent('Wie lautet die Telefonnummer?').channel).toBe('phone');
    expect(questionIntent('What is their e-mail address?').channel).toBe('email');
    expect(questionIntent('How can I contact them?').channel).toBe('any');
    expect(questionIntent('Who founded the company?')).toMatchObject({ kind: 'leadership', founders: true });
    expect(questionIntent('Wer ist der Inhaber?')).toMatchObject({ kind: 'leadership', founders: false });
  });
});

describe('answers from a German site, asked in German and English', () => {
  test('founded: the founding sentence ("Seit 1964 …"), not a later year', () => {
    expect(answerOf('Seit wann gibt es die Tischlerei?', TISCHLEREI)).toBe('Seit 1964 arbeiten wir mit Holz.');
    expect(answerOf('When was the company founded?', TISCHLEREI)).toBe('Seit 1964 arbeiten wir mit Holz.');
  });

  test('employees: the count with the staff word', () => {
    expect(answerOf('How many people work there?', TISCHLEREI)).toMatch(/^Unser Team aus 14 Mitarbeiterinnen/);
  });

  test('leadership: the Impressum line with the name, or the sentence that says who runs it today', () => {
    const answer = answerOf('Wer ist die Geschäftsführerin?', TISCHLEREI);
    expect(answer).toContain('Eva Lindner');
    expect(answerOf('Who runs the company?', TISCHLEREI)).toContain('Eva Lindner');
  });

  test('location: the Sitz line', () => {
    expect(answerOf('Where is the company based?', TISCHLEREI)).toBe('Sitz der Gesellschaft: Kassel');
  });

  test('contact: the telephone line, not the fax; with an e-mail address when either is asked for', () => {
    expect(answerOf('Wie lautet die Telefonnummer?', TISCHLEREI)).toBe('Telefon: 0561 98 76 54-0');
    expect(answerOf('How can I contact them?', TISCHLEREI)).toBe('Telefon: 0561 98 76 54-0, E-Mail: info@tischlerei-lindner.de');
  });

  test('what: the first descriptive sentence of the home page (a greeting is none), with the next one when short', () => {
    expect(answerOf('What does the Tischlerei Lindner do?', TISCHLEREI)).toMatch(/^Die Tischlerei Lindner baut Küchen, Einbauschränke, Treppen und Haustüren nach Maß\./);
  });

  test('products: what it makes, not whom it serves', () => {
    const answer = answerOf('Welche Produkte fertigt die Tischlerei?', TISCHLEREI) ?? '';
    expect(answer).toContain('Küchen, Einbauschränke');
    expect(answer).not.toContain('Privatkunden');
  });

  test('a question the site does not answer: no answer, and the message asks for another question', () => {
    expect(ask('Wie hoch war der Umsatz im letzten Jahr?', TISCHLEREI)).toMatchObject({ can_answer: false, data: null, message: expect.stringMatching(/another question/) });
    expect(ask('What was the revenue last year?', TISCHLEREI)).toMatchObject({ can_answer: false, data: null });
  });
});

describe('answers from an English site, asked in English and German', () => {
  test('founded, employees, location', () => {
    expect(answerOf('Wann wurde Harbourline gegründet?', HARBOUR)).toMatch(/^Harbourline was established in 2004 by Rachel Moore/);
    expect(answerOf('Wie viele Mitarbeiter hat Harbourline?', HARBOUR)).toBe('Around 26 people work for Harbourline today.');
    expect(answerOf('Where is Harbourline located?', HARBOUR)).toBe('We are based in Bristol and work with clients across the South West.');
  });

  test('leadership: a name line with its role line under it; a director of something is not who runs the company', () => {
    expect(answerOf('Wer ist der Geschäftsführer?', HARBOUR)).toBe('Rachel Moore, Managing Director');
  });

  test('leadership in the passive: run by, geführt von', () => {
    const practice: QnaPage[] = [{ url: 'https://www.keller-physio.de/', label: 'Physiotherapie Keller', text: 'Unsere Praxis\nDie Praxis wird seit 2015 von Maria Keller geführt.\nTermine nach Vereinbarung.' }];
    expect(answerOf('Who runs the practice?', practice)).toBe('Die Praxis wird seit 2015 von Maria Keller geführt.');
    const inn: QnaPage[] = [{ url: 'https://www.the-old-mill-inn.co.uk/', label: 'The Old Mill Inn', text: 'Our inn\nThe Old Mill Inn is run by Tom and Sarah Hughes.\nWe serve food every day.' }];
    expect(answerOf('Wer leitet das Gasthaus?', inn)).toBe('The Old Mill Inn is run by Tom and Sarah Hughes.');
  });

  test('founders: who founded it', () => {
    expect(answerOf('Who founded Harbourline?', HARBOUR)).toMatch(/by Rachel Moore and Dev Patel/);
  });

  test('contact: the telephone and the e-mail address of the contact page', () => {
    const result = ask('Wie erreiche ich die Firma?', HARBOUR);
    expect(result.data?.answer).toBe('Phone: 0117 496 0555, Email: hello@harbourline-consulting.co.uk\n\n— *Contact | Harbourline Consulting*');
    expect(result.data?.sources).toEqual(['Contact | Harbourline Consulting']);
    expect(result.data?.source_urls).toEqual(['https://harbourline-consulting.co.uk/contact']);
  });

  test('what and products', () => {
    expect(answerOf('Was macht Harbourline?', HARBOUR)).toBe('Harbourline Consulting helps wholesalers and manufacturers plan their warehouses and transport.');
    expect(answerOf('Which services does Harbourline offer?', HARBOUR)).toBe('We offer warehouse design, transport planning, inventory reviews and software selection.');
  });

  test('confidence: high for strong evidence, never above 0.95 for an extracted answer', () => {
    const result = ask('When was the company founded?', HARBOUR);
    expect(result.data?.confidence).toBeGreaterThanOrEqual(0.8);
    expect(result.data?.confidence).toBeLessThanOrEqual(0.95);
  });

  test('no answer where the pages do not say it; the generic ranking still answers other questions', () => {
    expect(ask('How much does a warehouse review cost?', HARBOUR).can_answer).toBe(false);
    expect(ask('Who is the CEO?', [HARBOUR[0] as QnaPage]).can_answer).toBe(false);
    expect(answerOf('Which clients does Harbourline work with?', HARBOUR)).toMatch(/food wholesalers|clients across the South West/);
  });
});

describe('sentences', () => {
  test('abbreviations, titles and ordinals do not end a sentence; a line does', () => {
    const pages: QnaPage[] = [{ url: 'https://www.beispiel-bau.de/', label: 'Beispiel Bau', text: 'Geschichte\nHeute führt Dr. Anna Beispiel das Unternehmen, seit dem 1. Januar 2020 gemeinsam mit Ing. Paul Beispiel. Wir bauen in Freiburg i. Br. und Umgebung.' }];
    expect(answerOf('Who runs the company?', pages)).toBe('Heute führt Dr. Anna Beispiel das Unternehmen, seit dem 1. Januar 2020 gemeinsam mit Ing. Paul Beispiel.');
  });

  test('people are found by their names, titles included; the company is no person', () => {
    const company = new Set(['lindner', 'tischlerei']);
    expect(personNames('Vertreten durch die Geschäftsführerin: Dipl.-Ing. Eva Lindner', company).names).toEqual(['Eva Lindner']);
    expect(personNames('Die Tischlerei Lindner baut Küchen.', company).names).toEqual([]);
    expect(personNames('Katrin Albers, Jonas Reuter', company).names).toEqual(['Katrin Albers', 'Jonas Reuter']);
  });

  test('telephone numbers: digits only; dates and postcodes are none', () => {
    expect(phoneNumbers('Tel.: +43 316 47 12 90, Fax 0316 47 12 99')).toEqual(['43316471290', '316471299']);
    expect(phoneNumbers('Stand: 01.03.2024, 04229 Leipzig')).toEqual([]);
  });
});

describe('page text and page choice', () => {
  test('cookie banners, skip links, dialogs and hidden elements are no page text; links keep their text', () => {
    const links: [string, string][] = [];
    const reader = new PageReader((href, text) => links.push([href, text]));
    reader.write(`<html><head><title>Bäckerei</title></head><body class="cookie-consent-open"><a class="skip-link" href="#main">Zum Inhalt springen</a>
      <div class="topbar">Tel. 0761 123456</div><main id="main"><h1>Unsere Bäckerei</h1><p>Wir backen seit 1950.</p>
      <p><a href="/impressum.html">Impressum</a> <a href="/ueber-uns"><span>Über</span> uns</a> <a href="/kontakt" aria-label="Kontakt"><svg></svg></a></p></main>
      <div id="cookie-notice" class="banner"><p>Wir verwenden Cookies.</p><a href="/datenschutz">Datenschutz</a></div>
      <div role="dialog"><p>Newsletter abonnieren!</p></div><div hidden><p>Versteckt.</p></div><p style="display: none">Auch versteckt.</p></body></html>`);
    expect(reader.end()).toEqual({ title: 'Bäckerei', text: 'Unsere Bäckerei\nWir backen seit 1950.\nImpressum Über uns' });
    expect(links).toEqual([
      ['#main', 'Zum Inhalt springen'],
      ['/impressum.html', 'Impressum'],
      ['/ueber-uns', 'Über uns'],
      ['/kontakt', 'Kontakt'],
      ['/datenschutz', 'Datenschutz'],
    ]);
  });

  test('pages are told by their address, else their link text', () => {
    expect(pageKind('/impressum.html', 'Datenschutz')).toBe('imprint');
    expect(pageKind('/ueber-uns/', '')).toBe('about');
    expect(pageKind('/?page_id=7', 'Kontakt')).toBe('contact');
    expect(pageKind('/leistungen', '')).toBe('products');
    expect(pageKind('/datenschutz', '')).toBe('privacy');
    expect(pageKind('/blog/2024/neu', 'Neue Maschine')).toBe('news');
    const leadership = linkPriority('Wer ist der Geschäftsführer?');
    expect(leadership('/impressum', 'Impressum')).toBeGreaterThan(leadership('/leistungen', 'Leistungen'));
    const founded = linkPriority('When was the company founded?');
    expect(founded('/about-us', 'About us')).toBeGreaterThan(founded('/contact', 'Contact'));
  });

  /** The pages `crawlSteps` reads of a site given as path → HTML, in order. */
  function crawl(site: Record<string, string>, maxPages: number, question?: string): string[] {
    const parse = (href: string, base?: URL): URL | null => {
      try {
        return new URL(href, base);
      } catch {
        return null;
      }
    };
    const start = new URL('https://www.example-firm.de/');
    const steps = crawlSteps(start, maxPages, { parse, stopped: () => false, priority: question ? linkPriority(question) : undefined });
    let answer: FetchAnswer<URL> | undefined;
    for (;;) {
      const step: IteratorResult<CrawlStep<URL>, { url: string }[]> = steps.next(answer);
      if (step.done) return step.value.map((page) => new URL(page.url).pathname);
      answer = undefined;
      if (step.value.kind === 'turn') continue;
      const html = site[step.value.url.pathname];
      const reader = html === undefined ? null : step.value.readerFor(step.value.url, 200, 'text/html');
      if (html === undefined || !reader) {
        answer = { ok: true, url: step.value.url, status: 404, contentType: 'text/html', body: null };
        continue;
      }
      reader.write(html);
      answer = { ok: true, url: step.value.url, status: 200, contentType: 'text/html', body: reader.end() as PageContent };
    }
  }

  const SITE: Record<string, string> = {
    '/': '<title>Home</title><nav><a href="/index.html">Start</a> <a href="/leistungen">Leistungen</a> <a href="/referenzen">Referenzen</a> <a href="/ueber-uns">Über uns</a> <a href="/impressum">Impressum</a></nav><p>Wir bauen Treppen.</p>',
    '/index.html': '<title>Home</title><p>Wir bauen Treppen.</p>',
    '/leistungen': '<title>Leistungen</title><p>Treppen aus Holz und Stahl.</p>',
    '/referenzen': '<title>Referenzen</title><p>Ein Haus in Kassel.</p>',
    '/ueber-uns': '<title>Über uns</title><p>Gegründet 1990.</p><a href="/team">Team</a>',
    '/team': '<title>Team</title><p>Zwölf Leute.</p>',
    '/impressum': '<title>Impressum</title><p>Geschäftsführer: Max Muster</p>',
  };

  test('breadth first without a question; the pages likely to answer first with one; / and /index.html once', () => {
    expect(crawl(SITE, 10)).toEqual(['/', '/leistungen', '/referenzen', '/ueber-uns', '/impressum', '/team']);
    expect(crawl(SITE, 2, 'Wer ist der Geschäftsführer?')).toEqual(['/', '/impressum']);
    // The about page, then the team page it links to (an about page too), before the Impressum.
    expect(crawl(SITE, 3, 'Seit wann gibt es die Firma?')).toEqual(['/', '/ueber-uns', '/team']);
    expect(crawl(SITE, 2, 'Welche Leistungen bietet die Firma an?')).toEqual(['/', '/leistungen']);
  });

  test('a page with the same text as one read before is not read again (the same page under another address)', () => {
    const home = '<title>Home</title><nav><a href="/start">Start</a> <a href="/ueber-uns">Über uns</a></nav><p>Wir bauen Treppen.</p>';
    expect(crawl({ ...SITE, '/': home, '/start': home }, 10)).toEqual(['/', '/ueber-uns', '/team']);
  });
});
