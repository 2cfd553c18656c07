/** The error a route or a hook raises to answer with an HTTP status: the error handler sends it as `{"detail": …}`. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/**
 * The Retry-After header of a refusal that asking again later may pass (429 rate and quota refusals, a full
 * download store, every PIT of the service live), in whole seconds; none when waiting would not help.
 */
export function retryAfter(seconds: number | null): Record<string, string> {
  return seconds === null ? {} : { 'Retry-After': String(seconds) };
}
