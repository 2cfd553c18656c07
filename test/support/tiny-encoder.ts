/**
 * A tiny but real sentence encoder in the Hugging Face layout, made here and written to a directory:
 * `model.onnx` (an ONNX protobuf written byte by byte below), `tokenizer.json` (a BERT WordPiece
 * tokenizer) and, when asked, `orgindex-embedder.json`. The model embeds each token (word embedding plus
 * token-type embedding, both Gather) and either answers those token vectors as `last_hidden_state`
 * (pooling left to the runtime) or pools them itself — the mean over the attention mask, then L2
 * normalisation — as `sentence_embedding`.
 *
 * `referenceVector` computes the same sentence vector independently: its own BERT tokenizer and WordPiece,
 * the embedding tables, mean or CLS pooling, normalisation — no ONNX runtime involved.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------------------
// Protobuf writing (only what an ONNX model needs: varints, length-delimited fields)

class Proto {
  private readonly bytes: number[] = [];

  private varint(value: number | bigint): void {
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n;
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      this.bytes.push(byte);
    } while (v > 0n);
  }

  int(field: number, value: number | bigint): this {
    this.varint((field << 3) | 0);
    this.varint(value);
    return this;
  }

  raw(field: number, data: Uint8Array): this {
    this.varint((field << 3) | 2);
    this.varint(data.length);
    for (const byte of data) this.bytes.push(byte);
    return this;
  }

  text(field: number, value: string): this {
    return this.raw(field, new TextEncoder().encode(value));
  }

  message(field: number, inner: Proto): this {
    return this.raw(field, inner.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims (1), data_type (2), name (8), raw_data (9). */
function tensor(name: string, dims: number[], type: number, data: Uint8Array): Proto {
  const proto = new Proto();
  for (const dim of dims) proto.int(1, dim);
  return proto.int(2, type).text(8, name).raw(9, data);
}

const floats = (values: Float32Array): Uint8Array => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
const int64s = (values: number[]): Uint8Array => new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);

/** ValueInfoProto of a tensor: name (1), type (2) → tensor_type (1) → elem_type (1), shape (2) → dim (1) → dim_value (1) | dim_param (2). */
function valueInfo(name: string, type: number, dims: (number | string)[]): Proto {
  const shape = new Proto();
  for (const dim of dims) shape.message(1, typeof dim === 'number' ? new Proto().int(1, dim) : new Proto().text(2, dim));
  return new Proto().text(1, name).message(2, new Proto().message(1, new Proto().int(1, type).message(2, shape)));
}

/** NodeProto: input (1), output (2), name (3), op_type (4), attribute (5: name 1, i 3, type 20 = INT 2). */
function node(op: string, inputs: string[], outputs: string[], attributes: Record<string, number> = {}): Proto {
  const proto = new Proto();
  for (const input of inputs) proto.text(1, input);
  for (const output of outputs) proto.text(2, output);
  proto.text(3, `${op}_${outputs[0] ?? ''}`).text(4, op);
  for (const [name, value] of Object.entries(attributes)) proto.message(5, new Proto().text(1, name).int(3, value).int(20, 2));
  return proto;
}

// ---------------------------------------------------------------------------------------------------------
// The encoder

export interface TinyEncoder {
  vocab: string[];
  dims: number;
  /** vocab.length × dims, row-major. */
  words: Float32Array;
  /** 2 × dims: token types 0 and 1. */
  types: Float32Array;
}

/** Deterministic values in [−1, 1) (sfc32 over a seed). */
function randomValues(count: number, seed: number): Float32Array {
  let a = seed >>> 0;
  let b = 0x9e3779b9;
  let c = 0x85ebca6b;
  let d = 1;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 20; i++) next();
  return Float32Array.from({ length: count }, () => next() * 2 - 1);
}

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;

/** An encoder over these words (after the special tokens), with deterministic embeddings. */
export function tinyEncoder(words: readonly string[], dims: number, seed = 7): TinyEncoder {
  const vocab = [...SPECIAL_TOKENS, ...new Set(words)];
  return { vocab, dims, words: randomValues(vocab.length * dims, seed), types: randomValues(2 * dims, seed + 1) };
}

/**
 * The ONNX model: inputs input_ids, attention_mask, token_type_ids (int64, [batch, sequence]); output
 * `last_hidden_state` [batch, sequence, dims], or with `pooled` `sentence_embedding` [batch, dims] (mean over
 * the attention mask, L2-normalised, in the graph).
 */
