/**
 * German words in the English vector space: the lexicon's lookup (inflections, umlaut spellings,
 * compounds, words stems would join), the embedder's German reading of German texts, the need-to-trade
 * expansion of queries, and the committed language assets being up to date with their sources.
 */
import { execFileSync } from 'node:child_process';
import { GermanLexicon, germanLexicon } from '../../src/engine/relevance/german-lexicon.js';
import { ConceptExpansion, type ConceptsAsset } from '../../src/engine/relevance/concepts.js';
import { SifGloveEmbedder } from '../../src/engine/relevance/embedder.js';

/** The cosine of two unit vectors; 0 when either text has no vector. */
const cosine = (a: Float32Array | null, b: Float32Array | null): number => {
  if (!a || !b) return 0;
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += (a[d] ?? 0) * (b[d] ?? 0);
  return sum;
};

describe('the lexicon', () => {
  const lexicon = new GermanLexicon({
    bäckerei: 'bakery',
    heizung: 'heating',
    rohr: 'pipe',
    bau: 'construction',
    bauer: 'farmer',
    küche: 'kitchen',
    kuchen: 'cake',
    steuer: 'tax',
    beratung: 'advice, consulting',
    kanzlei: 'office, firm',
    kitten: 'putty',
  });

  test('a word finds its lemma however it is inflected and however its umlauts are typed', () => {
    for (const word of ['Bäckerei', 'Bäckereien', 'backereien', 'Baeckerei', 'BÄCKEREI']) expect([word, lexicon.keysOf(word)]).toEqual([word, ['baeckerei']]);
    expect(lexicon.keysOf('Heizungen')).toEqual(['heizung']);
    expect(lexicon.keysOf('Rohre')).toEqual(['rohr']);
  });

  test('a verb as people write it finds its infinitive', () => {
    const verbs = new GermanLexicon({ tropfen: 'drip', reparieren: 'repair', sammeln: 'collect' });
    const forms: [string, string][] = [['tropft', 'tropfen'], ['repariert', 'reparieren'], ['reparierst', 'reparieren'], ['sammelt', 'sammeln'], ['tropfte', 'tropfen']];
    for (const [word, lemma] of forms) {
      expect([word, verbs.keysOf(word)]).toEqual([word, [lemma]]);
    }
  });

  test('words a stem would join stay apart: the longest lemma that begins the word', () => {
    expect(lexicon.keysOf('Bauern')).toEqual(['bauer']);
    expect(lexicon.keysOf('Baus')).toEqual(['bau']);
    expect(lexicon.keysOf('Küchen')).toEqual(['kueche']);
    expect(lexicon.keysOf('Kuechen')).toEqual(['kueche']);
    expect(lexicon.keysOf('Kuchens')).toEqual(['kuchen']);
  });

  test('compounds split into lemmas, linking letters allowed, up to three parts', () => {
    expect(lexicon.keysOf('Heizungsbauer')).toEqual(['heizung', 'bauer']);
    expect(lexicon.keysOf('Steuerberatungskanzlei')).toEqual(['steuer', 'beratung', 'kanzlei']);
    expect(lexicon.keysOf('Rohrbau')).toEqual(['rohr', 'bau']);
    expect(lexicon.keysOf('xylophon')).toEqual([]);
  });

  test('strictly (a word of a text that is not German): the lemma, a German ending, or a compound only', () => {
    expect(lexicon.strictKeysOf('Heizungen')).toEqual(['heizung']);
    expect(lexicon.strictKeysOf('Heizungsbauer')).toEqual(['heizung', 'bauer']);
    expect(lexicon.strictKeysOf('Bauten')).toEqual([]); // a stem match with no German ending after the lemma
    expect(lexicon.strictKeysOf('kittens')).toEqual(['kitten']); // "Kitten" + s is German too: ambiguity stays
  });

});

