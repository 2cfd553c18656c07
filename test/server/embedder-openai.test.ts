/**
 * --embedder openai:URL against a real OpenAI-compatible embeddings service on the loopback interface
 * (deterministic vectors of 1,024 dimensions, not unit length): `orgindex index build` embeds every
 * organization through it in batches (key in the Authorization header, never printed), `orgindex serve`
 * embeds each query's texts with the query prefix and answers as the engine does over those vectors. A
 * service that fails, answers late, answers vectors of other dimensions or refuses the key costs a search
 * a 503 with Retry-After (the server keeps answering everything else) and a build its exit code with the
 * reason; a snapshot is refused with another model or prefix, and served without --embedder it asks for one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import { vectorsOf } from '../../src/engine/relevance/store-relevance.js';
import type { ColumnStore } from '../../src/engine/store/store.js';
import { EmbedderSpecError, parseEmbedderSpec } from '../../src/server/embedding/embedder-spec.js';
import { readManifest, readSnapshot } from '../../src/server/index-snapshot.js';
import { runCli, startServe } from '../support/embedder-cli.js';
import type { ServedProcess } from '../support/server-process.js';
import { closedPort, startLoopbackServer, type LoopbackServer, type RecordedRequest, type ScriptedResponse } from '../support/loopback-server.js';
import { fnv1a } from '../../src/contract/hash.js';

jest.setTimeout(120_000);

const KEY = 'sk-test-0123456789abcdef-secret';
const DIMS = 1_024;
const COUNT = 400;
const MODEL = 'test-embed-1024';

/** The service's vector of a text: seeded by its FNV-1a hash, values in (−3, 3) — deliberately not unit length. */
function serviceVector(text: string, dims = DIMS): number[] {
  let state = fnv1a(text) || 1;
  return Array.from({ length: dims }, () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return (state / 0x100000000) * 6 - 3;
  });
}

/** The unit vector the engine should use for a text the service embeds. */
function unit(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, x) => sum + x * x, 0));
  return Float32Array.from(values, (x) => x / norm);
}

type Mode = 'ok' | 'fail' | 'slow' | 'dims' | 'garbage';
let mode: Mode = 'ok';
let service: LoopbackServer;
const embeddingRequests = (): RecordedRequest[] => service.requests.filter((request) => request.url === '/v1/embeddings');
const inputsOf = (request: RecordedRequest): string[] => (JSON.parse(request.body) as { input: string[] }).input;

function answer(request: RecordedRequest): ScriptedResponse {
  if (request.method !== 'POST' || request.url !== '/v1/embeddings') return { status: 404, body: { error: { message: 'no such route' } } };
  if (request.headers.authorization !== `Bearer ${KEY}`) return { status: 401, body: { error: { message: `Incorrect API key provided: ${String(request.headers.authorization)}` } } };
  const { model, input, encoding_format: format } = JSON.parse(request.body) as { model: string; input: string[]; encoding_format: string };
  if (model !== MODEL) return { status: 404, body: { error: { message: `model "${model}" not found, try pulling it first` } } };
  if (format !== 'float') return { status: 400, body: { error: { message: 'encoding_format must be float' } } };
  if (mode === 'fail') return { status: 500, body: { error: { message: 'the model crashed' } } };
  if (mode === 'garbage') return { text: '<html>gateway</html>' };
  const dims = mode === 'dims' ? 512 : DIMS;
  // Answered in reverse order with their indexes, as a service may.
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: serviceVector(text, dims) })).reverse();
  return { body: { object: 'list', data, model }, ...(mode === 'slow' ? { delayMs: 3_000 } : {}) };
}

const dirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-openai-'));
  dirs.push(dir);
  return dir;
};
let snapshot: string;
let built: Awaited<ReturnType<typeof runCli>>;
let spec: string;
const flags = (): string[] => ['--embedder', spec, '--embedder-model', MODEL, '--embedder-query-prefix', 'query: ', '--embedder-document-prefix', 'passage: '];

