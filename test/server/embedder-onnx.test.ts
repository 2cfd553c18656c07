/**
 * --embedder onnx:DIR with a real ONNX sentence encoder made by the test (test/support/tiny-encoder.ts: an
 * ONNX protobuf of token and type embeddings, mean or CLS pooling, L2 normalisation, and a WordPiece
 * tokenizer.json): the runtime's vectors equal the encoder's computed independently; `orgindex index build`
 * stores them and records the model; `orgindex serve` answers describe, similar_to and hybrid with the query
 * vectors of the same model — exactly the engine's answers over those vectors — and refuses to serve the
 * snapshot with another model, or without naming its model.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_DATASET, generateRecords } from '../../src/engine/dataset/generate.js';
import { Engine } from '../../src/engine/engine.js';
import { vectorsOf } from '../../src/engine/relevance/store-relevance.js';
import type { ColumnStore } from '../../src/engine/store/store.js';
import { readManifest, readSnapshot } from '../../src/server/index-snapshot.js';
import { OnnxEmbedder } from '../../src/server/embedding/onnx-embedder.js';
import { OnnxDirectoryError, readOnnxDirectory } from '../../src/server/embedding/onnx-model.js';
import { runCli, startServe } from '../support/embedder-cli.js';
import { referenceIds, referenceVector, tinyEncoder, writeEncoder } from '../support/tiny-encoder.js';

jest.setTimeout(120_000);

/** The model's thread as the CLI runs it (compiled: npm run build:lib). */
const workerFile = pathToFileURL(resolve(__dirname, '../../dist/lib/server/embedding/onnx-worker.js'));

const dirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-onnx-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const COUNT = 300;
/** The words of the organizations `--count 300` generates (summaries and tags), with WordPiece continuations and the prefixes' words. */
function vocabulary(): string[] {
  const words = new Set<string>(['query', 'passage', ':', '.', ',', '-', '##s', '##ing', '##er', '##ed']);
  for (const record of generateRecords({ ...DEFAULT_DATASET, count: COUNT })) {
    for (const text of [record.summary ?? '', ...record.summary_keywords]) for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) if (word.length > 0 && words.size < 700) words.add(word);
  }
  return [...words];
}

const encoder = tinyEncoder(vocabulary(), 36, 11);
const other = tinyEncoder(vocabulary(), 36, 12);

const maxDifference = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let max = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) max = Math.max(max, Math.abs((a[i] ?? Number.NaN) - (b[i] ?? Number.NaN)));
  return max;
};

const TEXTS = [
  'Installs solar panels on roofs.',
  'A bakery; bread, cakes and coffee for households',
  'Zahnarztpraxis in München — words it does not know',
  'painters painting walls, painted houses',
  'x',
];

