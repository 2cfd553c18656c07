/**
 * The portable core for hosts without Node or fetch (Apps Script V8, the Excel custom-functions
 * runtime): the contract, the client without a transport and the local engine with its embedded
 * sample dataset. `webpack.config.js` bundles this entry to ES2019 and a test runs the bundle in a
 * sandbox that lacks fetch, setTimeout and URL.
 */
export * from './contract/index.js';
export * from './client/core.js';
export * from './engine/index.js';
