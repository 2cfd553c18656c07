/**
 * The embedder flags `orgindex serve` and `orgindex index build` share: --embedder builtin | onnx:DIR |
 * openai:URL, the model of a service, and the query and document prefixes (docs/operating.md).
 */
import type { Command } from 'commander';
import { EmbedderSpecError, parseEmbedderSpec, type EmbedderFlags, type EmbedderSpec } from '../server/embedding/embedder-spec.js';
import { EMBEDDER_KEY_VARIABLE } from '../server/embedding/openai-embedder.js';
import { UsageError } from './usage.js';

export interface EmbedderOptions extends EmbedderFlags {
  embedder?: string;
}

export function addEmbedderOptions(command: Command): Command {
  return command
    .option(
      '--embedder <spec>',
      `what turns organizations and queries into vectors: builtin (default; a snapshot's own when it is that), onnx:DIR (a sentence encoder in the Hugging Face layout, run here) or openai:URL (an OpenAI-compatible POST URL/embeddings service: Ollama, Text Embeddings Inference, vLLM, OpenAI; its key from ${EMBEDDER_KEY_VARIABLE})`,
    )
    .option('--embedder-model <name>', 'the model an openai: service embeds with (e.g. nomic-embed-text, text-embedding-3-small); also openai:MODEL@URL')
    .option('--embedder-query-prefix <text>', 'put before every query text (e5 models: "query: "; overrides the ONNX directory\'s orgindex-embedder.json)')
    .option('--embedder-document-prefix <text>', 'put before every organization\'s text (e5 models: "passage: ")');
}

/** The spec of the flags (null: none given); a bad one is a UsageError naming `command` ("orgindex serve"). */
export function embedderSpecOf(options: EmbedderOptions, command: string): EmbedderSpec | null {
  try {
    return parseEmbedderSpec(options.embedder, options);
  } catch (error) {
    if (error instanceof EmbedderSpecError) throw new UsageError(`${command}: ${error.message}`, { cause: error });
    throw error;
  }
}
