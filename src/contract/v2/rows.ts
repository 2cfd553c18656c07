/** The organization row as returned in `data` by v2 search and fetch (and, with extra columns, by v1). */
import * as z from 'zod';

const text = z.string().nullable().optional();
const number = z.number().nullable().optional();

/**
 * Typed known columns; unknown keys pass through so that a newer server's extra columns do not break
 * an older client. Only `domain` is always present.
 */
export const OrganizationRowSchema = z.looseObject({
  domain: z.string(),
  name: text,
  summary: text,
  summary_keywords: z.array(z.string()).nullable().optional(),
  address: text,
  organization_type: text,
  organization_size: text,
  employee_class: text,
  revenue_class: text,
  nace_code: text,
  continent: text,
  country: text,
  country_code: text,
  state: text,
  state_code: text,
  region: text,
  region_code: text,
  district: text,
  district_code: text,
  municipality: text,
  municipality_code: text,
  lat: number,
  lon: number,
  new_register_entry: z.boolean().nullable().optional(),
  company_register_date: text,
  company_register_id: text,
  company_register_court: text,
  created_at: text,
});

export type OrganizationRow = z.infer<typeof OrganizationRowSchema>;
