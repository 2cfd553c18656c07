/**
 * `orgindex endpoints` and `orgindex check`: the endpoint table and the contract's validation from the
 * command line, so a request body can be tried without a server.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ENDPOINTS, servedPath, type EndpointId } from '../contract/endpoints.js';
import { validate, type InputLocation } from '../contract/validation.js';
import type { CliIo } from './cli-io.js';
import { runCommand, UsageError, type SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';

export function addContractCommands(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  program
    .command('endpoints')
    .description('list the endpoints of the v2, legacy v1 and language-processing interfaces, with the paths orgindex serve serves them on')
    .action(() => {
      for (const [id, e] of Object.entries(ENDPOINTS)) {
        io.stdout(`${id.padEnd(26)} ${e.method.padEnd(6)} ${e.api.padEnd(8)} ${servedPath(e).padEnd(29)} ${e.summary}\n`);
      }
    });

  program
    .command('check')
    .description('validate a request body (JSON file or stdin) against the contract; prints the normalised body or the 422 detail')
    .argument('<endpoint>', `endpoint id, e.g. v2.search (see "orgindex endpoints")`)
    .argument('[file]', 'JSON file; stdin when omitted or "-"')
    .action((id: string, file: string | undefined) =>
      runCommand(io, setExitCode, '', () => {
        const endpoint = (ENDPOINTS as Record<string, (typeof ENDPOINTS)[EndpointId] | undefined>)[id];
        if (!endpoint) throw new UsageError(`Unknown endpoint "${id}". Known: ${Object.keys(ENDPOINTS).join(', ')}`);
        const text = file === undefined || file === '-' ? io.readStdin() : readFileSync(file, 'utf8');
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch (error) {
          throw new UsageError(`Not JSON: ${messageOf(error)}`, { cause: error });
        }
        const location: InputLocation = endpoint.input === 'none' ? 'body' : endpoint.input;
        const result = validate(endpoint.request, data, location);
        if (result.ok) {
          io.stdout(`${JSON.stringify(result.value, null, 2)}\n`);
        } else {
          // Not a mistake in the call: the body was checked, and this is the answer.
          io.stdout(`${JSON.stringify(result.error, null, 2)}\n`);
          setExitCode(1);
        }
      }),
    );
}