describe('the runtime gives the encoder\'s vectors', () => {
  test.each([
    ['pooled in the graph, model.onnx at the top', { pooled: true, modelIn: 'root' as const }, {}],
    ['token vectors pooled here (mean), onnx/model.onnx', { pooled: false, modelIn: 'onnx' as const }, {}],
    ['CLS pooling, cut to 8 tokens, with prefixes', { pooled: false, modelIn: 'root' as const, settings: { pooling: 'cls', max_tokens: 8, query_prefix: 'query: ', document_prefix: 'passage: ' } }, { pooling: 'cls' as const, maxTokens: 8 }],
    ['mean pooling cut to 8 tokens: the closing [SEP] kept', { pooled: false, modelIn: 'root' as const, settings: { max_tokens: 8 } }, { maxTokens: 8 }],
  ])('%s', async (_name, files, reference: { pooling?: 'cls'; maxTokens?: number }) => {
    const dir = writeEncoder(scratch(), encoder, files);
    const embedder = await OnnxEmbedder.open(readOnnxDirectory(dir), workerFile);
    try {
      expect(embedder.dims).toBe(36);
      const settings = 'settings' in files ? (files.settings as { query_prefix?: string; document_prefix?: string }) : {};
      const documents = await embedder.embed(TEXTS, 'document', 10_000);
      const queries = await embedder.embed(TEXTS, 'query', 10_000);
      TEXTS.forEach((text, i) => {
        expect(maxDifference(documents[i]!, referenceVector(encoder, (settings.document_prefix ?? '') + text, reference))).toBeLessThan(1e-5);
        expect(maxDifference(queries[i]!, referenceVector(encoder, (settings.query_prefix ?? '') + text, reference))).toBeLessThan(1e-5);
      });
      if (reference.maxTokens) expect(referenceIds(encoder, TEXTS[1]!, reference.maxTokens)).toHaveLength(8);
    } finally {
      await embedder.close();
    }
  });

  test('a directory that is not a sentence encoder is refused with what is missing', () => {
    const empty = scratch();
    expect(() => readOnnxDirectory(empty)).toThrow(new OnnxDirectoryError(`--embedder onnx:${empty}: no model.onnx in it or in its onnx/ folder (the Hugging Face layout)`));
    const noTokenizer = writeEncoder(scratch(), encoder);
    rmSync(join(noTokenizer, 'tokenizer.json'));
    expect(() => readOnnxDirectory(noTokenizer)).toThrow(/no tokenizer\.json in it/);
    const badSettings = writeEncoder(scratch(), encoder, { settings: { pooling: 'max', normalise: true } });
    expect(() => readOnnxDirectory(badSettings)).toThrow(/orgindex-embedder\.json: .*pooling/);
  });
});

/**
 * A model that loads and then never answers (stuck in its run): the thread is a real one, its script the
 * test's own, which counts its starts in the model's directory.
 */
function stuckWorker(): URL {
  const file = join(scratch(), 'stuck-worker.mjs');
  writeFileSync(
    file,
    [
      "import { appendFileSync } from 'node:fs';",
      "import { parentPort, workerData } from 'node:worker_threads';",
      "appendFileSync(`${workerData.dir}/starts`, 'x');",
      "parentPort.postMessage({ type: 'ready', dims: 36, loadMs: 0 });",
      '// Takes every request and answers none.',
      'parentPort.on(\'message\', () => undefined);',
    ].join('\n'),
  );
  return pathToFileURL(file);
}

