/**
 * Vectors from an OpenAI-compatible embeddings service: `POST {URL}/embeddings` with
 * `{"model", "input": [texts], "encoding_format": "float"}`, answered by `{"data": [{"index", "embedding"}]}`
 * — OpenAI, Ollama (…:11434/v1), Hugging Face Text Embeddings Inference (…/v1), vLLM. The key, when the
 * service wants one, comes from the environment variable ORGINDEX_EMBEDDER_KEY and goes in the
 * Authorization header only: never on a command line, in a message or in the log.
 *
 * Every call is bounded by its time-out (the whole exchange, body included). The dimensions are fixed by
 * the first answer (or by the index being served): an answer of other dimensions is a failure, as is an
 * answer that is not a list of finite vectors, one per text.
 */
import { EmbedderFailure, seconds, unitVector, type EmbedRole, type TextEmbedder } from './text-embedder.js';
import type { EmbedderIdentity, Prefixes } from './embedder-spec.js';
import { sha256 } from './fingerprint.js';

/** Where the key is read from. */
export const EMBEDDER_KEY_VARIABLE = 'ORGINDEX_EMBEDDER_KEY';

export interface OpenAiOptions {
  url: string;
  model: string | null;
  prefixes: Prefixes;
  /** The key (from ORGINDEX_EMBEDDER_KEY); null: none sent. */
  key: string | null;
  /** Known dimensions (the index being served); absent: asked of the service on open. */
  dims?: number | undefined;
  /** The time-out of the check on open (ms). */
  openTimeoutMs?: number;
}

/** Texts per request: Text Embeddings Inference's default client batch limit is 32. */
const BATCH_SIZE = 32;
/** Requests at once while organizations are embedded. */
const CONCURRENCY = 4;
/** The longest answer read (64 MiB: far above 32 vectors of 4,096 numbers). */
const MAX_ANSWER_BYTES = 64 << 20;

/** The fingerprint of a service's embedder: its model name and the prefixes (the address may change). */
export function openAiIdentity(model: string | null, prefixes: Prefixes, dims: number): EmbedderIdentity {
  return { kind: 'openai', model: model ?? '', dims, fingerprint: sha256(JSON.stringify({ kind: 'openai', model: model ?? '', query: prefixes.query ?? '', document: prefixes.document ?? '' })) };
}

export class OpenAiEmbedder implements TextEmbedder {
  readonly batchSize = BATCH_SIZE;
  readonly concurrency = CONCURRENCY;
  private dims: number;

  private constructor(private readonly options: OpenAiOptions) {
    this.dims = options.dims ?? 0;
  }

  /** The embedder; without known dimensions, one request finds them (and that the service answers at all). */
  static async open(options: OpenAiOptions): Promise<OpenAiEmbedder> {
    const embedder = new OpenAiEmbedder(options);
    if (embedder.dims === 0) await embedder.embed(['orgindex embedding check'], 'query', options.openTimeoutMs ?? 30_000);
    return embedder;
  }

  get identity(): EmbedderIdentity {
    return openAiIdentity(this.options.model, this.options.prefixes, this.dims);
  }

  private get endpoint(): string {
    return `${this.options.url}/embeddings`;
  }

  async embed(texts: readonly string[], role: EmbedRole, timeoutMs: number): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const prefix = (role === 'query' ? this.options.prefixes.query : this.options.prefixes.document) ?? '';
    const { model, key } = this.options;
    const body = JSON.stringify({ ...(model !== null ? { model } : {}), input: texts.map((text) => prefix + text), encoding_format: 'float' });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      abort.abort();
    }, timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(key !== null ? { authorization: `Bearer ${key}` } : {}) },
        body,
        signal: abort.signal,
        redirect: 'error',
      });
      status = response.status;
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > MAX_ANSWER_BYTES) {
        await response.body?.cancel();
        throw new EmbedderFailure(`the embedding service at ${this.options.url} answered ${length} bytes, more than the ${MAX_ANSWER_BYTES} read`, false);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof EmbedderFailure) throw error;
      if (abort.signal.aborted) throw new EmbedderFailure(`no answer from the embedding service at ${this.options.url} within ${seconds(timeoutMs)}`, true);
      throw new EmbedderFailure(`cannot reach the embedding service at ${this.options.url} (${causeOf(error)})`, true);
    } finally {
      clearTimeout(timer);
    }
    if (status === 401 || status === 403) {
      // The service's own words may quote the key: left out.
      const hint = key === null ? `set ${EMBEDDER_KEY_VARIABLE} to its key` : `set ${EMBEDDER_KEY_VARIABLE} to a key it accepts`;
      throw new EmbedderFailure(`the embedding service at ${this.options.url} refused the request (HTTP ${status}): ${hint}`, false);
    }
    if (status < 200 || status > 299) {
      const what = status === 404 ? `; is ${this.options.url} the base of an OpenAI-compatible API (orgindex adds /embeddings), and is the model ${model ?? '(none named)'} there?` : '';
      throw new EmbedderFailure(`the embedding service at ${this.options.url} answered HTTP ${status}${serviceWords(text, key)}${what}`, status === 408 || status === 429 || status >= 500);
    }
    return this.vectorsOf(text, texts.length);
  }

  /** The answer's vectors, checked: one per text, all of the dimensions in use, finite. */
  private vectorsOf(text: string, count: number): (Float32Array | null)[] {
    const wrong = (why: string): EmbedderFailure => new EmbedderFailure(`the embedding service at ${this.options.url} answered ${why}`, false);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw wrong('something other than JSON');
    }
    const data = answer !== null && typeof answer === 'object' && 'data' in answer ? answer.data : undefined;
    if (!Array.isArray(data)) throw wrong('no "data" list of embeddings');
    if (data.length !== count) throw wrong(`${data.length} embeddings for ${count} texts`);
    const vectors: (Float32Array | null)[] = new Array<Float32Array | null>(count).fill(null);
    const seen = new Uint8Array(count);
    data.forEach((item: unknown, position) => {
      const embedding = item !== null && typeof item === 'object' && 'embedding' in item ? item.embedding : undefined;
      const index = item !== null && typeof item === 'object' && 'index' in item ? item.index : position;
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number')) throw wrong('an embedding that is not a list of numbers (orgindex asks for encoding_format "float")');
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || seen[index]) throw wrong('embeddings whose "index" values are not 0 … n−1, each once');
      seen[index] = 1;
      if (this.dims === 0) this.dims = embedding.length;
      if (embedding.length !== this.dims) throw wrong(`vectors of ${embedding.length} dimensions; this index's have ${this.dims} (another model?)`);
      vectors[index] = unitVector(embedding, `the embedding service at ${this.options.url}`);
    });
    if (this.dims === 0) throw wrong('empty vectors');
    return vectors;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The cause of a failed request in a few words (a code such as ECONNREFUSED when there is one). */
function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message;
  return String(cause);
}

/** A short quote of the service's error ("model not found"), without the key should it appear. */
function serviceWords(text: string, key: string | null): string {
  let words = text;
  try {
    const parsed: unknown = JSON.parse(text);
    const error = parsed !== null && typeof parsed === 'object' && 'error' in parsed ? parsed.error : undefined;
    const message = error !== null && typeof error === 'object' && 'message' in error ? error.message : error;
    if (typeof message === 'string') words = message;
  } catch {
    // Not JSON: its text as it is.
  }
  if (key !== null && key !== '') words = words.split(key).join('***');
  words = words.replace(/\s+/g, ' ').trim().slice(0, 200);
  return words === '' ? '' : `: ${words}`;
}
