/**
 * The connection the development server of `npm start` offers its task pane: `dev-connection.json` next to
 * the page (scripts/addin/dev-connection.mjs) holds the API server's URL and, on serve's development
 * defaults, the development key and a sign-in token. Asked only by a page served from this machine — a
 * hosted add-in or the Sheets sidebar never asks — and used only while no connection is saved: a saved
 * connection always wins. Anywhere else the document is missing (404) and nothing is offered.
 */
import { DEFAULT_CONNECTION, type Connection } from '../sheet/connection.js';
import { addressProblem, isLoopbackHost } from './connection-form.js';

export interface SuggestedConnection {
  serviceUrl: string;
  /** Blank when the server has no development key (started with --keys). */
  apiKey: string;
  /** Blank when the server accepts no development token (started with its own secret or JWKS). */
  accessToken: string;
}

/** Relative to the page, where the development server answers it. */
export const DEV_CONNECTION_DOCUMENT = 'dev-connection.json';

/** The document's content, or null when it is not one (any other answer of a server is ignored). */
export function readSuggestedConnection(value: unknown): SuggestedConnection | null {
  if (typeof value !== 'object' || value === null) return null;
  const { serviceUrl, apiKey, accessToken } = value as Record<string, unknown>;
  if (typeof serviceUrl !== 'string' || addressProblem(serviceUrl, true) !== null) return null;
  return { serviceUrl, apiKey: typeof apiKey === 'string' ? apiKey : '', accessToken: typeof accessToken === 'string' ? accessToken : '' };
}

/**
 * Nothing saved: a host returns the defaults until a connection is stored. (A connection saved exactly as
 * the defaults — the built-in sample, nothing typed — looks the same; the suggestion then only fills the
 * form, and the functions keep the sample until it is saved.)
 */
export function isUnsaved(connection: Connection): boolean {
  return (Object.keys(DEFAULT_CONNECTION) as (keyof Connection)[]).every((key) => connection[key] === DEFAULT_CONNECTION[key]);
}

/** The page's fetch, narrowed to what is used here (injected: the portable core has no fetch of its own). */
export type FetchDocument = (path: string) => Promise<{ ok: boolean; json(): Promise<unknown> }>;

/** The offered connection when the page comes from this machine and its server has the document; else null. */
export async function findSuggestedConnection(pageHostname: string, fetchDocument: FetchDocument): Promise<SuggestedConnection | null> {
  if (!isLoopbackHost(pageHostname)) return null;
  try {
    const response = await fetchDocument(DEV_CONNECTION_DOCUMENT);
    return response.ok ? readSuggestedConnection(await response.json()) : null;
  } catch {
    return null;
  }
}

/** The hint beside the pre-filled form. */
export function suggestionHint(suggested: SuggestedConnection): string {
  return suggested.apiKey ? `npm start's server at ${suggested.serviceUrl} — Test and save to use it` : `npm start's server at ${suggested.serviceUrl} — enter an API key, then Test and save to use it`;
}
