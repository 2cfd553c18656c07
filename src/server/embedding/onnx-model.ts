/**
 * A sentence encoder in the Hugging Face layout, run by ONNX Runtime (onnxruntime-web: WebAssembly, no
 * native binary, nothing downloaded at install or at run time) with its own tokenizer.json
 * (@huggingface/tokenizers, pure JavaScript). Both are imported on first use, here only: the spreadsheet
 * bundles never see them.
 *
 * The directory:
 *   model.onnx or onnx/model.onnx     the graph (with model.onnx_data beside it for external weights)
 *   tokenizer.json                    the tokenizer (tokenizer_config.json beside it, optional)
 *   config.json                       optional: max_position_embeddings bounds the tokens
 *   1_Pooling/config.json             optional (sentence-transformers): mean or CLS pooling
 *   orgindex-embedder.json            optional: { "model", "pooling": "mean" | "cls", "max_tokens",
 *                                     "query_prefix", "document_prefix", "output", "threads", "batch_size" }
 *
 * The output used is `output`, else `sentence_embedding` (pooled in the graph: [batch, dims]), else
 * `last_hidden_state` ([batch, tokens, dims], pooled here over the attention mask), else the first.
 * Vectors are L2-normalised (the index compares by cosine). Texts longer than max_tokens are cut, their
 * closing special token ([SEP], </s>) kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as z from 'zod';
import type * as OrtModule from 'onnxruntime-web';
import type { InferenceSession, Tensor } from 'onnxruntime-web';
import { sha256 } from './fingerprint.js';
import { unitVector } from './text-embedder.js';
import { messageOf, NamedError } from '../../contract/errors.js';

/** What is used of @huggingface/tokenizers' Tokenizer (its published types do not resolve under NodeNext). */
interface Tokenizer {
  encode(text: string, options?: { return_token_type_ids?: boolean }): { ids: number[]; attention_mask: number[]; token_type_ids?: number[] };
  token_to_id(token: string): number | undefined;
}
type TokenizerClass = new (tokenizerJson: object, tokenizerConfig: object) => Tokenizer;

/** orgindex-embedder.json. */
const SETTINGS = z.strictObject({
  model: z.string().min(1).max(200).optional(),
  pooling: z.enum(['mean', 'cls']).optional(),
  max_tokens: z.int().min(2).max(8_192).optional(),
  query_prefix: z.string().max(200).optional(),
  document_prefix: z.string().max(200).optional(),
  output: z.string().min(1).optional(),
  threads: z.int().min(1).max(64).optional(),
  batch_size: z.int().min(1).max(1_024).optional(),
});

/** What the runtime needs to know of a model directory (plain data: it crosses to a worker thread). */
export interface OnnxDirectory {
  dir: string;
  modelFile: string;
  /** model.onnx_data beside the graph, when there is one. */
  dataFile: string | null;
  model: string;
  pooling: 'mean' | 'cls';
  maxTokens: number;
  queryPrefix: string;
  documentPrefix: string;
  output: string | null;
  threads: number;
  batchSize: number;
  /** Of the model and tokenizer files and of the settings that change vectors. */
  fingerprint: string;
}

/** A model directory that cannot be used: the message says what is missing or wrong. */
export class OnnxDirectoryError extends NamedError {}

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new OnnxDirectoryError(`${what} ${path} cannot be read as JSON: ${messageOf(error)}`, { cause: error });
  }
}

