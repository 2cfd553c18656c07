/**
 * Server timeouts: a request whose headers or body trickle in is answered 408 (or closed) once its time is
 * up and gives back the quota it held; an idle keep-alive connection is closed; the defaults, their
 * checks, and the `orgindex serve` flags that change them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { DEFAULT_TIMEOUTS, resolveTimeouts, type ServerTimeouts } from '../../src/server/timeouts.js';
import { startTestServer, testIndex, type TestServer } from './support.js';

const KEY = 'timeouts-test-key-00000000000001';

/** A server whose one key may make a single request this month. */
function start(timeouts?: Partial<ServerTimeouts>): Promise<TestServer> {
  return startTestServer({
    keys: { keys: [{ key: KEY, tier: 'tier_2' }], tiers: { tier_2: { monthlyRequests: 1, ratePerSecond: 1_000, burst: 1_000 } } },
    server: timeouts ? { timeouts } : {},
  });
}

interface RawConnection {
  write(text: string): void;
  /** Everything the server sent. */
  received(): string;
  /** Resolves with the ms from connect to close, or rejects after `withinMs`. */
  closed(withinMs: number): Promise<number>;
}

/** A raw TCP connection to the server (what a slow or hostile client does, byte by byte). */
function openRaw(url: string): Promise<RawConnection> {
  const { port } = new URL(url);
  return new Promise((resolveOpen, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const opened = Date.now();
    let text = '';
    let closedAt: number | null = null;
    const waiters: (() => void)[] = [];
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset is one way of being closed
    socket.on('close', () => {
      closedAt = Date.now();
      for (const wake of waiters) wake();
    });
    socket.on('connect', () => {
      resolveOpen({
        write: (data) => {
          if (!socket.destroyed) socket.write(data);
        },
        received: () => text,
        closed: (withinMs) =>
          new Promise((resolveClosed, rejectClosed) => {
            const done = (): void => {
              clearTimeout(timer);
              resolveClosed((closedAt ?? Date.now()) - opened);
            };
            const timer = setTimeout(() => {
              socket.destroy();
              rejectClosed(new Error(`the server kept the connection open for more than ${withinMs} ms (received: ${JSON.stringify(text.slice(0, 80))})`));
            }, withinMs);
            if (closedAt !== null) done();
            else waiters.push(done);
          }),
      });
    });
    socket.on('error', reject);
  });
}

/** Sends `piece` every `everyMs` until the connection closes. */
function drip(connection: RawConnection, piece: string, everyMs: number): () => void {
  const timer = setInterval(() => { connection.write(piece); }, everyMs);
  return () => { clearInterval(timer); };
}

const search = (url: string): Promise<Response> =>
  fetch(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1 }) });

/** A 408 when the server had a chance to answer, or nothing (closed) — never another answer. */
function expectTimedOut(received: string): void {
  if (received !== '') expect(received).toMatch(/^HTTP\/1\.1 408 /);
}

// Warm, as a real server is before it answers: a first search would otherwise build the engine's
// structures (place spellings, relevance) inside the 400 ms budgets these tests time, and on a busy
// machine that alone can exceed them.
beforeAll(() => {
  testIndex().warm();
}, 60_000);

