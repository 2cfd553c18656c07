/**
 * The library entry of the `orgindex` package (`exports["."]`): the shared core.
 *   - the contract of the v2, legacy v1 and language-processing interfaces (zod schemas, inferred types,
 *     rules, domain and NACE normalisation, the FastAPI 422 layout, the endpoint table);
 *   - the remote client (sans-IO core, async ky transport, OrgIndexClient, pagination).
 * The local engine (in-process index built from rows) joins here in the engine issue.
 */
export * from './contract/index.js';
export * from './client/index.js';
