/**
 * The client without a transport: request building, response interpretation, retries, pagination, the
 * operation drivers and the OrgIndexClient class. Portable (no fetch, timers, URL or Node); hosts add a
 * transport — `transports/ky.ts` in Node and Office, UrlFetchApp in Apps Script.
 */
export * from './http.js';
export * from './quota.js';
export * from './errors.js';
export * from './retry.js';
export * from './config.js';
export * from './request.js';
export * from './response.js';
export * from './operation.js';
export * from './paginate.js';
export * from './client.js';
