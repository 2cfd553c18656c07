// Embedders of the operator's own (--embedder openai:URL, onnx:DIR): what they cost.
//   1. an OpenAI-compatible embeddings service on the loopback interface (this script, in a process of its
//      own, answering deterministic vectors as JSON): one query text's round trip (p50 / p95), then the
//      organizations of a generated store embedded through it in batches (embedOrganizations);
//   2. with --onnx DIR, a sentence encoder in the Hugging Face layout: its load time on its thread, one
//      query's latency, and organizations a second;
//   3. the vector scan over vectors that are not in principal axes: the built-in vectors of the store as
//      they are, and the same vectors turned by a random rotation (as another model's would be), the same
//      describe queries on both (the same answers; only the pruning differs).
// Runs the compiled library (npm run build:lib).
// Usage: node bench/embedder.mjs [--count 50000] [--dims 384] [--onnx DIR] [--onnx-count 2000]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createEngine, generateRecords, DEFAULT_DATASET } from '../dist/lib/index.js';
import { OpenAiEmbedder } from '../dist/lib/server/embedding/openai-embedder.js';
import { embedOrganizations } from '../dist/lib/server/embedding/document-vectors.js';
import { QueryEmbedding } from '../dist/lib/server/embedding/query-embedding.js';
import { vectorsOf } from '../dist/lib/engine/relevance/store-relevance.js';
import { applyComponentRemoval, sifGloveEmbedder } from '../dist/lib/engine/relevance/embedder.js';
import { nearest, VectorMatrix } from '../dist/lib/engine/relevance/vectors.js';
import { scanCandidates } from '../dist/lib/engine/relevance/vector-scan.js';
import { Random } from '../dist/lib/engine/random.js';
import { fnv1a } from '../dist/lib/contract/hash.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

