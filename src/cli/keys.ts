/**
 * `orgindex keys create | list | revoke | set-tier`: a service's API keys, in its database (`--database
 * URL`, or ORGINDEX_DATABASE_URL: a URL with a password is better kept out of the process list) or in a
 * keys file (`--keys FILE`). A new key is printed once, on stdout; only its SHA-256 is stored.
 */
import type { Command } from 'commander';
import { Database } from '../server/database/database.js';
import { DatabaseKeyStore, FileKeyStore, InvalidKeyRecord, type KeyListing, type KeyStore, type Visibility } from '../server/key-store.js';
import { checkKeyVisibility } from '../server/keys.js';
import { TierSchema, type Tier } from '../server/limits.js';
import { table, type CliIo } from './cli-io.js';
import { printable } from './workbook-guard.js';
import { atMostOne, DATABASE_ENV, databaseUrlOf, runCommand, UsageError, type SetExitCode } from './usage.js';
import { messageOf } from '../contract/errors.js';

interface StoreOptions {
  database?: string;
  keys?: string;
}

/** The store the options name, and how to let go of it. */
async function openStore(options: StoreOptions): Promise<{ store: KeyStore; close: () => Promise<void> }> {
  atMostOne('give --database or --keys, not both', options.keys, options.database);
  const database = databaseUrlOf(options.database);
  if (options.keys !== undefined) return { store: new FileKeyStore(options.keys), close: () => Promise.resolve() };
  if (database === undefined || database === '') throw new UsageError(`say where the keys are: --database postgres://… (or ${DATABASE_ENV}) or --keys FILE`);
  const opened = await Database.open(database);
  return { store: new DatabaseKeyStore(opened), close: () => opened.close() };
}

function tierOf(value: string): Tier {
  const parsed = TierSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`a tier is ${TierSchema.options.join(' or ')}; got ${JSON.stringify(value)}`);
  return parsed.data;
}

function visibilityOf(text: string): Visibility {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--visibility takes v2 filters as JSON, e.g. '{"country":["Deutschland"]}': ${messageOf(error)}`, { cause: error });
  }
  // Checked as servers check it; the store checks the whole record again before it writes.
  const checked = checkKeyVisibility(data);
  if (!checked.ok) throw new UsageError(`--visibility: ${checked.problems.join('; ')}`);
  return data as Visibility;
}

const row = (listing: KeyListing): string[] =>
  [listing.id, listing.name ?? '-', listing.tier, listing.admin ? 'yes' : 'no', listing.visibility ? JSON.stringify(listing.visibility) : 'everything', listing.createdAt ?? '-'].map(printable);

export function addKeyCommands(program: Command, io: CliIo, setExitCode: SetExitCode): void {
  // A key record the store refuses is the caller's mistake too.
  const run = (name: string, options: StoreOptions, work: (store: KeyStore) => Promise<void>): Promise<void> =>
    runCommand(io, setExitCode, `orgindex keys ${name}: `, async () => {
      const opened = await openStore(options);
      try {
        await work(opened.store);
      } finally {
        await opened.close();
      }
    }, (error) => error instanceof InvalidKeyRecord);
  const where = (command: Command): Command =>
    command
      .option('--database <url>', `the service's PostgreSQL database (default: $${DATABASE_ENV})`)
      .option('--keys <file>', 'a keys file, as orgindex serve --keys reads it (created when missing)');

  const keys = program.command('keys').description('create, list, revoke and re-tier the API keys of a service (its database or keys file)');
  where(keys.command('create'))
    .description('make a key; prints it once on stdout (only its SHA-256 is stored)')
    .requiredOption('--tier <tier>', TierSchema.options.join(' or '))
    .option('--name <name>', 'a label for logs and for naming the key here (unique among live keys)')
    .option('--admin', 'no rate limit or quota, admin-only options')
    .option('--visibility <json>', 'v2 filters the key is confined to, e.g. \'{"country":["Deutschland"]}\'')
    .action((options: StoreOptions & { tier: string; name?: string; admin?: boolean; visibility?: string }) =>
      run('create', options, async (store) => {
        const { key, listing } = await store.create({
          tier: tierOf(options.tier),
          name: options.name,
          admin: options.admin === true,
          visibility: options.visibility === undefined ? null : visibilityOf(options.visibility),
        });
        io.stdout(`${key}\n`);
        io.stderr(`created key ${listing.id}${listing.name ? ` (${printable(listing.name)})` : ''}, ${listing.tier}${listing.admin ? ', admin' : ''}: it is shown only now, store it safely; ${store.applied}\n`);
      }),
    );
  where(keys.command('list'))
    .description('the live keys: id, name, tier, admin, visibility, created (never the keys themselves)')
    .option('--json', 'print them as JSON')
    .action((options: StoreOptions & { json?: boolean }) =>
      run('list', options, async (store) => {
        const listings = await store.list();
        if (options.json) {
          io.stdout(`${JSON.stringify(listings, null, 2)}\n`);
          return;
        }
        if (listings.length === 0) {
          io.stderr('no keys (orgindex keys create makes one)\n');
          return;
        }
        io.stdout(table([['ID', 'NAME', 'TIER', 'ADMIN', 'VISIBILITY', 'CREATED'], ...listings.map(row)]));
        for (const listing of listings) {
          if (listing.problem !== null) io.stderr(`key ${listing.id} is disabled (servers answer 403), its record is invalid: ${printable(listing.problem)}; revoke it and create another\n`);
        }
      }),
    );
  where(keys.command('revoke'))
    .description('revoke a key: servers refuse it within 5 s (--database) or from their next start (--keys)')
    .argument('<key>', 'its id or name (orgindex keys list)')
    .action((ref: string, options: StoreOptions) =>
      run('revoke', options, async (store) => {
        const listing = await store.revoke(ref);
        io.stderr(`revoked key ${listing.id}${listing.name ? ` (${printable(listing.name)})` : ''}: ${store.applied}\n`);
      }),
    );
  where(keys.command('set-tier'))
    .description('move a key to another tier (its limits apply within 5 s with --database, from the next start with --keys)')
    .argument('<key>', 'its id or name (orgindex keys list)')
    .argument('<tier>', TierSchema.options.join(' or '))
    .action((ref: string, tier: string, options: StoreOptions) =>
      run('set-tier', options, async (store) => {
        const listing = await store.setTier(ref, tierOf(tier));
        io.stderr(`key ${listing.id}${listing.name ? ` (${printable(listing.name)})` : ''} is now ${listing.tier}: ${store.applied}\n`);
      }),
    );
}
