/**
 * GET /openapi.json against the API-description rules a generic validator does not check (Redocly's
 * recommended set): a 4xx answer on every operation, the server it is served from, a licence. The 4xx
 * answers the document promises are asked of the real server too. A real server on loopback.
 */
import { request as httpRequest } from 'node:http';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { API_LICENSE } from '../../src/server/openapi.js';
import { raw, startTestServer, type TestServer } from './support.js';

interface Operation {
  operationId: string;
  responses: Record<string, { description: string }>;
}
interface Document {
  info: { license?: { name: string; identifier?: string; url?: string } };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** A GET through node:http, which sends the path and headers as given (fetch encodes the URL and will not set Host). */
function get(at: TestServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: new URL(at.url).port, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

const documentOf = async (at: TestServer, headers: Record<string, string> = {}): Promise<Document> => {
  const response = await get(at, '/openapi.json', headers);
  expect(response.status).toBe(200);
  return response.body as Document;
};

test('every operation documents a 4xx answer; the document still validates', async () => {
  const doc = await documentOf(server);
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })));
  expect(operations.length).toBeGreaterThanOrEqual(16);
  for (const { where, operation } of operations) {
    const clientErrors = Object.keys(operation.responses).filter((status) => /^4\d\d$/.test(status));
    expect([where, clientErrors.length > 0]).toEqual([where, true]);
    for (const status of clientErrors) expect([where, status, operation.responses[status]?.description.length]).toEqual([where, status, expect.any(Number)]);
  }
  expect(Object.keys(doc.paths['/v2/health']!.get!.responses).sort()).toEqual(['200', '400', '431', '500']);
  await expect(validateOpenApi(doc as unknown as Parameters<typeof validateOpenApi>[0])).resolves.toMatchObject({ valid: true, warnings: [] });
});

test('/v2/health answers the 4xx its document names: 400 for a malformed request, 431 for oversized headers', async () => {
  // A raw UTF-8 URL, as curl sends it: Node's parser refuses it before any route.
  const malformed = await get(server, '/v2/health?q=Münch');
  expect([malformed.status, malformed.body]).toEqual([400, { detail: expect.stringContaining('percent-encoded') as unknown }]);
  const huge = await raw(`${server.url}/v2/health`, { headers: { 'x-padding': 'x'.repeat(20_000) } });
  expect([huge.status, huge.body]).toEqual([431, { detail: 'Request headers (or the query string) are too large' }]);
});

test('servers: the origin the request reached by default, the public URL when one is configured; a licence', async () => {
  const doc = await documentOf(server, { host: 'evil.example' });
  // The address the connection reached, whatever Host header the client wrote.
  expect(doc.servers).toEqual([{ url: server.url, description: 'This OrgIndex server' }]);
  // The document's paths joined to the server URL reach the server.
  expect((await raw(`${doc.servers![0]!.url}/v2/health`)).status).toBe(200);
  expect(doc.info.license).toEqual(API_LICENSE);
  expect(doc.info.license?.name.length).toBeGreaterThan(0);

  const behindProxy = await startTestServer({ server: { publicUrl: 'https://orgindex.example.com/api/' } });
  try {
    const proxied = await documentOf(behindProxy, { host: 'evil.example' });
    expect(proxied.servers).toEqual([{ url: 'https://orgindex.example.com/api', description: 'This OrgIndex server' }]);
  } finally {
    await behindProxy.close();
  }
});
