/** Building the HTTP request for an endpoint call: pure, from the contract's endpoint table. */
import type { ClientConfig } from './config.js';
import { ConfigurationError } from './errors.js';
import { ValidationError } from '../contract/errors.js';
import type { HttpRequest } from './http.js';
import type { Endpoint } from '../contract/endpoints.js';
import { validate, type InputLocation } from '../contract/validation.js';

function queryString(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(text)}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    return encodeURIComponent(typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  });
}

/**
 * The request for one call. With `validateRequests`, the input is checked against the contract first and
 * a bad input throws the same 422 detail the server would send (status null: it never left the client);
 * the normalised value (domains, NACE codes, defaults) is what travels.
 */
export function buildRequest(config: ClientConfig, endpoint: Endpoint, input: unknown): HttpRequest {
  const base = config.baseUrls[endpoint.api];
  if (!base) throw new ConfigurationError(`No base URL is configured for the ${endpoint.api} interface`);

  let payload: unknown = input;
  if (endpoint.input !== 'none' && config.validateRequests) {
    const checked = validate(endpoint.request, input, endpoint.input as InputLocation);
    if (!checked.ok) throw new ValidationError(checked.error.detail, null);
    payload = checked.value;
  }
  const params = (payload ?? {}) as Record<string, unknown>;

  const headers: Record<string, string> = { accept: 'application/json' };
  if (endpoint.auth.includes('apiKey') && config.apiKey) headers['x-api-key'] = config.apiKey;
  if (endpoint.auth.includes('bearer') && config.accessToken) headers.authorization = `Bearer ${config.accessToken}`;

  let url = base + (endpoint.input === 'path' ? fillPath(endpoint.path, params) : endpoint.path);
  if (endpoint.input === 'query') url += queryString(params);

  const request: HttpRequest = { method: endpoint.method, url, headers, timeoutMs: config.timeoutMs };
  if (endpoint.input === 'body') {
    headers['content-type'] = 'application/json';
    request.body = JSON.stringify(payload ?? null);
  }
  return request;
}
