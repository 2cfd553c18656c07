// Writes dist/connector/: the Power Automate custom connector of the v2 interface, generated from the
// contract (src/server/connector.ts) — apiDefinition.swagger.json, apiProperties.json, icon.png and a
// README with the paconn / pac commands. Part of `npm run build`; CONNECTOR_HOST sets the service's host.
// Usage: node scripts/connector/build.mjs [--out DIR]
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectorDefinition, connectorProperties } from '../../dist/lib/server/connector.js';

const root = join(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : join(root, 'dist', 'connector');
if (!out) throw new Error('usage: node scripts/connector/build.mjs [--out DIR]');
const host = process.env.CONNECTOR_HOST || undefined;
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'apiDefinition.swagger.json'), `${JSON.stringify(connectorDefinition(host ? { host } : {}), null, 2)}\n`);
writeFileSync(join(out, 'apiProperties.json'), `${JSON.stringify(connectorProperties(), null, 2)}\n`);
copyFileSync(join(root, 'addin', 'assets', 'icon-80.png'), join(out, 'icon.png'));
copyFileSync(join(root, 'scripts', 'connector', 'README.md'), join(out, 'README.md'));
console.error(`connector written to ${out}${host ? ` (host ${host})` : ' (host api.orgindex.example: set CONNECTOR_HOST, or change it in the connector wizard)'}`);
