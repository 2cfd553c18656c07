/** v2 fetch: rows for known domains in request order, duplicates collapsed, unknown or invisible → missing. */
import type { FetchRequest, FetchResponse } from '../../contract/v2/fetch.js';
import type { QueryContext } from './context.js';

export function fetchRows(context: QueryContext, request: FetchRequest): FetchResponse {
  const { store, visible } = context;
  const seen = new Set<string>();
  const found: number[] = [];
  const foundDomains: string[] = [];
  const missing: string[] = [];
  for (const domain of request.domains) {
    if (seen.has(domain)) continue;
    seen.add(domain);
    const row = store.rowOf(domain);
    if (row === undefined || (visible !== null && !visible[row])) missing.push(domain);
    else {
      found.push(row);
      foundDomains.push(domain);
    }
  }
  return { data: store.rows(found, request.columns, foundDomains), metadata: { requested: seen.size, found: found.length, missing } };
}
