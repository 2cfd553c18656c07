/**
 * The Sheets bundle's word vectors (appsscript/build/trim-embeddings.mjs, a webpack loader run here
 * directly on the committed asset): the most frequent words and every dataset word kept, byte for byte,
 * so organization texts embed exactly as with the full asset.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import trimEmbeddings from '../../appsscript/build/trim-embeddings.mjs';
import { INDUSTRY_CLASSES } from '../../src/engine/dataset/industries.js';
import { decodeEmbeddings, SifGloveEmbedder, type EmbeddingsAsset } from '../../src/engine/relevance/embedder.js';
import { lookupForms } from '../../scripts/data/word-forms.mjs';

const root = process.cwd();
const source = readFileSync(join(root, 'src/engine/data/embeddings.json'), 'utf8');
const full = JSON.parse(source) as EmbeddingsAsset;
const dependencies: string[] = [];
/** As the Sheets bundle keeps them (APPS_SCRIPT_BUDGETS.embeddingWords in webpack.config.js). */
const KEEP = 10_000;
const trimmed = JSON.parse(trimEmbeddings.call({ getOptions: () => ({ keep: KEEP, root }), addDependency: (file) => dependencies.push(file) }, source)) as EmbeddingsAsset;
const readData = (name: string): unknown => JSON.parse(readFileSync(join(root, 'src/engine/data', name), 'utf8'));

test('the 10,000 most frequent words and every dataset, lexicon and kinds-table word are kept, with their vectors, ranks and scales unchanged', () => {
  expect(trimmed.count).toBe(trimmed.words.length);
  expect([trimmed.ranks.length, trimmed.scales.length]).toEqual([trimmed.count, trimmed.count]);
  expect(Buffer.from(trimmed.vectors, 'base64').length).toBe(trimmed.count * trimmed.dims);
  expect(trimmed.words.slice(0, KEEP)).toEqual(full.words.slice(0, KEEP));
  const datasetWords = new Set(INDUSTRY_CLASSES.flatMap((c) => [c.title, ...c.keywords, ...c.offerings, ...c.activities, ...c.audiences, ...c.nameWords]).flatMap((text) => [...lookupForms(text)]));
  const inAsset = full.words.filter((word) => datasetWords.has(word));
  expect(inAsset.length).toBeGreaterThan(1_000);
  const kept = new Set(trimmed.words);
  expect(inAsset.filter((word) => !kept.has(word))).toEqual([]);
  // Every English word the German lexicon and the kinds of organizations use, in every form the embedder looks up.
  const lexicon = Object.values((readData('lexicon-de-en.json') as { entries: Record<string, string> }).entries);
  const kinds = (readData('concepts.json') as { kinds: { trade: { en?: string }; needs: { en?: string } }[] }).kinds.flatMap((kind) => [kind.trade.en ?? '', kind.needs.en ?? '']);
  const languageWords = new Set([...lexicon, ...kinds].flatMap((text) => [...lookupForms(text)]));
  expect(full.words.filter((word) => languageWords.has(word) && !kept.has(word))).toEqual([]);
  // Words beyond the 10,000 most frequent that the dataset needs (a build that kept only the most frequent words would lose them).
  for (const word of ['photovoltaic', 'horticulture', 'breweries']) expect(kept.has(word)).toBe(true);
  expect(dependencies).toEqual(['src/engine/dataset/industries.ts', 'src/engine/data/lexicon-de-en.json', 'src/engine/data/concepts.json'].map((file) => join(root, file)));

  const fullCodes = Buffer.from(full.vectors, 'base64');
  const trimmedCodes = Buffer.from(trimmed.vectors, 'base64');
  const at = new Map(full.words.map((word, row) => [word, row]));
  trimmed.words.forEach((word, row) => {
    const original = at.get(word) as number;
    if (row % 97 === 0) expect(trimmedCodes.subarray(row * 100, (row + 1) * 100)).toEqual(fullCodes.subarray(original * 100, (original + 1) * 100));
    expect([trimmed.ranks[row], trimmed.scales[row]]).toEqual([full.ranks[original], full.scales[original]]);
  });
});

test('organization texts embed exactly as with the full asset; a rare query word is unknown', () => {
  const small = new SifGloveEmbedder({ vocabulary: decodeEmbeddings(trimmed) });
  const large = new SifGloveEmbedder({ vocabulary: decodeEmbeddings(full) });
  for (const c of INDUSTRY_CLASSES.slice(0, 40)) {
    const text = [c.title, ...c.offerings, ...c.activities].join(' ');
    expect(small.embed(text)).toEqual(large.embed(text));
  }
  // German words too: the lexicon's English senses are all kept.
  for (const text of ['Handwerker, die Heizungen und Rohre reparieren', 'Bäckerei mit glutenfreiem Brot']) expect(small.embed(text)).toEqual(large.embed(text));
  expect(large.embed('sonnets')).not.toBeNull();
  expect(small.embed('sonnets')).toBeNull();
});
