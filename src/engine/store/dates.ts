/** Calendar arithmetic on day numbers (days since 1970-01-01, UTC): compact in Int32Array, exact to compare. */
import type { DateTrunc } from '../../contract/v2/stats.js';

const MS_PER_DAY = 86_400_000;
/** The "no date" marker in Int32Array day columns. */
export const NO_DAY = -2147483648;

export function dayOf(isoDate: string): number {
  return Math.floor(Date.parse(`${isoDate.slice(0, 10)}T00:00:00Z`) / MS_PER_DAY);
}

export function dayOfMs(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** 0000-01-01 and 9999-12-31: between them ISO dates are YYYY-MM-DD, which the fast formatters write. */
const FIRST_FOUR_DIGIT_DAY = -719528;
const LAST_FOUR_DIGIT_DAY = 2932896;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));

function twoDigits(n: number): string {
  return TWO_DIGITS[n] ?? '';
}

/** YYYY-MM-DD of a day number (responses format thousands of dates: integer arithmetic, no Date). */
export function formatDay(day: number): string {
  if (!(day >= FIRST_FOUR_DIGIT_DAY && day <= LAST_FOUR_DIGIT_DAY && Number.isInteger(day))) {
    return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
  }
  const { year, month, dayOfMonth } = civilFromDays(day);
  return `${twoDigits(Math.floor(year / 100))}${twoDigits(year % 100)}-${twoDigits(month)}-${twoDigits(dayOfMonth)}`;
}

/** The same string as `new Date(ms).toISOString()`, written without a Date object for years 0000–9999. */
export function formatInstant(ms: number): string {
  const day = Math.floor(ms / MS_PER_DAY);
  if (!(day >= FIRST_FOUR_DIGIT_DAY && day <= LAST_FOUR_DIGIT_DAY && Number.isInteger(ms))) return new Date(ms).toISOString();
  let rest = ms - day * MS_PER_DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const paddedMillis = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`;
  return `${formatDay(day)}T${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${paddedMillis}Z`;
}

/** Year, month (1–12) and day of month of a day number, in integer arithmetic (H. Hinnant's civil_from_days). */
function civilFromDays(day: number): { year: number; month: number; dayOfMonth: number } {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** Day number of the first of a month (days_from_civil with d = 1). */
function firstOfMonth(year: number, month: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5);
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * The first day of the year, month or week (Monday, as PostgreSQL's date_trunc('week')) holding `day`.
 * Integer arithmetic only: stats truncate hundreds of thousands of dates per request.
 */
export function truncateDay(day: number, unit: DateTrunc): number {
  if (unit === 'week') {
    const weekday = (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday: Monday → 0
    return day - weekday;
  }
  const { year, month } = civilFromDays(day);
  return firstOfMonth(year, unit === 'year' ? 1 : month);
}
