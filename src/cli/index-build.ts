/**
 * `orgindex index build --out DIR [--data FILE|URL | --count N] [--replace] [--embedder SPEC]`: builds the
 * whole index — the store, the keyword index, the vectors and their scan records, the name groups of
 * dedup — and writes it as a snapshot that `orgindex serve --index DIR` loads without rebuilding
 * (server/index-snapshot.ts). The vectors come from the built-in embedder, or from the model of
 * --embedder (onnx:DIR, openai:URL), which the snapshot records: it is then served with that model only.
 *
 * In the order that holds the least at once: the store (a streamed source's keyword index is built in
 * segments meanwhile), the vectors from the store, then the store, vectors and name groups written and let
 * go, and only then the keyword index's segments merged and written.
 */
import { performance } from 'node:perf_hooks';
import type { Command } from 'commander';
import { textIndexLater } from '../engine/relevance/store-relevance.js';
import { vectorParts } from '../engine/snapshot/index-parts.js';
import type { ColumnStore } from '../engine/store/store.js';
import { duplicateNameGroups } from '../engine/store/name-groups.js';
import { SnapshotWriter, type WrittenSnapshot } from '../server/index-snapshot.js';
import { postingsOf } from '../engine/store/postings.js';
import { builtinIdentity, type EmbedderSpec } from '../server/embedding/embedder-spec.js';
import { embedOrganizations } from '../server/embedding/document-vectors.js';
import { openTextEmbedder } from '../server/embedding/open-embedder.js';
import { OnnxDirectoryError } from '../server/embedding/onnx-model.js';
import type { CliIo } from './cli-io.js';
import { addEmbedderOptions, embedderSpecOf, type EmbedderOptions } from './embedder-flags.js';
import { describeSource, loadIndex, type IndexSource } from './serve.js';
import { atMostOne, countOf, runCommand, type SetExitCode } from './usage.js';

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(1);

export function addIndexCommands(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  const index = program.command('index').description('index snapshots: build the whole index once, serve it from many processes without rebuilding');
  addEmbedderOptions(
    index
      .command('build')
      .description('build the index of the organizations and write it as a snapshot directory (orgindex serve --index DIR loads it)')
      .requiredOption('--out <dir>', 'the snapshot directory to write (written beside it first, renamed into place when complete)')
      .option('--data <file|url>', 'organizations: JSON Lines, CSV/TSV, or a PostgreSQL table postgres://user@host/database/table (default: the embedded 50,000 sample)')
      .option('--count <n>', 'n generated organizations instead of the embedded sample')
      .option('--replace', 'replace --out if it exists'),
  ).action((options: { out: string; data?: string; count?: string; replace?: boolean } & EmbedderOptions) =>
    runCommand(io, setExitCode, '', () => {
      const count = countOf(options.count, '--count must be a whole number ≥ 1');
      atMostOne('give --data or --count, not both', options.data, count);
      const embedder = embedderSpecOf(options, 'orgindex index build');
      const source: IndexSource = { data: options.data, count };
      // The build's own failures are named after the command; a model directory it cannot use is the caller's mistake.
      return runCommand(io, setExitCode, 'orgindex index build: ', async () => {
        const started = performance.now();
        const { written, size } = await buildSnapshot(source, options.out, options.replace === true, io, started, embedder);
        io.stderr(`wrote ${written.dir}: ${size.toLocaleString('en')} organizations, ${(written.bytes / 1e9).toFixed(2)} GB in ${written.files} files, in ${seconds(started)} s in all; serve it with orgindex serve --index ${options.out}\n`);
      }, (error) => error instanceof OnnxDirectoryError);
    }),
  );
}

async function buildSnapshot(source: IndexSource, out: string, replace: boolean, io: CliIo, started: number, spec: EmbedderSpec | null): Promise<{ written: WrittenSnapshot; size: number }> {
  const writer = new SnapshotWriter(out, { replace });
  const say = (line: string): void => {
    io.stderr(`${line}\n`);
  };
  // A model is opened before the store is built: a wrong directory or a service that does not answer stops the build at once.
  const embedder = spec === null || spec.kind === 'builtin' ? null : await openTextEmbedder(spec, { say }).catch((error: unknown) => {
    writer.abandon();
    throw error;
  });
  try {
    // Only the store is kept from here: the index around it would keep it alive past its writing.
    let store: ColumnStore | null = (await loadIndex(source)).index.store;
    const size = store.size;
    io.stderr(`store of ${size.toLocaleString('en')} organizations built in ${seconds(started)} s\n`);
    const vectorsAt = performance.now();
    writer.add('vectors', embedder ? await embedOrganizations(store, embedder, { progress: say }) : vectorParts(store));
    io.stderr(`vectors and their scan records built and written in ${seconds(vectorsAt)} s\n`);
    writer.add('store', store.parts(false));
    const postingsAt = performance.now();
    writer.add('postings', postingsOf(store).parts());
    io.stderr(`filter postings built and written in ${seconds(postingsAt)} s\n`);
    const namesAt = performance.now();
    writer.add('names', duplicateNameGroups(store));
    io.stderr(`name groups built and written in ${seconds(namesAt)} s\n`);
    const finishText = textIndexLater(store);
    store = null;
    const textAt = performance.now();
    writer.add('text', finishText().parts());
    io.stderr(`keyword index finished and written in ${seconds(textAt)} s\n`);
    return { written: writer.finish(describeSource(source), size, embedder ? embedder.identity : builtinIdentity()), size };
  } catch (error) {
    writer.abandon();
    throw error;
  } finally {
    await embedder?.close();
  }
}
