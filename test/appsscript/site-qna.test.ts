/**
 * The Sheets runtime's own website reading (appsscript/src/site-qna.ts) with a scripted UrlFetchApp — the
 * cases no request may really be sent for (redirects to metadata and loopback addresses with the guard
 * on) and the limits (deadline, pages) on a clock the test turns — plus its token estimate and the `atob`
 * it brings for Apps Script. The real bundle reading a real site: ask.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { ServiceError, ValidationError } from '../../src/contract/errors.js';
import { localBackend, localSyncBackend } from '../../src/sheet/backend.js';
import { decodeBase64 } from '../../appsscript/src/platform.js';
import { askSite, readSite, SHEETS_MAX_PAGES, type SiteSettings } from '../../appsscript/src/site-qna.js';
import { estimateTokens } from '../../appsscript/src/token-estimate.js';

interface Answer {
  status?: number;
  type?: string;
  location?: string;
  body?: string;
}

/** UrlFetchApp as a script: the answer for each URL asked for (404 otherwise), every request recorded. */
function scriptedFetch(answers: Record<string, Answer>, onFetch: () => void = () => undefined): string[] {
  const asked: string[] = [];
  (globalThis as { UrlFetchApp?: unknown }).UrlFetchApp = {
    fetch: (url: string, params: { followRedirects?: boolean }) => {
      expect(params.followRedirects).toBe(false);
      asked.push(url);
      onFetch();
      const answer = answers[url] ?? { status: 404, body: 'not found' };
      const headers: Record<string, string> = { 'Content-Type': answer.type ?? 'text/html' };
      if (answer.location) headers['Location'] = answer.location;
      return { getResponseCode: () => answer.status ?? 200, getAllHeaders: () => headers, getContentText: () => answer.body ?? '' };
    },
  };
  return asked;
}

afterEach(() => {
  delete (globalThis as { UrlFetchApp?: unknown }).UrlFetchApp;
});

/** public.test stands for a public host (a documentation address, never connected to: UrlFetchApp is scripted). */
const PUBLIC = '93.184.216.34';
const settings = (overrides: Partial<SiteSettings> = {}): SiteSettings => ({ allowPrivate: false, hosts: { 'public.test': PUBLIC }, deadlineMs: 15_000, now: () => 0, ...overrides });

describe('no request to a private or local host, on the first hop or any redirect', () => {
  const refused: [string, RegExp][] = [
    ['http://2130706433/latest/', /127\.0\.0\.1 is a private or local address; fetching it is refused/],
    ['http://0x7f.1/', /127\.0\.0\.1 is a private or local address/],
    ['http://[::ffff:7f00:1]/', /\[::ffff:7f00:1\] is a private or local address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a private or local address/],
    ['http://10.0.0.1:8080/', /10\.0\.0\.1:8080 is a private or local address/],
    ['http://localhost:3000/', /localhost names a private or local host/],
    ['http://metadata.google.internal/computeMetadata/v1/', /metadata\.google\.internal names a private or local host/],
    ['http://printer.local/', /printer\.local names a private or local host/],
    ['http://intranet/', /intranet names a private or local host/],
    ['http://user:secret@public.test/', /URLs with credentials are not fetched/],
    ['ftp://public.test/file', /redirects to ftp:\/\/public\.test\/file: only http and https are fetched/],
  ];
  test.each(refused)('a redirect to %s', (target, message) => {
    const asked = scriptedFetch({ [`http://${PUBLIC}/`]: { status: 302, location: target } });
    expect(() => readSite('http://public.test/', 1, settings())).toThrow(message);
    expect(asked).toEqual([`http://${PUBLIC}/robots.txt`, `http://${PUBLIC}/`]);
  });

  test('a start URL on such a host is refused before any request; a pinned name is judged by its address', () => {
    const asked = scriptedFetch({});
    expect(() => readSite('http://169.254.169.254/', 1, settings())).toThrow(/private or local address; fetching it is refused/);
    expect(() => readSite('http://inside.test/', 1, settings({ hosts: { 'inside.test': '10.1.2.3' } }))).toThrow('inside.test resolves to a private or local address; fetching it is refused');
    expect(asked).toEqual([]);
  });

  test('the test switch allows them; redirects stop after five hops', () => {
    const asked = scriptedFetch({ 'http://localhost:3000/': { body: '<p>A page on this machine.</p>' } });
    expect(readSite('http://localhost:3000/', 1, settings({ allowPrivate: true })).pages).toEqual([{ url: 'http://localhost:3000/', label: '/', text: 'A page on this machine.' }]);
    expect(asked).toEqual(['http://localhost:3000/robots.txt', 'http://localhost:3000/']);
    const loop = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`http://${PUBLIC}/${i}`, { status: 301, location: `/${i + 1}` }]));
    scriptedFetch(loop);
    expect(() => readSite('http://public.test/0', 1, settings())).toThrow('http://public.test/0 redirects more than 5 times');
  });
});

/** A site of `count` pages, each linking to the next. */
function chain(count: number): Record<string, Answer> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`http://${PUBLIC}/${i === 0 ? '' : `p${i}`}`, { body: `<title>Page ${i}</title><p>Page ${i} of the site.</p><a href="/p${i + 1}">next</a>` }]));
}