describe('timeouts on a running server', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await start({ requestTimeout: 400, headersTimeout: 200, keepAliveTimeout: 300, connectionTimeout: 2_000 });
  });
  afterEach(async () => {
    await server.close();
  });

  test('a body trickling in is cut at the request timeout and gives back the quota it held', async () => {
    const slow = await openRaw(server.url);
    slow.write(`POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
    const stop = drip(slow, ' ', 50);
    try {
      // Admitted: it holds the key's one request of the month, so another request is refused meanwhile.
      expect((await search(server.url)).status).toBe(429);
      const openFor = await slow.closed(4_000);
      expect(openFor).toBeGreaterThanOrEqual(300);
      expectTimedOut(slow.received());
    } finally {
      stop();
    }
    // The cut request was not counted and holds nothing any more: the month's one request is still there.
    const after = await search(server.url);
    expect(after.status).toBe(200);
    expect((await search(server.url)).status).toBe(429); // and now it is used
  }, 10_000);

  test('headers trickling in are cut at the headers timeout', async () => {
    const slow = await openRaw(server.url);
    slow.write('GET /v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const stop = drip(slow, 'x-slow: 1\r\n', 40);
    try {
      await slow.closed(4_000);
      expectTimedOut(slow.received());
    } finally {
      stop();
    }
  }, 10_000);

  test('a connection that sends nothing is closed', async () => {
    const silent = await openRaw(server.url);
    await silent.closed(4_000);
  }, 10_000);

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const connection = await openRaw(server.url);
    connection.write('GET /v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await connection.closed(4_000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
  }, 10_000);
});

describe('defaults and checks', () => {
  test('without options the server has every timeout set', async () => {
    const server = await start();
    try {
      const http = server.app.server;
      expect(http.requestTimeout).toBe(DEFAULT_TIMEOUTS.requestTimeout);
      expect(http.headersTimeout).toBe(DEFAULT_TIMEOUTS.headersTimeout);
      expect(http.keepAliveTimeout).toBe(DEFAULT_TIMEOUTS.keepAliveTimeout);
      expect(http.timeout).toBe(DEFAULT_TIMEOUTS.connectionTimeout);
    } finally {
      await server.close();
    }
    expect(DEFAULT_TIMEOUTS).toEqual({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000, connectionTimeout: 60_000 });
  });

  test('values are checked: positive whole milliseconds, headers within the request', () => {
    expect(resolveTimeouts({ requestTimeout: 500 })).toEqual({ ...DEFAULT_TIMEOUTS, requestTimeout: 500, headersTimeout: 500 });
    expect(() => resolveTimeouts({ requestTimeout: 0 })).toThrow(/requestTimeout must be a whole number of milliseconds ≥ 1/);
    expect(() => resolveTimeouts({ keepAliveTimeout: 1.5 })).toThrow(/keepAliveTimeout/);
    expect(() => resolveTimeouts({ requestTimeout: 1_000, headersTimeout: 2_000 })).toThrow(/headersTimeout \(2000 ms\) may not exceed requestTimeout \(1000 ms\)/);
  });

  test('orgindex serve refuses bad timeout flags with exit 2 before starting anything', async () => {
    const run = async (args: string[]): Promise<{ code: number; stderr: string }> => {
      let stderr = '';
      const code = await runCli(['serve', '--count', '10', ...args], { stdout: () => undefined, stderr: (text) => (stderr += text), readStdin: () => '' });
      return { code, stderr };
    };
    const zero = await run(['--request-timeout', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--request-timeout must be a number of seconds > 0/);
    expect((await run(['--keep-alive-timeout', 'soon'])).code).toBe(2);
    const inverted = await run(['--request-timeout', '5', '--headers-timeout', '20']);
    expect(inverted.code).toBe(2);
    expect(inverted.stderr).toMatch(/--headers-timeout \(20 s\) may not exceed --request-timeout \(5 s\)/);
  });
});

test('orgindex serve --headers-timeout / --request-timeout / --keep-alive-timeout reach the server', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-timeouts-cli-'));
  const bin = resolve(__dirname, '../../bin/orgindex.js');
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--count', '200', '--state-dir', join(dir, 'state'), '--log-level', 'silent', '--request-timeout', '0.6', '--headers-timeout', '0.3', '--keep-alive-timeout', '0.3'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /ready at (http:\/\/\S+)\/v2/.exec(stderr);
        if (match && /try: curl/.test(stderr)) resolveUrl(match[1]!);
      });
      child.on('exit', (code) => { reject(new Error(`serve exited with ${String(code)}: ${stderr}`)); });
    });
    const slow = await openRaw(url);
    slow.write('GET /v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const stop = drip(slow, 'x-slow: 1\r\n', 40);
    try {
      await slow.closed(5_000);
      expectTimedOut(slow.received());
    } finally {
      stop();
    }
    const idle = await openRaw(url);
    idle.write('GET /v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await idle.closed(5_000);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
