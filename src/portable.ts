/**
 * The portable core for hosts without Node or fetch (Apps Script V8, the Excel custom-functions
 * runtime): the contract and the sans-IO client, no transport. `webpack.config.js` bundles this entry to
 * ES2019 and a test runs the bundle in a sandbox that lacks fetch, setTimeout and URL.
 */
export * from './contract/index.js';
export * from './client/http.js';
export * from './client/quota.js';
export * from './client/errors.js';
export * from './client/retry.js';
export * from './client/config.js';
export * from './client/request.js';
export * from './client/response.js';
export * from './client/operation.js';
export * from './client/paginate.js';
