/**
 * Validation errors in the FastAPI / pydantic v2 layout: `{"detail":[{"loc","msg","type","input","ctx"}]}`.
 *
 * Every schema failure and every business-rule violation of the contract becomes this body (HTTP 422).
 * Messages and `type` names follow pydantic v2 so that clients written for the hosted service read ours
 * the same way.
 */
import * as z from 'zod';
import { closestName } from './closest-name.js';

export type LocSegment = string | number;

export interface ValidationErrorItem {
  loc: LocSegment[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface ValidationErrorBody {
  detail: ValidationErrorItem[];
}

export const ValidationErrorItemSchema = z.looseObject({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});

export const ValidationErrorBodySchema = z.looseObject({ detail: z.array(ValidationErrorItemSchema) });

/** Where the validated value came from; the first segment of every `loc`. */
export type InputLocation = 'body' | 'query' | 'path' | 'header';

/**
 * Parameters a contract schema attaches to a custom issue so that it converts to a precise item.
 * `type` defaults to `value_error` (the pydantic type of a failed validator).
 */
export interface IssueParams {
  type?: string;
  ctx?: Record<string, unknown>;
}

/**
 * Message of an integer field's type error. zod reports it as `expected: "number"`; this message lets the
 * converter say `int_type` as pydantic does.
 */
export const INT_TYPE_MESSAGE = 'Input should be a valid integer';

/** An integer schema whose type errors convert to pydantic's `int_type`. */
export function integer() {
  return z.int({ error: (issue) => (issue.code === 'invalid_type' ? INT_TYPE_MESSAGE : undefined) });
}

/**
 * Refinement option: run a cross-field rule only when every field is valid, like a pydantic model
 * validator in "after" mode — the rule then never sees a raw, un-normalised or mistyped value.
 */
export const WHEN_FIELDS_VALID = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

/** Adds a business-rule or format issue to a zod refinement context in the shape the converter expects. */
export function addIssue(
  ctx: { addIssue: (issue: z.core.$ZodRawIssue) => void; value: unknown },
  message: string,
  path: LocSegment[] = [],
  params: IssueParams = {},
): void {
  ctx.addIssue({ code: 'custom', message, path, input: ctx.value, params: { ...params } });
}

/** A list of values in pydantic's wording: `'a', 'b' or 'c'`. */
export function quoteAlternatives(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] ?? ''}`;
}

/**
 * The keys each strict object that met an unknown key takes, by where the issue stands (its path and its
 * unknown keys): zod's issue names the unknown keys only, so `validate` collects the rest as it parses.
 */
export type AllowedKeys = ReadonlyMap<string, readonly string[]>;

const allowedKeysAt = (path: readonly PropertyKey[], keys: readonly string[]): string => JSON.stringify([path.map(String), keys]);

/**
 * How many unknown keys of one body are compared with the keys allowed: a caller's typo is among the
 * first few, and a body of 100,000 unknown keys gets its 422 without 100,000 comparisons.
 */
const SUGGESTIONS_PER_BODY = 10;

/** The suggestions a body has left (one per `toValidationDetail`). */
interface SuggestionBudget {
  left: number;
}

/** pydantic's item for a key its model does not take, naming the closest key it does take when one is close. */
function extraForbidden(key: string, allowed: readonly string[], budget: SuggestionBudget): Omit<ValidationErrorItem, 'loc' | 'input'> {
  const suggestion = budget.left-- > 0 ? closestName(key, allowed) : null;
  if (suggestion === null) return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
  return { type: 'extra_forbidden', msg: `Extra inputs are not permitted; did you mean "${suggestion}"?`, ctx: { did_you_mean: suggestion } };
}

function valueAt(data: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown; parent: unknown } {
  let parent: unknown = undefined;
  let current: unknown = data;
  for (const key of path) {
    parent = current;
    if (current !== null && typeof current === 'object' && Object.prototype.hasOwnProperty.call(current, key)) {
      current = (current as Record<PropertyKey, unknown>)[key];
    } else {
      return { found: false, value: undefined, parent };
    }
  }
  return { found: true, value: current, parent };
}

function segmentsOf(path: readonly PropertyKey[]): LocSegment[] {
  return path.map((key) => (typeof key === 'number' ? key : String(key)));
}

function typeErrorFor(expected: string, input: unknown): Pick<ValidationErrorItem, 'type' | 'msg'> {
  switch (expected) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'number':
      return { type: 'float_type', msg: 'Input should be a valid number' };
    case 'int':
      return typeof input === 'number' && Number.isFinite(input)
        ? { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'boolean':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
    case 'record':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    default:
      return { type: `${expected}_type`, msg: `Input should be a valid ${expected}` };
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function sizeOf(input: unknown): number | undefined {
  if (Array.isArray(input) || typeof input === 'string') return input.length;
  return undefined;
}

/** pydantic's wording of a violated bound, in both directions (`too_big` / `too_small`). */
const BOUND_WORDING = {
  too_big: {
    side: 'long',
    atMost: 'at most',
    lengthKey: 'max_length',
    exclusive: ['less_than', 'less than', 'lt'],
    inclusive: ['less_than_equal', 'less than or equal to', 'le'],
  },
  too_small: {
    side: 'short',
    atMost: 'at least',
    lengthKey: 'min_length',
    exclusive: ['greater_than', 'greater than', 'gt'],
    inclusive: ['greater_than_equal', 'greater than or equal to', 'ge'],
  },
} as const;

function boundError(
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
  input: unknown,
): Omit<ValidationErrorItem, 'loc' | 'input'> {
  const wording = BOUND_WORDING[issue.code];
  const limit = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  if (issue.origin === 'array' || issue.origin === 'set') {
    const n = sizeOf(input) ?? 0;
    return {
      type: `too_${wording.side}`,
      msg: `List should have ${wording.atMost} ${plural(limit, 'item')} after validation, not ${n}`,
      ctx: { field_type: 'List', [wording.lengthKey]: limit, actual_length: n },
    };
  }
  if (issue.origin === 'string') {
    return {
      type: `string_too_${wording.side}`,
      msg: `String should have ${wording.atMost} ${plural(limit, 'character')}`,
      ctx: { [wording.lengthKey]: limit },
    };
  }
  const [type, words, key] = issue.inclusive === false ? wording.exclusive : wording.inclusive;
  return { type, msg: `Input should be ${words} ${limit}`, ctx: { [key]: limit } };
}

/** The branch of a failed union that matched the input's type best, or null when no branch did. */
function bestUnionBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | null {
  const typed = branches.filter((issues) => !issues.some((i) => i.code === 'invalid_type' && i.path.length === 0));
  return typed[0] ?? null;
}

function convertIssue(
  issue: z.core.$ZodIssue,
  prefix: readonly PropertyKey[],
  data: unknown,
  location: InputLocation,
  out: ValidationErrorItem[],
  allowedKeys: AllowedKeys,
  budget: SuggestionBudget,
): void {
  const path = [...prefix, ...issue.path];
  const at = valueAt(data, path);
  const loc: LocSegment[] = [location, ...segmentsOf(path)];
  const input = at.found ? at.value : undefined;
  const push = (item: Omit<ValidationErrorItem, 'loc' | 'input'>, itemInput: unknown = input, itemLoc = loc): void => {
    // Key order as FastAPI writes it: type, loc, msg, input, ctx.
    const ordered: ValidationErrorItem = { type: item.type, loc: itemLoc, msg: item.msg };
    if (itemInput !== undefined) ordered.input = itemInput;
    if (item.ctx !== undefined) ordered.ctx = item.ctx;
    out.push(ordered);
  };

  const absent = !at.found || input === undefined;
  if (absent && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    // A required field that is not there (zod reports a missing enum or literal as a wrong value, a missing
    // union as a failed union): pydantic reports the enclosing object as the input of a missing field.
    push({ type: 'missing', msg: 'Field required' }, path.length === 0 ? null : at.parent);
    return;
  }

  switch (issue.code) {
    case 'invalid_type': {
      push(typeErrorFor(issue.message === INT_TYPE_MESSAGE ? 'int' : issue.expected, input));
      return;
    }
    case 'too_big':
    case 'too_small': {
      push(boundError(issue, input));
      return;
    }
    case 'invalid_value': {
      const expected = quoteAlternatives(issue.values);
      push({ type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } });
      return;
    }
    case 'invalid_format': {
      if (issue.format === 'date') {
        push({ type: 'date_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' });
      } else if (issue.format === 'datetime') {
        push({ type: 'datetime_parsing', msg: 'Input should be a valid datetime in ISO 8601 format' });
      } else if (issue.format === 'uuid' || issue.format.startsWith('uuid')) {
        push({ type: 'uuid_parsing', msg: 'Input should be a valid UUID' });
      } else if (issue.format === 'regex' && issue.pattern !== undefined) {
        // pydantic: "String should match pattern '<pattern>'"; a schema's own message (when it set one) wins.
        const pattern = /^\/(.*)\/[a-z]*$/s.exec(issue.pattern)?.[1] ?? issue.pattern;
        const zodDefault = issue.message === `Invalid string: must match pattern ${issue.pattern}`;
        push({
          type: 'string_pattern_mismatch',
          msg: zodDefault ? `String should match pattern '${pattern}'` : issue.message,
          ctx: { pattern },
        });
      } else {
        push({ type: 'string_pattern_mismatch', msg: `String should be a valid ${issue.format}`, ctx: { pattern: issue.format } });
      }
      return;
    }
    case 'unrecognized_keys': {
      const allowed = allowedKeys.get(allowedKeysAt(issue.path, issue.keys)) ?? [];
      for (const key of issue.keys) {
        const extra = valueAt(data, [...path, key]);
        push(extraForbidden(key, allowed, budget), extra.value, [...loc, key]);
      }
      return;
    }
    case 'invalid_union': {
      const branch = bestUnionBranch(issue.errors);
      if (branch) {
        for (const inner of branch) convertIssue(inner, path, data, location, out, allowedKeys, budget);
      } else {
        push({ type: 'union_type', msg: issue.message });
      }
      return;
    }
    case 'custom': {
      const params = (issue.params ?? {}) as IssueParams;
      const type = params.type ?? 'value_error';
      const msg = type === 'value_error' ? `Value error, ${issue.message}` : issue.message;
      // A failed validator always says what failed in ctx.error, as pydantic does; schemas may add more (the rule number).
      push({ type, msg, ctx: type === 'value_error' ? { error: issue.message, ...params.ctx } : params.ctx });
      return;
    }
    default: {
      push({ type: 'value_error', msg: `Value error, ${issue.message}`, ctx: { error: issue.message } });
    }
  }
}

/** Sort key putting the tightest bound first: the smallest maximum, the largest minimum. */
function boundTightness(issue: z.core.$ZodIssue): number {
  if (issue.code === 'too_big') return Number(issue.maximum);
  if (issue.code === 'too_small') return -Number(issue.minimum);
  return 0;
}

/**
 * Converts zod issues into FastAPI `detail` items; `data` is the raw input (for `input` and `loc`),
 * `allowedKeys` what `validate` collected for "did you mean".
 */
export function toValidationDetail(
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  location: InputLocation = 'body',
  allowedKeys: AllowedKeys = new Map(),
): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  const where = (issue: z.core.$ZodIssue): string => JSON.stringify(issue.path);
  // zod runs length checks on any value with a length, even after a type error at the same place (a string
  // given for a list); pydantic reports only the type error there.
  const typeErrorAt = new Set(issues.filter((i) => i.code === 'invalid_type').map(where));
  // Several bounds of one direction can fail at once (an integer's own safe-integer limit and the field's
  // maximum, for 1e20): pydantic names one, the field's, which is the tightest.
  const skip = new Set<z.core.$ZodIssue>();
  const boundReported = new Set<string>();
  const bounds = issues.filter((i) => i.code === 'too_big' || i.code === 'too_small');
  for (const issue of bounds.sort((a, b) => boundTightness(a) - boundTightness(b))) {
    const key = `${issue.code}${where(issue)}`;
    if (typeErrorAt.has(where(issue)) || boundReported.has(key)) skip.add(issue);
    boundReported.add(key);
  }
  const budget: SuggestionBudget = { left: SUGGESTIONS_PER_BODY };
  for (const issue of issues) if (!skip.has(issue)) convertIssue(issue, [], data, location, out, allowedKeys, budget);
  return out;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; error: ValidationErrorBody };

/**
 * Parses `data` with a contract schema; on failure returns the 422 body. Never throws on bad input. While
 * zod words its issues, the keys of each strict object that met an unknown key are noted (the raw issue
 * still names its object; the final one does not), for the "did you mean" of its `extra_forbidden`.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  data: unknown,
  location: InputLocation = 'body',
): Validated<z.output<S>> {
  const allowedKeys = new Map<string, readonly string[]>();
  const result = schema.safeParse(data, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys' && issue.inst instanceof z.ZodObject) allowedKeys.set(allowedKeysAt(issue.path ?? [], issue.keys), Object.keys(issue.inst.shape));
      return undefined;
    },
  });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: { detail: toValidationDetail(result.error.issues, data, location, allowedKeys) } };
}

/**
 * The JSON Schema a generated document (OpenAPI) should show for a schema whose zod form cannot say it —
 * a custom check, or a query integer that also parses from text. Stored as zod metadata (`openapi`).
 */
export function documentedAs<S extends z.ZodType>(schema: S, jsonSchema: Record<string, unknown>): S {
  return schema.meta({ openapi: jsonSchema });
}

/**
 * How a field is named and explained to people, as zod metadata (`.meta(field(…))`): generated documents
 * carry it as the JSON Schema title and description, and the Power Automate connector shows them as the
 * field's label and help in the flow designer. Plain words, with an example where one helps.
 */
export function field(title: string, description: string): { title: string; description: string } {
  return { title, description };
}

/** The 422 body FastAPI sends for a request body that is not JSON at all. */
export function jsonDecodeError(position: number, reason: string): ValidationErrorBody {
  return { detail: [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: reason } }] };
}

/** The 422 body for a request that needs a JSON body and sent none. */
export function missingBodyError(): ValidationErrorBody {
  return { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }] };
}
