// Writes dist/connector/: the Power Automate custom connector of the v2 interface, generated from the
// contract (src/server/connector.ts) — apiDefinition.swagger.json, apiProperties.json, icon.png and a
// README with the paconn / pac commands. Part of `npm run build`. Settings (docs/automation.md):
//   CONNECTOR_HOST            the service's host[:port] (default api.orgindex.example)
//   CONNECTOR_WEBSITE         the website on the connector's page (default https://<host>)
//   CONNECTOR_PRIVACY_POLICY  the privacy policy's address (default: the website)
//   CONNECTOR_CATEGORIES      one or two Power Automate categories, separated by ";" (default "Data;Sales and CRM")
// Usage: node scripts/connector/build.mjs [--out DIR]
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectorDefinition, connectorProperties } from '../../dist/lib/server/connector.js';

const root = join(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : join(root, 'dist', 'connector');
if (!out) throw new Error('usage: node scripts/connector/build.mjs [--out DIR]');
const setting = (name) => process.env[name]?.trim() || undefined;
const host = setting('CONNECTOR_HOST');
const website = setting('CONNECTOR_WEBSITE');
const privacyPolicy = setting('CONNECTOR_PRIVACY_POLICY');
const categories = setting('CONNECTOR_CATEGORIES')?.split(';').map((category) => category.trim()).filter(Boolean);
let definition;
try {
  definition = connectorDefinition({ ...(host ? { host } : {}), ...(website ? { website } : {}), ...(privacyPolicy ? { privacyPolicy } : {}), ...(categories ? { categories } : {}) });
} catch (error) {
  console.error(`connector not written: ${error.message} (CONNECTOR_WEBSITE, CONNECTOR_PRIVACY_POLICY, CONNECTOR_CATEGORIES)`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'apiDefinition.swagger.json'), `${JSON.stringify(definition, null, 2)}\n`);
writeFileSync(join(out, 'apiProperties.json'), `${JSON.stringify(connectorProperties(), null, 2)}\n`);
copyFileSync(join(root, 'addin', 'assets', 'icon-80.png'), join(out, 'icon.png'));
copyFileSync(join(root, 'scripts', 'connector', 'README.md'), join(out, 'README.md'));
console.error(`connector written to ${out}${host ? ` (host ${host})` : ' (host api.orgindex.example: set CONNECTOR_HOST, or change it in the connector wizard)'}`);
