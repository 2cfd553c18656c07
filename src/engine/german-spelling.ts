/**
 * One German spelling rule for the whole engine, in a leaf of its own: the sample's domains (dataset/), the
 * lexicon's keys (relevance/) and the place spellings nlp_search recognises (language/) are written the
 * same way, and the dataset layer may not import the relevance layer.
 */

/**
 * German spelt the ASCII way people type it: lower case, umlauts spelt out (ä → ae, ö → oe, ü → ue), ß → ss,
 * other accents stripped ("Küche" → "kueche", "Café" → "cafe").
 */
export function spellOutGerman(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
}
