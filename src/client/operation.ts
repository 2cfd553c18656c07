/**
 * One endpoint call as an operation (a generator of effects), and how each mode performs its effects:
 * `runAsync` over an async transport (ky in Node, Excel, browsers) and `runSync` over a synchronous one
 * (UrlFetchApp in Apps Script), both through the shared drive loops (drive.ts). Retries live here, once,
 * for both.
 */
import type { ClientConfig } from './config.js';
import { NetworkError } from './errors.js';
import { messageOf, type OrgIndexError } from '../contract/errors.js';
import type { HttpOutcome, HttpRequest, Operation } from './http.js';
import { driveAsync, driveSync } from './drive.js';
import type { Quota } from '../contract/errors.js';
import { buildRequest } from './request.js';
import { interpretResponse } from './response.js';
import { decideRetry } from './retry.js';
import { ENDPOINTS, type EndpointId, type RequestInput, type ResponseBody } from '../contract/endpoints.js';

export interface CallResult<T> {
  body: T;
  status: number;
  quota: Quota | null;
  /** Attempts made, 1 when the first one succeeded. */
  attempts: number;
}

/** Sends the request, retrying per the policy; returns the parsed body or throws a typed error. */
export function* callEndpoint<Id extends EndpointId>(
  config: ClientConfig,
  id: Id,
  input: RequestInput<Id>,
): Operation<CallResult<ResponseBody<Id>>> {
  const endpoint = ENDPOINTS[id];
  const request = buildRequest(config, endpoint, input);
  for (let retries = 0; ; retries++) {
    const outcome = yield { type: 'http', request };
    if (!outcome) throw new NetworkError('The transport returned no outcome', false);
    let error: OrgIndexError;
    if (outcome.kind === 'response') {
      const interpreted = interpretResponse<ResponseBody<Id>>(endpoint, outcome.response, config.now());
      if (interpreted.ok) {
        return { body: interpreted.body, status: interpreted.status, quota: interpreted.quota, attempts: retries + 1 };
      }
      error = interpreted.error;
    } else {
      error = new NetworkError(`${request.method} ${request.url}: ${outcome.failure.message}`, outcome.failure.type === 'timeout');
    }
    const attempt =
      outcome.kind === 'response'
        ? { kind: 'response' as const, status: outcome.response.status, headers: outcome.response.headers }
        : { kind: 'failure' as const };
    const decision = decideRetry(config.retry, retries, attempt, config.now(), config.random);
    if (!decision.retry) throw error;
    yield { type: 'sleep', ms: decision.delayMs };
  }
}

export interface AsyncTransport {
  /** Sends one request; resolves with a response or a failure (should not reject). */
  send(request: HttpRequest): Promise<HttpOutcome>;
  sleep(ms: number): Promise<void>;
}

export interface SyncTransport {
  send(request: HttpRequest): HttpOutcome;
  sleep(ms: number): void;
}

function failureOf(error: unknown): HttpOutcome {
  return { kind: 'failure', failure: { type: 'network', message: messageOf(error) } };
}

/** Runs an operation with an async transport. A transport that throws counts as a network failure. */
export function runAsync<T>(operation: Operation<T>, transport: AsyncTransport): Promise<T> {
  return driveAsync(operation, async (effect) => {
    if (effect.type === 'sleep') {
      await transport.sleep(effect.ms);
      return undefined;
    }
    try {
      return await transport.send(effect.request);
    } catch (error) {
      return failureOf(error);
    }
  });
}

/** Runs an operation with a synchronous transport (Apps Script). */
export function runSync<T>(operation: Operation<T>, transport: SyncTransport): T {
  return driveSync(operation, (effect) => {
    if (effect.type === 'sleep') {
      transport.sleep(effect.ms);
      return undefined;
    }
    try {
      return transport.send(effect.request);
    } catch (error) {
      return failureOf(error);
    }
  });
}
