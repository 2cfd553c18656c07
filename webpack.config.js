// Bundles for the hosts that are not Node. Every bundle lowers all code, node_modules included, to
// ES2019: Apps Script V8 does not parse optional chaining from dependencies, private or static class
// fields. Outputs: dist/portable/ (the portable core), dist/addin/ (task pane, functions) and
// dist/appsscript/ (the Sheets project).
import fs from 'node:fs';
import path from 'node:path';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import CustomFunctionsMetadataPlugin from 'custom-functions-metadata-plugin';
import webpack from 'webpack';
import { DEV_ORIGIN, manifestFor, readManifestTemplate } from './addin/build/manifest.mjs';
import { AppsScriptStubsPlugin } from './appsscript/build/stubs.mjs';

const root = import.meta.dirname;

/** SWC lowers TypeScript, TSX and modern JavaScript alike. */
const lowerToEs2019 = {
  test: /\.[cm]?[jt]sx?$/,
  use: {
    loader: 'swc-loader',
    options: {
      jsc: {
        target: 'es2019',
        parser: { syntax: 'typescript', tsx: true },
        transform: { react: { runtime: 'automatic' } },
      },
    },
  },
};

const resolve = { extensions: ['.ts', '.tsx', '.js'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } };

/** Natural Earth's countries under the map of counts, cut down to the region the embedded geography can show. */
const worldOutline = { test: /[\\/]world-atlas[\\/]countries-50m\.json$/, use: [{ loader: path.join(root, 'scripts/web/world-outline.mjs') }] };

/**
 * Size budgets of dist/addin (bytes, minified): the page loads runtime + functions + commands +
 * taskpane at once; the engine with the embedded sample loads only when a function first runs locally.
 */
export const ADDIN_BUDGETS = { initial: 1_600_000, engine: 11_000_000 };

/** Writes dist/addin/manifest.xml with the URLs of ADDIN_ORIGIN (default the dev server). */
class ManifestPlugin {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('ManifestPlugin', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'ManifestPlugin', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        const origin = process.env.ADDIN_ORIGIN || DEV_ORIGIN;
        compilation.emitAsset('manifest.xml', new webpack.sources.RawSource(manifestFor(readManifestTemplate(), origin)));
        for (const size of [16, 32, 64, 80]) {
          const file = `assets/icon-${size}.png`;
          compilation.emitAsset(file, new webpack.sources.RawSource(fs.readFileSync(path.join(root, 'addin', file))));
        }
      });
    });
  }
}

/** @returns {import('webpack').Configuration} */
function excelAddin(mode) {
  return {
    name: 'excel-addin',
    mode,
    target: ['web', 'es2019'],
    entry: {
      functions: './addin/functions/functions.ts',
      commands: './addin/commands/commands.ts',
      taskpane: './addin/taskpane/index.tsx',
    },
    output: { path: path.join(root, 'dist/addin'), filename: '[name].js', chunkFilename: '[name].js', clean: true },
    resolve,
    module: { rules: [lowerToEs2019, worldOutline] },
    // One webpack runtime for the page: the modules the entries share (the AddinRuntime) exist once.
    optimization: {
      runtimeChunk: 'single',
      splitChunks: {
        cacheGroups: {
          vendor: { test: /node_modules/, name: 'vendor', chunks: 'initial', priority: 10 },
          common: { minChunks: 2, name: 'common', chunks: 'initial', enforce: true },
          // The embedded geography, shared by the engine and the map of counts (which needs nothing else of the engine).
          geography: { test: /geography\.json$/, name: 'geography-data', chunks: 'async', enforce: true },
          // The map's borders and their projection, loaded with the first map of counts.
          worldMap: { test: /[\\/]node_modules[\\/](d3-geo|d3-array|internmap|topojson-client|world-atlas)[\\/]/, name: 'world-map-data', chunks: 'async', enforce: true },
        },
      },
    },
    plugins: [
      new CustomFunctionsMetadataPlugin({ input: './addin/functions/functions.ts', output: 'functions.json' }),
      new HtmlWebpackPlugin({ filename: 'taskpane.html', template: './addin/taskpane/taskpane.html', chunks: ['runtime', 'vendor', 'common', 'functions', 'commands', 'taskpane'], chunksSortMode: 'manual' }),
      new ManifestPlugin(),
    ],
    devtool: mode === 'production' ? false : 'source-map',
    // The budgets fail the build: the page's scripts (an entrypoint) and any one file (the engine chunk).
    performance: { hints: 'error', maxEntrypointSize: ADDIN_BUDGETS.initial, maxAssetSize: ADDIN_BUDGETS.engine },
  };
}

