/**
 * The library entry of the `orgindex` package (`exports["."]`): the shared core.
 *   - the contract of the v2, legacy v1 and language-processing interfaces (zod schemas, inferred types,
 *     rules, domain and NACE normalisation, the FastAPI 422 layout, the endpoint table);
 *   - the remote client (sans-IO core, async ky transport, OrgIndexClient, pagination).
 *   - the local engine: `createEngine(records)` answering v2 bodies in-process, the deterministic
 *     sample dataset (`generateDataset`), data-file readers (JSON Lines, CSV).
 */
export * from './contract/index.js';
export * from './client/index.js';
export * from './engine/index.js';
