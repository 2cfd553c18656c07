/** Long answers serialised in slices: the same bytes as JSON.stringify, with turns of the event loop between. */
import { stringifyInSlices } from '../../src/server/slices.js';

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ domain: `d${i}.example`, name: i % 7 === 0 ? 'Müller "&" \u2028 Söhne' : `Org ${i}`, tags: [i, null, { x: true }] }));

it.each([0, 1, 250, 251, 5_000])('an answer of %i rows is the same text as JSON.stringify', async (n) => {
  const body = { data: rows(n), metadata: { total: n, filters_applied: { country: ['Österreich'] } } };
  expect(await stringifyInSlices(body)).toBe(JSON.stringify(body));
});

it('keeps the key order of the envelope (rows after other keys too)', async () => {
  const body = { total_hits: 3, data: rows(600), next: null };
  expect(await stringifyInSlices(body)).toBe(JSON.stringify(body));
});

it('an input echoed in the answer that looks like the placeholder falls back to one piece', async () => {
  const body = { metadata: { echo: '\u0000rows\u0000' }, data: rows(600) };
  expect(await stringifyInSlices(body)).toBe(JSON.stringify(body));
});

it('gives the event loop turns while it serialises a long list', async () => {
  let finished = false;
  let probeRanMeanwhile = false;
  const pending = stringifyInSlices({ data: rows(5_000) }).then(() => {
    finished = true;
  });
  // Runs on the next turn of the event loop: before the end only if the serialisation yields.
  setImmediate(() => {
    probeRanMeanwhile = !finished;
  });
  await pending;
  expect(probeRanMeanwhile).toBe(true);
});
