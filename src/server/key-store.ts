/**
 * Where a service's API keys live, for `orgindex keys create|list|revoke|set-tier` and for `serve`: a keys
 * file (`--keys FILE`) or the database (`--database URL`). A new key is returned once, to be printed; only
 * its SHA-256 is stored. Keys are named by their id (16 hex digits, what logs show) or their name.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { generateKey, keyIdOf, keyRecordProblems, KeyRing, sha256, type KeyEntry, type KeysFile } from './keys.js';
import { validate } from '../contract/validation.js';
import { TierLimitsSchema, TierSchema, type Tier } from './limits.js';
import type { Database } from './database/database.js';
import { messageOf, NamedError } from '../contract/errors.js';

/** A key's visibility: v2 filters, as a keys file spells them. */
export type Visibility = NonNullable<KeyEntry['visibility']>;

export interface KeyListing {
  id: string;
  name: string | null;
  tier: Tier;
  admin: boolean;
  visibility: Visibility | null;
  /** ISO times; null where the store keeps none (a keys file). */
  createdAt: string | null;
  /** What is wrong with the record (servers refuse the key until it is corrected); null when it is valid. */
  problem: string | null;
}

export interface NewKey {
  tier: Tier;
  name?: string | undefined;
  admin?: boolean | undefined;
  visibility?: Visibility | null | undefined;
}

/** A key store's refusal the operator can act on (unknown or ambiguous key, a name taken). */
export class KeyStoreError extends NamedError {}

/** A write refused because the key's record would be invalid (servers could not serve the key). */
export class InvalidKeyRecord extends KeyStoreError {}

/** The record as it would be written, or an InvalidKeyRecord naming each field and its problem. */
function checkedRecord<Entry extends KeyEntry>(record: Entry, which: string): Entry {
  const problems = keyRecordProblems(record);
  if (problems.length > 0) throw new InvalidKeyRecord(`${which} would be invalid: ${problems.join('; ')}`);
  return record;
}

const problemOf = (record: unknown): string | null => {
  const problems = keyRecordProblems(record);
  return problems.length > 0 ? problems.join('; ') : null;
};

export interface KeyStore {
  /** Adds a key; returns it (the only time it is seen) and its listing. */
  create(entry: NewKey): Promise<{ key: string; listing: KeyListing }>;
  /** The live keys, oldest first. */
  list(): Promise<KeyListing[]>;
  /** Revokes a key (by id or name): it stops working when servers next read the keys (`applied` says when). */
  revoke(ref: string): Promise<KeyListing>;
  setTier(ref: string, tier: Tier): Promise<KeyListing>;
  /** The keys as `serve` checks them (a store without live keys is refused unless `allowEmpty`). */
  keyRing(options?: { allowEmpty?: boolean }): Promise<KeyRing>;
  /** When running servers apply a change, in words. */
  readonly applied: string;
}

/** How often servers on a database read its keys again: created, revoked and re-tiered keys apply within this. */
export const KEY_REFRESH_MS = 5_000;

/** The one listing `ref` names: an id, or a name no other live key has. */
function pick(listings: readonly KeyListing[], ref: string): KeyListing {
  const byId = listings.find((listing) => listing.id === ref);
  if (byId) return byId;
  const named = listings.filter((listing) => listing.name === ref);
  if (named.length === 1 && named[0]) return named[0];
  if (named.length > 1) throw new KeyStoreError(`${named.length} keys are named ${JSON.stringify(ref)}: name one by its id (orgindex keys list)`);
  throw new KeyStoreError(`no key has the id or name ${JSON.stringify(ref)} (orgindex keys list shows them)`);
}

type FileEntry = KeyEntry;

function listingOfEntry(entry: FileEntry): KeyListing {
  const hash = entry.key_sha256 ?? sha256(entry.key ?? '');
  return { id: keyIdOf(hash), name: entry.name ?? null, tier: entry.tier, admin: entry.admin ?? false, visibility: entry.visibility ?? null, createdAt: null, problem: problemOf(entry) };
}