const optionalJson = (path: string, what: string): Record<string, unknown> => {
  if (!existsSync(path)) return {};
  const value = readJson(path, what);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/** Reads and checks a model directory (hashing its files); the prefixes given override its settings. */
export function readOnnxDirectory(dir: string, prefixes: { query?: string | undefined; document?: string | undefined } = {}): OnnxDirectory {
  if (!existsSync(dir)) throw new OnnxDirectoryError(`--embedder onnx:${dir}: no such directory`);
  const modelFile = [join(dir, 'model.onnx'), join(dir, 'onnx', 'model.onnx')].find((path) => existsSync(path));
  if (!modelFile) throw new OnnxDirectoryError(`--embedder onnx:${dir}: no model.onnx in it or in its onnx/ folder (the Hugging Face layout)`);
  const tokenizerFile = join(dir, 'tokenizer.json');
  if (!existsSync(tokenizerFile)) throw new OnnxDirectoryError(`--embedder onnx:${dir}: no tokenizer.json in it`);
  const settingsFile = join(dir, 'orgindex-embedder.json');
  const checked = SETTINGS.safeParse(existsSync(settingsFile) ? readJson(settingsFile, 'the settings') : {});
  if (!checked.success) {
    const issues = checked.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ');
    throw new OnnxDirectoryError(`${settingsFile}: ${issues}`);
  }
  const settings = checked.data;
  const config = optionalJson(join(dir, 'config.json'), 'config.json');
  const pooling = optionalJson(join(dir, '1_Pooling', 'config.json'), '1_Pooling/config.json');
  const sentenceBert = optionalJson(join(dir, 'sentence_bert_config.json'), 'sentence_bert_config.json');
  const positions = typeof config.max_position_embeddings === 'number' ? config.max_position_embeddings : 512;
  const sequence = typeof sentenceBert.max_seq_length === 'number' ? sentenceBert.max_seq_length : 512;
  const dataFile = `${modelFile}_data`;
  const named = typeof config._name_or_path === 'string' && config._name_or_path.trim() !== '' ? config._name_or_path : basename(dir);
  const chosen = {
    pooling: settings.pooling ?? (pooling.pooling_mode_cls_token === true ? 'cls' : 'mean'),
    maxTokens: settings.max_tokens ?? Math.min(positions, sequence, 512),
    queryPrefix: prefixes.query ?? settings.query_prefix ?? '',
    documentPrefix: prefixes.document ?? settings.document_prefix ?? '',
    output: settings.output ?? null,
  } as const;
  const fingerprint = sha256(
    JSON.stringify({
      model: sha256(readFileSync(modelFile)),
      data: existsSync(dataFile) ? sha256(readFileSync(dataFile)) : null,
      tokenizer: sha256(readFileSync(tokenizerFile)),
      ...chosen,
    }),
  );
  return {
    dir,
    modelFile,
    dataFile: existsSync(dataFile) ? dataFile : null,
    model: settings.model ?? named,
    ...chosen,
    threads: settings.threads ?? Math.min(4, availableParallelism()),
    batchSize: settings.batch_size ?? 16,
    fingerprint,
  };
}

type Ort = typeof OrtModule;

/** The loaded model: its session and tokenizer, and how long loading took. */
export class OnnxModel {
  /** The dimensions of its vectors, and how long loading took (ms), set by `load`. */
  dims = 0;
  loadMs = 0;

  private constructor(
    private readonly ort: Ort,
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly settings: OnnxDirectory,
    private readonly output: string,
    /** Special tokens the tokenizer puts after a text ([SEP], </s>): kept when a text is cut. */
    private readonly closing: number,
    private readonly padId: number,
  ) {}

  static async load(settings: OnnxDirectory): Promise<OnnxModel> {
    const started = performance.now();
    const ort = await import('onnxruntime-web');
    const { Tokenizer: TokenizerOf } = (await import('@huggingface/tokenizers')) as unknown as { Tokenizer: TokenizerClass };
    ort.env.wasm.numThreads = settings.threads;
    ort.env.logLevel = 'error';
    const tokenizerJson = readJson(join(settings.dir, 'tokenizer.json'), 'the tokenizer');
    const tokenizerConfig = optionalJson(join(settings.dir, 'tokenizer_config.json'), 'tokenizer_config.json');
    let tokenizer: Tokenizer;
    try {
      tokenizer = new TokenizerOf(tokenizerJson as object, tokenizerConfig);
    } catch (error) {
      throw new OnnxDirectoryError(`${join(settings.dir, 'tokenizer.json')} is not a tokenizer this runtime reads: ${messageOf(error)}`, { cause: error });
    }
    let session: InferenceSession;
    try {
      const options: InferenceSession.SessionOptions = {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
        ...(settings.dataFile ? { externalData: [{ path: basename(settings.dataFile), data: new Uint8Array(readFileSync(settings.dataFile)) }] } : {}),
      };
      session = await ort.InferenceSession.create(new Uint8Array(readFileSync(settings.modelFile)), options);
    } catch (error) {
      throw new OnnxDirectoryError(`${settings.modelFile} cannot be loaded by ONNX Runtime: ${messageOf(error)}`, { cause: error });
    }
    const known = new Set(['input_ids', 'attention_mask', 'token_type_ids', 'position_ids']);
    const unknown = session.inputNames.filter((name) => !known.has(name));
    if (!session.inputNames.includes('input_ids') || unknown.length > 0) {
      throw new OnnxDirectoryError(`${settings.modelFile} takes the inputs ${session.inputNames.join(', ')}; a sentence encoder takes input_ids, and attention_mask, token_type_ids or position_ids (no others)`);
    }
    const output = settings.output ?? ['sentence_embedding', 'last_hidden_state'].find((name) => session.outputNames.includes(name)) ?? session.outputNames[0];
    if (output === undefined || !session.outputNames.includes(output)) {
      throw new OnnxDirectoryError(`${settings.modelFile} has no output ${String(output)} (it has ${session.outputNames.join(', ')})`);
    }
    const encode = (text: string): number[] => tokenizer.encode(text).ids;
    const empty = encode('');
    const one = encode('x');
    const closing = empty.length > 0 && one.at(-1) === empty.at(-1) && (empty.length >= 2 || one[0] !== empty[0]) ? 1 : 0;
    const padId = tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0;
    const model = new OnnxModel(ort, session, tokenizer, settings, output, closing, padId);
    // One text finds the dimensions (and that the model runs at all).
    const [probe] = await model.run(['orgindex']);
    model.dims = probe?.length ?? 0;
    if (model.dims === 0) throw new OnnxDirectoryError(`${settings.modelFile} gave no vector for a word`);
    model.loadMs = performance.now() - started;
    return model;
  }

  /** The token ids, attention mask and token types of a text, cut to max_tokens (the closing special token kept). */
  private encode(text: string): { ids: number[]; mask: number[]; types: number[] } {
    const encoded = this.tokenizer.encode(text, { return_token_type_ids: true });
    let ids = encoded.ids;
    let mask = encoded.attention_mask;
    let types = encoded.token_type_ids ?? new Array<number>(ids.length).fill(0);
    const max = this.settings.maxTokens;
    if (ids.length > max) {
      const cut = <T>(values: T[]): T[] => [...values.slice(0, max - this.closing), ...values.slice(values.length - this.closing)];
      ids = cut(ids);
      mask = cut(mask);
      types = cut(types);
    }
    return { ids, mask, types };
  }

  /** Unit vectors of the texts (as given: prefixes already added), in order; null for a text without one. */
  async run(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    const encoded = texts.map((text) => this.encode(text));
    // Texts of like length run together: less padding.
    const order = texts.map((_, i) => i).sort((a, b) => (encoded[a]?.ids.length ?? 0) - (encoded[b]?.ids.length ?? 0));
    const vectors = new Array<Float32Array | null>(texts.length).fill(null);
    for (let start = 0; start < order.length; start += this.settings.batchSize) {
      const batch = order.slice(start, start + this.settings.batchSize);
      const rows = batch.map((i) => encoded[i] ?? { ids: [], mask: [], types: [] });
      const out = await this.runBatch(rows);
      batch.forEach((i, j) => {
        vectors[i] = out[j] ?? null;
      });
    }
    return vectors;
  }

  private async runBatch(rows: { ids: number[]; mask: number[]; types: number[] }[]): Promise<(Float32Array | null)[]> {
    const { ort, session } = this;
    const width = Math.max(1, ...rows.map((row) => row.ids.length));
    const size = rows.length * width;
    const ids = new BigInt64Array(size).fill(BigInt(this.padId));
    const mask = new BigInt64Array(size);
    const types = new BigInt64Array(size);
    const positions = new BigInt64Array(size);
    rows.forEach((row, r) => {
      row.ids.forEach((id, t) => {
        ids[r * width + t] = BigInt(id);
        mask[r * width + t] = BigInt(row.mask[t] ?? 1);
        types[r * width + t] = BigInt(row.types[t] ?? 0);
        positions[r * width + t] = BigInt(t);
      });
    });
    const all: Record<string, BigInt64Array> = { input_ids: ids, attention_mask: mask, token_type_ids: types, position_ids: positions };
    const feeds: Record<string, Tensor> = {};
    for (const name of session.inputNames) feeds[name] = new ort.Tensor('int64', all[name] ?? ids, [rows.length, width]);
    const results = await session.run(feeds, [this.output]);
    const tensor = results[this.output];
    if (!tensor || tensor.type !== 'float32') throw new Error(`the model's output ${this.output} is ${tensor?.type ?? 'missing'}, not float32`);
    const data = tensor.data as Float32Array;
    const shape = tensor.dims;
    const out: (Float32Array | null)[] = [];
    if (shape.length === 2 && shape[0] === rows.length) {
      const dims = shape[1] ?? 0;
      for (let r = 0; r < rows.length; r++) out.push(unitVector(data.subarray(r * dims, (r + 1) * dims), 'the model'));
    } else if (shape.length === 3 && shape[0] === rows.length && shape[1] === width) {
      const dims = shape[2] ?? 0;
      for (let r = 0; r < rows.length; r++) {
        const sum = new Float64Array(dims);
        let count = 0;
        const tokens = this.settings.pooling === 'cls' ? 1 : width;
        for (let t = 0; t < tokens; t++) {
          if (mask[r * width + t] === 0n) continue;
          count++;
          const base = (r * width + t) * dims;
          for (let d = 0; d < dims; d++) sum[d] = (sum[d] ?? 0) + (data[base + d] ?? 0);
        }
        out.push(count === 0 ? null : unitVector(sum, 'the model'));
      }
    } else {
      throw new Error(`the model's output ${this.output} has the shape [${shape.join(', ')}]; a sentence encoder's is [batch, dims] or [batch, tokens, dims]`);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
