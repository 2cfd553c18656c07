// The add-in manifest for a given origin. Plain ESM JS so webpack.config.js can import it without a loader;
// manifest.d.mts gives the TypeScript tests its types.
import { readFileSync } from 'node:fs';

/** The origin manifest.xml (the repository's top level) is written for: webpack-dev-server with office-addin-dev-certs. */
export const DEV_ORIGIN = 'https://localhost:3000';

/**
 * The manifest served from `origin`: every `https://localhost:3000` in the template replaced.
 * Office loads add-ins only over https, and the build serves from the origin's root, so anything
 * else (http, a path, a query) is refused rather than written into a manifest that would not load.
 * @param {string} template the text of manifest.xml (the repository's top level)
 * @param {string} origin e.g. `https://addin.example.com`; a trailing slash is dropped, the host lower-cased
 * @returns {string}
 */
export function manifestFor(template, origin) {
  /** @type {URL} */
  let url;
  try {
    url = new URL(origin.trim());
  } catch {
    throw new Error(`Add-in origin ${JSON.stringify(origin)} is not a URL: expected https://host[:port]`);
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  if (url.protocol !== 'https:' || !bare) {
    throw new Error(`Add-in origin ${JSON.stringify(origin)} must be an https:// origin (host and optional port, no path, query, fragment or credentials), e.g. https://addin.example.com`);
  }
  return template.replaceAll(DEV_ORIGIN, url.origin);
}

/**
 * The text of manifest.xml (the repository's top level).
 * @returns {string}
 */
export function readManifestTemplate() {
  return readFileSync(new URL('../../manifest.xml', import.meta.url), 'utf8');
}
