/**
 * A real HTTP server on 127.0.0.1 for client tests: each test scripts the responses and reads back the
 * requests exactly as they arrived on the wire.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw text instead of JSON. */
  text?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the headers and half the body, then stall until the server closes. */
  stallBody?: boolean;
}

export type Handler = (request: RecordedRequest) => ScriptedResponse;

export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  /** Handler for the next requests; the default answers 200 `{}`. */
  handle(handler: Handler): void;
  /** Answers the next requests with these responses in turn (the last one repeats). */
  script(...responses: ScriptedResponse[]): void;
  close(): Promise<void>;
}

export async function startLoopbackServer(): Promise<LoopbackServer> {
  let handler: Handler = () => ({ body: {} });
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      const reply = handler(recorded);
      const send = (): void => {
        const text = reply.text ?? JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        if (reply.stallBody) res.write(text.slice(0, Math.floor(text.length / 2)));
        else res.end(text);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    script(...responses) {
      let i = 0;
      handler = () => responses[Math.min(i++, responses.length - 1)] ?? { body: {} };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}

/** A port on which nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  return port;
}
