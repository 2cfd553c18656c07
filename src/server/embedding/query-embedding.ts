/**
 * Query texts embedded before the engine's synchronous search runs, when the organization vectors come
 * from a model the engine cannot run itself (onnx:, openai:): the texts of a request that need vectors —
 * v2's `describe` and similar-to `boost` / `penalize` terms, v1's `semantic_input` — are embedded by
 * that model (with its query prefix), and the request's view of the index carries them
 * (Engine.withQueryVectors). A request comes parsed by its route.
 *
 * Every wait is bounded: a request gets QUERY_EMBEDDING_TIMEOUT_MS for its vectors, its wait for a turn
 * included (at most `concurrency` calls to the model at once); then it is answered 503 with Retry-After,
 * as while the database cannot answer. Recent texts' vectors are kept (the pages of one query, a
 * frequent description) so that they are not asked for again.
 */
import type { V1DownloadRequest, V1SearchRequest } from '../../contract/v1.js';
import { DescribeSchema, type SearchRequest } from '../../contract/v2/search.js';
import type { Engine } from '../../engine/engine.js';
import type { QueryVectors } from '../../engine/query/context.js';
import type { TextEmbedder } from './text-embedder.js';
import { NamedError, messageOf } from '../../contract/errors.js';

/** How long a request may wait for its texts' vectors (ms), its turn included. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 5_000;
/** How soon a caller refused for an embedder that did not answer may try again. */
export const EMBEDDER_RETRY_AFTER_SECONDS = 2;
export const EMBEDDER_UNAVAILABLE_DETAIL = `Service temporarily unavailable: its embedding model did not answer; retry in ${String(EMBEDDER_RETRY_AFTER_SECONDS)} seconds`;

/** The embedder did not give a request's vectors in time, or failed: a 503 (the cause goes to the log). */
export class EmbedderUnavailable extends NamedError {
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
}

export interface QueryEmbeddingOptions {
  timeoutMs?: number;
  /** Calls to the model at once; more requests wait their turn (within their time-out). */
  concurrency?: number;
  /** Texts whose vectors are kept. */
  cacheEntries?: number;
}

/** The texts of a parsed v2 search whose vectors the engine needs, once each. */
export function searchTexts(request: SearchRequest): string[] {
  const texts: string[] = [];
  if (request.describe !== null) texts.push(request.describe);
  for (const entry of request.similar_to ?? []) texts.push(...entry.boost, ...entry.penalize);
  return [...new Set(texts)];
}

/** The text of a parsed v1 search whose vector the engine needs, if any. */
export function v1SearchTexts(request: V1SearchRequest): string[] {
  // A page of a point-in-time search is read from the rows it froze: nothing is ranked again.
  return request.pit_id === null && request.semantic_input !== null ? [request.semantic_input] : [];
}

/** The same for a parsed v1 download: its search's semantic_input (the legacy service checks the rest of that query). */
export function v1DownloadTexts(request: V1DownloadRequest): string[] {
  const semantic = DescribeSchema.safeParse(request.search_info?.query['semantic_input']);
  return semantic.success && semantic.data !== null ? [semantic.data] : [];
}

export class QueryEmbedding {
  private readonly cache = new Map<string, Float32Array | null>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly cacheEntries: number;

  constructor(
    readonly embedder: TextEmbedder,
    options: QueryEmbeddingOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? QUERY_EMBEDDING_TIMEOUT_MS;
    this.concurrency = options.concurrency ?? 4;
    this.cacheEntries = options.cacheEntries ?? 2_048;
  }

  /** A v1 request's view of the index with its texts' vectors (v1SearchTexts, v1DownloadTexts; the view itself when none). */
  view(view: Engine, texts: readonly string[]): Promise<Engine> {
    return this.withVectors(view, texts);
  }

  /** The same for a v2 search its route has parsed. */
  searchView(view: Engine, request: SearchRequest): Promise<Engine> {
    return this.withVectors(view, searchTexts(request));
  }

  private async withVectors(view: Engine, texts: readonly string[]): Promise<Engine> {
    return texts.length === 0 ? view : view.withQueryVectors(await this.vectors(texts));
  }

  /** The texts' vectors: kept ones, the others asked of the model in one call; an EmbedderUnavailable after the time-out. */
  async vectors(texts: readonly string[]): Promise<QueryVectors> {
    const found = new Map<string, Float32Array | null>();
    const missing: string[] = [];
    for (const text of new Set(texts)) {
      const kept = this.cache.get(text);
      if (kept === undefined) {
        missing.push(text);
        continue;
      }
      // Most recently used last: the first entry is the one to let go.
      this.cache.delete(text);
      this.cache.set(text, kept);
      found.set(text, kept);
    }
    if (missing.length === 0) return found;
    const deadline = Date.now() + this.timeoutMs;
    await this.turn(deadline);
    let vectors: (Float32Array | null)[];
    try {
      vectors = await this.embedder.embed(missing, 'query', Math.max(1, deadline - Date.now()));
    } catch (error) {
      throw new EmbedderUnavailable(messageOf(error), { cause: error });
    } finally {
      this.done();
    }
    missing.forEach((text, i) => {
      const vector = vectors[i] ?? null;
      found.set(text, vector);
      this.cache.set(text, vector);
      if (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value as string);
    });
    return found;
  }

  /** Waits for a turn to call the model, until the deadline. */
  private turn(deadline: number): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = (): void => {
        clearTimeout(timer);
        this.running++;
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(start);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new EmbedderUnavailable(`no turn to call the embedding model within ${this.timeoutMs / 1000} s: ${this.concurrency} calls were running`));
      }, Math.max(0, deadline - Date.now()));
      this.waiting.push(start);
    });
  }

  private done(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  close(): Promise<void> {
    return this.embedder.close();
  }
}
