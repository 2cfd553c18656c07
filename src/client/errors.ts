/**
 * Errors of the transport: no response at all, or a client asked for what its configuration cannot do.
 * The errors a response can carry are the contract's (src/contract/errors.ts).
 */
import { OrgIndexError } from '../contract/errors.js';

/** No response: connection refused, DNS, TLS, reset, or the per-attempt time limit. */
export class NetworkError extends OrgIndexError {
  constructor(message: string, timeout: boolean) {
    super(timeout ? 'timeout' : 'network', message);
    this.name = 'NetworkError';
  }
}

/** The client was asked for something its configuration cannot do (e.g. no base URL for that API). */
export class ConfigurationError extends OrgIndexError {
  constructor(message: string) {
    super('configuration', message);
    this.name = 'ConfigurationError';
  }
}
