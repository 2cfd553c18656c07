// One Apps Script execution, played in a fresh Node process (bench/sheet.mjs runs several): Code.js is
// evaluated as a classic script, then the first local =ORGSEARCH (generating and indexing the embedded
// sample) and a first describe search. Prints the timings as JSON. The Apps Script services are minimal
// STAND-INS (properties and cache in memory): only the local backend is measured.
import { readFileSync } from 'node:fs';

const memory = new Map();
const properties = { getProperty: () => null, setProperty() { return this; }, getProperties: () => ({}) };
const cache = {
  get: (key) => memory.get(key) ?? null,
  getAll: (keys) => Object.fromEntries(keys.filter((key) => memory.has(key)).map((key) => [key, memory.get(key)])),
  putAll: (values) => Object.entries(values).forEach(([key, value]) => memory.set(key, value)),
  remove: (key) => memory.delete(key),
};
Object.assign(globalThis, {
  PropertiesService: { getUserProperties: () => properties, getDocumentProperties: () => properties },
  CacheService: { getDocumentCache: () => cache, getScriptCache: () => cache },
  Utilities: { sleep: () => undefined },
});
const code = readFileSync(process.argv[2], 'utf8');
const t0 = performance.now();
(0, eval)(code);
const t1 = performance.now();
const rows = globalThis.ORGSEARCH('software', 'organization_type=Company', 'domain, name', 'size=20');
const t2 = performance.now();
const described = globalThis.ORGSEARCH('describe: companies installing heat pumps', '', 'domain', 'size=20');
const t3 = performance.now();
if (rows.length < 2 || described.length < 2) throw new Error('the bundle answered nothing');
process.stdout.write(JSON.stringify({ load: t1 - t0, firstSearch: t2 - t1, firstDescribe: t3 - t2 }));
