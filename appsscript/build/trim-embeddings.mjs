// Webpack loader for src/engine/data/embeddings.json in the Apps Script bundle: keeps the `keep` most
// frequent words and every dataset word (the organizations' texts embed exactly as in the full asset;
// only rarer query words go unknown). Apps Script parses the whole project on every execution, custom
// functions included, so the asset's 8 MB would be paid by each cell.
export default function trimEmbeddings(source) {
  const { keep } = this.getOptions();
  const asset = JSON.parse(source);
  const common = Math.min(keep, asset.common);
  const rows = [...Array.from({ length: common }, (_, i) => i), ...Array.from({ length: asset.count - asset.common }, (_, i) => asset.common + i)];
  const codes = Buffer.from(asset.vectors, 'base64');
  const kept = Buffer.alloc(rows.length * asset.dims);
  rows.forEach((row, i) => codes.copy(kept, i * asset.dims, row * asset.dims, (row + 1) * asset.dims));
  const pick = (values) => rows.map((row) => values[row]);
  return JSON.stringify({ ...asset, count: rows.length, common, words: pick(asset.words), ranks: pick(asset.ranks), scales: pick(asset.scales), vectors: kept.toString('base64') });
}
