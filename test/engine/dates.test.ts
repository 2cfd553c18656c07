/** Day-number calendar arithmetic used by stats (date_trunc) and the store. */
import { dayOf, formatDay, truncateDay } from '../../src/engine/store/dates.js';

test('year and month truncation agree with the calendar for every day of 1900–2100', () => {
  const mismatches: string[] = [];
  for (let day = dayOf('1900-01-01'); day <= dayOf('2100-12-31'); day++) {
    const date = new Date(day * 86_400_000);
    const year = Math.floor(Date.UTC(date.getUTCFullYear(), 0, 1) / 86_400_000);
    const month = Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 86_400_000);
    if (truncateDay(day, 'year') !== year || truncateDay(day, 'month') !== month) mismatches.push(formatDay(day));
  }
  expect(mismatches).toEqual([]);
});

test.each([
  ['2019-06-03', '2019-06-03'], // a Monday stays
  ['2019-06-09', '2019-06-03'], // Sunday belongs to the week that began on Monday
  ['2024-01-01', '2024-01-01'],
  ['2021-01-01', '2020-12-28'], // a week may start in the previous year, as in PostgreSQL
  ['1969-12-31', '1969-12-29'],
])('week of %s starts on Monday %s', (day, monday) => {
  expect(formatDay(truncateDay(dayOf(day), 'week'))).toBe(monday);
});
