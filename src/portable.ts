/**
 * The portable core for hosts without Node or fetch (Apps Script V8, the Excel custom-functions
 * runtime): the contract and the client without a transport. `webpack.config.js` bundles this entry to
 * ES2019 and a test runs the bundle in a sandbox that lacks fetch, setTimeout and URL.
 */
export * from './contract/index.js';
export * from './client/core.js';