describe('German texts in the English space (the committed lexicon)', () => {
  const embedder = new SifGloveEmbedder();
  const englishOnly = new SifGloveEmbedder({ german: null });

  test('a German query meets the English description of its meaning, and not another', () => {
    const pairs: [string, string, string][] = [
      ['Handwerker, die Heizungen und Rohre reparieren', 'plumbing and heating installation, bathroom renovation', 'bakery with sourdough bread and pastries'],
      ['Bäckerei mit glutenfreiem Brot', 'bakery with gluten-free bread', 'artificial intelligence research lab'],
      ['Steuerberatungskanzlei', 'tax advisers and accountants', 'roofing and roof repairs'],
      ['Wo bekomme ich eine neue Brille?', 'optician selling glasses and contact lenses', 'freight forwarding and warehousing'],
    ];
    for (const [german, meaning, other] of pairs) {
      const query = embedder.embed(german);
      const near = cosine(query, embedder.embed(meaning));
      expect([german, near > 0.6, near > cosine(query, embedder.embed(other)) + 0.2]).toEqual([german, true, true]);
      // Without the lexicon, German words have no meaning here.
      expect(cosine(englishOnly.embed(german), englishOnly.embed(meaning))).toBeLessThan(0.3);
    }
  });

  test('German function words are dropped; a word both languages have reads as the language of the text', () => {
    expect(embedder.embed('die Bäckerei und das Brot')).toEqual(embedder.embed('Bäckerei Brot'));
    const bath = embedder.embed('bathroom shower tiles');
    expect(cosine(embedder.embed('das Bad mit neuer Dusche'), bath)).toBeGreaterThan(cosine(embedder.embed('a bad day'), bath) + 0.2);
    // A German word English knows only from names ("Krankenhaus") reads as German, alone too.
    expect(cosine(embedder.embed('Krankenhaus'), embedder.embed('hospital'))).toBeGreaterThan(0.8);
  });

  test('English texts embed as before the lexicon', () => {
    for (const text of ['plumbing and heating installation', 'a bad day at the bank', 'solar panels for homes']) {
      expect(embedder.embed(text)).toEqual(englishOnly.embed(text));
    }
  });

  test('the committed lexicon has its German words, each with English senses', () => {
    const lexicon = germanLexicon();
    expect(lexicon.size).toBeGreaterThan(8_000);
    for (const word of ['Handwerker', 'Heizung', 'Zahnarzt', 'Steuerberater', 'Wärmepumpe']) expect([word, lexicon.has(word)]).toEqual([word, true]);
  });
});

test('the committed language assets are built from their sources (npm run data:language)', () => {
  expect(() => execFileSync(process.execPath, ['scripts/data/build-language.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
});

describe('from a need to a trade (the committed table of kinds of organizations)', () => {
  const embedder = new SifGloveEmbedder();
  const expansion = new ConceptExpansion(embedder);
  const kindsOf = (text: string): string[] => expansion.matches(text, embedder.embed(text) ?? new Float32Array(embedder.dims)).map((m) => m.id);

  test('a need in everyday words, English or German, finds the kind of organization that meets it', () => {
    const needs: [string, string][] = [
      ['my toilet is blocked and the basement smells of sewage', 'drain-cleaning'],
      ['die Toilette ist verstopft', 'drain-cleaning'],
      ['our puppy needs its first vaccinations', 'veterinarian'],
      ['Welpe impfen lassen', 'veterinarian'],
      ['I need new glasses for reading', 'optician'],
      ['my car makes a strange noise when I brake', 'car-repair'],
      ['Zahnschmerzen seit gestern', 'dentist'],
      ['Lichtschalter und Steckdosen in der neuen Wohnung', 'electrician'],
    ];
    for (const [text, kind] of needs) expect([text, kindsOf(text)]).toEqual([text, expect.arrayContaining([kind])]);
  });

  test('the query borrows the trade: it moves towards how such organizations describe themselves', () => {
    const query = 'Welpe impfen lassen';
    const vet = embedder.embed('veterinary practice, animal clinic, vet');
    expect(cosine(embedder.embedQuery(query), vet)).toBeGreaterThan(cosine(embedder.embed(query), vet) + 0.05);
    expect(embedder.embedQuery('xqzvbt')).toBeNull();
  });

  test('a query that matches no need borrows nothing; nor do words that many kinds name', () => {
    expect(kindsOf('the of and')).toEqual([]);
    expect(kindsOf('company in Munich')).toEqual([]);
    expect(kindsOf('Firmen in München')).toEqual([]);
  });

  test('an English word meets a term written in another form of it (Snowball English stem)', () => {
    const table: ConceptsAsset = {
      about: 'two kinds',
      kinds: [
        { id: 'laundry', trade: { en: 'laundry, laundrette' }, needs: { en: 'washing, ironing, stains, shirts' } },
        { id: 'bakery', trade: { en: 'bakery, baker' }, needs: { en: 'bread, rolls, cakes' } },
      ],
    };
    const small = new ConceptExpansion(embedder, table);
    const query = 'who can get these stains washed out';
    expect(small.matches(query, embedder.embed(query) ?? new Float32Array(embedder.dims)).map((m) => m.id)).toEqual(['laundry']);
  });
});
