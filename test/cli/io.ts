/** The I/O of an in-process `runCli`, with what it printed captured. */
import type { CliIo } from '../../src/cli/main.js';

export function capture(stdin = ''): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    readStdin: () => stdin,
  };
  return io;
}