test('the deadline: no request starts after it; the pages read by then are the answer, with a note', () => {
  let clock = 0;
  const asked = scriptedFetch(chain(8), () => {
    clock += 4_000;
  });
  const site = readSite('http://public.test/', 5, settings({ now: () => clock }));
  // robots.txt at 0 s, pages at 4, 8 and 12 s; at 16 s the 15 s are over.
  expect(site.pages.map((page) => page.label)).toEqual(['Page 0', 'Page 1', 'Page 2']);
  expect(site.note).toBe('the other pages were not read within the 15 s time limit of Google Sheets');
  expect(asked).toHaveLength(4);
  clock = 0;
  scriptedFetch(chain(8), () => {
    clock += 16_000;
  });
  expect(() => readSite('http://public.test/', 5, settings({ now: () => clock }))).toThrow('no page of public.test was read within the 15 s time limit of Google Sheets');
});

test(`at most ${SHEETS_MAX_PAGES} pages of a site, and the answer says so when more were asked for`, () => {
  scriptedFetch(chain(8));
  const site = readSite('http://public.test/', 10, settings());
  expect(site.pages).toHaveLength(SHEETS_MAX_PAGES);
  expect(site.note).toBe(`Google Sheets reads at most ${SHEETS_MAX_PAGES} pages of a site`);
  expect(readSite('http://public.test/', 3, settings()).note).toBeNull();
  expect(askSite({ question: 'What does page 3 of the site say?', domain: 'http://public.test/', max_pages: 10 }, settings())).toMatchObject({
    can_answer: true,
    message: expect.stringMatching(new RegExp(`^Answered from \\d of ${SHEETS_MAX_PAGES} page\\(s\\); Google Sheets reads at most ${SHEETS_MAX_PAGES} pages of a site$`)),
  });
});

test('askSite: the contract checks the body; an unreadable site is the error the client makes of the service’s envelope', () => {
  scriptedFetch({});
  expect(() => askSite({ question: 'x', domain: 'public.test', max_pages: 11 }, settings())).toThrow(ValidationError);
  let thrown: unknown;
  try {
    askSite({ question: 'Who are you?', domain: 'http://public.test/' }, settings());
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ServiceError);
  expect((thrown as ServiceError).message).toBe(`Could not read http://public.test/: http://public.test/ answered 404`);
});

test('Excel’s local backend (a page: no cross-origin fetch) and a synchronous one without a reader still say ORG.ASK needs a service', async () => {
  const load = () => {
    throw new Error('the engine is not needed');
  };
  const body = { question: 'x', domain: 'example.com' };
  await expect(localBackend(load).qna(body)).rejects.toThrow(/needs an OrgIndex service with a sign-in token/);
  expect(() => localSyncBackend(load).qna(body)).toThrow(/needs an OrgIndex service with a sign-in token/);
});

describe('the token estimate against the server’s tokenizer (o200k)', () => {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8').replace(/`[^`]*`/g, '').replace(/[|#*_>[\]()]/g, ' ').slice(0, 60_000);
  const prose: [string, string][] = [
    ['English', readme],
    ['German', 'Die Acme Solar GmbH wurde 2009 von Jane Doe in München gegründet. Seitdem hat das Unternehmen mehr als 4.000 Solaranlagen installiert. Unser Team aus 35 Elektrikern und Ingenieuren arbeitet in ganz Bayern. Rufen Sie uns an unter +49 89 123456. Unser Büro ist von Montag bis Freitag von 8 bis 17 Uhr geöffnet.\n'.repeat(20)],
    ['French', "L'entreprise a été fondée en 1998 à Lyon par deux ingénieurs passionnés d'énergie renouvelable. Aujourd'hui, nos équipes accompagnent plus de 2 000 clients dans toute la France. Contactez-nous du lundi au vendredi, de 9 h à 18 h.\n".repeat(20)],
    ['Russian', 'Компания была основана в 2005 году в Москве. Сегодня мы обслуживаем более трёх тысяч клиентов по всей России. Наш офис открыт с понедельника по пятницу с 9:00 до 18:00.\n'.repeat(20)],
    ['Japanese', '当社は2009年に東京で設立されました。太陽光発電システムの設計、施工、保守を一貫して行っています。お問い合わせは平日の午前九時から午後六時まで受け付けております。\n'.repeat(20)],
    ['Chinese', '公司成立于二零零九年，总部位于上海。我们专注于太阳能发电系统的设计、安装和维护，已为超过四千家客户提供服务。办公时间为周一至周五上午九点至下午六点。\n'.repeat(20)],
    ['Korean', '회사는 2009년 서울에서 설립되었습니다. 태양광 발전 시스템의 설계, 시공 및 유지보수를 제공합니다. 영업 시간은 월요일부터 금요일까지 오전 9시부터 오후 6시까지입니다.\n'.repeat(20)],
  ];
  test.each(prose)('%s prose: within 15 %', (_language, text) => {
    const ratio = estimateTokens(text) / countTokens(text);
    expect(ratio).toBeGreaterThan(0.85);
    expect(ratio).toBeLessThan(1.16);
  });
  test('text of numbers counts low (the documented weakness), never absurdly', () => {
    const numbers = Array.from({ length: 500 }, (_, i) => `${i * 7919} ${(i * 3.14159).toFixed(3)} +49 89 ${100000 + i}`).join('\n');
    const ratio = estimateTokens(numbers) / countTokens(numbers);
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1);
  });
});

test('decodeBase64 decodes as atob does (the entity tables htmlparser2 decodes when Apps Script loads the bundle)', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const encoded = Buffer.from(bytes).toString('base64');
      expect(decodeBase64(encoded)).toBe(atob(encoded));
      expect(decodeBase64(encoded.replace(/=+$/, ''))).toBe(atob(encoded));
    }),
  );
  expect(() => decodeBase64('ab$c')).toThrow(/not valid base64/);
});
