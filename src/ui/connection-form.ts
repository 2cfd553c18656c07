/**
 * The Connection form's check of an address, made before anything is sent: an empty or unusable URL gets
 * a message saying what to type, instead of the client's complaint about the /v2 URL derived from it.
 * Addresses are kept as typed, never completed: whether a server speaks http or https is not the form's
 * to guess, and a wrong guess would only come back later as an unreachable service.
 */

export const EXAMPLE_SERVICE_URL = 'http://localhost:8787';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Scheme, host (a name, an IPv4 or a bracketed IPv6 address), optional port and path; no query or fragment. */
const WEB_ADDRESS = /^https?:\/\/(\[[\da-f:.]+\]|[^\s:/?#[\]@]+)(:\d{1,5})?(\/[^\s?#]*)?$/i;

/** A loopback host name (what `npm start`'s servers and a developer's own server answer on). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/**
 * What is wrong with `text` as a service address, or null when it will do. `required`: the service URL
 * must be given; the optional language service URL may stay blank.
 */
export function addressProblem(text: string, required: boolean): string | null {
  const address = text.trim();
  if (address === '') return required ? `Enter the service's address, such as ${EXAMPLE_SERVICE_URL}` : null;
  const scheme = /^([a-z][a-z\d+.-]*):\/\//i.exec(address)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    // "localhost:8787" or "api.example.com": a host without a scheme; "http:/x" and the like are typos.
    if (/^https?:/i.test(address)) return `"${address}" is not a web address: it should look like ${EXAMPLE_SERVICE_URL}`;
    const host = /^[^/:?#]+/.exec(address)?.[0] ?? '';
    return `Add http:// or https:// in front of the address, such as ${isLoopbackHost(host) ? 'http' : 'https'}://${address}`;
  }
  if (scheme !== 'http' && scheme !== 'https') return `The address must start with http:// or https://, not ${scheme}://`;
  if (!WEB_ADDRESS.test(address)) return `"${address}" is not a web address: it should look like ${EXAMPLE_SERVICE_URL}, without spaces, ? or #`;
  return null;
}
