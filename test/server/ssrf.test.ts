/**
 * The fetch guard's address policy: only globally routable unicast addresses may be connected to, IPv6
 * forms that embed an IPv4 address are judged by that address, and the policy holds for every resolved
 * record of a name and on the address the socket actually connects to (no second resolution).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchSite, isPublicAddress } from '../../src/server/web-fetch.js';

describe('isPublicAddress', () => {
  // One address at the start, inside and at the end of every range that must be refused.
  const refused: [string, string[]][] = [
    ['0.0.0.0/8 "this network"', ['0.0.0.0', '0.1.2.3', '0.255.255.255']],
    ['10.0.0.0/8 private', ['10.0.0.0', '10.1.2.3', '10.255.255.255']],
    ['100.64.0.0/10 carrier-grade NAT', ['100.64.0.0', '100.100.100.200', '100.127.255.255']],
    ['127.0.0.0/8 loopback', ['127.0.0.1', '127.1.2.3', '127.255.255.255']],
    ['169.254.0.0/16 link-local (cloud metadata)', ['169.254.0.0', '169.254.169.254', '169.254.255.255']],
    ['172.16.0.0/12 private', ['172.16.0.0', '172.20.1.1', '172.31.255.255']],
    ['192.0.0.0/24 IETF protocol assignments', ['192.0.0.0', '192.0.0.9', '192.0.0.255']],
    ['192.0.2.0/24 documentation', ['192.0.2.0', '192.0.2.1', '192.0.2.255']],
    ['192.88.99.0/24 6to4 relay anycast', ['192.88.99.0', '192.88.99.1', '192.88.99.255']],
    ['192.168.0.0/16 private', ['192.168.0.0', '192.168.1.1', '192.168.255.255']],
    ['198.18.0.0/15 benchmarking', ['198.18.0.0', '198.19.1.1', '198.19.255.255']],
    ['198.51.100.0/24 documentation', ['198.51.100.0', '198.51.100.7', '198.51.100.255']],
    ['203.0.113.0/24 documentation', ['203.0.113.0', '203.0.113.7', '203.0.113.255']],
    ['224.0.0.0/4 multicast', ['224.0.0.0', '224.0.0.1', '239.255.255.255']],
    ['240.0.0.0/4 reserved', ['240.0.0.0', '250.1.2.3', '255.255.255.254']],
    ['255.255.255.255 broadcast', ['255.255.255.255']],
    ['::/128 unspecified and ::1 loopback', ['::', '::1']],
    ['::/96 IPv4-compatible (deprecated), even of a public address', ['::7f00:1', '::127.0.0.1', '::a00:1', '::808:808', '::8.8.8.8']],
    ['::ffff:0:0/96 IPv4-mapped of a refused address', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0']],
    ['::ffff:0:0:0/96 IPv4-translated', ['::ffff:0:7f00:1', '::ffff:0:808:808']],
    ['64:ff9b::/96 NAT64 of a refused address', ['64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::169.254.169.254', '64:ff9b::c0a8:101']],
    ['64:ff9b:1::/48 local-use NAT64', ['64:ff9b:1::1', '64:ff9b:1::808:808', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff']],
    ['100::/64 discard-only', ['100::', '100::1', '100::ffff:ffff:ffff:ffff']],
    ['2001::/32 Teredo', ['2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['2001::/23 IETF protocol assignments (benchmarking, ORCHID, ...)', ['2001:2::1', '2001:10::1', '2001:20::1', '2001:1ff:ffff::1']],
    ['2001:db8::/32 documentation', ['2001:db8::', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['2002::/16 6to4, whatever it embeds', ['2002:7f00:1::1', '2002:a00:1::1', '2002:a9fe:a9fe::1', '2002:808:808::1']],
    ['3fff::/20 documentation', ['3fff::', '3fff::1', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['fc00::/7 unique-local', ['fc00::1', 'fd00::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['fe80::/10 link-local', ['fe80::1', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['fec0::/10 site-local (deprecated)', ['fec0::', 'fec0::1', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['ff00::/8 multicast', ['ff02::1', 'ff05::2', 'ff0e::1']],
    ['outside 2000::/3 (not allocated for global unicast)', ['4000::1', '5f00::1', '1::1', 'e000::1']],
    ['not an address', ['', 'example.com', '1.2.3', '::g', '256.0.0.1']],
  ];
  test.each(refused)('refuses %s', (_range, addresses) => {
    for (const address of addresses) expect([address, isPublicAddress(address)]).toEqual([address, false]);
  });

  const allowed: [string, string[]][] = [
    ['public IPv4', ['8.8.8.8', '1.1.1.1', '93.184.216.34', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.1', '192.169.0.1', '198.17.255.255', '198.20.0.0', '223.255.255.255']],
    ['public IPv6 (2000::/3)', ['2606:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888', '2001:200::1', '2003::1']],
    ['IPv4-mapped of a public address', ['::ffff:8.8.8.8', '::ffff:808:808']],
    ['NAT64 (64:ff9b::/96) of a public address', ['64:ff9b::8.8.8.8', '64:ff9b::808:808']],
  ];
  test.each(allowed)('allows %s', (_range, addresses) => {
    for (const address of addresses) expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });
});

describe('the policy on every resolved record, at connect time', () => {
  // Two loopback fixtures: 127.0.0.2 stands for a public host, 127.0.0.3 for an internal one.
  let outside: Server;
  let inside: Server;
  let port = 0;
  const insideConnections: string[] = [];
  beforeAll(async () => {
    outside = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p>the public page</p>');
    });
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.2', resolve));
    port = (outside.address() as AddressInfo).port;
    inside = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p>the internal page</p>');
    });
    inside.on('connection', (socket) => insideConnections.push(socket.remoteAddress ?? ''));
    await new Promise<void>((resolve) => inside.listen(port, '127.0.0.3', resolve));
  });
  afterAll(async () => {
    outside.closeAllConnections();
    inside.closeAllConnections();
    await Promise.all([new Promise((resolve) => outside.close(resolve)), new Promise((resolve) => inside.close(resolve))]);
  });
  beforeEach(() => {
    insideConnections.length = 0;
  });
  const allowAddress = (address: string): boolean => address === '127.0.0.2';

  test('a name with a refused record among its records connects only to the allowed one', async () => {
    const resolve = (): Promise<string[]> => Promise.resolve(['127.0.0.3', '127.0.0.2', '127.0.0.3']);
    const { pages } = await fetchSite(`http://mixed.test:${port}/`, 1, { resolve, allowAddress });
    expect(pages.map((page) => page.text)).toEqual(['the public page']);
    expect(insideConnections).toEqual([]);
  });

  test('a name whose records are all refused is refused, and nothing is connected to', async () => {
    const resolve = (): Promise<string[]> => Promise.resolve(['127.0.0.3']);
    await expect(fetchSite(`http://inside.test:${port}/`, 1, { resolve, allowAddress })).rejects.toThrow(/inside\.test resolves to a private or local address; fetching it is refused/);
    expect(insideConnections).toEqual([]);
  });

  test('DNS rebinding: every connection resolves once and connects to the address it checked', async () => {
    // The first answer is allowed, every later one points inside: a check followed by a second
    // resolution for the connection would reach the inside fixture.
    let calls = 0;
    const resolve = (): Promise<string[]> => Promise.resolve(++calls === 1 ? ['127.0.0.2'] : ['127.0.0.3']);
    await fetchSite(`http://rebind.test:${port}/`, 1, { resolve, allowAddress }).catch(() => undefined);
    expect(calls).toBeGreaterThanOrEqual(2); // robots.txt, then the page: one resolution each
    expect(insideConnections).toEqual([]);
  });
});
