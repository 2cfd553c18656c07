/**
 * API keys from a JSON file (`orgindex serve --keys FILE`) or a database (key-store.ts):
 *   {"keys": [{"key": "…", "tier": "tier_1" | "tier_2", "visibility": <v2 filters, optional>, "admin": false}],
 *    "tiers": {"tier_1": {"monthlyResults": 200000}}}      ← optional overrides of limits.ts's values
 * An entry gives the key itself or only its SHA-256 (`"key_sha256": "<64 hex digits>"`, what
 * `orgindex keys create` writes: the key is printed once and never stored). Keys are held by their
 * SHA-256 only; a key's `id` (the first 16 hex digits of that hash) is what logs and the quota journal
 * see, never the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { FiltersSchema, type Filters } from '../contract/v2/filters.js';
import { validate } from '../contract/validation.js';
import { DEFAULT_TIER_LIMITS, TierLimitsSchema, TierSchema, type Tier, type TierLimits } from './limits.js';

const KeyEntrySchema = z.strictObject({
  key: z.string().min(16, 'a key has at least 16 characters').optional(),
  key_sha256: z.string().regex(/^[0-9a-f]{64}$/, 'the SHA-256 of a key: 64 lower-case hex digits').optional(),
  tier: TierSchema,
  visibility: FiltersSchema.nullish(),
  admin: z.boolean().default(false),
  /** A label for logs and the operator (never the key). */
  name: z.string().optional(),
});

export const KeysFileSchema = z.strictObject({
  keys: z.array(KeyEntrySchema).min(1, 'the file defines no key'),
  tiers: z.partialRecord(TierSchema, TierLimitsSchema.partial()).optional(),
});
export type KeysFile = z.input<typeof KeysFileSchema>;

export interface ApiKey {
  /** First 16 hex digits of the key's SHA-256: safe to log and to store. */
  readonly id: string;
  readonly name: string | null;
  readonly tier: Tier;
  readonly limits: TierLimits;
  readonly visibility: Filters | null;
  /** Admin keys have no rate limit or quota and may use admin-only options (stats `explain`). */
  readonly admin: boolean;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A key's id: the first 16 hex digits of its SHA-256. */
export const keyIdOf = (hash: string): string => hash.slice(0, 16);

export class KeyRing {
  private readonly byHash = new Map<string, ApiKey>();

  /** The keys of a keys file (at least one); `null`: no key at all (see `empty`). */
  constructor(file: KeysFile | null) {
    if (file === null) return;
    const parsed = validate(KeysFileSchema, file);
    if (!parsed.ok) {
      const problems = parsed.error.detail.map((item) => `${item.loc.slice(1).join('.') || '(file)'}: ${item.msg}`);
      throw new Error(`keys file: ${problems.join('; ')}`);
    }
    const { keys, tiers } = parsed.value;
    keys.forEach((entry, i) => {
      if ((entry.key === undefined) === (entry.key_sha256 === undefined)) {
        throw new Error(`keys file: keys.${i} gives ${entry.key === undefined ? 'neither' : 'both'} "key" and "key_sha256": give one`);
      }
      if (entry.visibility && !restrictsSomething(entry.visibility)) {
        throw new Error(`keys file: keys.${i}.visibility restricts nothing (every list empty); leave it out to give the key every organization`);
      }
    });
    for (const entry of keys) {
      const hash = entry.key_sha256 ?? sha256(entry.key ?? '');
      if (this.byHash.has(hash)) throw new Error('keys file: the same key is listed twice');
      this.byHash.set(hash, {
        id: keyIdOf(hash),
        name: entry.name ?? null,
        tier: entry.tier,
        limits: { ...DEFAULT_TIER_LIMITS[entry.tier], ...tiers?.[entry.tier] },
        visibility: entry.visibility ?? null,
        admin: entry.admin,
      });
    }
  }

  /** No key at all: every request is a 401 (a database whose keys were all revoked). */
  static empty(): KeyRing {
    return new KeyRing(null);
  }

  static fromFile(path: string): KeyRing {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`keys file ${path}: ${(error as Error).message}`);
    }
    return new KeyRing(data as KeysFile);
  }

  /** Every key's entry (no key in it). */
  entries(): ApiKey[] {
    return [...this.byHash.values()];
  }

  /** The key's entry, or null for an unknown key. */
  lookup(key: string): ApiKey | null {
    return this.byHash.get(sha256(key)) ?? null;
  }

  get size(): number {
    return this.byHash.size;
  }
}

/**
 * Whether a filters object narrows anything. An empty list means "no condition" in a filters object, so
 * `{"country": []}` as a visibility would silently grant everything: the keys file refuses it.
 */
function restrictsSomething(filters: Filters): boolean {
  return Object.values(filters as Record<string, unknown>).some((value) => (Array.isArray(value) ? value.length > 0 : value !== null && value !== undefined));
}

/** A fresh random key: "oi_" and 40 hex digits (160 bits). */
export function generateKey(): string {
  return `oi_${randomBytes(20).toString('hex')}`;
}

export const DEVELOPMENT_KEY_NAME = 'development key';

/** The key `serve` prints on its development defaults: the development entry, never an admin key added since. */
export function developmentKeyOf(file: KeysFile): string | null {
  const entry = file.keys.find((key) => key.name === DEVELOPMENT_KEY_NAME && key.admin !== true && key.key !== undefined);
  return entry?.key ?? null;
}

/** Writes a keys file with one tier_2 development key (readable by the owner only); returns the key. */
export function writeDevelopmentKeysFile(path: string): string {
  const key = generateKey();
  mkdirSync(dirname(path), { recursive: true });
  const file: KeysFile = { keys: [{ key, tier: 'tier_2', admin: false, name: DEVELOPMENT_KEY_NAME }] };
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  return key;
}
