/**
 * The `orgindex` command line: contract tools (`endpoints`, `check`), the sample dataset (`dataset`), the
 * server (`serve`), index snapshots (`index build`), API keys (`keys`), sign-in tokens (`token`), the
 * headless refresh of saved queries (`refresh`) and their management in a workbook (`query`). Each
 * command registers itself from its own module; this one puts them together. `runCli` takes its I/O as
 * arguments so tests drive it in-process.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { addContractCommands } from './contract-tools.js';
import { addDatasetCommand } from './dataset.js';
import { addRefreshCommand } from './refresh-command.js';
import { addQueryCommands } from './query.js';
import { addKeyCommands } from './keys.js';
import { addIndexCommands } from './index-build.js';
import { addTokenCommand } from './dev-token.js';
import { addServeCommand } from './serve-command.js';
import type { SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';
import { packageVersion } from '../server/package-version.js';

export type { CliIo } from './cli-io.js';

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
};

/** The commands, in the order `orgindex --help` lists them. */
const COMMANDS: readonly ((program: Command, io: CliIo, setExitCode: SetExitCode) => void)[] = [
  addContractCommands,
  addDatasetCommand,
  addRefreshCommand,
  addQueryCommands,
  addKeyCommands,
  addIndexCommands,
  addTokenCommand,
  addServeCommand,
];

function buildProgram(io: CliIo, setExitCode: SetExitCode): Command {
  const program = new Command('orgindex')
    .description('OrgIndex: search, enrich and count organizations — contract tools, local engine and server')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  for (const add of COMMANDS) add(program, io, setExitCode);
  return program;
}

/** Runs the CLI with `argv` (without the node and script paths); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = nodeIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => (exitCode = code));
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr(`${messageOf(error)}\n`);
    return 1;
  }
  return exitCode;
}
