/** The sample dataset generator and the data-file readers. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { normalizeDomain, sectionOf, SOURCE_PATTERN } from '../../src/contract/index.js';
import { INDUSTRY_CLASSES } from '../../src/engine/dataset/industries.js';
import { unplacedRegisterCourts } from '../../src/engine/dataset/registers.js';
import { generateDataset, OrganizationRecordSchema, readCsv, readJsonLines } from '../../src/engine/index.js';

describe('generateDataset', () => {
  const rows = generateDataset({ count: 5_000, seed: 42 });

  test('is deterministic: same seed, same rows; another seed, other rows', () => {
    expect(JSON.stringify(generateDataset({ count: 300, seed: 42 }))).toBe(JSON.stringify(rows.slice(0, 300)));
    expect(generateDataset({ count: 50, seed: 43 }).map((r) => r.domain)).not.toEqual(rows.slice(0, 50).map((r) => r.domain));
  });

  test('every row is a valid data-file row with a unique, normalised domain', () => {
    const domains = new Set<string>();
    for (const row of rows) {
      expect(OrganizationRecordSchema.safeParse(row).success).toBe(true);
      expect(normalizeDomain(row.domain)).toEqual({ ok: true, domain: row.domain });
      domains.add(row.domain);
    }
    expect(domains.size).toBe(rows.length);
  });

  test('texts read as written by a person: team sizes in words that fit, each place named once', () => {
    const texts = rows.map((row) => row.text ?? '');
    expect(texts.filter((text) => /\babout 1 people|\b1 people\b/.test(text))).toEqual([]);
    expect(texts.filter((text) => /(?:from |, )([^,.]+), \1[,.]/.test(text))).toEqual([]);
    expect(texts.some((text) => text.includes('One person runs it from'))).toBe(true);
  });

  test('size band, employee class and type agree', () => {
    const bandOf: Record<string, string> = {
      '1-4': 'Micro (0-9)', '5-9': 'Micro (0-9)', '10-19': 'Small (10-49)', '20-49': 'Small (10-49)',
      '50-99': 'Medium-sized (50-249)', '100-249': 'Medium-sized (50-249)', '250-499': 'Large enterprise (250+)',
      '500-999': 'Large enterprise (250+)', '1000-4999': 'Large enterprise (250+)', '5000+': 'Large enterprise (250+)',
    };
    for (const row of rows) expect(row.organization_size).toBe(bandOf[row.employee_class ?? '']);
    const startups = rows.filter((r) => r.organization_type === 'Startup');
    expect(startups.length).toBeGreaterThan(50);
    expect(startups.every((r) => ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)'].includes(r.organization_size ?? ''))).toBe(true);
    const bands = new Set(rows.map((r) => r.organization_size));
    expect(bands.size).toBe(4);
  });

  test('NACE: a real detailed code of the vocabulary, its section follows; all sections used at scale', () => {
    const codes = new Set(INDUSTRY_CLASSES.map((c) => c.code));
    for (const row of rows) {
      expect(codes.has(row.nace_code ?? '')).toBe(true);
      expect(sectionOf(row.nace_code ?? '')).not.toBeNull();
    }
    expect(new Set(rows.map((r) => sectionOf(r.nace_code ?? ''))).size).toBeGreaterThanOrEqual(18);
  });

  test('summaries and keyword tags come from the industry vocabulary', () => {
    const byCode = new Map(INDUSTRY_CLASSES.map((c) => [c.code, c]));
    for (const row of rows.slice(0, 500)) {
      const industry = byCode.get(row.nace_code ?? '')!;
      expect(row.summary_keywords.length).toBeGreaterThanOrEqual(3);
      for (const keyword of row.summary_keywords) expect(industry.keywords).toContain(keyword);
      expect(row.summary).toContain(row.name!);
      expect(row.text?.length).toBeGreaterThan(100);
    }
  });

  test('registrations: sorted dates, newest mirrored in company_register_*, new_register_entry consistent', () => {
    let withRegistrations = 0;
    let multiple = 0;
    for (const row of rows) {
      const dates = row.registrations.map((r) => r.date);
      expect([...dates].sort()).toEqual(dates);
      const newest = row.registrations[row.registrations.length - 1];
      expect(row.company_register_date).toBe(newest?.date ?? null);
      expect(row.company_register_id).toBe(newest?.id ?? null);
      expect(row.new_register_entry).toBe(newest ? Date.parse('2026-11-01') - Date.parse(newest.date) < 365 * 86_400_000 : false);
      if (row.registrations.length > 0) withRegistrations++;
      if (row.registrations.length > 1) multiple++;
      for (const r of row.registrations) expect(r.court).toMatch(/^(Amtsgericht|Landesgericht|Handelsgericht|Handelsregisteramt) /);
    }
    expect(withRegistrations / rows.length).toBeGreaterThan(0.5);
    expect(multiple).toBeGreaterThan(100);
    expect(rows.some((r) => r.registrations.some((g) => g.court === 'Amtsgericht München'))).toBe(true);
  });

  test('dates, sources and coordinates are plausible', () => {
    for (const row of rows) {
      expect(Date.parse(row.created_at!)).toBeLessThanOrEqual(Date.parse(row.updated_at!));
      expect(Date.parse(row.updated_at!)).toBeLessThanOrEqual(Date.parse('2026-11-01T00:00:00Z'));
      expect(row.source).toMatch(SOURCE_PATTERN);
    }
    // A few percent of places have no coordinates (where the source has them); tail countries have none.
    const german = rows.filter((r) => r.country_code === 'DE');
    const missingCoordinates = german.filter((r) => r.lat === null).length / german.length;
    expect(missingCoordinates).toBeGreaterThan(0.01);
    expect(missingCoordinates).toBeLessThan(0.06);
  });

  test('real geography in native spelling, Germany first', () => {
    const german = rows.filter((r) => r.country === 'Deutschland');
    expect(german.length / rows.length).toBeGreaterThan(0.6);
    expect(new Set(german.map((r) => r.state)).size).toBe(16);
    expect(german.every((r) => r.district && r.municipality && /^\d{8}$/.test(r.municipality_code ?? ''))).toBe(true);
    expect(german.every((r) => r.municipality_code!.startsWith(r.district_code!))).toBe(true);
    expect(rows.some((r) => r.municipality === 'München')).toBe(true);
    expect(rows.some((r) => r.municipality === 'Munich' || r.state === 'Bavaria')).toBe(false);
    expect(rows.some((r) => r.region === 'Oberbayern')).toBe(true);
  });

  test('register courts are real register-court seats; registrations fall on working days', () => {
    expect(unplacedRegisterCourts()).toEqual([]);
    const courts = new Set(rows.flatMap((r) => r.registrations.filter((g) => g.court.startsWith('Amtsgericht')).map((g) => g.court)));
    for (const notARegisterCourt of ['Amtsgericht Heidelberg', 'Amtsgericht Erfurt', 'Amtsgericht Halle', 'Amtsgericht Karlsruhe', 'Amtsgericht Berlin']) {
      expect(courts.has(notARegisterCourt)).toBe(false);
    }
    expect(courts.has('Amtsgericht Charlottenburg')).toBe(true);
    for (const row of rows) for (const g of row.registrations) expect([0, 6]).not.toContain(new Date(`${g.date}T00:00:00Z`).getUTCDay());
  });

  test('public and academic bodies: German-speaking countries, industries that have them, named as institutions', () => {
    const classes = new Map(INDUSTRY_CLASSES.map((c) => [c.code, c]));
    const bodies = rows.filter((r) => r.organization_type === 'Public' || r.organization_type === 'Academic');
    expect(bodies.length).toBeGreaterThan(100);
    for (const body of bodies) {
      expect(['DE', 'AT', 'CH']).toContain(body.country_code);
      expect(Object.keys(classes.get(body.nace_code ?? '')?.typeMix ?? {})).toContain(body.organization_type);
      expect(body.registrations).toEqual([]);
    }
    const districtOffices = bodies.filter((b) => b.name!.startsWith('Landratsamt '));
    expect(districtOffices.every((b) => b.district?.startsWith('Landkreis '))).toBe(true);
  });

  test('organizations sharing a legal name share type, industry and country', () => {
    const first = new Map<string, (typeof rows)[number]>();
    for (const row of rows) {
      const earlier = first.get(row.name!);
      if (!earlier) first.set(row.name!, row);
      else if (row.organization_type !== 'Public' && row.organization_type !== 'Academic' && /GmbH|AG|KG|e\.K\.|S\.r\.l\.|SAS|B\.V\./.test(row.name!)) {
        // Namesakes by chance aside (two "Müller Elektrotechnik GmbH"), reused identities agree. Germany,
        // Austria and Switzerland share surnames and trade words, so a namesake by chance may sit across
        // their borders; within a country a name keeps its type.
        if (earlier.nace_code !== row.nace_code) continue;
        if (earlier.country_code === row.country_code) expect(row.organization_type).toBe(earlier.organization_type);
        else expect([earlier.country_code, row.country_code].every((code) => ['DE', 'AT', 'CH'].includes(code ?? ''))).toBe(true);
      }
    }
  });

  test('some legal names are shared by several domains', () => {
    const byName = new Map<string, number>();
    for (const row of rows) byName.set(row.name!, (byName.get(row.name!) ?? 0) + 1);
    expect([...byName.values()].filter((n) => n > 1).length).toBeGreaterThan(20);
  });
});

describe('readJsonLines', () => {
  const good = { domain: 'Example.com', name: 'Example GmbH', registrations: [{ court: 'Amtsgericht München', date: '2020-01-31', id: 'HRB 1' }] };

  test('reads rows; missing optional columns are null; blank lines skipped', () => {
    const { records, errors } = readJsonLines(`${JSON.stringify(good)}\n\n${JSON.stringify({ domain: 'other.org' })}\n`);
    expect(errors).toEqual([]);
    expect(records.map((r) => r.domain)).toEqual(['example.com', 'other.org']);
    expect(records[1]).toMatchObject({ name: null, summary_keywords: [], registrations: [], lat: null, text: null });
  });

  test('every bad row is reported with its line and reason; good rows are kept', () => {
    const text = [
      JSON.stringify(good),
      '{not json',
      JSON.stringify({ domain: 'localhost' }),
      JSON.stringify({ domain: 'a.de', colour: 'red' }),
      JSON.stringify({ domain: 'b.de', registrations: [{ court: 'X', date: '2020-13-01', id: '1' }] }),
      JSON.stringify({ domain: 'EXAMPLE.com' }),
      '[1,2]',
      JSON.stringify({ domain: 'c.de', nace_code: '04.11' }),
      JSON.stringify({ domain: 'd.de', created_at: '2024-01-01T00:30:00' }),
      JSON.stringify({ domain: 'e.de', created_at: '2024-02-30T10:00:00Z' }),
      JSON.stringify({ domain: 'f.de', created_at: '2024-02-29T23:30:00-01:00', updated_at: '2024-03-01' }),
    ].join('\n');
    const { records, errors } = readJsonLines(text);
    expect(records.map((r) => r.domain)).toEqual(['example.com', 'f.de']);
    expect(records[1]).toMatchObject({ created_at: '2024-03-01T00:30:00.000Z', updated_at: '2024-03-01T00:00:00.000Z' });
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(errors[7]?.reason).toBe('created_at: "2024-01-01T00:30:00" is not an ISO 8601 date-time with a time zone, such as 2025-03-01T12:00:00Z');
    expect(errors[8]?.reason).toMatch(/^created_at: "2024-02-30T10:00:00Z" is not an ISO 8601 date-time/);
    expect(errors[0]?.reason).toMatch(/^not JSON: /);
    expect(errors[1]?.reason).toBe('domain: "localhost" has no top-level domain; expected a domain such as example.com');
    expect(errors[2]?.reason).toBe('colour: Extra inputs are not permitted');
    expect(errors[3]?.reason).toBe('registrations.0.date: Input should be a valid date in the format YYYY-MM-DD');
    expect(errors[4]?.reason).toBe('duplicate domain example.com (first on line 1)');
    expect(errors[5]?.reason).toBe('expected a JSON object per line');
    expect(errors[6]?.reason).toMatch(/^nace_code: "04.11": NACE division 04 does not exist/);
  });
});

describe('readCsv', () => {
  test('blank lines keep line numbers; semicolon files are detected; a row with extra fields is reported, not merged', () => {
    const csv = ['domain;name;summary_keywords', 'a.de;A;x', '', '', 'bad domain;B;', 'c.de;C;"p;q"', 'd.de;D;p;q'].join('\n');
    const { records, errors } = readCsv(csv);
    expect(records.map((r) => [r.domain, r.summary_keywords])).toEqual([
      ['a.de', ['x']],
      ['c.de', ['p', 'q']],
    ]);
    expect(errors).toEqual([
      { line: 5, reason: expect.stringMatching(/^domain: "bad domain" contains whitespace/) },
      { line: 7, reason: 'CSV: expected 3 fields as in the header, found 4 (a separator inside an unquoted cell?)' },
    ]);
  });

  test('an unterminated quote is reported at the row where it starts, never swallowed silently', () => {
    const { records, errors } = readCsv('domain,name\na.com,"unterminated\nb.com,B\n');
    expect(records).toEqual([]);
    expect(errors).toEqual([{ line: 2, reason: expect.stringMatching(/^CSV: .*the rest of the file is inside this cell/) }]);
  });

  test('same columns; registrations as a JSON cell; keywords as JSON or ;-list; multi-line cells keep line numbers', () => {
    const csv = [
      'domain,name,summary,summary_keywords,registrations,lat,new_register_entry',
      'alpha.de,Alpha GmbH,"Line one',
      'line two",software;erp,"[{""court"":""Amtsgericht Köln"",""date"":""2021-05-01"",""id"":""HRB 9""}]",50.9,true',
      'beta.de,Beta,,"[""x"",""y""]",,,',
      'gamma.de,Gamma,,,,north,',
      'delta.de,Delta,,,not json,,',
    ].join('\n');
    const { records, errors } = readCsv(csv);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      domain: 'alpha.de',
      summary: 'Line one\nline two',
      summary_keywords: ['software', 'erp'],
      registrations: [{ court: 'Amtsgericht Köln', date: '2021-05-01', id: 'HRB 9' }],
      lat: 50.9,
      new_register_entry: true,
    });
    expect(records[1]?.summary_keywords).toEqual(['x', 'y']);
    expect(errors).toEqual([
      { line: 5, reason: 'lat: "north" is not a number' },
      { line: 6, reason: expect.stringMatching(/^registrations: expected a JSON array/) },
    ]);
  });
});

test('orgindex dataset writes the same rows as generateDataset, one JSON object per line', async () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'orgindex-dataset-')), 'orgs.jsonl');
  const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), readStdin: () => '' };
  expect(await runCli(['dataset', '--count', '200', '--seed', '5', '--out', out], io)).toBe(0);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(200);
  expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(JSON.parse(JSON.stringify(generateDataset({ count: 200, seed: 5 }))));
  const bad = { ...io, err: '' };
  bad.stderr = (t: string) => void (bad.err += t);
  expect(await runCli(['dataset', '--count', '2000', '--out', '/nonexistent-dir/x.jsonl'], bad)).toBe(1);
  expect(bad.err).toMatch(/^cannot write \/nonexistent-dir\/x.jsonl: ENOENT/);
  expect(await runCli(['dataset', '--count', '5', '--as-of', '2026-02-31', '--out', out], bad)).toBe(2);
  const reread = readJsonLines(readFileSync(out, 'utf8'));
  expect(reread.errors).toEqual([]);
  expect(reread.records).toHaveLength(200);
});
