/** Small hand-made organizations whose every filter and stats answer can be worked out by hand. */
import { OrganizationRecordSchema, type OrganizationRecord, type OrganizationRecordInput } from '../../src/engine/index.js';

export function record(input: OrganizationRecordInput): OrganizationRecord {
  return OrganizationRecordSchema.parse(input);
}

const bayern = { continent: 'Europe', country: 'Deutschland', country_code: 'DE', state: 'Bayern', state_code: 'DE-BY' };
const muenchen = { ...bayern, region: 'Oberbayern', region_code: '091', district: 'München, Landeshauptstadt', district_code: '09162', municipality: 'München', municipality_code: '09162000' };
const augsburg = { ...bayern, region: 'Schwaben', region_code: '097', district: 'Augsburg', district_code: '09761', municipality: 'Augsburg', municipality_code: '09761000' };
const berlin = { continent: 'Europe', country: 'Deutschland', country_code: 'DE', state: 'Berlin', state_code: 'DE-BE', district: 'Berlin', district_code: '11000', municipality: 'Berlin', municipality_code: '11000000' };
const wien = { continent: 'Europe', country: 'Österreich', country_code: 'AT', state: 'Wien', state_code: 'AT-9' };

export const FIXTURE: OrganizationRecord[] = [
  record({
    domain: 'alpha-software.de', name: 'Alpha Software GmbH', summary: 'Custom ERP software for manufacturers.', ...muenchen,
    organization_type: 'Company', organization_size: 'Small (10-49)', employee_class: '20-49', nace_code: '62.01', source: 'register',
    summary_keywords: ['software', 'erp'], created_at: '2021-03-15T10:00:00Z', updated_at: '2024-01-01T00:00:00Z',
    registrations: [
      { court: 'Amtsgericht Augsburg', date: '2015-02-10', id: 'HRB 100' },
      { court: 'Amtsgericht München', date: '2019-06-03', id: 'HRB 2000' },
    ],
    lat: 48.1, lon: 11.5,
  }),
  record({
    domain: 'beta-bau.de', name: 'Beta Bau GmbH', summary: 'Building construction and renovation.', ...augsburg,
    organization_type: 'Company', organization_size: 'Medium-sized (50-249)', employee_class: '50-99', nace_code: '41.00', source: 'cache',
    summary_keywords: ['construction'], created_at: '2022-07-01T00:00:00Z',
    registrations: [{ court: 'Amtsgericht Augsburg', date: '2019-06-20', id: 'HRB 300' }],
  }),
  record({
    domain: 'gamma-cloud.de', name: 'Gamma Cloud GmbH', summary: 'Cloud hosting and data centre services.', ...berlin,
    organization_type: 'Startup', organization_size: 'Micro (0-9)', employee_class: '5-9', nace_code: '63.10', source: 'dataset_03_2025',
    summary_keywords: ['cloud', 'software', 'hosting'], created_at: '2025-01-10T00:00:00Z',
    registrations: [{ court: 'Amtsgericht Charlottenburg', date: '2024-12-30', id: 'HRB 400' }],
  }),
  record({
    domain: 'delta-bank.at', name: 'Delta Bank AG', summary: 'Retail banking.', ...wien,
    organization_type: 'Company', organization_size: 'Large enterprise (250+)', employee_class: '1000-4999', nace_code: 'NACE L: Financial and insurance activities',
    source: 'request', summary_keywords: ['banking'], created_at: '2020-02-29T00:00:00Z',
    registrations: [{ court: 'Handelsgericht Wien', date: '2001-01-01', id: 'FN 1a' }],
  }),
  record({
    domain: 'alpha-software-muenchen.de', name: 'alpha  software gmbh', ...muenchen, organization_type: 'Company', nace_code: '62.02',
    summary_keywords: ['software'], created_at: '2021-03-20T00:00:00Z',
  }),
  record({ domain: 'epsilon.org', name: 'Epsilon e.V.', organization_type: 'Other', created_at: '2023-12-31T23:00:00Z' }),
];
