/**
 * The organization vectors of a store made by an embedder of its own (a model on its thread, a service),
 * once, at build or start: every organization's text (its summary, then its tags: documentText) embedded
 * in batches, a few batches at once, each batch bounded in time and tried again after a failure that may
 * pass, with the progress on a line every few seconds. The vectors are coded into scan records as the
 * built-in ones are (store-relevance.ts BlockCoder): a regular sample first, which fixes the axis units
 * of the codes, then block by block — each organization embedded once, the sample's kept for their block.
 *
 * A model's vectors are used as the model gives them (unit length): the common component that SIF
 * removes from averaged word vectors is SIF's, so the component recorded is zero.
 */
import { performance } from 'node:perf_hooks';
import type { StoredVectors } from '../../engine/relevance/store-relevance.js';
import { BlockCoder, sampleStride, VECTOR_BLOCK, vectorTexts, vectorTextSource } from '../../engine/relevance/store-relevance.js';
import { axisUnits, scanRecordBytes } from '../../engine/relevance/vector-scan.js';
import type { ColumnStore } from '../../engine/store/store.js';
import { documentText, EmbedderFailure, type TextEmbedder } from './text-embedder.js';
import { messageOf } from '../../contract/errors.js';

/** The longest one batch may take while organizations are embedded (a CPU model on long texts is slow). */
const DOCUMENT_BATCH_TIMEOUT_MS = 120_000;
/** Tries of a batch whose failure may pass (a time-out, a refused connection, a 5xx), with waits of 1, 2, 4 s between. */
const TRIES = 4;
/** Seconds between two progress lines. */
const PROGRESS_EVERY_MS = 5_000;

export interface EmbedOptions {
  /** A line of progress (no newline). */
  progress?: (line: string) => void;
  batchTimeoutMs?: number;
  /** Waits between tries (ms; tests shorten them). */
  retryWaitMs?: number;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** Embeds and codes the vectors of every organization of the store. */
export async function embedOrganizations(store: ColumnStore, embedder: TextEmbedder, options: EmbedOptions = {}): Promise<StoredVectors> {
  const count = store.size;
  const { dims } = embedder.identity;
  const textsOf = vectorTexts(vectorTextSource(store));
  const textOf = (row: number): string | null => documentText(textsOf(row));
  const into = { present: new Uint8Array(count), records: new Uint8Array(scanRecordBytes(count, dims)) };
  const stride = sampleStride(count);
  const sampled = Math.ceil(count / stride);
  const progress = new Progress(count, embedder, options.progress);
  const embed = (texts: (string | null)[]): Promise<(Float32Array | null)[]> => embedAll(texts, embedder, options, progress);

  const sampleTexts = Array.from({ length: sampled }, (_, i) => textOf(i * stride));
  progress.add(sampleTexts.filter((text) => text === null).length);
  const sampleVectors = await embed(sampleTexts);
  const sample = new Float32Array(sampled * dims);
  const samplePresent = new Uint8Array(sampled);
  sampleVectors.forEach((vector, i) => {
    if (!vector) return;
    sample.set(vector, i * dims);
    samplePresent[i] = 1;
  });
  const coder = new BlockCoder(count, dims, axisUnits(dims, sample, samplePresent, sampled), into);
  for (let first = 0; first < count; first += VECTOR_BLOCK) {
    const rows = Math.min(VECTOR_BLOCK, count - first);
    // The sample's organizations have their vectors already.
    const texts = Array.from({ length: rows }, (_, row) => ((first + row) % stride === 0 ? null : textOf(first + row)));
    progress.add(texts.filter((text, row) => text === null && (first + row) % stride !== 0).length);
    const vectors = await embed(texts);
    coder.code(first, rows, (block, present) => {
      for (let row = 0; row < rows; row++) {
        const at = first + row;
        const vector = at % stride === 0 ? sampleVectors[at / stride] : vectors[row];
        if (!vector) continue;
        block.set(vector, row * dims);
        present[row] = 1;
      }
    });
  }
  progress.finish();
  return { present: into.present, component: new Float32Array(dims), scan: coder.scan() };
}

/** The vectors of `texts` (null stays null), batch by batch, `embedder.concurrency` batches at once. */
async function embedAll(texts: (string | null)[], embedder: TextEmbedder, options: EmbedOptions, progress: Progress): Promise<(Float32Array | null)[]> {
  const out = new Array<Float32Array | null>(texts.length).fill(null);
  const wanted: number[] = [];
  texts.forEach((text, i) => {
    if (text !== null) wanted.push(i);
  });
  const batches: number[][] = [];
  for (let i = 0; i < wanted.length; i += embedder.batchSize) batches.push(wanted.slice(i, i + embedder.batchSize));
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < batches.length) {
      const batch = batches[next++] ?? [];
      const vectors = await embedBatch(
        batch.map((i) => texts[i] ?? ''),
        embedder,
        options,
      );
      batch.forEach((i, j) => {
        out[i] = vectors[j] ?? null;
      });
      progress.add(batch.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(embedder.concurrency, batches.length) }, lane));
  return out;
}

async function embedBatch(texts: string[], embedder: TextEmbedder, options: EmbedOptions): Promise<(Float32Array | null)[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await embedder.embed(texts, 'document', options.batchTimeoutMs ?? DOCUMENT_BATCH_TIMEOUT_MS);
    } catch (error) {
      const failure = error instanceof EmbedderFailure ? error : new EmbedderFailure(messageOf(error), false, { cause: error });
      if (!failure.retry || attempt >= TRIES) throw new EmbedderFailure(`embedding the organizations failed${attempt > 1 ? ` after ${attempt} tries` : ''}: ${failure.message}`, false, { cause: failure });
      await sleep((options.retryWaitMs ?? 1_000) * 2 ** (attempt - 1));
    }
  }
}

/** The progress line: done, share, rate and time left. */
class Progress {
  private done = 0;
  private readonly started = performance.now();
  private last = performance.now();

  constructor(
    private readonly total: number,
    private readonly embedder: TextEmbedder,
    private readonly say: ((line: string) => void) | undefined,
  ) {}

  add(n: number): void {
    this.done += n;
    const now = performance.now();
    if (now - this.last >= PROGRESS_EVERY_MS) {
      this.last = now;
      this.print(now);
    }
  }

  finish(): void {
    this.print(performance.now());
  }

  private print(now: number): void {
    if (!this.say) return;
    const elapsed = (now - this.started) / 1000;
    const rate = elapsed > 0 ? this.done / elapsed : 0;
    const left = rate > 0 ? Math.max(0, (this.total - this.done) / rate) : 0;
    const { kind, model } = this.embedder.identity;
    const share = this.total === 0 ? 100 : Math.floor((100 * this.done) / this.total);
    const tail = this.done >= this.total ? `done in ${elapsed.toFixed(1)} s` : `about ${Math.ceil(left)} s left`;
    this.say(`embedding organizations (${kind} ${model}): ${this.done.toLocaleString('en')} of ${this.total.toLocaleString('en')} (${share} %), ${Math.round(rate).toLocaleString('en')} a second, ${tail}`);
  }
}
