// The word forms the runtime tokeniser (src/engine/relevance/embedder.ts) may look up: shared by the
// embedding asset's builder (build-embeddings.mjs) and the Sheets bundle's trimmer (appsscript/build/).

const stripMarks = (s) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
const transliterate = (s) => stripMarks(s.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue'));

/** The runtime's fallback for British -ise spellings GloVe lacks ("digitises" → "digitizes"). */
export const americanSpelling = (w) => w.replace(/is(e|es|ed|ing|ation|ations|er|ers)$/, 'iz$1');

/** Every form of a text's words the runtime may look up (a superset: extra words cost only bytes). */
export function lookupForms(text) {
  const forms = new Set();
  const lower = text.toLowerCase().replace(/ß/g, 'ss').replace(/['’]s\b/g, ' ');
  for (const raw of lower.split(/[^\p{L}\p{N}-]+/u)) {
    const chunk = raw.replace(/^-+|-+$/g, '');
    if (!chunk) continue;
    for (const folded of new Set([chunk, stripMarks(chunk), transliterate(chunk)])) {
      for (const word of [folded, ...folded.split('-')]) {
        if (!word) continue;
        forms.add(word);
        forms.add(americanSpelling(word));
      }
    }
  }
  return forms;
}
