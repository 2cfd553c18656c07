/**
 * Which service a saved query may be refreshed on, and what a refresh says when it is another one. The
 * service a query names comes from the document, which anyone may have written, while --base-url sends
 * the API key there: the address is shown as URL parsing serialises it, with its host, and offered only
 * for the user to trust explicitly.
 */
import { serviceName, serviceOf } from '../sheet/saved-query.js';

function urlOf(service: string | null): URL | null {
  try {
    return new URL(serviceOf(service) ?? '');
  } catch {
    return null;
  }
}

/** A service as compared: serviceOf's root, scheme and host as URL parsing spells them (case, default port). */
function comparable(service: string | null): string | null {
  const url = urlOf(service);
  return url ? `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}` : serviceOf(service);
}

/** Whether a saved query's service is the one a refresh runs on ("https://x.example/v2/" is "https://x.example"). */
export const sameService = (saved: string | null, run: string | null): boolean => comparable(saved) === comparable(run);

/** Why a saved query is not refreshed on this run's service, and what to do about it. */
export function serviceMismatch(saved: string | null, run: string | null): string {
  const uses = `this run uses ${serviceName(run)}`;
  if (saved === null) return `This query was saved against the built-in sample; ${uses}. Refresh without --base-url to run it on the sample, or remove the query and insert it again.`;
  const url = urlOf(saved);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    return `This query was saved against ${JSON.stringify(saved.slice(0, 200))}, which is not a service address; ${uses}. Remove the query and insert it again.`;
  }
  // Serialised by URL parsing: control characters escaped, international hosts in punycode.
  const shown = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return `This query was saved against ${shown} (as stored with the query); ${uses}. Refresh with --base-url ${shown} only if you trust ${url.host} with your API key; otherwise remove the query and insert it again.`;
}
