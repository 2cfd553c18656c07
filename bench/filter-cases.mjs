// The filter-mode cases the benchmarks time (bench:scale, bench:pg), each taken from organizations of the
// data so that it matches some: from the broad one-country page to the selective ones an index must answer
// without a pass over every organization.

/** A day `days` after (or before) an ISO date, as YYYY-MM-DD. */
function shifted(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * name → one filters object per sampled organization that has the values it needs. `sample` are
 * organizations as { country, state, municipality, organization_size, organization_type, register_date }.
 */
export function filterCases(sample) {
  const having = (keys, make) => sample.filter((o) => keys.every((k) => o[k] !== null && o[k] !== undefined)).map(make);
  return {
    'one country (broad)': having(['country'], (o) => ({ country: [o.country] })),
    'country + state': having(['country', 'state'], (o) => ({ country: [o.country], state: [o.state] })),
    'one municipality': having(['municipality'], (o) => ({ municipality: [o.municipality] })),
    'state + organization_size': having(['state', 'organization_size'], (o) => ({ state: [o.state], organization_size: [o.organization_size] })),
    'three keys (state + size + type)': having(['state', 'organization_size', 'organization_type'], (o) => ({ state: [o.state], organization_size: [o.organization_size], organization_type: [o.organization_type] })),
    'register date within 30 days': having(['register_date'], (o) => ({ register_date_from: shifted(o.register_date, -15), register_date_to: shifted(o.register_date, 14) })),
  };
}
