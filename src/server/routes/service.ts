/**
 * What the server says about itself, to anyone, without a key and without spending quota: a description
 * at `/` and `/v2` (where `npm start` and `orgindex serve` point people) and the OpenAPI document at
 * `/openapi.json`. Both name the server as download links do: its public URL, else the address and port
 * the request's connection reached, never the Host header.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { ENDPOINTS, SERVED_BASE_PATHS, servedPath, type ApiName, type AuthScheme, type Endpoint } from '../../contract/endpoints.js';
import type { ServiceDescription } from '../../contract/v2/service.js';
import { connectionOrigin, publicBaseUrl } from '../downloads.js';
import { DESCRIPTION_PATHS, openApiDocument, OPENAPI_PATH } from '../openapi.js';
import { packageVersion } from '../package-version.js';

const INTERFACES: readonly ApiName[] = ['v2', 'v1', 'language'];
const CREDENTIALS: Record<AuthScheme, string> = { apiKey: 'x-api-key header', bearer: 'Authorization: Bearer JWT' };

/** The repository's pages about this API: the server serves none of them, so they are named, not linked. */
const DOCS = ['docs/http-api.md', 'docs/automation.md', 'docs/operating.md'];

export interface ServiceRoutesOptions {
  /** The URL clients reach the server at (`--public-url`); unset: the address each request's connection reached. */
  publicUrl?: string | undefined;
}

/** The description of this server, `serverUrl` being where the request reached it. */
export function serviceDescription(serverUrl: string): ServiceDescription {
  const endpoints = Object.values(ENDPOINTS) as Endpoint[];
  return {
    name: 'OrgIndex',
    version: packageVersion(),
    description: 'Search, fetch and count organizations identified by their web domain.',
    server_url: serverUrl,
    interfaces: INTERFACES.map((name) => {
      const own = endpoints.filter((endpoint) => endpoint.api === name);
      return {
        name,
        base_path: SERVED_BASE_PATHS[name] || '/',
        credentials: [...new Set(own.flatMap((endpoint) => endpoint.auth.map((scheme) => CREDENTIALS[scheme])))],
        endpoints: own.map((endpoint) => `${endpoint.method} ${servedPath(endpoint)}`),
      };
    }),
    links: { openapi: OPENAPI_PATH, health: servedPath(ENDPOINTS['v2.health']) },
    docs: DOCS,
  };
}

export const serviceRoutes: FastifyPluginCallback<ServiceRoutesOptions> = (app, options, done) => {
  const publicUrl = options.publicUrl === undefined ? null : publicBaseUrl(options.publicUrl);
  // "/" when the connection's address is unknown: the document's own origin.
  const serverUrl = (request: FastifyRequest): string => publicUrl ?? (connectionOrigin(request.protocol, request.socket.localAddress, request.socket.localPort) || '/');
  for (const path of DESCRIPTION_PATHS) app.get(path, (request) => serviceDescription(serverUrl(request)));
  // The document takes milliseconds to build and anyone may ask for it: built once per origin it is
  // served at (the server's own addresses, a handful), then sent as it was written.
  const documents = new Map<string, string>();
  app.get(OPENAPI_PATH, (request, reply) => {
    const origin = serverUrl(request);
    let document = documents.get(origin);
    if (document === undefined) {
      document = JSON.stringify(openApiDocument({ serverUrl: origin }));
      if (documents.size < 16) documents.set(origin, document);
    }
    return reply.type('application/json; charset=utf-8').send(document);
  });
  done();
};
