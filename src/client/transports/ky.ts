/**
 * The async transport on ky (fetch underneath): Node 20, Excel's runtime, browsers. ky's own retry is
 * off and HTTP errors do not throw: the client core decides what a status means and when to retry.
 */
import ky, { type KyInstance } from 'ky';
import type { ClientOptions } from '../config.js';
import { OrgIndexClient } from '../client.js';
import { lowerCaseHeaders, type HttpOutcome, type HttpRequest } from '../http.js';
import type { AsyncTransport } from '../operation.js';
import { messageOf } from '../../contract/errors.js';

export function createKyTransport(instance: KyInstance = ky): AsyncTransport {
  return {
    async send(request: HttpRequest): Promise<HttpOutcome> {
      // One deadline for the whole exchange, body included (ky's own timeout stops at the headers).
      const deadline = request.timeoutMs === undefined ? undefined : AbortSignal.timeout(request.timeoutMs);
      try {
        const response = await instance(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: deadline,
          timeout: false,
          retry: 0,
          throwHttpErrors: false,
        });
        const body = await response.text();
        return { kind: 'response', response: { status: response.status, headers: lowerCaseHeaders(response.headers), body } };
      } catch (error) {
        if (deadline?.aborted) {
          return { kind: 'failure', failure: { type: 'timeout', message: `no complete response within ${request.timeoutMs ?? 0} ms` } };
        }
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const reason = cause?.code ?? cause?.message ?? messageOf(error);
        return { kind: 'failure', failure: { type: 'network', message: reason } };
      }
    },
    sleep(ms: number): Promise<void> {
      return new Promise((resolve) => setTimeout(resolve, ms));
    },
  };
}

/** A client over HTTP with the ky transport: the usual way to reach a remote OrgIndex service. */
export function createRemoteClient(options: ClientOptions): OrgIndexClient {
  return new OrgIndexClient(options, createKyTransport());
}