/** @returns {import('webpack').Configuration} */
function portableCore(mode) {
  return {
    name: 'portable-core',
    mode,
    target: ['web', 'es2019'],
    entry: { 'orgindex-core': './src/portable.ts' },
    output: {
      path: path.join(root, 'dist/portable'),
      filename: '[name].js',
      library: { name: 'OrgIndexCore', type: 'var' },
      clean: true,
    },
    resolve,
    module: { rules: [lowerToEs2019] },
    devtool: false,
    performance: { hints: false },
  };
}

/**
 * The Sheets bundle's budget: Apps Script parses the whole of Code.js on every execution — each custom
 * function call — so the local sample is small (appsscript/src/runtime.ts) and the word vectors keep
 * the most frequent words plus every dataset word (appsscript/build/trim-embeddings.mjs).
 */
export const APPS_SCRIPT_BUDGETS = { code: 6_000_000, embeddingWords: 10_000 };

/**
 * dist/appsscript/: one classic script (Code.js: the top-level stubs Sheets needs — each with its JSDoc —
 * in front of the bundle `var OrgIndexSheets = …`, lowered to ES2019, no modules), the sidebar page
 * (Sidebar.html, its script inlined: HtmlService serves no other files) and appsscript.json.
 * @returns {import('webpack').Configuration}
 */
function appsScript(mode) {
  return {
    name: 'apps-script',
    mode,
    target: ['web', 'es2019'],
    entry: {
      Code: { import: './appsscript/src/main.ts', library: { name: 'OrgIndexSheets', type: 'var' } },
      Sidebar: './appsscript/sidebar/index.tsx',
    },
    // One file per entry: HtmlService serves the sidebar's page alone, so what the UI loads on demand (the map) is inlined.
    output: { path: path.join(root, 'dist/appsscript'), filename: '[name].js', clean: true, asyncChunks: false },
    resolve,
    module: {
      rules: [
        lowerToEs2019,
        worldOutline,
        { test: /[\\/]src[\\/]engine[\\/]data[\\/]embeddings\.json$/, use: [{ loader: path.join(root, 'appsscript/build/trim-embeddings.mjs'), options: { keep: APPS_SCRIPT_BUDGETS.embeddingWords, root } }] },
      ],
    },
    plugins: [
      new AppsScriptStubsPlugin({ functionsFile: './addin/functions/functions.ts', manifest: './appsscript/appsscript.json', sidebarTemplate: './appsscript/sidebar/Sidebar.html', codeBudget: APPS_SCRIPT_BUDGETS.code }),
    ],
    devtool: false,
    performance: { hints: false },
  };
}

/**
 * A build with nothing changed reuses the last one's modules (node_modules/.cache/webpack): `npm start`
 * and `npm test` rebuild in seconds. This file and the build helpers it loads invalidate the cache.
 * @param {import('webpack').Configuration} config
 * @returns {import('webpack').Configuration}
 */
function cached(config) {
  return { ...config, cache: { type: 'filesystem', buildDependencies: { config: [import.meta.filename] } } };
}

export default (_env, argv) => [portableCore(argv.mode ?? 'production'), excelAddin(argv.mode ?? 'production'), appsScript(argv.mode ?? 'production')].map(cached);
