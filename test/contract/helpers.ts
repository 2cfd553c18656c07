/** Shared helpers of the contract tests: parse a body that must pass, or get the 422 items of one that must fail. */
import type * as z from 'zod';
import { validate, type InputLocation, type ValidationErrorItem } from '../../src/contract/index.js';

/** The normalised value of a body that must be valid; the test fails with the 422 body otherwise. */
export function valid<S extends z.ZodType>(schema: S, data: unknown, location: InputLocation = 'body'): z.output<S> {
  const result = validate(schema, data, location);
  if (!result.ok) throw new Error(`expected a valid body, got 422 ${JSON.stringify(result.error, null, 2)}`);
  return result.value;
}

/** The `detail` items of a body that must be rejected; the test fails with the parsed value otherwise. */
export function invalid(schema: z.ZodType, data: unknown, location: InputLocation = 'body'): ValidationErrorItem[] {
  const result = validate(schema, data, location);
  if (result.ok) throw new Error(`expected a 422, got ${JSON.stringify(result.value, null, 2)}`);
  return result.error.detail;
}

export const UUID = '123e4567-e89b-12d3-a456-426614174000';

/** pydantic's wording of the v2 selectable columns (spec table "Selectable columns"), as a literal_error lists them. */
export const COLUMNS_EXPECTED =
  "'domain', 'name', 'summary', 'summary_keywords', 'address', 'organization_type', 'organization_size', " +
  "'employee_class', 'revenue_class', 'nace_code', 'continent', 'country', 'country_code', 'state', 'state_code', " +
  "'region', 'region_code', 'district', 'district_code', 'municipality', 'municipality_code', 'lat', 'lon', " +
  "'new_register_entry', 'company_register_date', 'company_register_id' or 'created_at'";
