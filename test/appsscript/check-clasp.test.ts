/**
 * `npm run push:gas`'s first step, scripts/appsscript/check-clasp.mjs, run as npm runs it, in a temporary
 * HOME and project folder, with a PATH that has clasp or not (a stand-in executable: nothing is pushed and
 * no network is used): what is missing is said in set-up order with its command, exit 1; all set, silence.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../scripts/appsscript/check-clasp.mjs');
let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'orgindex-clasp-'));
  for (const dir of ['home', 'project', 'bin']) mkdirSync(join(scratch, dir));
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const dir = (name: string): string => join(scratch, name);
const installClasp = (): void => {
  writeFileSync(join(dir('bin'), 'clasp'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir('bin'), 'clasp'), 0o755);
};
const logIn = (): void => { writeFileSync(join(dir('home'), '.clasprc.json'), JSON.stringify({ tokens: { default: { refresh_token: 'x' } } })); };
const project = (settings: Record<string, unknown>, folder = dir('project')): void => { writeFileSync(join(folder, '.clasp.json'), JSON.stringify(settings)); };

function check(env: Record<string, string> = {}): { code: number | null; lines: string[] } {
  const result = spawnSync(process.execPath, [SCRIPT], { cwd: dir('project'), encoding: 'utf8', env: { HOME: dir('home'), PATH: dir('bin'), ...env } });
  expect(result.stdout).toBe('');
  return { code: result.status, lines: result.stderr.split('\n').filter(Boolean) };
}

test('nothing set up: the four steps in order, each missing one with the commands that set it up; exit 1', () => {
  const { code, lines } = check();
  expect(code).toBe(1);
  expect(lines).toEqual([
    'npm run push:gas: the Sheets project cannot be pushed yet. What a push needs, in order:',
    '  1. clasp installed: MISSING — clasp is not on the PATH',
    '       npm install   (clasp is a devDependency: @google/clasp; `npm ci --omit=dev` leaves it out)',
    '       or: npm install --global @google/clasp',
    `  2. logged in to Google with clasp: MISSING — no clasp login: ${join(dir('home'), '.clasprc.json')} is missing`,
    '       npx clasp login   (opens a browser; writes ~/.clasprc.json)',
    `  3. .clasp.json with a scriptId and rootDir dist/appsscript: MISSING — no clasp project: ${join(dir('project'), '.clasp.json')} is missing`,
    '       npx clasp create --type sheets --title OrgIndex --rootDir dist/appsscript   (a new spreadsheet with its script)',
    '       or, for an existing script, write .clasp.json: {"scriptId": "<the script\'s id>", "rootDir": "dist/appsscript"}',
    '  4. the Apps Script API on for your Google account (cannot be checked from here): turn it on at https://script.google.com/home/usersettings',
  ]);
});

test('clasp installed and logged in, the project without a scriptId, then with the wrong rootDir', () => {
  installClasp();
  logIn();
  project({ rootDir: 'dist/appsscript' });
  let { code, lines } = check();
  expect(code).toBe(1);
  expect(lines.slice(1, 4)).toEqual(['  1. clasp installed: ok', '  2. logged in to Google with clasp: ok', `  3. .clasp.json with a scriptId and rootDir dist/appsscript: MISSING — ${join(dir('project'), '.clasp.json')} has no scriptId`]);
  project({ scriptId: 'abc123' });
  ({ code, lines } = check());
  expect(code).toBe(1);
  expect(lines[3]).toMatch(/has rootDir "\(none: the repository itself\)": clasp would push that folder, not the built project in dist\/appsscript$/);
  expect(lines[4]).toBe(`       set "rootDir": "dist/appsscript" in ${join(dir('project'), '.clasp.json')}`);
  // clasp pushes srcDir over rootDir when the file names both.
  project({ scriptId: 'abc123', rootDir: 'dist/appsscript', srcDir: 'src' });
  ({ code, lines } = check());
  expect(code).toBe(1);
  expect(lines[3]).toMatch(/has srcDir "src": clasp would push that folder, not the built project in dist\/appsscript$/);
  expect(lines[4]).toBe(`       set "srcDir": "dist/appsscript" in ${join(dir('project'), '.clasp.json')}`);
  writeFileSync(join(dir('project'), '.clasp.json'), 'null');
  ({ code, lines } = check());
  expect(lines[3]).toBe(`  3. .clasp.json with a scriptId and rootDir dist/appsscript: MISSING — ${join(dir('project'), '.clasp.json')} is not a JSON object`);
});

test('all set: silent, exit 0 (clasp push runs next); clasp_config_project and clasp_config_auth are honoured', () => {
  installClasp();
  logIn();
  project({ scriptId: 'abc123', rootDir: 'dist/appsscript' });
  expect(check()).toEqual({ code: 0, lines: [] });
  // Elsewhere, as clasp's own variables say: a folder holding the project file, an auth file by name.
  mkdirSync(dir('settings'));
  project({ scriptId: 'abc123', rootDir: '../project/dist/appsscript' }, dir('settings'));
  rmSync(join(dir('project'), '.clasp.json'));
  writeFileSync(join(dir('settings'), 'auth.json'), '{"token": "x"}');
  rmSync(join(dir('home'), '.clasprc.json'));
  expect(check({ clasp_config_project: dir('settings'), clasp_config_auth: join(dir('settings'), 'auth.json') })).toEqual({ code: 0, lines: [] });
});
