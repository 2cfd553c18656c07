/**
 * The zod-issue → FastAPI/pydantic 422 converter (src/contract/validation.ts), tested on small schemas so
 * that each branch of the conversion is pinned down item by item.
 */
import * as z from 'zod';
import {
  addIssue,
  jsonDecodeError,
  missingBodyError,
  quoteAlternatives,
  toValidationDetail,
  validate,
  ValidationErrorBodySchema,
  ValidationErrorItemSchema,
} from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

describe('validate()', () => {
  const Schema = z.strictObject({ name: z.string(), tags: z.array(z.string()).max(2).default([]) });

  it('returns the parsed value for a valid body', () => {
    expect(validate(Schema, { name: 'a' })).toEqual({ ok: true, value: { name: 'a', tags: [] } });
  });

  it('returns a 422 body, never throws, for an invalid body', () => {
    expect(validate(Schema, { name: 1 })).toEqual({
      ok: false,
      error: { detail: [{ loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 1 }] },
    });
  });

  it('puts the input location first in every loc', () => {
    expect(invalid(Schema, { name: 1 }, 'query')).toEqual([
      { loc: ['query', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 1 },
    ]);
  });

  it('gives the 422 body of a missing request body for undefined', () => {
    expect(validate(Schema, undefined)).toEqual({ ok: false, error: missingBodyError() });
  });

  it('produces bodies that match the spec\'s validation error layout', () => {
    const result = validate(Schema, { name: 1, tags: ['a', 'b', 'c'], x: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(ValidationErrorBodySchema.safeParse(result.error).success).toBe(true);
  });
});

describe('missing fields', () => {
  it("type 'missing', msg 'Field required', input = the enclosing object", () => {
    const Schema = z.strictObject({ a: z.string(), nested: z.strictObject({ b: z.number() }) });
    expect(invalid(Schema, { nested: { c: 1 } })).toEqual([
      { loc: ['body', 'a'], msg: 'Field required', type: 'missing', input: { nested: { c: 1 } } },
      { loc: ['body', 'nested', 'b'], msg: 'Field required', type: 'missing', input: { c: 1 } },
      { loc: ['body', 'nested', 'c'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 1 },
    ]);
  });

  it('a missing required enum, literal or union field is missing too (not a wrong value)', () => {
    const Schema = z.strictObject({ e: z.enum(['a', 'b']), l: z.literal('x'), u: z.union([z.string(), z.number()]) });
    expect(invalid(Schema, {})).toEqual([
      { loc: ['body', 'e'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'l'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'u'], msg: 'Field required', type: 'missing', input: {} },
    ]);
    expect(valid(Schema, { e: 'a', l: 'x', u: 1 })).toEqual({ e: 'a', l: 'x', u: 1 });
  });

  it('a complete object passes', () => {
    expect(valid(z.strictObject({ a: z.string() }), { a: 'x' })).toEqual({ a: 'x' });
  });
});

describe('extra keys', () => {
  it('a key close to one the object takes is named: msg and ctx.did_you_mean (edit distance ≤ 2, shorter than the names)', () => {
    const Schema = z.strictObject({ country: z.string().optional(), size: z.number().optional(), nested: z.strictObject({ must_any: z.string().optional() }).optional() });
    expect(invalid(Schema, { contry: 'DE', SIZ: 1, nested: { must_an: 'x', zzz: 1 }, sizes_of: 2 })).toEqual([
      { loc: ['body', 'nested', 'must_an'], msg: 'Extra inputs are not permitted; did you mean "must_any"?', type: 'extra_forbidden', input: 'x', ctx: { did_you_mean: 'must_any' } },
      { loc: ['body', 'nested', 'zzz'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 1 },
      { loc: ['body', 'contry'], msg: 'Extra inputs are not permitted; did you mean "country"?', type: 'extra_forbidden', input: 'DE', ctx: { did_you_mean: 'country' } },
      { loc: ['body', 'SIZ'], msg: 'Extra inputs are not permitted; did you mean "size"?', type: 'extra_forbidden', input: 1, ctx: { did_you_mean: 'size' } },
      { loc: ['body', 'sizes_of'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 2 },
    ]);
  });

  it('the work of suggesting is bounded: the first 10 unknown keys of a body are compared, and a key longer than 64 characters with none', () => {
    const Schema = z.strictObject({ country: z.string().optional() });
    const typos = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`countr${i}`, i]));
    const items = invalid(Schema, typos);
    expect(items).toHaveLength(30);
    expect(items.filter((item) => item.ctx !== undefined)).toHaveLength(10);
    expect(items.slice(0, 10).every((item) => item.ctx?.['did_you_mean'] === 'country')).toBe(true);
    // A megabyte of key beside the name is compared with nothing (it would cost its length times each name's).
    expect(invalid(Schema, { [`country${'y'.repeat(1_000_000)}`]: 1 })[0]).not.toHaveProperty('ctx');
    expect(invalid(Schema, { [`${'c'.repeat(63)}x`]: 1 })[0]).not.toHaveProperty('ctx');
  });

  it('each unknown key is its own extra_forbidden item with its value as input', () => {
    const Schema = z.strictObject({ a: z.string().optional() });
    expect(invalid(Schema, { x: 1, y: [2] })).toEqual([
      { loc: ['body', 'x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 1 },
      { loc: ['body', 'y'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: [2] },
    ]);
  });
});

describe('type errors', () => {
  const Schema = z.strictObject({
    s: z.string().optional(),
    n: z.number().optional(),
    i: z.int().optional(),
    b: z.boolean().optional(),
    l: z.array(z.string()).optional(),
    o: z.strictObject({}).optional(),
    r: z.record(z.string(), z.number()).optional(),
  });

  it.each([
    ['s', 1, 'string_type', 'Input should be a valid string'],
    ['n', 'x', 'float_type', 'Input should be a valid number'],
    ['b', 'yes', 'bool_type', 'Input should be a valid boolean'],
    ['l', 'x', 'list_type', 'Input should be a valid list'],
    ['o', [], 'dict_type', 'Input should be a valid dictionary'],
    ['r', 'x', 'dict_type', 'Input should be a valid dictionary'],
  ])('%s given %j → %s', (key, input, type, msg) => {
    expect(invalid(Schema, { [key]: input })).toEqual([{ loc: ['body', key], msg, type, input }]);
  });

  it('int_from_float for an integer field given a fractional number', () => {
    expect(invalid(Schema, { i: 1.5 })).toEqual([
      {
        loc: ['body', 'i'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        type: 'int_from_float',
        input: 1.5,
      },
    ]);
    expect(valid(Schema, { i: 2 })).toEqual({ i: 2 });
  });

  it('a non-object body is a dict_type error at ["body"]', () => {
    expect(invalid(Schema, [1])).toEqual([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: [1] }]);
  });
});

describe('length bounds', () => {
  const Schema = z.strictObject({
    list: z.array(z.number()).min(1).max(2).optional(),
    text: z.string().min(2).max(3).optional(),
  });

  it('list too_long: ctx {field_type: List, max_length, actual_length}', () => {
    expect(invalid(Schema, { list: [1, 2, 3] })).toEqual([
      {
        loc: ['body', 'list'],
        msg: 'List should have at most 2 items after validation, not 3',
        type: 'too_long',
        input: [1, 2, 3],
        ctx: { field_type: 'List', max_length: 2, actual_length: 3 },
      },
    ]);
  });

  it('list too_short: ctx {field_type: List, min_length, actual_length}', () => {
    expect(invalid(Schema, { list: [] })).toEqual([
      {
        loc: ['body', 'list'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('string_too_long / string_too_short', () => {
    expect(invalid(Schema, { text: 'abcd' })).toEqual([
      { loc: ['body', 'text'], msg: 'String should have at most 3 characters', type: 'string_too_long', input: 'abcd', ctx: { max_length: 3 } },
    ]);
    expect(invalid(Schema, { text: 'a' })).toEqual([
      { loc: ['body', 'text'], msg: 'String should have at least 2 characters', type: 'string_too_short', input: 'a', ctx: { min_length: 2 } },
    ]);
  });

  it('values at the bounds pass', () => {
    expect(valid(Schema, { list: [1, 2], text: 'ab' })).toEqual({ list: [1, 2], text: 'ab' });
  });

  it('a wrong type is reported once, without a length error about the wrong-typed value', () => {
    expect(invalid(Schema, { list: 'abc', text: ['a'] })).toEqual([
      { loc: ['body', 'list'], msg: 'Input should be a valid list', type: 'list_type', input: 'abc' },
      { loc: ['body', 'text'], msg: 'Input should be a valid string', type: 'string_type', input: ['a'] },
    ]);
  });
});

describe('numeric bounds', () => {
  const Schema = z.strictObject({
    ge: z.number().min(0).optional(),
    le: z.number().max(1).optional(),
    gt: z.number().gt(0).optional(),
    lt: z.number().lt(1).optional(),
  });

  it.each([
    ['ge', -1, 'greater_than_equal', 'Input should be greater than or equal to 0', { ge: 0 }],
    ['le', 2, 'less_than_equal', 'Input should be less than or equal to 1', { le: 1 }],
    ['gt', 0, 'greater_than', 'Input should be greater than 0', { gt: 0 }],
    ['lt', 1, 'less_than', 'Input should be less than 1', { lt: 1 }],
  ])('%s given %j → %s', (key, input, type, msg, ctx) => {
    expect(invalid(Schema, { [key]: input })).toEqual([{ loc: ['body', key], msg, type, input, ctx }]);
  });

  it('values at inclusive bounds pass', () => {
    expect(valid(Schema, { ge: 0, le: 1, gt: 0.001, lt: 0.999 })).toEqual({ ge: 0, le: 1, gt: 0.001, lt: 0.999 });
  });
});

describe('enums, literals and formats', () => {
  it("literal_error lists the alternatives in pydantic's wording", () => {
    const Schema = z.strictObject({ e: z.enum(['a', 'b', 'c']).optional(), l: z.literal(true).optional() });
    expect(invalid(Schema, { e: 'd', l: false })).toEqual([
      { loc: ['body', 'e'], msg: "Input should be 'a', 'b' or 'c'", type: 'literal_error', input: 'd', ctx: { expected: "'a', 'b' or 'c'" } },
      { loc: ['body', 'l'], msg: 'Input should be true', type: 'literal_error', input: false, ctx: { expected: 'true' } },
    ]);
  });

  it('date_parsing, datetime_parsing, uuid_parsing', () => {
    const Schema = z.strictObject({ d: z.iso.date().optional(), t: z.iso.datetime().optional(), u: z.uuid().optional() });
    expect(invalid(Schema, { d: '2024-02-30', t: 'yesterday', u: 'nope' })).toEqual([
      { loc: ['body', 'd'], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', input: '2024-02-30' },
      { loc: ['body', 't'], msg: 'Input should be a valid datetime in ISO 8601 format', type: 'datetime_parsing', input: 'yesterday' },
      { loc: ['body', 'u'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'nope' },
    ]);
    const ok = { d: '2024-02-29', t: '2024-02-29T10:00:00Z', u: '123e4567-e89b-12d3-a456-426614174000' };
    expect(valid(Schema, ok)).toEqual(ok);
  });

  it("string_pattern_mismatch: pydantic's message and the pattern as ctx", () => {
    expect(invalid(z.string().regex(/^a+$/), 'b')).toEqual([
      { loc: ['body'], msg: "String should match pattern '^a+$'", type: 'string_pattern_mismatch', input: 'b', ctx: { pattern: '^a+$' } },
    ]);
  });

  it("string_pattern_mismatch keeps a schema's own message", () => {
    expect(invalid(z.string().regex(/^a+$/, { error: 'only a' }), 'b')).toEqual([
      { loc: ['body'], msg: 'only a', type: 'string_pattern_mismatch', input: 'b', ctx: { pattern: '^a+$' } },
    ]);
  });
});

describe('unions', () => {
  const Schema = z.strictObject({ u: z.union([z.string(), z.strictObject({ a: z.number() })]) });

  it('reports the issues of the branch that matched the input type', () => {
    expect(invalid(Schema, { u: { a: 'x' } })).toEqual([
      { loc: ['body', 'u', 'a'], msg: 'Input should be a valid number', type: 'float_type', input: 'x' },
    ]);
  });

  it('union_type with the union message when no branch matched the type', () => {
    const Custom = z.union([z.string(), z.number()], { error: 'a string or a number' });
    expect(invalid(Custom, true)).toEqual([{ loc: ['body'], msg: 'a string or a number', type: 'union_type', input: true }]);
  });
});

describe('custom issues (addIssue)', () => {
  const Rule = z.strictObject({ a: z.number(), b: z.number() }).superRefine((v, ctx) => {
    if (v.a > v.b) addIssue(ctx, 'a must not exceed b', ['b']);
  });
  const Typed = z.string().superRefine((v, ctx) => {
    if (v !== 'ok') addIssue(ctx, `"${v}" is not ok`, [], { type: 'not_ok', ctx: { reason: 'because' } });
  });

  it("value_error: msg prefixed 'Value error, ', ctx {error}", () => {
    expect(invalid(Rule, { a: 2, b: 1 })).toEqual([
      { loc: ['body', 'b'], msg: 'Value error, a must not exceed b', type: 'value_error', input: 1, ctx: { error: 'a must not exceed b' } },
    ]);
    expect(valid(Rule, { a: 1, b: 1 })).toEqual({ a: 1, b: 1 });
  });

  it('an own type keeps the message and ctx as given', () => {
    expect(invalid(Typed, 'no')).toEqual([{ loc: ['body'], msg: '"no" is not ok', type: 'not_ok', input: 'no', ctx: { reason: 'because' } }]);
    expect(valid(Typed, 'ok')).toBe('ok');
  });

  it('other zod checks become value_error items', () => {
    expect(invalid(z.number().multipleOf(5), 3)).toEqual([
      {
        loc: ['body'],
        msg: 'Value error, Invalid number: must be a multiple of 5',
        type: 'value_error',
        input: 3,
        ctx: { error: 'Invalid number: must be a multiple of 5' },
      },
    ]);
  });
});

describe('toValidationDetail()', () => {
  it('converts issues of a safeParse with the raw data', () => {
    const data = { list: [1, 'x'] };
    const result = z.strictObject({ list: z.array(z.number()) }).safeParse(data);
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(toValidationDetail(result.error.issues, data, 'query')).toEqual([
        { loc: ['query', 'list', 1], msg: 'Input should be a valid number', type: 'float_type', input: 'x' },
      ]);
    }
  });
});

describe('JSON and missing-body helpers', () => {
  it('jsonDecodeError', () => {
    expect(jsonDecodeError(7, 'Expecting value')).toEqual({
      detail: [{ loc: ['body', 7], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: 'Expecting value' } }],
    });
  });

  it('missingBodyError', () => {
    expect(missingBodyError()).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }] });
  });

  it('both are valid validation error bodies', () => {
    expect(ValidationErrorBodySchema.safeParse(jsonDecodeError(0, 'x')).success).toBe(true);
    expect(ValidationErrorBodySchema.safeParse(missingBodyError()).success).toBe(true);
  });
});

describe('validation error body layout (spec "Validation error body")', () => {
  it('accepts items with loc, msg, type and optional input and ctx', () => {
    expect(valid(ValidationErrorBodySchema, { detail: [{ loc: ['body', 'a', 0], msg: 'm', type: 't' }] })).toEqual({
      detail: [{ loc: ['body', 'a', 0], msg: 'm', type: 't' }],
    });
    const item = { loc: [], msg: 'm', type: 't', input: null, ctx: { a: 1 } };
    expect(valid(ValidationErrorItemSchema, item)).toEqual(item);
  });

  it('rejects an item whose loc holds something other than strings and integers', () => {
    expect(invalid(ValidationErrorBodySchema, { detail: [{ loc: [true], msg: 'm', type: 't' }] })).toEqual([
      { loc: ['body', 'detail', 0, 'loc', 0], msg: 'Invalid input', type: 'union_type', input: true },
    ]);
  });

  it('rejects an item without msg', () => {
    expect(invalid(ValidationErrorBodySchema, { detail: [{ loc: [], type: 't' }] })).toEqual([
      { loc: ['body', 'detail', 0, 'msg'], msg: 'Field required', type: 'missing', input: { loc: [], type: 't' } },
    ]);
  });
});

describe('quoteAlternatives()', () => {
  it.each([
    [[], ''],
    [['a'], "'a'"],
    [['a', 'b'], "'a' or 'b'"],
    [['a', 'b', 'c'], "'a', 'b' or 'c'"],
    [[1, true], '1 or true'],
  ])('%j → %s', (values, expected) => {
    expect(quoteAlternatives(values)).toBe(expected);
  });
});
