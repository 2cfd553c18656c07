/**
 * manifest.xml (top level of the repository), checked offline. `office-addin-manifest validate` sends the manifest to Microsoft's
 * service, so it cannot run here; this is its structural stand-in: well-formed XML, the elements Office
 * requires in the order the XSDs demand, every resid defined, the shared-runtime rule, string limits,
 * the origin rewrite the build applies (addin/build/manifest.mjs) and every URL served by the build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTMLElement, parse, valid, type Options } from 'node-html-parser';
// The only strict XML parser installed (it comes with exceljs): node-html-parser forgives what Office rejects.
import { SaxesParser } from 'saxes';
import { DEV_ORIGIN, manifestFor, readManifestTemplate } from '../../addin/build/manifest.mjs';

const ROOT = join(__dirname, '..', '..');
const ASSETS = join(ROOT, 'addin', 'assets');
const DIST = join(ROOT, 'dist', 'addin');
/** What the webpack build is specified to write to dist/addin/. */
const BUILD_OUTPUTS = ['taskpane.html', 'functions.js', 'functions.json', 'assets/icon-16.png', 'assets/icon-32.png', 'assets/icon-64.png', 'assets/icon-80.png', 'manifest.xml'];

// Case-preserving and with none of HTML's special elements (void, raw-text, auto-closing).
const XML: Partial<Options> = { lowerCaseTagName: false, comment: false, blockTextElements: {}, voidTag: { tags: [] }, preserveTagNesting: true };

const template = readManifestTemplate();

function parseManifest(text: string): HTMLElement {
  const root = parse(text, XML).childNodes.find((node): node is HTMLElement => node instanceof HTMLElement);
  if (root?.rawTagName !== 'OfficeApp') throw new Error('the manifest root is not <OfficeApp>');
  return root;
}

const app = parseManifest(template);

const elementChildren = (element: HTMLElement): HTMLElement[] => element.childNodes.filter((node): node is HTMLElement => node instanceof HTMLElement);
const names = (element: HTMLElement): string[] => elementChildren(element).map((child) => child.rawTagName);

function descendants(element: HTMLElement): HTMLElement[] {
  return elementChildren(element).flatMap((child) => [child, ...descendants(child)]);
}

const all = (tag: string, within: HTMLElement = app): HTMLElement[] => descendants(within).filter((element) => element.rawTagName === tag);

/** Elements reached by a path of direct children, e.g. `Hosts/Host`. */
function at(path: string, from: HTMLElement = app): HTMLElement[] {
  return path.split('/').reduce<HTMLElement[]>((found, tag) => found.flatMap((element) => elementChildren(element).filter((child) => child.rawTagName === tag)), [from]);
}

function one(path: string, from: HTMLElement = app): HTMLElement {
  const found = at(path, from);
  if (found.length !== 1) throw new Error(`expected one <${path}>, found ${found.length}`);
  return found[0]!;
}

const attr = (element: HTMLElement, name: string): string => element.getAttribute(name) ?? '';

const versionOverrides = one('VersionOverrides');
const host = one('Hosts/Host', versionOverrides);
const resources = one('Resources', versionOverrides);
const customFunctions = at('AllFormFactors/ExtensionPoint', host).find((point) => attr(point, 'xsi:type') === 'CustomFunctions')!;
const ribbon = at('DesktopFormFactor/ExtensionPoint', host).find((point) => attr(point, 'xsi:type') === 'PrimaryCommandSurface')!;
const controls = all('Control', ribbon);
const actions = (type: string): HTMLElement[] => all('Action', ribbon).filter((action) => attr(action, 'xsi:type') === type);

type Kind = 'bt:Images' | 'bt:Urls' | 'bt:ShortStrings' | 'bt:LongStrings';
const KINDS: Kind[] = ['bt:Images', 'bt:Urls', 'bt:ShortStrings', 'bt:LongStrings'];
/** The resource collection each element's resid must point into (a Label is a short string, a Description a long one). */
const KIND_OF: Record<string, Kind | undefined> = {
  'bt:Image': 'bt:Images',
  SourceLocation: 'bt:Urls',
  FunctionFile: 'bt:Urls',
  Runtime: 'bt:Urls',
  LearnMoreUrl: 'bt:Urls',
  Label: 'bt:ShortStrings',
  Title: 'bt:ShortStrings',
  Namespace: 'bt:ShortStrings',
  Description: 'bt:LongStrings',
};
const resourcesOf = (kind: Kind): Map<string, string> => new Map(elementChildren(one(kind, resources)).map((entry) => [attr(entry, 'id'), attr(entry, 'DefaultValue')]));
const resource = (kind: Kind, id: string): string => {
  const value = resourcesOf(kind).get(id);
  if (value === undefined) throw new Error(`${kind} has no id ${id}`);
  return value;
};
const url = (element: HTMLElement): string => resource('bt:Urls', attr(element, 'resid'));

