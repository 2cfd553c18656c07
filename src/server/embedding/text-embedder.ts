/**
 * An embedder the engine cannot run synchronously in its own thread — a model on a worker thread
 * (onnx-embedder.ts), a service over HTTP (openai-embedder.ts) — and what is common to them: the text an
 * organization is embedded as, unit vectors, the errors.
 */
import type { EmbedderIdentity } from './embedder-spec.js';
import { NamedError } from '../../contract/errors.js';

export type EmbedRole = 'query' | 'document';

export interface TextEmbedder {
  /** What a snapshot records (dims known once the embedder is open). */
  readonly identity: EmbedderIdentity;
  /** Texts per call when organizations are embedded, and calls at once. */
  readonly batchSize: number;
  readonly concurrency: number;
  /**
   * Unit vectors of `texts` (each with the role's prefix), in order; null for a text that has none. Gives
   * up after `timeoutMs` (an EmbedderFailure), never later.
   */
  embed(texts: readonly string[], role: EmbedRole, timeoutMs: number): Promise<(Float32Array | null)[]>;
  close(): Promise<void>;
}

/**
 * An embedder that did not give vectors: a service that cannot be reached, refuses the key, answers late
 * or answers something else than vectors of the dimensions in use, a model that cannot run. `retry`:
 * whether asking again may pass (a time-out, a refused connection, a 5xx), not a wrong key or model.
 */
export class EmbedderFailure extends NamedError {
  constructor(
    message: string,
    readonly retry: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The text an organization is embedded as: its summary, then its tags ("Installs solar panels on
 * roofs. photovoltaics, roofing"); null when it has neither (the organization then has no vector).
 */
export function documentText(parts: readonly string[]): string | null {
  const [summary = '', ...tags] = parts.map((part) => part.trim());
  const tagText = tags.filter((tag) => tag !== '').join(', ');
  if (summary === '') return tagText === '' ? null : tagText;
  if (tagText === '') return summary;
  return `${summary}${/[.!?;:]$/.test(summary) ? ' ' : '. '}${tagText}`;
}

/** `values` as a unit Float32Array (null for a zero vector); NaN or infinite values are a failure. */
/** A wait or a duration as people read it: "0.1 s", "120 s". */
export const seconds = (ms: number): string => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`;

export function unitVector(values: ArrayLike<number>, what: string): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] ?? 0;
    if (!Number.isFinite(x)) throw new EmbedderFailure(`${what}: a vector holds ${String(x)}`, false);
    norm += x * x;
  }
  if (norm === 0) return null;
  const inv = 1 / Math.sqrt(norm);
  return Float32Array.from({ length: values.length }, (_, i) => (values[i] ?? 0) * inv);
}
