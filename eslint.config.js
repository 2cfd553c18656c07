import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// The portable core (everything in src/ but the Node-only hosts and the ky transport) must run in Node,
// in Excel's JavaScript runtime and in Apps Script V8, which lacks these globals. Hosts inject them.
const hostOnlyGlobals = [
  'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'queueMicrotask',
  'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'crypto', 'structuredClone',
  'process', 'Buffer', 'require', 'window', 'document', 'navigator', 'Office', 'Excel', 'OfficeRuntime',
  'UrlFetchApp', 'PropertiesService', 'CacheService', 'Utilities', 'SpreadsheetApp',
].map((name) => ({ name, message: `${name} is a host global: inject it from the host (see ARCHITECTURE rule 2).` }));

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
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'ky'], message: 'The portable core may not import Node modules or a transport.' }] }],
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
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', 'addin/build/**/*.mjs', 'appsscript/build/**/*.mjs', 'test/**/*.cjs'],
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