/** Every URL the manifest gives Office: the base manifest's DefaultValues and the resource URLs (not AppDomain, an origin). */
function urlsOf(manifest: HTMLElement): string[] {
  const base = ['IconUrl', 'HighResolutionIconUrl', 'SupportUrl', 'DefaultSettings/SourceLocation'].map((path) => attr(one(path, manifest), 'DefaultValue'));
  const overrides = one('VersionOverrides/Resources', manifest);
  const resourceUrls = [...at('bt:Images/bt:Image', overrides), ...at('bt:Urls/bt:Url', overrides)].map((entry) => attr(entry, 'DefaultValue'));
  return [...base, ...resourceUrls];
}

/** The file a dev-origin URL names, relative to the build output. */
function servedFile(address: string): string {
  expect(address.startsWith(`${DEV_ORIGIN}/`)).toBe(true);
  return new URL(address).pathname.slice(1);
}

function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('manifest.xml', () => {
  test('is well-formed, namespace-correct XML with <OfficeApp> as its only root', () => {
    expect(() => new SaxesParser({ xmlns: true }).write(template).close()).not.toThrow();
    expect(valid(template, XML)).toBe(true);
    expect(attr(app, 'xsi:type')).toBe('TaskPaneApp');
    expect(attr(app, 'xmlns')).toBe('http://schemas.microsoft.com/office/appforoffice/1.1');
    expect(attr(app, 'xmlns:bt')).toBe('http://schemas.microsoft.com/office/officeappbasictypes/1.0');
  });

  // Office validates against XSD sequences, so order is part of the contract, not style.
  test('has the required elements in schema order', () => {
    expect(names(app)).toEqual(['Id', 'Version', 'ProviderName', 'DefaultLocale', 'DisplayName', 'Description', 'IconUrl', 'HighResolutionIconUrl', 'SupportUrl', 'AppDomains', 'Hosts', 'Requirements', 'DefaultSettings', 'Permissions', 'VersionOverrides']);
    expect(names(versionOverrides)).toEqual(['Hosts', 'Resources']);
    expect(names(host)).toEqual(['Runtimes', 'AllFormFactors', 'DesktopFormFactor']);
    expect(names(one('DesktopFormFactor', host))).toEqual(['GetStarted', 'FunctionFile', 'ExtensionPoint']);
    expect(names(customFunctions)).toEqual(['Script', 'Page', 'Metadata', 'Namespace']);
    for (const group of all('Group', ribbon)) expect(names(group)).toEqual(['Label', 'Icon', ...controls.map(() => 'Control')]);
    for (const control of controls) expect(names(control)).toEqual(['Label', 'Supertip', 'Icon', 'Action']);
    expect(names(resources)).toEqual(['bt:Images', 'bt:Urls', 'bt:ShortStrings', 'bt:LongStrings']);
  });

  test('identifies the add-in: fixed Id, four-part version, names, icons, locale and permissions', () => {
    expect(one('Id').text.trim()).toBe('6f1d3c52-8a0e-4b8e-9a57-3f4f2f6c1a01');
    expect(one('Version').text.trim()).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(one('ProviderName').text.trim()).toBe('OrgIndex');
    expect(one('DefaultLocale').text.trim()).toBe('en-US');
    expect(attr(one('DisplayName'), 'DefaultValue')).toBe('OrgIndex');
    for (const path of ['Description', 'IconUrl', 'HighResolutionIconUrl', 'SupportUrl']) expect(attr(one(path), 'DefaultValue')).not.toBe('');
    expect(attr(one('IconUrl'), 'DefaultValue')).toBe(`${DEV_ORIGIN}/assets/icon-32.png`);
    expect(attr(one('HighResolutionIconUrl'), 'DefaultValue')).toBe(`${DEV_ORIGIN}/assets/icon-64.png`);
    expect(at('AppDomains/AppDomain').map((domain) => domain.text.trim())).toEqual([DEV_ORIGIN]);
    expect(one('Permissions').text.trim()).toBe('ReadWriteDocument');
  });

  test('targets Excel and requires the shared runtime and custom functions runtime 1.1', () => {
    expect(at('Hosts/Host').map((element) => attr(element, 'Name'))).toEqual(['Workbook']);
    const sets = Object.fromEntries(at('Requirements/Sets/Set').map((set) => [attr(set, 'Name'), attr(set, 'MinVersion')]));
    expect(sets).toEqual({ SharedRuntime: '1.1', CustomFunctionsRuntime: '1.1' });
    expect(attr(one('DefaultSettings/SourceLocation'), 'DefaultValue')).toBe(`${DEV_ORIGIN}/taskpane.html`);
  });

  test('declares a long-lived runtime in VersionOverrides 1.0 for Workbook', () => {
    // TaskPaneApp accepts only VersionOverrides 1.0; a nested 1.1 is a MailApp construct.
    expect(attr(versionOverrides, 'xmlns')).toBe('http://schemas.microsoft.com/office/taskpaneappversionoverrides');
    expect(attr(versionOverrides, 'xsi:type')).toBe('VersionOverridesV1_0');
    expect(all('VersionOverrides', versionOverrides)).toEqual([]);
    expect(attr(host, 'xsi:type')).toBe('Workbook');
    const runtime = one('Runtimes/Runtime', host);
    expect(attr(runtime, 'lifetime')).toBe('long');
    expect(attr(runtime, 'resid')).toBe('Taskpane.Url');
  });

  test('registers the custom functions: script, page, metadata and the ORG namespace', () => {
    expect(url(one('Script/SourceLocation', customFunctions))).toBe(`${DEV_ORIGIN}/functions.js`);
    expect(url(one('Page/SourceLocation', customFunctions))).toBe(`${DEV_ORIGIN}/taskpane.html`);
    expect(url(one('Metadata/SourceLocation', customFunctions))).toBe(`${DEV_ORIGIN}/functions.json`);
    expect(resource('bt:ShortStrings', attr(one('Namespace', customFunctions), 'resid'))).toBe('ORG');
  });

  test('has a ribbon button for the task pane and the Refresh, Refresh saved queries and Pin as values commands', () => {
    expect(all('OfficeTab', ribbon).length + all('CustomTab', ribbon).length).toBe(1);
    expect(actions('ShowTaskpane')).toHaveLength(1);
    const showTaskpane = actions('ShowTaskpane')[0]!;
    expect(one('TaskpaneId', showTaskpane).text.trim()).not.toBe('');
    expect(url(one('SourceLocation', showTaskpane))).toBe(`${DEV_ORIGIN}/taskpane.html`);
    const commands = actions('ExecuteFunction').map((action) => {
      const control = controls.find((candidate) => candidate.childNodes.includes(action))!;
      return [resource('bt:ShortStrings', attr(one('Label', control), 'resid')), one('FunctionName', action).text.trim()];
    });
    expect(commands).toEqual([['Refresh', 'refreshResults'], ['Refresh saved queries', 'refreshSavedQueries'], ['Pin as values', 'pinAsValues']]);
    const ids = [...all('Group', ribbon), ...controls].map((element) => attr(element, 'id'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id.length).toBeGreaterThan(0);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(125);
  });

  test('every resid resolves to a resource of the right kind, and every resource is used', () => {
    const used = new Set<string>();
    for (const element of descendants(app).filter((candidate) => candidate.getAttribute('resid') !== undefined)) {
      const kind = KIND_OF[element.rawTagName];
      if (kind === undefined) throw new Error(`<${element.rawTagName} resid> is not a known resource reference`);
      const resid = attr(element, 'resid');
      expect([element.rawTagName, resid, resourcesOf(kind).has(resid)]).toEqual([element.rawTagName, resid, true]);
      used.add(`${kind} ${resid}`);
    }
    for (const kind of KINDS) {
      const ids = elementChildren(one(kind, resources)).map((entry) => attr(entry, 'id'));
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(used).toContain(`${kind} ${id}`);
    }
  });

  test('strings fit Office limits: short strings ≤ 125 characters, long strings ≤ 250', () => {
    for (const value of resourcesOf('bt:ShortStrings').values()) expect(value.length).toBeLessThanOrEqual(125);
    for (const value of resourcesOf('bt:LongStrings').values()) expect(value.length).toBeLessThanOrEqual(250);
    for (const value of [...resourcesOf('bt:ShortStrings').values(), ...resourcesOf('bt:LongStrings').values()]) expect(value.trim()).not.toBe('');
  });

  // In a shared runtime one page hosts functions, commands and pane: pointing them at different URLs
  // would silently start separate runtimes.
  test('the functions page, the function file, the task pane and the runtime are one URL', () => {
    const shared = [
      url(one('Page/SourceLocation', customFunctions)),
      url(one('DesktopFormFactor/FunctionFile', host)),
      url(one('Runtimes/Runtime', host)),
      ...actions('ShowTaskpane').map((action) => url(one('SourceLocation', action))),
      attr(one('DefaultSettings/SourceLocation'), 'DefaultValue'),
    ];
    expect(new Set(shared)).toEqual(new Set([`${DEV_ORIGIN}/taskpane.html`]));
  });
});

describe('manifestFor (the manifest the build writes for ADDIN_ORIGIN)', () => {
  test('moves every URL and the app domain to the origin, and nothing else', () => {
    const moved = manifestFor(template, 'https://addin.example.com');
    const manifest = parseManifest(moved);
    expect(moved.includes(DEV_ORIGIN)).toBe(false);
    expect(urlsOf(manifest)).toEqual(urlsOf(app).map((address) => address.replace(DEV_ORIGIN, 'https://addin.example.com')));
    expect(at('AppDomains/AppDomain', manifest).map((domain) => domain.text.trim())).toEqual(['https://addin.example.com']);
    expect(moved.replaceAll('https://addin.example.com', DEV_ORIGIN)).toBe(template);
    expect(manifestFor(template, DEV_ORIGIN)).toBe(template);
  });

  test('normalises the origin: a trailing slash goes, the host is lower-cased', () => {
    expect(manifestFor(template, 'https://addin.example.com/')).toBe(manifestFor(template, 'https://addin.example.com'));
    expect(manifestFor(template, 'https://Addin.Example.com:8443')).toContain('"https://addin.example.com:8443/taskpane.html"');
  });

  test.each(['http://x', 'https://x/path', 'https://x/?query', 'https://user@x', 'x', ''])('refuses %j: not an https origin without path', (origin) => {
    expect(() => manifestFor(template, origin)).toThrow(/https:\/\/host|https:\/\/ origin/);
  });
});

describe('the files the manifest points at', () => {
  const files = (): string[] => urlsOf(app).map(servedFile);

  test('are all files the build is specified to write to dist/addin/', () => {
    for (const file of files()) expect(BUILD_OUTPUTS).toContain(file);
  });

  // The icons are committed (scripts/addin/make-icons.mjs) and copied by the build, so they are checked always.
  test('icons exist in addin/assets/ as PNGs of the size their name says', () => {
    const icons = files().filter((file) => file.startsWith('assets/'));
    expect(new Set(icons)).toEqual(new Set(['assets/icon-16.png', 'assets/icon-32.png', 'assets/icon-64.png', 'assets/icon-80.png']));
    for (const icon of icons) {
      const size = Number(/icon-(\d+)\.png$/.exec(icon)![1]);
      expect(pngSize(join(ASSETS, icon.slice('assets/'.length)))).toEqual({ width: size, height: size });
    }
  });

  // The rest exist only after `npm run build:web`; without a build this block is skipped, not built.
  const built = existsSync(join(DIST, 'functions.json'));
  (built ? describe : describe.skip)('after the build (dist/addin/)', () => {
    test('every URL is a file in dist/addin/', () => {
      for (const file of files()) expect([file, existsSync(join(DIST, file))]).toEqual([file, true]);
    });

    test('functions.json lets the functions return data types (organization cards), and ORG.FETCH returns a matrix of any', () => {
      const metadata = JSON.parse(readFileSync(join(DIST, 'functions.json'), 'utf8')) as { allowCustomDataForDataTypeAny?: boolean; functions: { id: string; result: { type?: string; dimensionality?: string } }[] };
      expect(metadata.allowCustomDataForDataTypeAny).toBe(true);
      // No result type is the metadata's "any".
      const result = metadata.functions.find((fn) => fn.id === 'ORGFETCH')?.result;
      expect([result?.type ?? 'any', result?.dimensionality]).toEqual(['any', 'matrix']);
    });

    test('dist/addin/manifest.xml is this template for the origin it was built for', () => {
      const emitted = readFileSync(join(DIST, 'manifest.xml'), 'utf8');
      const origin = new URL(attr(one('DefaultSettings/SourceLocation', parseManifest(emitted)), 'DefaultValue')).origin;
      expect(emitted).toBe(manifestFor(template, origin));
    });
  });
});
