/** The remote client: the portable core plus the async ky transport. */
export * from './core.js';
export * from './transports/ky.js';
