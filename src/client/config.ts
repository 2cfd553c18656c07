/** Client configuration: where the three interfaces live, credentials, limits. */
import { ConfigurationError } from './errors.js';
import type { ApiName } from '../contract/endpoints.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

export interface ClientOptions {
  /**
   * Base URLs, each optional: `v2` is the v2 root (paths such as `/search` are appended), `v1` the legacy
   * root and `language` the language-processing root (their paths start with `/v1`).
   */
  baseUrls: Partial<Record<ApiName, string>>;
  /** Sent as `x-api-key` to v2 and v1. */
  apiKey?: string | null;
  /** Sent as `Authorization: Bearer …` to v1 and the language interface. */
  accessToken?: string | null;
  /** Per-attempt time limit, default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Validate request bodies with the contract before sending (default true): a bad body costs no quota. */
  validateRequests?: boolean;
  /** Injected for reproducible tests; default Date.now / Math.random. */
  now?: () => number;
  random?: () => number;
}

export interface ClientConfig {
  baseUrls: Partial<Record<ApiName, string>>;
  apiKey: string | null;
  accessToken: string | null;
  timeoutMs: number;
  retry: RetryPolicy;
  validateRequests: boolean;
  now: () => number;
  random: () => number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** Printable ASCII: what every HTTP stack accepts in a header value. */
const HEADER_SAFE = /^[\x20-\x7E]*$/;

function credential(value: string | null | undefined, what: string): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (!HEADER_SAFE.test(trimmed)) {
    throw new ConfigurationError(
      `The ${what} contains characters that cannot be sent in an HTTP header (a typographic quote or a non-Latin letter from copy and paste?)`,
    );
  }
  return trimmed;
}

export function resolveConfig(options: ClientOptions): ClientConfig {
  const baseUrls: Partial<Record<ApiName, string>> = {};
  for (const [api, url] of Object.entries(options.baseUrls) as [ApiName, string | undefined][]) {
    if (!url) continue;
    if (!/^https?:\/\/[^/\s]+/i.test(url)) {
      throw new ConfigurationError(`The ${api} base URL "${url}" must start with http:// or https://`);
    }
    baseUrls[api] = url.replace(/\/+$/, '');
  }
  return {
    baseUrls,
    apiKey: credential(options.apiKey, 'API key'),
    accessToken: credential(options.accessToken, 'access token'),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    validateRequests: options.validateRequests ?? true,
    now: options.now ?? (() => Date.now()),
    random: options.random ?? Math.random,
  };
}
