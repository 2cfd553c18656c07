/** The contract of the three OrgIndex interfaces: zod schemas, inferred types, rules and the 422 layout. */
export * from './validation.js';
export * from './errors.js';
export * from './domain.js';
export * from './common.js';
export * from './limits.js';
export * from './nace.js';
export * from './v2/filters.js';
export * from './v2/rows.js';
export * from './v2/search.js';
export * from './v2/fetch.js';
export * from './v2/stats.js';
export * from './v2/locations.js';
export * from './v2/service.js';
export * from './v1.js';
export * from './language.js';
export * from './endpoints.js';
export * from './saved-query.js';
