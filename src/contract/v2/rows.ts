/** The organization row as returned in `data` by v2 search and fetch (and, with extra columns, by v1). */
import * as z from 'zod';
import { field } from '../validation.js';

const text = (title: string, description: string) => z.string().nullable().optional().meta(field(title, description));
const number = (title: string, description: string) => z.number().nullable().optional().meta(field(title, description));

/**
 * Typed known columns; unknown keys pass through so that a newer server's extra columns do not break
 * an older client. Only `domain` is always present.
 */
export const OrganizationRowSchema = z.looseObject({
  domain: z.string().meta(field('Domain', "The organization's web domain, its key in OrgIndex, e.g. acme-solar.de")),
  name: text('Name', "The organization's name, e.g. Acme Solar GmbH"),
  summary: text('Summary', 'A few sentences on what the organization does'),
  summary_keywords: z.array(z.string()).nullable().optional().meta(field('Tags', 'Short tags for what the organization does, e.g. solar installation, heat pumps')),
  address: text('Address', 'Street address, e.g. Hauptstraße 1, 80331 München'),
  organization_type: text('Organization type', 'Company, Startup, Public, Academic or Other'),
  organization_size: text('Size', 'Size by employees: Micro (0-9), Small (10-49), Medium-sized (50-249) or Large enterprise (250+)'),
  employee_class: text('Employees', 'Number of employees as a range, e.g. 10-19'),
  revenue_class: text('Revenue', 'Yearly revenue as a range, e.g. 2-10 Mio. EUR'),
  nace_code: text('Industry code', 'Industry as a NACE Rev. 2.1 code, e.g. 62.10 (computer programming)'),
  continent: text('Continent', 'e.g. Europe'),
  country: text('Country', 'Country name as OrgIndex spells it, e.g. Deutschland'),
  country_code: text('Country code', 'Two-letter ISO country code, e.g. DE'),
  state: text('State', 'State or province, e.g. Bayern'),
  state_code: text('State code', 'ISO code of the state, e.g. DE-BY'),
  region: text('Region', 'Region within the state (in Germany the Regierungsbezirk), e.g. Oberbayern'),
  region_code: text('Region code', 'Official code of the region, e.g. 091'),
  district: text('District', 'District (in Germany the Landkreis or kreisfreie Stadt), e.g. Landkreis Starnberg'),
  district_code: text('District code', 'Official code of the district, e.g. 09188'),
  municipality: text('Municipality', 'Town or city, e.g. München'),
  municipality_code: text('Municipality code', 'Official municipality key, e.g. 09162000'),
  lat: number('Latitude', 'Latitude of the place in degrees, e.g. 48.137'),
  lon: number('Longitude', 'Longitude of the place in degrees, e.g. 11.575'),
  new_register_entry: z.boolean().nullable().optional().meta(field('New register entry', 'True when the newest company register entry is less than a year old')),
  company_register_date: text('Register date', 'Date of the company register entry, YYYY-MM-DD, e.g. 2019-05-27'),
  company_register_id: text('Register number', 'Number of the company register entry, e.g. HRB 12345'),
  company_register_court: text('Register court', 'The court that keeps the register entry, e.g. Amtsgericht München'),
  created_at: text('Added', 'When the organization was added to OrgIndex, ISO 8601 date and time, e.g. 2024-03-15T12:02:59Z'),
});

export type OrganizationRow = z.infer<typeof OrganizationRowSchema>;