export function encoderModel(encoder: TinyEncoder, pooled: boolean): Uint8Array {
  const { vocab, dims } = encoder;
  const graph = new Proto();
  const nodes = [node('Gather', ['word_embeddings', 'input_ids'], ['tokens'], { axis: 0 }), node('Gather', ['type_embeddings', 'token_type_ids'], ['types'], { axis: 0 })];
  if (!pooled) {
    nodes.push(node('Add', ['tokens', 'types'], ['last_hidden_state']));
  } else {
    nodes.push(
      node('Add', ['tokens', 'types'], ['hidden']),
      node('Cast', ['attention_mask'], ['mask'], { to: FLOAT }),
      node('Unsqueeze', ['mask', 'axis_2'], ['mask3']),
      node('Mul', ['hidden', 'mask3'], ['masked']),
      node('ReduceSum', ['masked', 'axis_1'], ['summed'], { keepdims: 0 }),
      node('ReduceSum', ['mask3', 'axis_1'], ['counted'], { keepdims: 0 }),
      node('Div', ['summed', 'counted'], ['mean']),
      node('Mul', ['mean', 'mean'], ['squares']),
      node('ReduceSum', ['squares', 'axis_1'], ['squared_norm'], { keepdims: 1 }),
      node('Sqrt', ['squared_norm'], ['norm']),
      node('Div', ['mean', 'norm'], ['sentence_embedding']),
    );
  }
  for (const n of nodes) graph.message(1, n);
  graph.text(2, pooled ? 'tiny-pooled-encoder' : 'tiny-encoder');
  graph.message(5, tensor('word_embeddings', [vocab.length, dims], FLOAT, floats(encoder.words)));
  graph.message(5, tensor('type_embeddings', [2, dims], FLOAT, floats(encoder.types)));
  if (pooled) {
    graph.message(5, tensor('axis_1', [1], INT64, int64s([1])));
    graph.message(5, tensor('axis_2', [1], INT64, int64s([2])));
  }
  for (const input of ['input_ids', 'attention_mask', 'token_type_ids']) graph.message(11, valueInfo(input, INT64, ['batch', 'sequence']));
  graph.message(12, pooled ? valueInfo('sentence_embedding', FLOAT, ['batch', dims]) : valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', dims]));
  // ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8: domain 1, version 2).
  return new Proto().int(1, 8).text(2, 'orgindex-test').message(7, graph).message(8, new Proto().text(1, '').int(2, 13)).finish();
}

/** A BERT tokenizer.json (lower case, BERT pre-tokenizer, WordPiece with "##", [CLS] … [SEP]). */
export function tokenizerJson(vocab: readonly string[]): object {
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  const special = (content: string) => ({ id: ids[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

export interface EncoderFiles {
  /** Where model.onnx goes: the directory itself, or its onnx/ folder (both layouts are read). */
  modelIn?: 'root' | 'onnx';
  pooled?: boolean;
  /** The directory's orgindex-embedder.json, if any. */
  settings?: object;
}

/** Writes the encoder's directory (created if missing); returns it. */
export function writeEncoder(dir: string, encoder: TinyEncoder, files: EncoderFiles = {}): string {
  const modelDir = files.modelIn === 'onnx' ? join(dir, 'onnx') : dir;
  mkdirSync(modelDir, { recursive: true });
  writeFileSync(join(modelDir, 'model.onnx'), encoderModel(encoder, files.pooled === true));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(encoder.vocab)));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: encoder.dims, max_position_embeddings: 512 }));
  if (files.settings) writeFileSync(join(dir, 'orgindex-embedder.json'), JSON.stringify(files.settings));
  return dir;
}

// ---------------------------------------------------------------------------------------------------------
// The independent computation

/**
 * BERT's basic tokenizer as tokenizer.json's BertNormalizer sets it: lower case and, with it, accents
 * stripped ("Martín" → "martin"), split on white space, every punctuation mark a token of its own.
 */
function basicTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '').split(/\s+/)) {
    let current = '';
    for (const char of word) {
      if (/[\p{P}\p{S}]/u.test(char)) {
        if (current) tokens.push(current);
        tokens.push(char);
        current = '';
      } else {
        current += char;
      }
    }
    if (current) tokens.push(current);
  }
  return tokens;
}

/** Greedy longest-match-first WordPiece of one word; [UNK] when a piece cannot be matched. */
function wordPieces(word: string, ids: ReadonlyMap<string, number>): number[] {
  const pieces: number[] = [];
  let start = 0;
  while (start < word.length) {
    let end = word.length;
    let found = -1;
    while (end > start) {
      const piece = (start > 0 ? '##' : '') + word.slice(start, end);
      const id = ids.get(piece);
      if (id !== undefined) {
        found = id;
        break;
      }
      end--;
    }
    if (found < 0) return [ids.get('[UNK]') ?? 1];
    pieces.push(found);
    start = end;
  }
  return pieces;
}

/** The token ids the tokenizer gives a text: [CLS] pieces… [SEP], cut to `maxTokens` ([SEP] kept last). */
export function referenceIds(encoder: TinyEncoder, text: string, maxTokens = 512): number[] {
  const ids = new Map(encoder.vocab.map((token, id) => [token, id]));
  const pieces = basicTokens(text).flatMap((word) => wordPieces(word, ids));
  return [2, ...pieces.slice(0, maxTokens - 2), 3];
}

/** The sentence vector of `text`, computed without the model: mean (or CLS) of word + type-0 embeddings, L2-normalised. */
export function referenceVector(encoder: TinyEncoder, text: string, options: { pooling?: 'mean' | 'cls'; maxTokens?: number } = {}): Float32Array {
  const { dims, words, types } = encoder;
  const ids = referenceIds(encoder, text, options.maxTokens);
  const used = options.pooling === 'cls' ? ids.slice(0, 1) : ids;
  const sum = new Float64Array(dims);
  for (const id of used) for (let d = 0; d < dims; d++) sum[d] = (sum[d] ?? 0) + (words[id * dims + d] ?? 0) + (types[d] ?? 0);
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    sum[d] = (sum[d] ?? 0) / used.length;
    norm += (sum[d] ?? 0) ** 2;
  }
  return Float32Array.from(sum, (x) => x / Math.sqrt(norm));
}
