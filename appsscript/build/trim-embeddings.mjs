// Webpack loader for src/engine/data/embeddings.json in the Apps Script bundle: keeps the `keep` most
// frequent words, every word the dataset vocabulary needs (the forms of src/engine/dataset/industries.ts,
// found as the asset's builder finds them) and every English word of the German lexicon and of the kinds of
// organizations (lexicon-de-en.json, concepts.json), so organizations, German words and the need-to-trade
// expansion embed exactly as with the full asset and only rarer English query words go unknown. Apps Script parses the whole project on every execution, custom functions
// included, so the full asset's 8 MB would be paid by each cell.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lookupForms } from '../../scripts/data/word-forms.mjs';

export default function trimEmbeddings(source) {
  const { keep, root } = this.getOptions();
  const industries = join(root, 'src/engine/dataset/industries.ts');
  this.addDependency(industries);
  // The file's whole text: a superset of its strings' words (a kept extra word costs only bytes).
  const datasetForms = lookupForms(readFileSync(industries, 'utf8'));
  for (const name of ['lexicon-de-en.json', 'concepts.json']) {
    const file = join(root, 'src/engine/data', name);
    this.addDependency(file);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const english = name === 'concepts.json' ? data.kinds.flatMap((kind) => [kind.trade.en ?? '', kind.needs.en ?? '']) : Object.values(data.entries);
    for (const text of english) for (const word of lookupForms(text)) datasetForms.add(word);
  }
  const asset = JSON.parse(source);
  const rows = asset.words.flatMap((word, row) => (row < keep || row >= asset.common || datasetForms.has(word) ? [row] : []));
  const codes = Buffer.from(asset.vectors, 'base64');
  const kept = Buffer.alloc(rows.length * asset.dims);
  rows.forEach((row, i) => codes.copy(kept, i * asset.dims, row * asset.dims, (row + 1) * asset.dims));
  const pick = (values) => rows.map((row) => values[row]);
  const common = rows.filter((row) => row < asset.common).length;
  return JSON.stringify({ ...asset, count: rows.length, common, words: pick(asset.words), ranks: pick(asset.ranks), scales: pick(asset.scales), vectors: kept.toString('base64') });
}
