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

/**
 * A NUL character in a request (URL, body, token claim): no field takes one, and the database could not
 * store it, so it is refused at the edge, the same on every route and with every store.
 */
export const nulRefusal = (where: string): HttpProblem => new HttpProblem(400, `${where} holds a NUL character (\\u0000 or %00), which no field accepts`);

/** Whether a parsed JSON value holds a NUL character in any string or key (iterative: no recursion). */
export function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.includes('\0')) return true;
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key.includes('\0')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}
