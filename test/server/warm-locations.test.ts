/**
 * The server's warm-up builds the location index: the first location search after start answers from
 * it instead of building it (a quarter to half a second at 50,000 organizations, with every other request
 * waiting). Checked by the builds counted, not by timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import { LocationIndex } from '../../src/engine/locations/location-index.js';

const state = mkdtempSync(join(tmpdir(), 'orgindex-warm-locations-'));
const key = 'warm-locations-test-key-000000001';
let running: RunningServer | undefined;

afterAll(async () => {
  await running?.close();
  rmSync(state, { recursive: true, force: true });
});

test('after the warm-up, the first location search and list build nothing', async () => {
  writeFileSync(join(state, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2' }] }));
  let warm: () => void = () => undefined;
  const warmed = new Promise<void>((resolve) => (warm = resolve));
  const before = LocationIndex.built;
  running = await serve({ host: '127.0.0.1', port: 0, count: 2_000, keys: join(state, 'keys.json'), stateDir: join(state, 'state'), logLevel: 'silent' }, () => undefined, undefined, () => {
    warm();
  });
  await warmed;
  expect(LocationIndex.built).toBe(before + 1);

  for (const path of ['/v2/locations/search?q=m%C3%BCnch', '/v2/locations?location_type=state']) {
    const response = await fetch(`${running.url}${path}`, { headers: { 'x-api-key': key } });
    const body = (await response.json()) as { count: number };
    expect([response.status, body.count > 0]).toEqual([200, true]);
  }
  expect(LocationIndex.built).toBe(before + 1);
}, 60_000);