/** The service: POST /v1/embeddings answers each input's vector (xorshift seeded by the text's FNV-1a hash). */
function serve(dims) {
  const vector = (text) => {
    let state = fnv1a(text) || 1;
    const out = new Array(dims);
    for (let d = 0; d < dims; d++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      out[d] = Math.round(((state / 0x100000000) * 2 - 1) * 1e6) / 1e6;
    }
    return out;
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const { input, model } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}


function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const ms = (value) => `${value.toFixed(2)} ms`;

async function main() {
  const count = Number(arg('--count', '50000'));
  const dims = Number(arg('--dims', '384'));
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--service', '--dims', String(dims)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
  const url = `http://127.0.0.1:${port}/v1`;
  try {
    const embedder = await OpenAiEmbedder.open({ url, model: 'bench', prefixes: {}, key: null });
    console.log(`loopback service ${url}, ${embedder.identity.dims} dimensions`);
    const single = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await embedder.embed([`installers of solar panels for homes, query ${i}`], 'query', 5_000);
      single.push(performance.now() - started);
    }
    console.log(`one query text, a call each (300): p50 ${ms(percentile(single, 50))}, p95 ${ms(percentile(single, 95))}, max ${ms(Math.max(...single))}`);
    const queries = new QueryEmbedding(embedder);
    const through = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await queries.vectors([`bakeries that make bread, query ${i}`]);
      through.push(performance.now() - started);
    }
    console.log(`the same through the server's QueryEmbedding (turns, cache misses): p50 ${ms(percentile(through, 50))}, p95 ${ms(percentile(through, 95))}`);

    const built = performance.now();
    const index = createEngine(generateRecords({ ...DEFAULT_DATASET, count }));
    console.log(`store of ${count.toLocaleString('en')} organizations in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    const started = performance.now();
    const stored = await embedOrganizations(index.store, embedder, { progress: (line) => console.log(`  ${line}`) });
    const seconds = (performance.now() - started) / 1000;
    console.log(`embedOrganizations through the service: ${count.toLocaleString('en')} in ${seconds.toFixed(1)} s (${Math.round(count / seconds).toLocaleString('en')} a second; ${stored.scan.records.length.toLocaleString('en')} bytes of scan records)`);
  } finally {
    child.kill();
  }

  const onnxDir = arg('--onnx', null);
  if (onnxDir) await onnx(onnxDir, Number(arg('--onnx-count', '2000')));
  scan(Math.min(count, 100_000));
}

async function onnx(dir, count) {
  const { readOnnxDirectory } = await import('../dist/lib/server/embedding/onnx-model.js');
  const { OnnxEmbedder } = await import('../dist/lib/server/embedding/onnx-embedder.js');
  const read = performance.now();
  const directory = readOnnxDirectory(dir);
  const readMs = performance.now() - read;
  const opened = performance.now();
  const embedder = await OnnxEmbedder.open(directory);
  console.log(`ONNX ${directory.model}: files read and hashed in ${ms(readMs)}; loaded on its thread in ${ms(embedder.loadMs)} (${ms(performance.now() - opened)} from the call), ${embedder.dims} dimensions, ${directory.threads} thread(s)`);
  try {
    const single = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      await embedder.embed([`installers of solar panels for homes ${i}`], 'query', 10_000);
      single.push(performance.now() - started);
    }
    console.log(`  one query text: p50 ${ms(percentile(single, 50))}, p95 ${ms(percentile(single, 95))}`);
    const index = createEngine(generateRecords({ ...DEFAULT_DATASET, count }));
    const started = performance.now();
    await embedOrganizations(index.store, embedder);
    const seconds = (performance.now() - started) / 1000;
    console.log(`  ${count.toLocaleString('en')} organizations in ${seconds.toFixed(1)} s (${Math.round(count / seconds).toLocaleString('en')} a second)`);
  } finally {
    await embedder.close();
  }
}

/** A random rotation (Gram–Schmidt of Gaussian columns). */
function rotation(dims, random) {
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
  const q = Array.from({ length: dims }, () => Float64Array.from({ length: dims }, gaussian));
  for (let i = 0; i < dims; i++) {
    for (let j = 0; j < i; j++) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += q[i][d] * q[j][d];
      for (let d = 0; d < dims; d++) q[i][d] -= dot * q[j][d];
    }
    const norm = Math.hypot(...q[i]);
    for (let d = 0; d < dims; d++) q[i][d] /= norm;
  }
  return (v) => Float32Array.from({ length: dims }, (_, i) => {
    let sum = 0;
    for (let d = 0; d < dims; d++) sum += q[i][d] * v[d];
    return sum;
  });
}

function scan(count) {
  const index = createEngine(generateRecords({ ...DEFAULT_DATASET, count }));
  const { matrix, component } = vectorsOf(index.store);
  const { dims } = matrix;
  const turn = rotation(dims, new Random(7));
  const data = new Float32Array(matrix.rows * dims);
  for (let row = 0; row < matrix.rows; row++) {
    const v = matrix.vector(row);
    if (v) data.set(turn(v), row * dims);
  }
  const turned = VectorMatrix.fromVectors(dims, data, matrix.present);
  const texts = ['installers of solar panels for homes', 'bakery with bread and cakes', 'software development for banks', 'dentist', 'law firm for tax questions', 'car repair shop', 'hotel near the lake', 'architects for public buildings'];
  const queries = texts.map((text) => applyComponentRemoval(sifGloveEmbedder().embed(text), component));
  const allowed = new Uint8Array(matrix.rows).fill(1);
  const tieKey = index.store.domainRank;
  for (const [name, m, q] of [['principal axes (built-in)', matrix, queries], ['randomly rotated', turned, queries.map(turn)]]) {
    for (const wasm of [true, false]) {
      let total = 0;
      let candidates = 0;
      const rounds = 20;
      for (let round = 0; round < rounds; round++) {
        for (const query of q) {
          const started = performance.now();
          nearest(m, query, 100, allowed, 0.3, tieKey, { wasm });
          total += performance.now() - started;
          if (wasm && round === 0) candidates += scanCandidates(m.scan, Float64Array.from(query), allowed, 0.3, 100).count;
        }
      }
      const per = total / (rounds * q.length);
      console.log(`scan of ${count.toLocaleString('en')} × ${dims}, ${name}, ${wasm ? 'WebAssembly' : 'JavaScript'}: ${ms(per)} a describe query (top 100, min_score 0.3)${wasm ? `; rows the first pass left: ${Math.round(candidates / q.length).toLocaleString('en')} a query` : ''}`);
    }
  }
}

if (args.includes('--service')) {
  serve(Number(arg('--dims', '384')));
} else {
  await main();
}
