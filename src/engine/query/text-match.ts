/**
 * Strict keyword matching for `text_keywords` (and, until the relevance engine's inverted index lands,
 * the only text matching there is): a term or phrase matches when its words appear adjacently in the
 * organization's name, summary or hidden text, compared case- and accent-insensitively.
 */
import type { Keywords } from '../../contract/v2/filters.js';
import type { ColumnStore } from '../store/store.js';

/** Lower case, accents removed, ß → ss, anything not a letter or digit → one space, padded with spaces. */
export function foldForMatch(text: string): string {
  const folded = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return ` ${folded} `;
}

const foldedTexts = new WeakMap<ColumnStore, string[]>();

function foldedTextOf(store: ColumnStore): string[] {
  let texts = foldedTexts.get(store);
  if (!texts) {
    texts = store.domains.map((_, row) =>
      foldForMatch([store.text.name[row], store.text.summary[row], store.indexText[row]].filter((t) => t).join(' \n ')),
    );
    foldedTexts.set(store, texts);
  }
  return texts;
}

/** A predicate over rows for a keywords object (must_all AND, must_any OR, must_not NOT). */
export function textMatcher(store: ColumnStore, keywords: Keywords): (row: number) => boolean {
  const texts = foldedTextOf(store);
  const terms = (list: readonly string[]) => list.map(foldForMatch).filter((t) => t.trim() !== '');
  const all = terms(keywords.must_all);
  const any = terms(keywords.must_any);
  const none = terms(keywords.must_not);
  return (row) => {
    const text = texts[row] ?? '';
    return all.every((t) => text.includes(t)) && (any.length === 0 || any.some((t) => text.includes(t))) && !none.some((t) => text.includes(t));
  };
}
