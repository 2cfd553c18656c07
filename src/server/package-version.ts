/**
 * The release of this OrgIndex, from its package.json, so that the service description and `orgindex
 * --version` cannot drift from it. The file is found by walking up from this module: it sits two folders
 * up in a checkout (src/server) and three once built (dist/lib/server), and an installed package keeps it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | null = null;

export function packageVersion(): string {
  version ??= findVersion(dirname(fileURLToPath(import.meta.url)));
  return version;
}

function findVersion(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof parsed === 'object' && parsed !== null && 'name' in parsed && parsed.name === 'orgindex' && 'version' in parsed && typeof parsed.version === 'string') return parsed.version;
    }
    if (dirname(dir) === dir) throw new Error(`package.json of orgindex not found above ${start}`);
  }
}
