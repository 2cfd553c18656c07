/// <reference types="google-apps-script" />
/**
 * UrlFetchApp as the client's synchronous transport, with a time budget: a custom function has 30 s in
 * all, so requests and retry waits stop at the budget with a clear error instead of Google's bare
 * "exceeded maximum execution time". Also ORG.FETCH's chunks sent in parallel with UrlFetchApp.fetchAll.
 */
import type { ClientConfig } from '../../src/client/config.js';
import { OrgIndexError } from '../../src/contract/errors.js';
import type { HttpOutcome, HttpRequest, HttpResponse } from '../../src/client/http.js';
import type { SyncTransport } from '../../src/client/operation.js';
import { buildRequest } from '../../src/client/request.js';
import { interpretResponse } from '../../src/client/response.js';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import type { FetchMany } from '../../src/sheet/sync-functions.js';

/** Custom functions get 30 s; leave room to shape and return the table. */
export const CUSTOM_FUNCTION_BUDGET_MS = 25_000;

export class Deadline {
  private readonly ends: number;
  constructor(budgetMs: number) {
    this.ends = Date.now() + budgetMs;
  }
  /** Throws when `needMs` more would pass the budget. */
  check(needMs = 0): void {
    if (Date.now() + needMs > this.ends) {
      throw new OrgIndexError('timeout', 'Stopped before Google’s 30-second limit for custom functions: ask for fewer rows or split the range (the sidebar’s “Insert as values” has no such limit)');
    }
  }
}

function paramsOf(request: HttpRequest): GoogleAppsScript.URL_Fetch.URLFetchRequestOptions {
  const { 'content-type': contentType, ...headers } = request.headers;
  return {
    method: request.method.toLowerCase() as GoogleAppsScript.URL_Fetch.HttpMethod,
    headers,
    ...(contentType ? { contentType } : {}),
    ...(request.body !== undefined ? { payload: request.body } : {}),
    muteHttpExceptions: true,
    followRedirects: true,
  };
}

/** A UrlFetchApp response as status, lower-case headers and text. */
export function responseOf(response: GoogleAppsScript.URL_Fetch.HTTPResponse): HttpResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.getAllHeaders() as Record<string, string | string[]>)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { status: response.getResponseCode(), headers, body: response.getContentText() };
}

export function urlFetchTransport(deadline: Deadline): SyncTransport {
  return {
    send(request): HttpOutcome {
      deadline.check();
      return { kind: 'response', response: responseOf(UrlFetchApp.fetch(request.url, paramsOf(request))) };
    },
    sleep(ms) {
      deadline.check(ms);
      Utilities.sleep(ms);
    },
  };
}

/** /fetch bodies sent together (UrlFetchApp.fetchAll): each a response body or the typed error it failed with. */
export function fetchAllChunks(config: ClientConfig, deadline: Deadline): FetchMany {
  const endpoint = ENDPOINTS['v2.fetch'];
  return (bodies) => {
    deadline.check();
    const requests = bodies.map((body) => buildRequest(config, endpoint, body));
    const responses = UrlFetchApp.fetchAll(requests.map((request) => ({ url: request.url, ...paramsOf(request) })));
    return responses.map((response) => {
      const interpreted = interpretResponse<ReturnType<FetchMany>[number]>(endpoint, responseOf(response), Date.now());
      return interpreted.ok ? interpreted.body : interpreted.error;
    });
  };
}
