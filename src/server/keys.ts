/**
 * API keys from a JSON file (`orgindex serve --keys FILE`) or a database (key-store.ts):
 *   {"keys": [{"key": "…", "tier": "tier_1" | "tier_2", "visibility": <v2 filters, optional>, "admin": false}],
 *    "tiers": {"tier_1": {"monthlyResults": 200000}}}      ← optional overrides of limits.ts's values
 * An entry gives the key itself or only its SHA-256 (`"key_sha256": "<64 hex digits>"`, what
 * `orgindex keys create` writes: the key is printed once and never stored). Keys are held by their
 * SHA-256 only; a key's `id` (the first 16 hex digits of that hash) is what logs and the quota journal
 * see, never the key. A record is checked as a whole when it is written (key-store.ts) and again when it is
 * read: a record that names its key but is otherwise invalid disables that key alone (a 403), so that one
 * bad record, written by hand or by an older version, cannot stop a start or a reading of the keys.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import * as z from 'zod';
import type { Filters, FiltersSchema } from '../contract/v2/filters.js';
import { messageOf, summarizeDetail } from '../contract/errors.js';
import { validate, type ValidationErrorItem } from '../contract/validation.js';
import { checkVisibility } from '../engine/query/filter-rules.js';
import { DEFAULT_TIER_LIMITS, TierLimitsSchema, TierSchema, type Tier, type TierLimits } from './limits.js';

const KeyEntrySchema = z.strictObject({
  key: z.string().min(16, 'a key has at least 16 characters').optional(),
  key_sha256: z.string().regex(/^[0-9a-f]{64}$/, 'the SHA-256 of a key: 64 lower-case hex digits').optional(),
  tier: TierSchema,
  // Checked by visibilityProblems: the engine's rules as well as the contract's.
  visibility: z.unknown().optional(),
  admin: z.boolean().default(false),
  /** A label for logs and the operator (never the key). */
  name: z.string().optional(),
});

const KeysFileSchema = z.strictObject({
  // Each entry is checked on its own: a bad one disables its key, not the others.
  keys: z.array(z.unknown()).min(1, 'the file defines no key'),
  tiers: z.partialRecord(TierSchema, TierLimitsSchema.partial()).optional(),
});

/** One key record, as a keys file or a row of the database's `api_keys` gives it. */
export type KeyEntry = Omit<z.input<typeof KeyEntrySchema>, 'visibility'> & { visibility?: z.input<typeof FiltersSchema> | null | undefined };
export interface KeysFile {
  keys: KeyEntry[];
  tiers?: z.input<typeof KeysFileSchema>['tiers'];
}

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

/** A key whose record is invalid: refused, yet told apart from a wrong key. */
export interface DisabledKey {
  readonly id: string;
  readonly name: string | null;
  /** What is wrong with the record, field by field (for the operator: the server log, `orgindex keys list`). */
  readonly reason: string;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A key's id: the first 16 hex digits of its SHA-256. */
export const keyIdOf = (hash: string): string => hash.slice(0, 16);

const problemsOf = (detail: readonly ValidationErrorItem[]): string[] => detail.map((item) => summarizeDetail([item]));

/**
 * A key's visibility checked as the engine will apply it (without the data: checkVisibility), and one rule
 * of keys: a visibility that restricts nothing (`{"country": []}`) would silently give the key every
 * organization. The filters, or each problem as "visibility.<field>: <reason>".
 */
export function checkKeyVisibility(visibility: unknown): { ok: true; value: Filters | null } | { ok: false; problems: string[] } {
  if (visibility === null || visibility === undefined) return { ok: true, value: null };
  const checked = checkVisibility(visibility);
  if (!checked.ok) return { ok: false, problems: problemsOf(checked.error.detail) };
  if (Object.keys(checked.value).length === 0) return { ok: false, problems: ['visibility: restricts nothing (every list empty); leave it out to give the key every organization'] };
  return { ok: true, value: checked.value };
}

type CheckedRecord = { ok: true; entry: z.output<typeof KeyEntrySchema>; visibility: Filters | null } | { ok: false; problems: string[] };

function checkRecord(entry: unknown): CheckedRecord {
  const parsed = validate(KeyEntrySchema, entry);
  const problems = parsed.ok ? [] : problemsOf(parsed.error.detail);
  if (parsed.ok && (parsed.value.key === undefined) === (parsed.value.key_sha256 === undefined)) {
    problems.push(`gives ${parsed.value.key === undefined ? 'neither' : 'both'} "key" and "key_sha256": give one`);
  }
  const visibility = checkKeyVisibility(entry !== null && typeof entry === 'object' && 'visibility' in entry ? entry.visibility : undefined);
  if (!visibility.ok) problems.push(...visibility.problems);
  if (!parsed.ok || !visibility.ok || problems.length > 0) return { ok: false, problems };
  return { ok: true, entry: parsed.value, visibility: visibility.value };
}

/**
 * What is wrong with one key record, each problem "<field>: <reason>"; none when it is valid. Every writer
 * of keys refuses a record with problems and a server disables its key (KeyRing): one check for both.
 */
export function keyRecordProblems(entry: unknown): string[] {
  const checked = checkRecord(entry);
  return checked.ok ? [] : checked.problems;
}

/** The SHA-256 a record names its key by, when it names one plainly (however wrong the rest of it is). */
function hashOfRecord(entry: unknown): string | null {
  if (entry === null || typeof entry !== 'object') return null;
  const { key, key_sha256: hash } = entry as { key?: unknown; key_sha256?: unknown };
  if (typeof key === 'string' && key.length >= 16 && hash === undefined) return sha256(key);
  if (typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) && key === undefined) return hash;
  return null;
}