describe('a model that stops answering', () => {
  const failure = (promise: Promise<unknown>): Promise<{ message: string; retry: boolean }> =>
    promise.then(
      () => ({ message: 'answered', retry: false }),
      (error: unknown) => ({ message: (error as Error).message, retry: (error as { retry?: boolean }).retry === true }),
    );

  test('each wait ends at its time-out; a request unanswered for twice its time-out has the thread replaced', async () => {
    const dir = writeEncoder(scratch(), encoder);
    const embedder = await OnnxEmbedder.open(readOnnxDirectory(dir), stuckWorker());
    try {
      expect(await failure(embedder.embed(['a'], 'query', 100))).toEqual({ message: 'the ONNX model did not answer within 0.1 s', retry: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await failure(embedder.embed(['b'], 'query', 100))).toEqual({ message: expect.stringMatching(/^the ONNX model's thread stopped: stuck: no answer for /), retry: true });
      expect(await failure(embedder.embed(['c'], 'query', 100))).toEqual({ message: 'the ONNX model did not answer within 0.1 s', retry: true });
      expect(readFileSync(join(dir, 'starts'), 'utf8')).toBe('xx');
    } finally {
      await embedder.close();
    }
  });

  test('at most 64 requests wait on it: the next is refused at once, retryable', async () => {
    const dir = writeEncoder(scratch(), encoder);
    const embedder = await OnnxEmbedder.open(readOnnxDirectory(dir), stuckWorker());
    const waiting = Array.from({ length: 64 }, (_, i) => failure(embedder.embed([`text ${i}`], 'query', 60_000)));
    try {
      expect(await failure(embedder.embed(['one more'], 'query', 60_000))).toEqual({ message: 'the ONNX model is busy: 64 requests unanswered', retry: true });
    } finally {
      await embedder.close();
    }
    expect(new Set((await Promise.all(waiting)).map((f) => f.message))).toEqual(new Set(["the ONNX model's thread stopped: closed"]));
  });
});

/** What the tests below compare: organizations' texts as the embedder sees them, written independently. */
function documentTextOf(store: ColumnStore, row: number): string {
  const summary = (store.text.summary.get(row) ?? '').trim();
  const tags = store.keywordsOf(row).join(', ');
  if (tags === '') return summary;
  return `${summary}${/[.!?;:]$/.test(summary) ? ' ' : '. '}${tags}`;
}

describe('index build and serve with the model', () => {
  const model = join(scratch(), 'tiny-e5');
  const prefixes = { query_prefix: 'query: ', document_prefix: 'passage: ' };
  writeEncoder(model, encoder, { modelIn: 'onnx', settings: { model: 'tiny-e5', ...prefixes } });
  const snapshot = join(scratch(), 'snapshot');
  let built: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    built = await runCli(['index', 'build', '--count', String(COUNT), '--out', snapshot, '--embedder', `onnx:${model}`]);
  });

  test('the snapshot holds the model\'s vectors of every organization and records the model', () => {
    expect(built.code).toBe(0);
    expect(built.stderr).toMatch(/embedder: the ONNX model tiny-e5 \(36 dimensions, fingerprint sha256:[0-9a-f]{12}…\) from .*onnx\/model\.onnx, loaded in [\d.]+ s on a thread of its own/);
    expect(built.stderr).toMatch(/embedding organizations \(onnx tiny-e5\): 300 of 300 \(100 %\)/);
    const manifest = readManifest(snapshot);
    expect(manifest.embedder).toEqual({ kind: 'onnx', model: 'tiny-e5', dims: 36, fingerprint: readOnnxDirectory(model).fingerprint });
    const { store } = readSnapshot(snapshot, { external: true });
    const { matrix, component } = vectorsOf(store);
    expect(Array.from(component)).toEqual(new Array(36).fill(0));
    // The stored vectors are int8 codes of the model's (vector-scan.ts): x[d] is a whole number of steps of
    // (row scale × axis unit), the row scale mapping its largest |x[d] / axis unit| to 127, so each
    // coordinate is the reference's within half a step.
    const { axis } = matrix.scan;
    let outside = 0;
    for (let row = 0; row < store.size; row++) {
      const stored = matrix.vector(row)!;
      const expected = referenceVector(encoder, `passage: ${documentTextOf(store, row)}`);
      const scale = Math.max(...Array.from(expected, (x, d) => Math.abs(x / axis[d]!))) / 127;
      for (let d = 0; d < 36; d++) if (Math.abs(stored[d]! - expected[d]!) > scale * axis[d]! * 0.5 + 1e-6) outside++;
    }
    expect(outside).toBe(0);
  });

  test('serve answers describe, similar_to and hybrid with the model\'s query vectors; v1 too', async () => {
    const served = await startServe(['--index', snapshot, '--embedder', `onnx:${model}`]);
    try {
      const { store } = readSnapshot(snapshot, { external: true });
      const describe = 'hair salon for bridal hairstyles';
      const terms = ['coffee', 'bakery', 'painting'];
      const vectors = new Map([describe, ...terms].map((text) => [text, referenceVector(encoder, `query: ${text}`)]));
      const engine = new Engine(store).withQueryVectors(vectors);
      const bodies = [
        { describe, size: 20 },
        { similar_to: [{ domain: store.domain(3), boost: ['coffee'], penalize: ['bakery'] }, { domain: store.domain(9), boost: ['painting'], weight: 0.5 }], size: 20 },
        { keywords: { must_any: ['salon', 'hair', 'bakery'] }, describe, size: 20, search_balance: 0.4 },
        { describe, min_score: 0.2, size: 5 },
      ];
      for (const body of bodies) {
        const answer = await served.post('/v2/search', body);
        expect(answer.status).toBe(200);
        const expected = engine.search(body);
        expect((answer.body as typeof expected).data).toEqual(expected.data);
        expect((answer.body as typeof expected).metadata.total_hits).toBe(expected.metadata.total_hits);
      }
      // And the describe ranking is the brute-force ranking of the stored vectors by the reference query vector.
      const query = vectors.get(describe)!;
      const { matrix } = vectorsOf(store);
      const scores = Array.from({ length: store.size }, (_, row) => {
        const stored = matrix.vector(row)!;
        let dot = 0;
        for (let d = 0; d < 36; d++) dot += stored[d]! * query[d]!;
        return { domain: store.domain(row), dot };
      }).sort((a, b) => b.dot - a.dot);
      const top = ((await served.post('/v2/search', { describe, size: 10 })).body as { data: { domain: string }[] }).data.map((row) => row.domain);
      expect(top).toEqual(scores.slice(0, 10).map((score) => score.domain));
      // v1's semantic_input goes through the same model.
      const v1 = await served.post('/v1/search', { search_id: '3f2b8e0c-1d2e-4f5a-9b6c-7d8e9f0a1b2c', semantic_input: describe, size: 10 });
      expect(v1.status).toBe(200);
      expect((v1.body as { data: { domain: string }[] }).data.map((row) => row.domain)).toEqual(top);
    } finally {
      expect((await served.close()).code).toBe(0);
    }
  });

  test('serving from --data embeds the organizations at start and answers as the snapshot does', async () => {
    const data = join(scratch(), 'organizations.jsonl');
    writeFileSync(data, `${[...generateRecords({ ...DEFAULT_DATASET, count: COUNT })].map((record) => JSON.stringify(record)).join('\n')}\n`);
    const fromData = await startServe(['--data', data, '--embedder', `onnx:${model}`]);
    const fromSnapshot = await startServe(['--index', snapshot, '--embedder', `onnx:${model}`]);
    try {
      expect(fromData.stderr()).toMatch(/embedding organizations \(onnx tiny-e5\): 300 of 300 \(100 %\)/);
      const body = { describe: 'bakery with bread and cakes', size: 30 };
      const [a, b] = await Promise.all([fromData.post('/v2/search', body), fromSnapshot.post('/v2/search', body)]);
      expect(a.status).toBe(200);
      expect((a.body as { data: unknown[] }).data).toEqual((b.body as { data: unknown[] }).data);
    } finally {
      await Promise.all([fromData.close(), fromSnapshot.close()]);
    }
  });

  test('the snapshot is refused with another model, with the built-in embedder, and without --embedder (exit 2, both named)', async () => {
    const another = writeEncoder(join(scratch(), 'another'), other, { settings: { model: 'tiny-e5', ...prefixes } });
    const state = scratch();
    const mismatch = await runCli(['serve', '--port', '0', '--index', snapshot, '--embedder', `onnx:${another}`, '--state-dir', join(state, 'a')]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/its vectors were made by the ONNX model tiny-e5 \(36 dimensions, fingerprint sha256:[0-9a-f]{12}…\), and --embedder gives the ONNX model tiny-e5 \(36 dimensions, fingerprint sha256:[0-9a-f]{12}…\): another model file, tokenizer or settings/);
    const builtin = await runCli(['serve', '--port', '0', '--index', snapshot, '--embedder', 'builtin', '--state-dir', join(state, 'b')]);
    expect(builtin.code).toBe(2);
    expect(builtin.stderr).toMatch(/and --embedder gives the built-in embedder SIF-weighted GloVe .*: another kind of embedder\. Serve it with --embedder onnx:DIR \(the directory of tiny-e5\)/);
    const none = await runCli(['serve', '--port', '0', '--index', snapshot, '--state-dir', join(state, 'c')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`index snapshot ${snapshot} was built with the ONNX model tiny-e5 (36 dimensions`);
    expect(none.stderr).toContain('serve it with --embedder onnx:DIR (the directory of tiny-e5)');
    const prefixChanged = await runCli(['serve', '--port', '0', '--index', snapshot, '--embedder', `onnx:${model}`, '--embedder-query-prefix', 'search_query: ', '--state-dir', join(state, 'd')]);
    expect(prefixChanged.code).toBe(2);
  });
});
