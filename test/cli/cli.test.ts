/** The `orgindex` command line, driven in-process with captured output. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { capture } from './io.js';

test('--help and no arguments print usage with the commands', async () => {
  for (const argv of [['--help'], []]) {
    const io = capture();
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out).toContain('Usage: orgindex');
    expect(io.out).toContain('check <endpoint> [file]');
    expect(io.out).toContain('endpoints');
  }
});

test('endpoints lists every endpoint of the three interfaces, on the paths the server serves', async () => {
  const io = capture();
  expect(await runCli(['endpoints'], io)).toBe(0);
  expect(io.out.trim().split('\n')).toHaveLength(16);
  expect(io.out).toMatch(/^v2\.search\s+POST\s+v2\s+\/v2\/search\s/m);
  expect(io.out).toMatch(/^v2\.location\s+GET\s+v2\s+\/v2\/locations\/\{location_id\}\s/m);
  expect(io.out).toMatch(/^language\.qna\s+POST\s+language\s+\/v1\/qna\s/m);
  expect(io.out).not.toMatch(/\s\/search\s/);
});

test('check prints the normalised body of a valid request (file argument)', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'orgindex-cli-')), 'fetch.json');
  writeFileSync(file, JSON.stringify({ domains: ['Mail@Example.COM', 'https://www.example.org:8443/x?y#z'] }));
  const io = capture();
  expect(await runCli(['check', 'v2.fetch', file], io)).toBe(0);
  expect(JSON.parse(io.out)).toEqual({ domains: ['example.com', 'example.org'], columns: ['domain', 'name', 'country'] });
});

test('check prints the 422 detail of an invalid request (stdin) and exits 1', async () => {
  const io = capture(JSON.stringify({ group_by_secondary: 'country' }));
  expect(await runCli(['check', 'v2.stats'], io)).toBe(1);
  expect(JSON.parse(io.out)).toEqual({
    detail: [
      {
        type: 'value_error',
        loc: ['body', 'group_by_secondary'],
        msg: 'Value error, group_by_secondary requires group_by',
        input: 'country',
        ctx: { error: 'group_by_secondary requires group_by' },
      },
    ],
  });
});

test('check explains an unknown endpoint and non-JSON input (exit 2)', async () => {
  const unknown = capture();
  expect(await runCli(['check', 'v3.search'], unknown)).toBe(2);
  expect(unknown.err).toContain('Unknown endpoint "v3.search"');
  const notJson = capture('{oops');
  expect(await runCli(['check', 'v2.search'], notJson)).toBe(2);
  expect(notJson.err).toMatch(/^Not JSON: /);
});

test('an unknown command is a usage error, not a crash', async () => {
  const io = capture();
  expect(await runCli(['frobnicate'], io)).toBe(1);
  expect(io.err).toContain("unknown command 'frobnicate'");
});
