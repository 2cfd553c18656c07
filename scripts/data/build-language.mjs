// Builds the language assets the engine imports (npm run data:language), from their source files:
// - src/engine/data/lexicon-de-en.json from src/engine/data/lexicon/*.tsv — OrgIndex's own German → English
//   lexicon: one German lemma per line, a tab, 1–4 English senses of the embedding vocabulary. The same
//   lemma in two files: the senses are joined, the first file's (in name order) first.
// - src/engine/data/concepts.json from src/engine/data/concepts/*.tsv — kinds of organizations with the
//   words they use about themselves (trade) and the words of their customers' needs, per language:
//   `id<TAB>en|de<TAB>trade terms<TAB>needs terms`; a kind in two files has the terms of both.
// The portable core cannot read a TSV file; the tests check that the JSON files are up to date.
// Usage: node scripts/data/build-language.mjs [--check]  (--check: exit 1 if a JSON file is out of date)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../src/engine/data/', import.meta.url).pathname;
const check = process.argv.includes('--check');
const tsvFiles = (dir) => readdirSync(join(root, dir)).filter((name) => name.endsWith('.tsv')).sort();

/** Rows of the TSV files of a folder: [file, line number, columns], comments and blank lines skipped. */
function rows(dir) {
  const out = [];
  for (const file of tsvFiles(dir)) {
    readFileSync(join(root, dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() !== '' && !line.startsWith('#')) out.push([file, i + 1, line.split('\t')]);
      });
  }
  return out;
}

const terms = (text) => text.split(',').map((term) => term.trim()).filter(Boolean);
const byKey = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function lexicon() {
  const entries = new Map();
  for (const [file, line, columns] of rows('lexicon')) {
    const [lemma, senses, extra] = columns;
    if (!lemma || !senses || extra !== undefined || lemma !== lemma.trim().toLowerCase()) {
      throw new Error(`lexicon/${file}:${line}: expected "lemma<TAB>sense, sense" in lower case`);
    }
    const known = entries.get(lemma) ?? [];
    for (const sense of terms(senses)) if (!known.includes(sense)) known.push(sense);
    entries.set(lemma, known);
  }
  const sorted = [...entries].sort(([a], [b]) => byKey(a, b));
  const about = 'German → English lexicon of OrgIndex (its own work): German lemma → English senses of the embedding vocabulary, most important first. Built from lexicon/*.tsv by npm run data:language; do not edit by hand.';
  // One entry per line, so that diffs stay readable.
  const body = sorted.map(([lemma, senses]) => `    ${JSON.stringify(lemma)}: ${JSON.stringify(senses.join(', '))}`).join(',\n');
  return { text: `{\n  "about": ${JSON.stringify(about)},\n  "files": ${JSON.stringify(tsvFiles('lexicon'))},\n  "entries": {\n${body}\n  }\n}\n`, count: sorted.length };
}

function concepts() {
  const kinds = new Map();
  for (const [file, line, columns] of rows('concepts')) {
    const [id, language, trade, needs, extra] = columns;
    if (!id || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id) || (language !== 'en' && language !== 'de') || !trade || !needs || extra !== undefined) {
      throw new Error(`concepts/${file}:${line}: expected "id<TAB>en|de<TAB>trade terms<TAB>needs terms"`);
    }
    // The same kind in two files (a food bank is social and public): its terms are joined.
    const kind = kinds.get(id) ?? { id, trade: {}, needs: {} };
    const join = (known, more) => [...new Set([...(known ? known.split(', ') : []), ...terms(more)])].join(', ');
    kind.trade[language] = join(kind.trade[language], trade);
    kind.needs[language] = join(kind.needs[language], needs);
    kinds.set(id, kind);
  }
  const sorted = [...kinds.values()].sort((a, b) => byKey(a.id, b.id));
  const about = 'Kinds of organizations with the words they use about themselves (trade) and the words of their customers\' needs, per language; OrgIndex\'s own. Built from concepts/*.tsv by npm run data:language; do not edit by hand.';
  const body = sorted.map((kind) => `    ${JSON.stringify(kind)}`).join(',\n');
  return { text: `{\n  "about": ${JSON.stringify(about)},\n  "files": ${JSON.stringify(tsvFiles('concepts'))},\n  "kinds": [\n${body}\n  ]\n}\n`, count: sorted.length };
}

let stale = 0;
for (const [name, built, what] of [['lexicon-de-en.json', lexicon(), 'German lemmas'], ['concepts.json', concepts(), 'kinds of organizations']]) {
  JSON.parse(built.text);
  const path = join(root, name);
  if (check) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing: stale
    }
    if (current !== built.text) {
      console.error(`${name} is out of date: run npm run data:language`);
      stale++;
    }
  } else {
    writeFileSync(path, built.text);
    console.error(`${name}: ${built.count} ${what}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