beforeAll(async () => {
  service = await startLoopbackServer();
  service.handle(answer);
  spec = `openai:${service.url}/v1`;
  snapshot = join(scratch(), 'snapshot');
  built = await runCli(['index', 'build', '--count', String(COUNT), '--out', snapshot, ...flags()], { ORGINDEX_EMBEDDER_KEY: KEY });
});
afterAll(async () => {
  await service.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Organizations' texts as the embedder is sent them, written independently. */
function documentTextOf(store: ColumnStore, row: number): string {
  const summary = (store.text.summary.get(row) ?? '').trim();
  const tags = store.keywordsOf(row).join(', ');
  if (tags === '') return summary;
  return `${summary}${/[.!?;:]$/.test(summary) ? ' ' : '. '}${tags}`;
}

test('index build embeds every organization through the service, in batches, with the key and the document prefix', () => {
  expect(built.code).toBe(0);
  expect(built.stderr).not.toContain(KEY);
  expect(built.stderr).toContain(`embedder: the embedding service model ${MODEL} (1024 dimensions`);
  expect(built.stderr).toMatch(/embedding organizations \(openai test-embed-1024\): 400 of 400 \(100 %\)/);
  const requests = embeddingRequests();
  for (const request of requests) {
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(inputsOf(request).length).toBeLessThanOrEqual(32);
  }
  // One check on open, then each organization once.
  const inputs = requests.flatMap(inputsOf);
  expect(inputs).toHaveLength(COUNT + 1);
  expect(inputs.slice(1).every((input) => input.startsWith('passage: '))).toBe(true);
  expect(readManifest(snapshot).embedder).toMatchObject({ kind: 'openai', model: MODEL, dims: DIMS });
  const { store } = readSnapshot(snapshot, { external: true });
  const { matrix } = vectorsOf(store);
  expect(matrix.dims).toBe(DIMS);
  const { axis } = matrix.scan;
  let outside = 0;
  for (let row = 0; row < store.size; row++) {
    const stored = matrix.vector(row)!;
    const expected = unit(serviceVector(`passage: ${documentTextOf(store, row)}`));
    const scale = Math.max(...Array.from(expected, (x, d) => Math.abs(x / axis[d]!))) / 127;
    for (let d = 0; d < DIMS; d++) if (Math.abs(stored[d]! - expected[d]!) > scale * axis[d]! * 0.5 + 1e-6) outside++;
  }
  expect(outside).toBe(0);
});

describe('serve with the service', () => {
  let served: ServedProcess;
  let store: ColumnStore;
  beforeAll(async () => {
    mode = 'ok';
    served = await startServe(['--index', snapshot, ...flags(), '--embedder-timeout', '0.5'], { ORGINDEX_EMBEDDER_KEY: KEY });
    store = readSnapshot(snapshot, { external: true }).store;
  });
  afterAll(async () => {
    const finished = await served.close();
    expect(finished.code).toBe(0);
    expect(finished.stdout + finished.stderr).not.toContain(KEY);
  });

  test('describe, similar_to and hybrid are answered with the service\'s query vectors, as the engine answers them', async () => {
    mode = 'ok';
    const describe = 'installs solar panels on family homes';
    const vectors = new Map([describe, 'roofing', 'bakery'].map((text) => [text, unit(serviceVector(`query: ${text}`))]));
    const engine = new Engine(store).withQueryVectors(vectors);
    for (const body of [
      { describe, size: 25 },
      { similar_to: [{ domain: store.domain(5), boost: ['roofing'], penalize: ['bakery'] }], size: 25 },
      { keywords: { must_any: ['solar', 'software'] }, describe, size: 25 },
    ]) {
      const before = embeddingRequests().length;
      const answer = await served.post('/v2/search', body);
      expect(answer.status).toBe(200);
      const expected = engine.search(body);
      expect((answer.body as typeof expected).data).toEqual(expected.data);
      expect((answer.body as typeof expected).metadata.total_hits).toBe(expected.metadata.total_hits);
      // Asked once per new text; a text asked before is kept.
      for (const request of embeddingRequests().slice(before)) for (const input of inputsOf(request)) expect(input.startsWith('query: ')).toBe(true);
    }
    const asked = embeddingRequests().length;
    expect((await served.post('/v2/search', { describe, size: 5, search_after: null })).status).toBe(200);
    expect(embeddingRequests()).toHaveLength(asked);
  });

  test.each([
    ['fails (HTTP 500)', 'fail' as const, /answered HTTP 500: the model crashed/],
    ['answers after the time-out', 'slow' as const, /no answer from the embedding service at .* within 0\.5 s/],
    ['answers vectors of other dimensions', 'dims' as const, /vectors of 512 dimensions; this index's have 1024 \(another model\?\)/],
    ['answers something other than JSON', 'garbage' as const, /answered something other than JSON/],
  ])('a service that %s costs the search a 503 with Retry-After, nothing else', async (_name, failure, logged) => {
    mode = failure;
    const started = Date.now();
    const [semantic, keyword] = await Promise.all([
      served.post('/v2/search', { describe: `cheap flights to the sun (${failure})`, size: 5 }),
      served.post('/v2/search', { keywords: { must_any: ['solar'] }, size: 5 }),
    ]);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(semantic.status).toBe(503);
    expect(semantic.headers.get('retry-after')).toBe('2');
    expect(semantic.body).toEqual({ detail: 'Service temporarily unavailable: its embedding model did not answer; retry in 2 seconds' });
    expect(keyword.status).toBe(200);
    // v1 too.
    const v1 = await served.post('/v1/search', { search_id: '3f2b8e0c-1d2e-4f5a-9b6c-7d8e9f0a1b2c', semantic_input: `warm bread (${failure})`, size: 5 });
    expect(v1.status).toBe(503);
    // The reason is in the log (not in the answer), without the key.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(served.stdout()).toMatch(logged);
    expect(served.stdout()).not.toContain(KEY);
    mode = 'ok';
    expect((await served.post('/v2/search', { describe: `cheap flights to the sun (${failure})`, size: 5 })).status).toBe(200);
  });

  test('a key the service refuses: 503 for the search, the reason in the log without the key', async () => {
    const refused = await startServe(['--index', snapshot, ...flags()], { ORGINDEX_EMBEDDER_KEY: 'sk-wrong-key-000' });
    try {
      const answer = await refused.post('/v2/search', { describe: 'dentists', size: 5 });
      expect(answer.status).toBe(503);
      expect((await refused.post('/v2/search', { keywords: { must_any: ['dental'] }, size: 5 })).status).toBe(200);
    } finally {
      const finished = await refused.close();
      expect(finished.stdout).toMatch(/refused the request \(HTTP 401\): set ORGINDEX_EMBEDDER_KEY to a key it accepts/);
      expect(finished.stdout).not.toContain('sk-wrong-key-000');
    }
  });
});

describe('a build the service cannot serve stops with the reason', () => {
  test.each([
    ['a key it refuses', { ORGINDEX_EMBEDDER_KEY: 'sk-wrong-key-000' }, [] as string[], /the embedding service at http:\/\/127\.0\.0\.1:\d+\/v1 refused the request \(HTTP 401\): set ORGINDEX_EMBEDDER_KEY to a key it accepts/],
    ['no key', {}, [] as string[], /refused the request \(HTTP 401\): set ORGINDEX_EMBEDDER_KEY to its key/],
    ['a model it does not have', { ORGINDEX_EMBEDDER_KEY: KEY }, ['--embedder-model', 'nomic-embed-text'], /answered HTTP 404: model "nomic-embed-text" not found, try pulling it first; is http:\/\/127\.0\.0\.1:\d+\/v1 the base of an OpenAI-compatible API/],
  ])('%s', async (_name, env, extra, message) => {
    mode = 'ok';
    const out = join(scratch(), 'refused');
    const args = ['index', 'build', '--count', '50', '--out', out, '--embedder', spec, ...(extra.length > 0 ? extra : ['--embedder-model', MODEL])];
    const run = await runCli(args, { ORGINDEX_EMBEDDER_KEY: '', ...env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('sk-wrong-key-000');
  });

  test('several worker processes must serve a snapshot rather than each embed the organizations', async () => {
    const run = await runCli(['serve', '--port', '0', '--workers', '2', '--count', '50', '--embedder', 'openai:http://127.0.0.1:9/v1', '--embedder-model', MODEL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('orgindex serve: --workers with --embedder needs --index: build the snapshot once (orgindex index build --embedder …), then serve it from every worker\n');
  });

  test('a service that is not there', async () => {
    const port = await closedPort();
    const run = await runCli(['index', 'build', '--count', '50', '--out', join(scratch(), 'none'), '--embedder', `openai:http://127.0.0.1:${port}/v1`, '--embedder-model', MODEL]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`orgindex index build: cannot reach the embedding service at http://127.0.0.1:${port}/v1 (ECONNREFUSED)`);
  });

  test('vectors of other dimensions half-way', async () => {
    let answered = 0;
    service.handle((request) => {
      answered++;
      mode = answered > 3 ? 'dims' : 'ok';
      return answer(request);
    });
    try {
      const run = await runCli(['index', 'build', '--count', '200', '--out', join(scratch(), 'half'), ...flags()], { ORGINDEX_EMBEDDER_KEY: KEY });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/embedding the organizations failed: the embedding service at .* answered vectors of 512 dimensions; this index's have 1024/);
    } finally {
      service.handle(answer);
      mode = 'ok';
    }
  });
});

test('the snapshot is served with its model and prefixes only; without --embedder it asks for them (exit 2)', async () => {
  const state = scratch();
  const other = await runCli(['serve', '--port', '0', '--index', snapshot, '--state-dir', join(state, 'a'), '--embedder', spec, '--embedder-model', 'text-embedding-3-small', '--embedder-query-prefix', 'query: ', '--embedder-document-prefix', 'passage: ']);
  expect(other.code).toBe(2);
  expect(other.stderr).toMatch(/its vectors were made by the embedding service model test-embed-1024 \(1024 dimensions, fingerprint sha256:[0-9a-f]{12}…\), and --embedder gives the embedding service model text-embedding-3-small \(1024 dimensions, fingerprint sha256:[0-9a-f]{12}…\): another model/);
  const prefix = await runCli(['serve', '--port', '0', '--index', snapshot, '--state-dir', join(state, 'b'), '--embedder', spec, '--embedder-model', MODEL]);
  expect(prefix.code).toBe(2);
  expect(prefix.stderr).toContain('another model file, tokenizer or settings');
  const none = await runCli(['serve', '--port', '0', '--index', snapshot, '--state-dir', join(state, 'c')]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain(`was built with the embedding service model ${MODEL} (1024 dimensions`);
  expect(none.stderr).toContain(`serve it with --embedder openai:URL --embedder-model ${MODEL}`);
});

test('--embedder specs and flags that cannot be used are refused before anything starts', async () => {
  expect(parseEmbedderSpec(undefined)).toBeNull();
  expect(parseEmbedderSpec('builtin')).toEqual({ kind: 'builtin' });
  expect(parseEmbedderSpec('openai:nomic-embed-text@http://127.0.0.1:11434/v1/')).toEqual({ kind: 'openai', url: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', prefixes: { query: undefined, document: undefined } });
  for (const [text, flags, message] of [
    ['openai:ftp://example.com/v1', {}, 'the URL must be http or https, not ftp:'],
    ['openai:https://user:secret@example.com/v1', {}, 'the URL holds credentials; put the key in the environment variable ORGINDEX_EMBEDDER_KEY instead'],
    ['openai:a@http://x/v1', { embedderModel: 'b' }, 'the model is named twice: a in --embedder, b in --embedder-model'],
    ['onnx:', {}, '--embedder onnx:DIR needs the model directory'],
    ['sentence-transformers', {}, '--embedder is builtin, onnx:DIR or openai:URL; not "sentence-transformers"'],
    [undefined, { embedderModel: 'x' }, '--embedder-model and the prefix flags go with --embedder onnx:DIR or openai:URL'],
  ] as const) {
    expect(() => parseEmbedderSpec(text, flags)).toThrow(EmbedderSpecError);
    expect(() => parseEmbedderSpec(text, flags)).toThrow(message);
  }
  const run = await runCli(['serve', '--port', '0', '--count', '10', '--embedder', 'openai:ftp://example.com/v1']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('orgindex serve: --embedder openai: the URL must be http or https, not ftp:');
  const timeout = await runCli(['serve', '--port', '0', '--count', '10', '--embedder-timeout', '0']);
  expect(timeout.code).toBe(2);
});