const nameOfRecord = (entry: unknown): string | null => {
  const name = entry !== null && typeof entry === 'object' && 'name' in entry ? entry.name : null;
  return typeof name === 'string' ? name : null;
};

export class KeyRing {
  private readonly byHash = new Map<string, ApiKey>();
  private readonly disabledByHash = new Map<string, DisabledKey>();

  /**
   * The keys of a keys file (at least one); `null`: no key at all (see `empty`). `source` names where they
   * come from in messages. A record that names its key but is otherwise invalid disables that key alone;
   * what cannot be served at all throws (not a keys file, a record that names no key, one key listed
   * twice, bad tier limits). `brokenTiers` (tier → what is wrong with its limits, as read from a database
   * row by row) disables the keys of those tiers rather than serve them on limits nobody set.
   */
  constructor(file: KeysFile | null, source = 'keys file', brokenTiers: ReadonlyMap<string, string> = new Map()) {
    if (file === null) return;
    const parsed = validate(KeysFileSchema, file);
    if (!parsed.ok) {
      const problems = parsed.error.detail.map((item) => `${item.loc.slice(1).join('.') || '(file)'}: ${item.msg}`);
      throw new Error(`${source}: ${problems.join('; ')}`);
    }
    const { keys, tiers } = parsed.value;
    keys.forEach((record, i) => {
      const hash = hashOfRecord(record);
      const checked = checkRecord(record);
      if (hash === null) {
        const problems = checked.ok ? [] : checked.problems;
        throw new Error(`${source}: ${problems.map((problem) => `keys.${i}.${problem}`).join('; ') || `keys.${i} names no key`}`);
      }
      if (this.byHash.has(hash) || this.disabledByHash.has(hash)) throw new Error(`${source}: the same key is listed twice`);
      const id = keyIdOf(hash);
      const name = nameOfRecord(record);
      if (!checked.ok) {
        this.disabledByHash.set(hash, { id, name, reason: checked.problems.join('; ') });
        return;
      }
      const { tier, admin } = checked.entry;
      const broken = brokenTiers.get(tier);
      if (broken !== undefined) {
        this.disabledByHash.set(hash, { id, name, reason: `the limits of ${tier} in ${source} are invalid: ${broken}` });
        return;
      }
      this.byHash.set(hash, { id, name, tier, limits: { ...DEFAULT_TIER_LIMITS[tier], ...tiers?.[tier] }, visibility: checked.visibility, admin });
    });
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
      throw new Error(`keys file ${path}: ${messageOf(error)}`, { cause: error });
    }
    return new KeyRing(data as KeysFile);
  }

  /** Every usable key's entry (no key in it). */
  entries(): ApiKey[] {
    return [...this.byHash.values()];
  }

  /** The keys whose records are invalid. */
  disabled(): DisabledKey[] {
    return [...this.disabledByHash.values()];
  }

  /** The key's entry, or null for an unknown or disabled key. */
  lookup(key: string): ApiKey | null {
    return this.byHash.get(sha256(key)) ?? null;
  }

  /** The key's record problem when it is a disabled key, else null. */
  lookupDisabled(key: string): DisabledKey | null {
    return this.disabledByHash.get(sha256(key)) ?? null;
  }

  /** The number of usable keys. */
  get size(): number {
    return this.byHash.size;
  }
}

const keyLabel = (key: { id: string; name: string | null }): string => (key.name === null ? `key ${key.id}` : `key ${JSON.stringify(key.name)} (${key.id})`);

/**
 * Logs what changed in the disabled keys from `before` (null: nothing read before, a start) to `after`:
 * a warning for each key newly disabled or disabled for another reason, a line for each served again.
 * Once per change, however often the same keys are read.
 */
export function logKeyChanges(log: Pick<FastifyBaseLogger, 'warn' | 'info'>, before: KeyRing | null, after: KeyRing): void {
  const was = new Map((before?.disabled() ?? []).map((key) => [key.id, key.reason]));
  for (const key of after.disabled()) {
    if (was.get(key.id) === key.reason) continue;
    log.warn({ key: key.id }, `${keyLabel(key)} is disabled, its record is invalid: ${key.reason}. Requests with it are refused (403) until the record is corrected`);
  }
  for (const key of after.entries()) if (was.has(key.id)) log.info({ key: key.id }, `${keyLabel(key)} is served again: its record is valid now`);
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
