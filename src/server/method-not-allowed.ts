/**
 * A path the server serves, asked with a method it does not serve there, is a 405 with `Allow` naming the
 * methods it does serve (RFC 9110 §15.5.6), in the service's error layout: `GET /v2/search` says to POST,
 * where a 404 would say the route does not exist. Unknown paths stay 404. The methods come from the routes
 * themselves, as they are added, so every route of the three interfaces is covered, path parameters and
 * wildcards included, and a new route needs nothing here.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';

/** The methods a 405 can be given for; OPTIONS stays with CORS (a preflight, or the 404 of a bare OPTIONS). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

const isMethod = (method: string): method is Method => (METHODS as readonly string[]).includes(method);

/**
 * Records the methods of every route added from now on (the route plugins are registered after it);
 * `answer()`, called once they all are, adds each path's 405 for the other methods.
 */
export function methodNotAllowed(app: FastifyInstance): { answer(): void } {
  const served = new Map<string, Set<Method>>();
  let open = true;
  app.addHook('onRoute', (route) => {
    if (!open) return;
    const methods = served.get(route.url) ?? new Set<Method>();
    for (const method of [route.method].flat()) if (isMethod(method)) methods.add(method);
    served.set(route.url, methods);
  });
  return {
    answer() {
      open = false;
      for (const [url, methods] of served) {
        const others: HTTPMethods[] = METHODS.filter((method) => !methods.has(method));
        if (methods.size === 0 || others.length === 0) continue;
        const allow = METHODS.filter((method) => methods.has(method)).join(', ');
        app.route({
          method: others,
          url,
          handler: (request, reply) => reply.code(405).header('allow', allow).send({ detail: `Method Not Allowed: ${request.method} ${request.url.split('?')[0] ?? ''} (this path takes ${allow})` }),
        });
      }
    },
  };
}
