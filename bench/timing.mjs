// Shared helpers of the benchmark scripts: garbage collection between phases, memory, p50/p95 timing.
import { performance } from 'node:perf_hooks';

/** Collects garbage when node runs with --expose-gc (the npm scripts pass it). */
export function gc() {
  if (global.gc) {
    global.gc();
    global.gc();
  }
}

/** Heap plus the typed arrays' backing stores (the engine keeps its structures in typed arrays). */
export function memory() {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

export const mb = (bytes) => `${(bytes / 1048576).toFixed(0)} MB`;

function summarize(samples) {
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p95: samples[Math.floor(samples.length * 0.95)] };
}

/** Median and p95 of `runs` timed calls (after `warmup` untimed ones). */
export function time(fn, runs = 200, warmup = 20) {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn(i);
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/** The same for an async call, awaited per call. */
export async function timeAsync(fn, runs = 200, warmup = 20) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

export const fmt = ({ p50, p95 }) => `p50 ${p50.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms`;

/** The benchmarks' dataset (seed 7, so every script measures the same organizations), with its generation time. */
export function timedDataset(generateDataset, count) {
  const start = performance.now();
  const records = generateDataset({ count, seed: 7 });
  console.log(`generate: ${(performance.now() - start).toFixed(0)} ms`);
  return records;
}
