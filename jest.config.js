// Jest runs the TypeScript sources through SWC (no type-check here: `npm run typecheck` does that).
// ky, jose, the hyparquet packages and d3-geo (with its d3-array and internmap) ship ESM only, so they are transformed too, as are the .mjs build
// helpers the tests import (addin/build/, scripts/web/); `.js` suffixes of NodeNext imports map back to the sources.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(tsx?|jsx?|mjs)$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(ky|jose|hyparquet|hyparquet-writer|d3-geo|d3-array|internmap)/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // Finds the Chromium of the browser tests once (the one an npm package ships, or Debian's).
  globalSetup: '<rootDir>/test/support/browser-setup.cjs',
};
