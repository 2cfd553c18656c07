/**
 * Which embedder makes the organization vectors and the query vectors (`--embedder`), and how an index
 * snapshot records the one that built it:
 *
 *   builtin        the engine's own (SIF-weighted GloVe, in-process; the default)
 *   onnx:DIR       a sentence encoder in the Hugging Face layout, run by ONNX Runtime (onnx-model.ts)
 *   openai:URL     an OpenAI-compatible `POST {URL}/embeddings` service (openai-embedder.ts); the model by
 *                  --embedder-model or `openai:MODEL@URL`, the key from ORGINDEX_EMBEDDER_KEY
 *
 * An identity is what a snapshot's manifest keeps: the kind, the model's name, the dimensions and a
 * fingerprint of what decides the vectors (the built-in embedder's vectors of fixed probe texts; the ONNX
 * model and tokenizer files with the settings; the service's model name with the prefixes). Two
 * identities with another kind, model, fingerprint or dimension count are other embedders: a snapshot is
 * served only with the embedder that built it.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import * as z from 'zod';
import { embeddingSource, sifGloveEmbedder } from '../../engine/relevance/embedder.js';
import { NamedError } from '../../contract/errors.js';

type EmbedderKind = 'builtin' | 'onnx' | 'openai';

/** Texts put before each text an embedder embeds (e5's "query: " and "passage: ", nomic's "search_query: " …). */
export interface Prefixes {
  query?: string | undefined;
  document?: string | undefined;
}

export type EmbedderSpec =
  | { kind: 'builtin' }
  | { kind: 'onnx'; dir: string; prefixes: Prefixes }
  | { kind: 'openai'; url: string; model: string | null; prefixes: Prefixes };

/** A spec that cannot be used as given: the command exits 2. */
export class EmbedderSpecError extends NamedError {}

/** The flags beside --embedder. */
export interface EmbedderFlags {
  embedderModel?: string | undefined;
  embedderQueryPrefix?: string | undefined;
  embedderDocumentPrefix?: string | undefined;
}

/** The embedder of `--embedder` and its flags (absent: null, the caller's default). */
export function parseEmbedderSpec(text: string | undefined, flags: EmbedderFlags = {}): EmbedderSpec | null {
  const prefixes: Prefixes = { query: flags.embedderQueryPrefix, document: flags.embedderDocumentPrefix };
  const prefixGiven = prefixes.query !== undefined || prefixes.document !== undefined;
  if (text === undefined) {
    if (flags.embedderModel !== undefined || prefixGiven) throw new EmbedderSpecError('--embedder-model and the prefix flags go with --embedder onnx:DIR or openai:URL');
    return null;
  }
  const spec = text.trim();
  if (spec === 'builtin') {
    if (flags.embedderModel !== undefined || prefixGiven) throw new EmbedderSpecError('--embedder builtin takes no --embedder-model or prefixes: they belong to onnx:DIR and openai:URL');
    return { kind: 'builtin' };
  }
  if (spec.startsWith('onnx:')) {
    const dir = spec.slice('onnx:'.length);
    if (dir === '') throw new EmbedderSpecError('--embedder onnx:DIR needs the model directory, e.g. onnx:./models/multilingual-e5-small');
    if (flags.embedderModel !== undefined) throw new EmbedderSpecError('--embedder-model names the model of an openai: service; an ONNX directory names its own (orgindex-embedder.json "model", or config.json)');
    return { kind: 'onnx', dir: resolve(dir), prefixes };
  }
  if (spec.startsWith('openai:')) {
    let rest = spec.slice('openai:'.length);
    let model: string | null = null;
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
      const at = rest.indexOf('@');
      if (at <= 0) throw new EmbedderSpecError(`--embedder openai: takes the service's base URL, e.g. openai:http://127.0.0.1:11434/v1 (or openai:MODEL@URL); not "${spec}"`);
      model = rest.slice(0, at);
      rest = rest.slice(at + 1);
    }
    if (flags.embedderModel !== undefined) {
      if (model !== null && model !== flags.embedderModel) throw new EmbedderSpecError(`the model is named twice: ${model} in --embedder, ${flags.embedderModel} in --embedder-model`);
      model = flags.embedderModel;
    }
    if (model !== null && model.trim() === '') throw new EmbedderSpecError('--embedder-model is empty');
    return { kind: 'openai', url: serviceUrl(rest), model, prefixes };
  }
  throw new EmbedderSpecError(`--embedder is builtin, onnx:DIR or openai:URL; not "${spec}"`);
}

