/** The remote client: sans-IO core (request building, response interpretation, retry, pagination) and drivers. */
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
export * from './transports/ky.js';
