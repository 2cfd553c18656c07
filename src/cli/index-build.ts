/**
 * `orgindex index build --out DIR [--data FILE|URL | --count N] [--replace]`: builds the whole index — the
 * store, the keyword index, the vectors and their scan records — and writes it as a snapshot that
 * `orgindex serve --index DIR` loads without rebuilding (server/index-snapshot.ts).
 */
import { performance } from 'node:perf_hooks';
import type { Command } from 'commander';
import { indexParts } from '../engine/snapshot/index-parts.js';
import { checkSnapshotTarget, writeSnapshot } from '../server/index-snapshot.js';
import { warmRelevanceOnTwoThreads } from '../server/warm-relevance.js';
import type { CliIo } from './cli-io.js';
import { describeSource, loadIndex, type IndexSource } from './serve.js';

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(1);

export function addIndexCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const index = program.command('index').description('index snapshots: build the whole index once, serve it from many processes without rebuilding');
  index
    .command('build')
    .description('build the index of the organizations and write it as a snapshot directory (orgindex serve --index DIR loads it)')
    .requiredOption('--out <dir>', 'the snapshot directory to write (written beside it first, renamed into place when complete)')
    .option('--data <file|url>', 'organizations: JSON Lines, CSV/TSV, or a PostgreSQL table postgres://user@host/database/table (default: the embedded 50,000 sample)')
    .option('--count <n>', 'n generated organizations instead of the embedded sample')
    .option('--replace', 'replace --out if it exists')
    .action(async (options: { out: string; data?: string; count?: string; replace?: boolean }) => {
      const count = options.count === undefined ? undefined : Number(options.count);
      if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
        io.stderr('--count must be a whole number ≥ 1\n');
        setExitCode(2);
        return;
      }
      if (options.data !== undefined && count !== undefined) {
        io.stderr('give --data or --count, not both\n');
        setExitCode(2);
        return;
      }
      const source: IndexSource = { data: options.data, count };
      try {
        checkSnapshotTarget(options.out, options.replace === true);
        const started = performance.now();
        const { index: built } = await loadIndex(source);
        io.stderr(`store of ${built.store.size.toLocaleString('en')} organizations built in ${seconds(started)} s\n`);
        const relevance = performance.now();
        const threads = warmRelevanceOnTwoThreads(built.store);
        // The parts wait for the vectors' scan records if the worker is still making them.
        const parts = indexParts(built.store);
        io.stderr(`keyword index, vectors and scan records built in ${seconds(relevance)} s (${threads === 2 ? 'two threads' : 'one thread'})\n`);
        const writing = performance.now();
        const written = writeSnapshot(options.out, parts, describeSource(source), { replace: options.replace === true });
        io.stderr(`wrote ${written.dir}: ${(written.bytes / 1e9).toFixed(2)} GB in ${written.files} files, in ${seconds(writing)} s (${seconds(started)} s in all); serve it with orgindex serve --index ${options.out}\n`);
      } catch (error) {
        io.stderr(`orgindex index build: ${(error as Error).message}\n`);
        setExitCode(1);
      }
    });
}
