/**
 * `orgindex dataset`: the deterministic sample organizations as JSON Lines, the same records `serve
 * --count N` and `index build --count N` index, for loading elsewhere or editing into a `--data` file.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { DateSchema } from '../contract/common.js';
import { DEFAULT_DATASET, generateRecords } from '../engine/dataset/generate.js';
import type { CliIo } from './cli-io.js';
import { runCommand, UsageError, type SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';

/** Streams JSON Lines to a file: back-pressure and errors (a missing folder) handled by pipeline(). */
async function writeLines(file: string, records: Iterable<unknown>): Promise<void> {
  function* lines(): Generator<string> {
    for (const record of records) yield `${JSON.stringify(record)}\n`;
  }
  await pipeline(Readable.from(lines()), createWriteStream(file, { encoding: 'utf8' }));
}

export function addDatasetCommand(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  program
    .command('dataset')
    .description('write the deterministic sample dataset as JSON Lines (one organization per line)')
    .option('--count <n>', 'number of organizations', String(DEFAULT_DATASET.count))
    .option('--seed <s>', 'random seed (same seed, same data)', String(DEFAULT_DATASET.seed))
    .option('--as-of <date>', 'the dataset\'s "today" (YYYY-MM-DD)', DEFAULT_DATASET.asOf)
    .requiredOption('--out <file>', 'output file (.jsonl); "-" for stdout')
    .action((options: { count: string; seed: string; asOf: string; out: string }) =>
      runCommand(io, setExitCode, '', async () => {
        const count = Number(options.count);
        const seed = Number(options.seed);
        if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed) || !DateSchema.safeParse(options.asOf).success) {
          throw new UsageError('--count and --seed must be whole numbers, --as-of a date YYYY-MM-DD');
        }
        const records = generateRecords({ count, seed, asOf: options.asOf });
        if (options.out === '-') {
          for (const record of records) io.stdout(`${JSON.stringify(record)}\n`);
          return;
        }
        await writeLines(options.out, records).catch((error: unknown) => {
          throw new Error(`cannot write ${options.out}: ${messageOf(error)}`, { cause: error });
        });
        io.stderr(`wrote ${count} organizations to ${options.out}\n`);
      }),
    );
}