const keyLabel = (listing: KeyListing): string => `the record of key ${listing.id}${listing.name !== null ? ` (${JSON.stringify(listing.name)})` : ''}`;

/** Keys in a JSON keys file (written whole, through a temporary file, readable by its owner only). */
export class FileKeyStore implements KeyStore {
  readonly applied = 'servers apply it at their next start';

  constructor(readonly path: string) {}

  private read(): KeysFile {
    if (!existsSync(this.path)) return { keys: [] };
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as KeysFile;
    } catch (error) {
      throw new KeyStoreError(`keys file ${this.path}: ${messageOf(error)}`, { cause: error });
    }
  }

  private write(file: KeysFile): void {
    // Checked as serve will read it (an empty list is allowed here: the last key may be revoked).
    if (file.keys.length > 0) new KeyRing(file, `keys file ${this.path}`);
    const temporary = `${this.path}.${String(process.pid)}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }

  // async: a refusal is a rejected promise, as from the database store.
  // eslint-disable-next-line @typescript-eslint/require-await
  async create(entry: NewKey): Promise<{ key: string; listing: KeyListing }> {
    const file = this.read();
    if (entry.name !== undefined && file.keys.some((existing) => existing.name === entry.name)) {
      throw new KeyStoreError(`a key named ${JSON.stringify(entry.name)} exists already`);
    }
    const key = generateKey();
    const added = checkedRecord<FileEntry>(
      {
        key_sha256: sha256(key),
        tier: entry.tier,
        admin: entry.admin ?? false,
        ...(entry.name !== undefined ? { name: entry.name } : {}),
        ...(entry.visibility ? { visibility: entry.visibility } : {}),
      },
      'the new key\'s record',
    );
    this.write({ ...file, keys: [...file.keys, added] });
    return { key, listing: listingOfEntry(added) };
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async list(): Promise<KeyListing[]> {
    return this.read().keys.map(listingOfEntry);
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async revoke(ref: string): Promise<KeyListing> {
    const file = this.read();
    const listing = pick(file.keys.map(listingOfEntry), ref);
    this.write({ ...file, keys: file.keys.filter((entry) => listingOfEntry(entry).id !== listing.id) });
    return listing;
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async setTier(ref: string, tier: Tier): Promise<KeyListing> {
    const file = this.read();
    const listing = pick(file.keys.map(listingOfEntry), ref);
    const keys = file.keys.map((entry) => (listingOfEntry(entry).id === listing.id ? checkedRecord({ ...entry, tier }, keyLabel(listing)) : entry));
    this.write({ ...file, keys });
    return { ...listing, tier };
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async keyRing({ allowEmpty = false }: { allowEmpty?: boolean } = {}): Promise<KeyRing> {
    if (allowEmpty && this.read().keys.length === 0) return KeyRing.empty();
    return KeyRing.fromFile(this.path);
  }
}

interface KeyRow {
  id: string;
  key_sha256: string;
  name: string | null;
  tier: Tier;
  admin: boolean;
  visibility: Visibility | null;
  created_at: Date;
}

/** A row as the record servers read. */
const recordOfRow = (row: Pick<KeyRow, 'key_sha256' | 'tier' | 'admin' | 'visibility' | 'name'>): KeyEntry => ({
  key_sha256: row.key_sha256,
  tier: row.tier,
  admin: row.admin,
  visibility: row.visibility,
  ...(row.name !== null ? { name: row.name } : {}),
});

const listingOfRow = (row: KeyRow): KeyListing => ({
  id: row.id,
  name: row.name,
  tier: row.tier,
  admin: row.admin,
  visibility: row.visibility,
  createdAt: row.created_at.toISOString(),
  problem: problemOf(recordOfRow(row)),
});

const LIVE_KEYS = 'SELECT id, key_sha256, name, tier, admin, visibility, created_at FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id';

/** Keys in the database's api_keys table (revoked keys stay, marked, for the record). */
export class DatabaseKeyStore implements KeyStore {
  readonly applied = `servers on the database apply it within ${KEY_REFRESH_MS / 1000} seconds`;

  constructor(private readonly database: Database) {}

  async create(entry: NewKey): Promise<{ key: string; listing: KeyListing }> {
    const key = generateKey();
    const hash = sha256(key);
    checkedRecord(recordOfRow({ key_sha256: hash, tier: entry.tier, admin: entry.admin ?? false, visibility: entry.visibility ?? null, name: entry.name ?? null }), 'the new key\'s record');
    try {
      const [row] = await this.database.query<KeyRow>(
        `INSERT INTO api_keys (id, key_sha256, name, tier, admin, visibility) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, key_sha256, name, tier, admin, visibility, created_at`,
        [keyIdOf(hash), hash, entry.name ?? null, entry.tier, entry.admin ?? false, entry.visibility ? JSON.stringify(entry.visibility) : null],
      );
      if (!row) throw new Error('the key was not stored');
      return { key, listing: listingOfRow(row) };
    } catch (error) {
      if ((error as { code?: string }).code === '23505' && entry.name !== undefined) throw new KeyStoreError(`a key named ${JSON.stringify(entry.name)} exists already`);
      throw error;
    }
  }

  async list(): Promise<KeyListing[]> {
    return (await this.database.query<KeyRow>(LIVE_KEYS)).map(listingOfRow);
  }

  /** Changes a live key's row; `changed`, when given, is the record the change makes, checked before it is written. */
  private async update(ref: string, change: string, values: unknown[], changed?: (row: KeyRow) => KeyEntry): Promise<KeyListing> {
    const rows = await this.database.query<KeyRow>(LIVE_KEYS);
    const listing = pick(rows.map(listingOfRow), ref);
    const current = rows.find((candidate) => candidate.id === listing.id);
    if (changed && current) checkedRecord(changed(current), keyLabel(listing));
    const [row] = await this.database.query<KeyRow>(
      `UPDATE api_keys SET ${change} WHERE id = $1 AND revoked_at IS NULL RETURNING id, key_sha256, name, tier, admin, visibility, created_at`,
      [listing.id, ...values],
    );
    if (!row) throw new KeyStoreError(`the key ${listing.id} was revoked meanwhile`);
    return listingOfRow(row);
  }

  revoke(ref: string): Promise<KeyListing> {
    return this.update(ref, 'revoked_at = now()', []);
  }

  setTier(ref: string, tier: Tier): Promise<KeyListing> {
    return this.update(ref, 'tier = $2', [tier], (row) => ({ ...recordOfRow(row), tier }));
  }

  async keyRing({ allowEmpty = false }: { allowEmpty?: boolean } = {}): Promise<KeyRing> {
    const rows = await this.database.query<KeyRow>(LIVE_KEYS);
    if (rows.length === 0 && allowEmpty) return KeyRing.empty();
    if (rows.length === 0) throw new KeyStoreError('the database holds no live key: orgindex keys create --database <url> --tier tier_2 makes one');
    // Row by row: a row written wrong by hand disables the keys of its tier, not every key of the service.
    const tiers: NonNullable<KeysFile['tiers']> = {};
    const brokenTiers = new Map<string, string>();
    for (const row of await this.database.query<{ tier: string; limits: unknown }>('SELECT tier, limits FROM tier_limits')) {
      const tier = TierSchema.safeParse(row.tier);
      if (!tier.success) continue; // no key can have a tier of another name
      const checked = validate(TierLimitsSchema.partial(), row.limits);
      if (checked.ok) tiers[tier.data] = checked.value;
      else brokenTiers.set(tier.data, checked.error.detail.map((item) => `${item.loc.slice(1).join('.') || 'limits'}: ${item.msg}`).join('; '));
    }
    return new KeyRing({ keys: rows.map(recordOfRow), tiers }, 'the database', brokenTiers);
  }
}
