// Webpack loader for src/engine/data/embeddings.json in the Apps Script bundle: keeps the `keep` most
// frequent words and every word the dataset vocabulary needs (the forms of src/engine/dataset/industries.ts,
// found as the asset's builder finds them), so organizations embed exactly as with the full asset and only
// rarer query words go unknown. Apps Script parses the whole project on every execution, custom functions
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
  const asset = JSON.parse(source);
  const rows = asset.words.flatMap((word, row) => (row < keep || row >= asset.common || datasetForms.has(word) ? [row] : []));
  const codes = Buffer.from(asset.vectors, 'base64');
  const kept = Buffer.alloc(rows.length * asset.dims);
  rows.forEach((row, i) => codes.copy(kept, i * asset.dims, row * asset.dims, (row + 1) * asset.dims));
  const pick = (values) => rows.map((row) => values[row]);
  const common = rows.filter((row) => row < asset.common).length;
  return JSON.stringify({ ...asset, count: rows.length, common, words: pick(asset.words), ranks: pick(asset.ranks), scales: pick(asset.scales), vectors: kept.toString('base64') });
}
