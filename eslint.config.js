import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// The portable core (everything in src/ but the Node-only hosts and the ky transport) must run in Node,
// in Excel's JavaScript runtime and in Apps Script V8, which lacks these globals. Hosts inject them.
const hostOnlyGlobals = [
  'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'queueMicrotask',
  'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'crypto', 'structuredClone',
  'process', 'Buffer', 'require', 'window', 'document', 'navigator', 'Office', 'Excel', 'OfficeRuntime',
  'UrlFetchApp', 'PropertiesService', 'CacheService', 'Utilities', 'SpreadsheetApp',
].map((name) => ({ name, message: `${name} is a host global: inject it from the host (see CONTRIBUTING.md, portability).` }));

const portableImports = { group: ['node:*', 'ky'], message: 'The portable core may not import Node modules or a transport.' };
/** Layers of src/ and what each may not import (CONTRIBUTING.md, layering). */
const layers = [
  { dir: 'contract', forbidden: ['engine', 'client', 'server', 'sheet', 'ui', 'cli'], why: 'the contract imports nothing of the project but itself' },
  { dir: 'engine', forbidden: ['client', 'server', 'sheet', 'ui', 'cli'], why: 'the engine knows the contract only' },
  { dir: 'client', forbidden: ['engine', 'server', 'sheet', 'ui', 'cli'], why: 'the client knows the contract only' },
  { dir: 'sheet', forbidden: ['server', 'ui', 'cli', 'addin', 'appsscript'], why: 'the spreadsheet functions run in every host: hosts import them, not the reverse' },
  { dir: 'ui', forbidden: ['server', 'cli', 'addin', 'appsscript'], why: 'the task pane runs in every host: hosts import it, not the reverse' },
];
const layerPatterns = (forbidden, why) => ({
  group: forbidden.flatMap((dir) => [`**/${dir}/*`, `**/${dir}/**`, `**/src/${dir}`]),
  message: `Layering: ${why}.`,
});
/**
 * The engine's folders, lowest first (CONTRIBUTING.md, layering): each imports only the folders before it,
 * and none imports the engine's top, engine.ts and the entry index.ts, which import them. (data/ holds
 * only assets.) import-x/no-cycle sees cycles of files only; this keeps the folders from forming one.
 */
const engineLayer = layers.find(({ dir }) => dir === 'engine');
const engineOrder = ['data', 'dataset', 'store', 'locations', 'relevance', 'snapshot', 'query', 'language', 'v1'];
const engineLayerPatterns = (dir) => {
  const above = engineOrder.slice(engineOrder.indexOf(dir) + 1);
  return {
    group: [...above.flatMap((name) => [`**/${name}/*`, `**/${name}/**`]), '**/engine.js', '**/engine', '../index.js'],
    message: `Layering: inside the engine, ${dir}/ may not import ${[...above.map((name) => `${name}/`), 'engine.ts', 'index.ts'].join(', ')} (order: ${engineOrder.join(' → ')} → engine.ts); move what both need down, or depend on a narrow interface.`,
  };
};

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/server/**', 'src/cli/**', 'src/client/transports/ky.ts'],
    languageOptions: { globals: { ...globals.es2021 } },
    rules: {
      'no-restricted-globals': ['error', ...hostOnlyGlobals],
      'no-restricted-imports': ['error', { patterns: [portableImports] }],
    },
  },
  ...layers.map(({ dir, forbidden, why }) => ({
    files: [`src/${dir}/**/*.ts`, `src/${dir}/**/*.tsx`],
    ignores: ['src/client/transports/ky.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [portableImports, layerPatterns(forbidden, why)] }] },
  })),
  // Replaces the engine's rule above for each folder's files, so it repeats it.
  ...engineOrder.slice(1).map((dir) => ({
    files: [`src/engine/${dir}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [portableImports, layerPatterns(engineLayer.forbidden, engineLayer.why), engineLayerPatterns(dir)] }] },
  })),
  {
    // An import cycle works only while every use sits inside a function body: one top-level use and a module reads undefined.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'addin/**/*.ts', 'addin/**/*.tsx', 'appsscript/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { ...importX.flatConfigs.typescript.settings, 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })] },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // One FNV-1a (src/contract/hash.ts): its offset basis or prime written anywhere else is a second copy;
    // a pattern of column letters ([A-Z]+) is a second A1 parser beside src/sheet/a1.ts; `(error as
    // Error).message` reads what may be no Error; and an empty error class would have the name "Error".
    files: ['src/**/*.ts', 'src/**/*.tsx', 'addin/**/*.ts', 'addin/**/*.tsx', 'appsscript/**/*.ts'],
    ignores: ['src/contract/hash.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[0x811c9dc5, 0x01000193].map((value) => ({ selector: `Literal[value=${value}]`, message: 'FNV-1a lives in src/contract/hash.ts (fnv1a, fnv1aStep): call it rather than write a second one.' })),
        { selector: 'Literal[regex.pattern=/A-Z\\]\\+/]', message: 'A1 cells are read by cellOf in src/sheet/a1.ts: call it rather than write a second cell pattern.' },
        { selector: "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.property.name='message']", message: 'An Error of another realm fails instanceof: read a caught value with messageOf (src/contract/errors.ts).' },
        { selector: "MemberExpression[property.name='message'] > TSAsExpression.object[typeAnnotation.typeName.name='Error']", message: 'A caught value need not be an Error: read it with messageOf (src/contract/errors.ts), and pass { cause } when re-wrapping it.' },
        { selector: "ClassDeclaration[superClass.name='Error'][body.body.length=0]", message: 'An error class of nothing but a name: extend NamedError (src/contract/errors.ts), which sets `name`.' },
      ],
    },
  },
  {
    // React event props take arrow shorthands such as `onChange={(_, d) => set(d.value)}`: returning the setter's void there is idiomatic.
    files: ['src/ui/**/*.tsx'],
    rules: { '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }] },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node ESM scripts (data builders, benchmarks, the add-in build helpers): not in the TS project.
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', 'addin/build/**/*.mjs', 'appsscript/build/**/*.mjs', 'test/**/*.cjs', 'test/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
