/** v2 fetch: rows for known domains in request order, duplicates collapsed, unknown or invisible → missing. */
import type { FetchRequest, FetchResponse } from '../../contract/v2/fetch.js';
import type { QueryContext } from './context.js';

export function fetchRows(context: QueryContext, request: FetchRequest): FetchResponse {
  const { store, visible } = context;
  const distinct = [...new Set(request.domains)];
  const rows = store.rowsOf(distinct);
  const found: number[] = [];
  const foundDomains: string[] = [];
  const missing: string[] = [];
  distinct.forEach((domain, i) => {
    const row = rows[i] ?? -1;
    if (row < 0 || (visible !== null && !visible[row])) missing.push(domain);
    else {
      found.push(row);
      foundDomains.push(domain);
    }
  });
  return { data: store.rows(found, request.columns, foundDomains), metadata: { requested: distinct.length, found: found.length, missing } };
}
