/**
 * `orgindex refresh WORKBOOK.xlsx | --google-sheet ID --credentials FILE`: one command for both places
 * saved queries live (refresh.ts, google-sheet.ts), with one report. Apart from refresh.ts because the
 * Google Sheet refresher builds on it.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { refreshGoogleSheet } from './google-sheet.js';
import { refreshWorkbook, type QueryOutcome, type RefreshOptions } from './refresh.js';
import { runCommand, UsageError, type SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';

interface RefreshFlags {
  baseUrl?: string;
  key?: string;
  keyFile?: string;
  googleSheet?: string;
  credentials?: string;
}

/** The API key: --key-file, else --key, else ORGINDEX_API_KEY. */
function apiKeyOf(flags: RefreshFlags): string | undefined {
  if (flags.keyFile === undefined) return flags.key ?? process.env.ORGINDEX_API_KEY;
  try {
    return readFileSync(flags.keyFile, 'utf8').trim();
  } catch (error) {
    throw new UsageError(`cannot read the key file: ${messageOf(error)}`, { cause: error });
  }
}

/** Where the Google Sheets refresher sends its calls and how long it first waits to retry, from the environment. */
function sheetsApiOf(environment: NodeJS.ProcessEnv): { apiRoot?: string; retryDelayMs?: number } {
  const apiRoot = environment.ORGINDEX_SHEETS_API_URL;
  // The service account's token goes wherever this points: Google, or a loopback proxy / test stand-in.
  if (apiRoot !== undefined && !/^(https:\/\/([a-z0-9-]+\.)*googleapis\.com|https?:\/\/(127\.0\.0\.1|localhost|\[::1\]))(:\d+)?(\/|$)/.test(apiRoot)) {
    throw new UsageError('ORGINDEX_SHEETS_API_URL must be an https URL under googleapis.com, or a loopback address');
  }
  const retryMs = environment.ORGINDEX_SHEETS_RETRY_MS;
  if (retryMs !== undefined && !/^[1-9]\d{0,5}$/.test(retryMs)) throw new UsageError('ORGINDEX_SHEETS_RETRY_MS must be a whole number of milliseconds');
  return { ...(apiRoot ? { apiRoot } : {}), ...(retryMs ? { retryDelayMs: Number(retryMs) } : {}) };
}

/** One line per query, then the count on stderr; exit 1 when any failed. */
function report(io: CliIo, setExitCode: SetExitCode, outcomes: readonly QueryOutcome[], where: string): void {
  for (const outcome of outcomes) io.stdout(`${outcome.ok ? 'ok    ' : 'FAILED'}  ${outcome.target}  ${outcome.ok ? outcome.message.slice(3) : outcome.message}\n`);
  const failed = outcomes.filter((outcome) => !outcome.ok).length;
  io.stderr(`${String(outcomes.length - failed)} of ${String(outcomes.length)} saved queries refreshed in ${where}${failed > 0 ? `; ${String(failed)} failed` : ''}\n`);
  setExitCode(failed > 0 ? 1 : 0);
}

export function addRefreshCommand(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  program
    .command('refresh')
    .argument('[workbook]', 'an .xlsx workbook with saved queries (its hidden worksheet _orgindex)')
    .description('re-run the saved queries of a workbook (written atomically) or of a Google Sheet, and write their values in place; exit 1 when any query failed')
    .option('--google-sheet <id>', 'refresh this Google Sheet instead, through the Sheets API (with --credentials)')
    .option('--credentials <file>', 'a Google service-account key file with edit access to the sheet')
    .option('--base-url <url>', 'the OrgIndex service (default: the embedded 50,000-organization sample)')
    .option('--key-file <file>', 'read the API key from this file (or set ORGINDEX_API_KEY)')
    .option('--key <key>', 'the API key (prefer ORGINDEX_API_KEY or --key-file: a command line is visible to other users)')
    .action((workbook: string | undefined, flags: RefreshFlags) =>
      runCommand(io, setExitCode, 'orgindex refresh: ', async () => {
        const { googleSheet, credentials } = flags;
        if ((workbook === undefined) === (googleSheet === undefined) || (googleSheet !== undefined && credentials === undefined)) {
          throw new UsageError('give a workbook, or --google-sheet ID with --credentials FILE');
        }
        const apiKey = apiKeyOf(flags);
        if (flags.baseUrl !== undefined && !apiKey) io.stderr('orgindex refresh: no API key (set ORGINDEX_API_KEY or give --key-file); the service will likely refuse every query\n');
        const common: RefreshOptions = { ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
        // Checked for a workbook's refresh too: a mistyped variable is reported wherever it is set.
        const sheetsApi = sheetsApiOf(process.env);
        if (googleSheet !== undefined) {
          const outcomes = await refreshGoogleSheet(googleSheet, { ...common, credentials: credentials ?? '', ...sheetsApi });
          report(io, setExitCode, outcomes, `the Google Sheet ${googleSheet}`);
        } else {
          report(io, setExitCode, await refreshWorkbook(workbook ?? '', common), workbook ?? '');
        }
      }),
    );
}
