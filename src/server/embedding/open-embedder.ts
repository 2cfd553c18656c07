/**
 * Opens the embedder of an `--embedder onnx:DIR` or `openai:URL` spec, and checks it against the one an
 * index snapshot records: what `orgindex serve` and `orgindex index build` share.
 */
import { performance } from 'node:perf_hooks';
import { describeIdentity, embedderFlagFor, identityMismatch, type EmbedderIdentity, type EmbedderSpec } from './embedder-spec.js';
import { OnnxEmbedder, onnxIdentity } from './onnx-embedder.js';
import { readOnnxDirectory } from './onnx-model.js';
import { EMBEDDER_KEY_VARIABLE, OpenAiEmbedder, openAiIdentity } from './openai-embedder.js';
import type { TextEmbedder } from './text-embedder.js';
import { NamedError } from '../../contract/errors.js';

export type ModelSpec = Exclude<EmbedderSpec, { kind: 'builtin' }>;

/** An embedder that does not fit the snapshot (exit 2), with both named. */
export class EmbedderMismatch extends NamedError {}

/**
 * The embedder of a spec, open: an ONNX model loaded on its thread, or a service (asked once for its
 * dimensions unless `dims` gives them). `expected`: the identity a snapshot records — checked before a
 * model is loaded, and its dimensions after. `say` gets a line on what was opened.
 */
export async function openTextEmbedder(spec: ModelSpec, options: { expected?: EmbedderIdentity; say?: (line: string) => void } = {}): Promise<TextEmbedder> {
  const { expected, say } = options;
  const started = performance.now();
  if (spec.kind === 'openai') {
    if (expected) checkIdentity(expected, openAiIdentity(spec.model, spec.prefixes, expected.dims));
    const key = process.env[EMBEDDER_KEY_VARIABLE];
    const embedder = await OpenAiEmbedder.open({ url: spec.url, model: spec.model, prefixes: spec.prefixes, key: key !== undefined && key !== '' ? key : null, dims: expected?.dims });
    const checked = expected ? 'dimensions from the index snapshot' : `answered in ${((performance.now() - started) / 1000).toFixed(1)} s`;
    say?.(`  embedder: ${describeIdentity(embedder.identity)} at ${spec.url}/embeddings (${checked}; key ${key ? `from ${EMBEDDER_KEY_VARIABLE}` : 'none'})`);
    return embedder;
  }
  const directory = readOnnxDirectory(spec.dir, spec.prefixes);
  if (expected) checkIdentity(expected, onnxIdentity(directory, expected.dims));
  const embedder = await OnnxEmbedder.open(directory);
  if (expected && embedder.dims !== expected.dims) {
    await embedder.close();
    checkIdentity(expected, embedder.identity);
  }
  say?.(`  embedder: ${describeIdentity(embedder.identity)} from ${directory.modelFile}, loaded in ${(embedder.loadMs / 1000).toFixed(1)} s on a thread of its own`);
  return embedder;
}

/** Throws an EmbedderMismatch naming both when `given` is not the embedder that built `built`. */
export function checkIdentity(built: EmbedderIdentity, given: EmbedderIdentity): void {
  const why = identityMismatch(built, given);
  if (why === null) return;
  throw new EmbedderMismatch(`its vectors were made by ${describeIdentity(built)}, and --embedder gives ${describeIdentity(given)}: ${why}. Serve it with ${embedderFlagFor(built)}, or rebuild it with this embedder (orgindex index build --embedder …)`);
}
