// The top-level function declarations Sheets needs for custom functions (=ORGSEARCH …): Apps Script has
// no modules and shows help only for a top-level `function NAME(…)` with its own JSDoc and real parameter
// names. They are written from the Excel functions' metadata (custom-functions-metadata reads the JSDoc
// of addin/functions/functions.ts), so both hosts describe the functions in the same words, and put in
// front of the bundle after minification (the minifier would rename parameters and drop comments).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import webpack from 'webpack';

const require = createRequire(import.meta.url);
const { generateCustomFunctionsMetadata } = require('custom-functions-metadata');

/** Excel's ORG.SEARCH is Sheets' ORGSEARCH. */
const sheetsWords = (text) => text.replace(/\bORG\.(SEARCH|FETCH|STATS|ASK)\b/g, 'ORG$1').replace(/\*\//g, '* /');

/**
 * Where a function does more in Sheets than in Excel, its own description: Apps Script reads websites
 * itself (UrlFetchApp), so =ORGASK answers on the built-in sample too; an Excel page cannot (cross-origin).
 */
const SHEETS_DESCRIPTIONS = {
  ORGASK: 'Answers a question from an organization’s website (read by the spreadsheet itself on the built-in sample, by the service on a connection). No answer gives #N/A with the reason.',
};

/** One stub per function of the metadata: JSDoc with @customfunction, delegating to the bundle. */
export function stubsOf(metadata, library = 'OrgIndexSheets') {
  return metadata.functions
    .map((fn) => {
      const names = fn.parameters.map((p) => p.name);
      const params = fn.parameters.map((p) => ` * @param {${p.dimensionality === 'matrix' ? 'any' : p.type}} ${p.optional ? `[${p.name}]` : p.name} ${sheetsWords(p.description ?? '')}`);
      return [
        '/**',
        ` * ${SHEETS_DESCRIPTIONS[fn.id] ?? sheetsWords(fn.description ?? '')}`,
        ...params,
        ` * @return ${sheetsWords(fn.result?.description ?? 'A table.')}`,
        ' * @customfunction',
        ' */',
        `function ${fn.id}(${names.join(', ')}) {`,
        `  return ${library}.${fn.id}(${names.join(', ')});`,
        '}',
      ].join('\n');
    })
    .join('\n\n');
}

/** The script's other entry points: the menu's, the sidebar's (google.script.run) and Sheets' own (onOpen). */
export const ENTRY_POINTS = [
  { name: 'onOpen', params: ['e'], doc: 'Adds the OrgIndex menu when the spreadsheet opens.' },
  { name: 'orgindexShowSidebar', params: [], doc: 'Menu: opens the OrgIndex sidebar.' },
  { name: 'orgindexRefreshNow', params: [], doc: 'Menu: forgets cached answers, recalculates every OrgIndex formula and refreshes the saved queries.' },
  { name: 'orgindexShowSchedule', params: [], doc: 'Menu: opens the sidebar on its Refresh tab (saved queries and their schedule).' },
  { name: 'orgindexPinSelection', params: [], doc: 'Menu: replaces the selected formulas by their values.' },
  { name: 'orgindexScheduledRefresh', params: ['e'], doc: 'The time-driven trigger of the refresh schedule: refreshes every saved query of the spreadsheet.' },
  { name: 'orgindexSidebarCall', params: ['op', 'payloadJson'], doc: 'The sidebar’s one entry point (google.script.run): an operation and its payload in JSON; answers JSON.' },
];

export function entryPointStubs(library = 'OrgIndexSheets') {
  return ENTRY_POINTS.map(({ name, params, doc }) => [`/** ${doc} */`, `function ${name}(${params.join(', ')}) {`, `  return ${library}.${name}(${params.join(', ')});`, '}'].join('\n')).join('\n\n');
}

export class AppsScriptStubsPlugin {
  /** `codeBudget`: the most bytes Code.js may have (the build fails above it). */
  constructor({ functionsFile, manifest, sidebarTemplate, codeBudget }) {
    this.functionsFile = functionsFile;
    this.manifest = manifest;
    this.sidebarTemplate = sidebarTemplate;
    this.codeBudget = codeBudget;
  }

  apply(compiler) {
    let stubs = '';
    compiler.hooks.beforeCompile.tapPromise('AppsScriptStubsPlugin', async () => {
      const result = await generateCustomFunctionsMetadata([this.functionsFile], true);
      if (result.errors.length > 0) throw new Error(result.errors.join('\n'));
      stubs = `${stubsOf(JSON.parse(result.metadataJson))}\n\n${entryPointStubs()}`;
    });
    compiler.hooks.thisCompilation.tap('AppsScriptStubsPlugin', (compilation) => {
      // After minification: the stubs keep their names and JSDoc.
      compilation.hooks.processAssets.tap({ name: 'AppsScriptStubsPlugin', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT }, () => {
        const bundle = compilation.getAsset('Code.js');
        if (!bundle) return;
        const header = '// OrgIndex for Google Sheets — built by `npm run build:web`; edit the sources, not this file.\n\n';
        const code = `${header}${stubs}\n\n${bundle.source.source()}`;
        compilation.updateAsset('Code.js', new webpack.sources.RawSource(code), { minimized: true });
        const bytes = Buffer.byteLength(code);
        if (bytes > this.codeBudget) compilation.errors.push(new webpack.WebpackError(`Code.js is ${bytes.toLocaleString('en-US')} bytes, over its budget of ${this.codeBudget.toLocaleString('en-US')}: Apps Script parses it on every execution`));
        compilation.emitAsset('appsscript.json', new webpack.sources.RawSource(fs.readFileSync(this.manifest)));
        const sidebar = compilation.getAsset('Sidebar.js');
        if (sidebar) {
          // "</script" inside the code would end the inline script early.
          const script = String(sidebar.source.source()).replace(/<\/script/gi, () => '<\\/script');
          const html = fs.readFileSync(this.sidebarTemplate, 'utf8').replace('</body>', () => `<script>${script}</script>\n  </body>`); // a function: "$&" in the code is no pattern
          // Marked minimized: the minimizer re-visits assets added this late, and HTML is no JavaScript.
          compilation.emitAsset('Sidebar.html', new webpack.sources.RawSource(html), { minimized: true });
          compilation.deleteAsset('Sidebar.js');
        }
      });
    });
  }
}
