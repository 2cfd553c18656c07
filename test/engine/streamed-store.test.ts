// A store built from streamed records with its keyword index built alongside, a segment at a time
// (streamedStore), against the store built from every record with its index built from the store: the
// same answers to keyword, phrase and hybrid searches, without the index text kept.
import { generateDataset } from '../../src/engine/index.js';
import { Engine, createEngine } from '../../src/engine/engine.js';
import { streamedStore, textIndexOf } from '../../src/engine/relevance/store-relevance.js';

const records = generateDataset({ count: 3_000, seed: 19 });
const whole = createEngine(records);

const searches = [
  { keywords: { must_all: ['solar'] } },
  { keywords: { must_any: ['software', 'bakery', 'hospital'], must_not: ['GmbH'] } },
  { keywords: { must_all: ['wind turbines'] } },
  { keywords: { must_any: ['dentists', 'families'] } },
  { keywords: { must_all: ['care'] }, describe: 'childcare for working parents' },
  { filters: { text_keywords: { must_any: ['bakery', 'roofing'] } } },
];

test.each([1_000, 2_999, 3_000, 10_000])('segments of %i records answer as the whole build', (segment) => {
  const store = streamedStore(records, segment);
  expect(store.indexText).toBeNull();
  const streamed = new Engine(store);
  expect(textIndexOf(store).docCount).toBe(3_000);
  let rows = 0;
  for (const body of searches) {
    const request = { ...body, size: 50, columns: ['domain', 'name'] } as Parameters<Engine['search']>[0];
    const want = whole.search(request);
    const got = streamed.search(request);
    expect(got.total_hits).toBe(want.total_hits);
    expect(got.data).toEqual(want.data);
    rows += got.data.length;
  }
  expect(rows).toBeGreaterThan(150);
});
