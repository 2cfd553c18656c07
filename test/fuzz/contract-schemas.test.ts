/**
 * Property: every endpoint's request schema, given any value at all, either accepts it or answers a 422 in
 * the FastAPI layout — it never throws, and every error item names a type, a location and a message.
 */
import * as fc from 'fast-check';
import { ENDPOINTS, type EndpointId } from '../../src/contract/endpoints.js';
import { validate } from '../../src/contract/validation.js';
import { fieldNames, fuzzParameters, hostileBody, hostileString } from './arbitraries.js';

const withInput = (Object.entries(ENDPOINTS) as [EndpointId, (typeof ENDPOINTS)[EndpointId]][]).filter(([, endpoint]) => endpoint.input !== 'none');

describe.each(withInput)('%s request schema under fuzzing', (_id, endpoint) => {
  const location = endpoint.input === 'body' ? 'body' : endpoint.input === 'query' ? 'query' : 'path';
  const input =
    endpoint.input === 'body'
      ? hostileBody(endpoint.request)
      : fc.dictionary(fc.constantFrom(...fieldNames(endpoint.request), 'x'), fc.oneof(hostileString, fc.array(hostileString, { maxLength: 3 })), { maxKeys: 5 });

  it('accepts or answers a well-formed 422, never throws', () => {
    fc.assert(
      fc.property(input, (value) => {
        const result = validate(endpoint.request, value, location);
        if (result.ok) return;
        expect(Array.isArray(result.error.detail)).toBe(true);
        expect(result.error.detail.length).toBeGreaterThan(0);
        for (const item of result.error.detail) {
          expect(typeof item.type).toBe('string');
          expect(typeof item.msg).toBe('string');
          expect(item.msg.length).toBeGreaterThan(0);
          expect(Array.isArray(item.loc)).toBe(true);
          expect(item.loc[0]).toBe(location);
        }
        // The 422 body must be sendable as JSON (no cycles, no BigInt).
        expect(() => JSON.stringify(result.error)).not.toThrow();
      }),
      fuzzParameters(400),
    );
  });
});
