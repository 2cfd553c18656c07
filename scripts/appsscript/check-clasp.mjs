// `npm run push:gas` runs this first: clasp alone answers a missing project with "Project settings not
// found." and nothing else. This checks, in the order they are set up, what a push needs — clasp on the
// PATH, a clasp login (~/.clasprc.json), a .clasp.json with a scriptId whose rootDir is the built project
// — and says what is missing and the command that sets it up; exit 1 when anything is. Whether the Apps
// Script API is on for the account cannot be seen from here (no network): it is named as the last step.
// clasp's own settings are honoured: clasp_config_auth and clasp_config_project (a file, or a folder holding it).
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';

const ROOT_DIR = 'dist/appsscript';
const API_SETTINGS = 'https://script.google.com/home/usersettings';

/** A clasp setting: the file given by its environment variable (a folder holds it), else the default. */
const settingFile = (variable, name, fallback) => {
  const given = process.env[variable];
  if (!given) return fallback;
  return existsSync(given) && statSync(given).isDirectory() ? join(given, name) : given;
};

const onPath = (command) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

const readJson = (file) => {
  try {
    return { value: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { error: existsSync(file) ? `not JSON (${error.message})` : 'missing' };
  }
};

const authFile = settingFile('clasp_config_auth', '.clasprc.json', join(homedir(), '.clasprc.json'));
const projectFile = settingFile('clasp_config_project', '.clasp.json', resolve('.clasp.json'));

/** Each step: what is wrong (null when it is set up) and how to set it up. */
const steps = [
  {
    what: 'clasp installed',
    problem: onPath('clasp') ? null : 'clasp is not on the PATH',
    fix: ['npm install   (clasp is a devDependency: @google/clasp; `npm ci --omit=dev` leaves it out)', 'or: npm install --global @google/clasp'],
  },
  (() => {
    const auth = readJson(authFile);
    const loggedIn = auth.value && typeof auth.value === 'object' && Object.keys(auth.value).length > 0;
    return {
      what: 'logged in to Google with clasp',
      problem: loggedIn ? null : `no clasp login: ${authFile} is ${auth.error ?? 'empty'}`,
      fix: ['npx clasp login   (opens a browser; writes ~/.clasprc.json)'],
    };
  })(),
  (() => {
    const project = readJson(projectFile);
    const create = `npx clasp create --type sheets --title OrgIndex --rootDir ${ROOT_DIR}   (a new spreadsheet with its script)`;
    const existing = `or, for an existing script, write ${relative('.', projectFile) || projectFile}: {"scriptId": "<the script's id>", "rootDir": "${ROOT_DIR}"}`;
    let problem = null;
    const settings = project.value;
    // clasp pushes srcDir when the file names one, else rootDir.
    const pushedKey = settings && typeof settings === 'object' && typeof settings.srcDir === 'string' ? 'srcDir' : 'rootDir';
    if (project.error) problem = `no clasp project: ${projectFile} is ${project.error}`;
    else if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) problem = `${projectFile} is not a JSON object`;
    else if (typeof settings.scriptId !== 'string' || settings.scriptId.trim() === '') problem = `${projectFile} has no scriptId`;
    // clasp reads the folder from the project file's folder; the build writes ROOT_DIR below the repository (npm runs scripts there).
    else if (resolve(dirname(projectFile), settings[pushedKey] ?? '.') !== resolve(ROOT_DIR)) problem = `${projectFile} has ${pushedKey} ${JSON.stringify(settings[pushedKey] ?? '(none: the repository itself)')}: clasp would push that folder, not the built project in ${ROOT_DIR}`;
    return { what: `.clasp.json with a scriptId and rootDir ${ROOT_DIR}`, problem, fix: problem?.includes('Dir ') ? [`set "${pushedKey}": "${ROOT_DIR}" in ${projectFile}`] : [create, existing] };
  })(),
];

if (steps.every((step) => step.problem === null)) process.exit(0);

const lines = ['npm run push:gas: the Sheets project cannot be pushed yet. What a push needs, in order:'];
steps.forEach((step, i) => {
  lines.push(`  ${i + 1}. ${step.what}: ${step.problem === null ? 'ok' : `MISSING — ${step.problem}`}`);
  if (step.problem !== null) for (const fix of step.fix) lines.push(`       ${fix}`);
});
lines.push(`  ${steps.length + 1}. the Apps Script API on for your Google account (cannot be checked from here): turn it on at ${API_SETTINGS}`);
console.error(lines.join('\n'));
process.exit(1);