/** The service's base URL, checked: http(s), no credentials (the key comes from ORGINDEX_EMBEDDER_KEY), no trailing slash. */
function serviceUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EmbedderSpecError(`--embedder openai: "${text}" is not a URL; give the base URL of the service, e.g. http://127.0.0.1:11434/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EmbedderSpecError(`--embedder openai: the URL must be http or https, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new EmbedderSpecError('--embedder openai: the URL holds credentials; put the key in the environment variable ORGINDEX_EMBEDDER_KEY instead');
  if (url.search !== '' || url.hash !== '') throw new EmbedderSpecError('--embedder openai: give the base URL without a query or fragment (…/v1; orgindex adds /embeddings)');
  return url.toString().replace(/\/+$/, '');
}

/** What a snapshot records about the embedder that made its vectors. */
export interface EmbedderIdentity {
  kind: EmbedderKind;
  model: string;
  dims: number;
  fingerprint: string;
}

/** The manifest's field (index-snapshot.ts). */
export const EMBEDDER_IDENTITY = z.strictObject({
  kind: z.enum(['builtin', 'onnx', 'openai']),
  model: z.string().max(1_000),
  dims: z.int().min(1).max(65_536),
  fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'is not sha256:<64 hex digits>'),
});


/**
 * Texts whose built-in vectors fingerprint the built-in embedder: English and German words, umlauts and
 * ß, compounds and hyphens, plurals — a change in how it turns any of them into vectors changes the
 * fingerprint, and snapshots built before it are refused rather than queried in another space.
 */
const BUILTIN_PROBES = [
  'solar panels installed on roofs',
  'bakery that makes bread for households',
  'software development and IT consulting',
  'dental practice, dentist, orthodontics',
  'Bäckerei und Konditorei in München',
  'Zahnarztpraxis für Kieferorthopädie',
  'Maschinenbau, Werkzeugmaschinen, Straßenbau',
  'Steuerberatung Wirtschaftsprüfung GmbH',
  'e-commerce fulfilment and logistics',
  'Photovoltaik-Anlagen und Wärmepumpen',
  'organisation of events; catering; Gaststätten',
  'Rechtsanwälte, Notare und Immobilienverwaltung',
];

let builtin: EmbedderIdentity | undefined;

/** The identity of this orgindex's built-in embedder (computed once). */
export function builtinIdentity(): EmbedderIdentity {
  if (!builtin) {
    const embedder = sifGloveEmbedder();
    const hash = createHash('sha256');
    for (const text of BUILTIN_PROBES) {
      const vector = embedder.embed(text);
      hash.update(text);
      hash.update(vector ? new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) : new Uint8Array(0));
    }
    const source = embeddingSource();
    builtin = { kind: 'builtin', model: `SIF-weighted GloVe (${source.package} ${source.version})`, dims: embedder.dims, fingerprint: `sha256:${hash.digest('hex')}` };
  }
  return builtin;
}

/** An identity in words, for messages. */
export function describeIdentity(identity: EmbedderIdentity): string {
  const kind = identity.kind === 'builtin' ? 'the built-in embedder' : identity.kind === 'onnx' ? 'the ONNX model' : 'the embedding service model';
  return `${kind} ${identity.model === '' ? '(none named)' : identity.model} (${identity.dims} dimensions, fingerprint ${identity.fingerprint.slice(0, 19)}…)`;
}

/** Whether vectors of `built` and queries of `given` share one space: null when they do, else what differs. */
export function identityMismatch(built: EmbedderIdentity, given: EmbedderIdentity): string | null {
  if (built.kind !== given.kind) return 'another kind of embedder';
  if (built.model !== given.model) return 'another model';
  if (built.dims !== given.dims) return 'another number of dimensions';
  if (built.fingerprint !== given.fingerprint) return built.kind === 'builtin' ? 'a built-in embedder of another orgindex version' : 'another model file, tokenizer or settings';
  return null;
}

/** How to give the embedder of an identity on the command line, for messages. */
export function embedderFlagFor(identity: EmbedderIdentity): string {
  if (identity.kind === 'builtin') return '--embedder builtin';
  if (identity.kind === 'onnx') return `--embedder onnx:DIR (the directory of ${identity.model})`;
  return `--embedder openai:URL --embedder-model ${identity.model || '<model>'}`;
}
