/**
 * Calendar dates as 'YYYY-MM-DD' strings and the Brazilian bank business-day calendar
 * (reference: brazil-standards.md, "Settlement conventions"; contract sections 9 and 10).
 *
 * Everything is UTC: a date is a day number since 1970-01-01, so there is no local time
 * zone and no daylight-saving hour to add or lose. Malformed dates throw RangeError: callers
 * validate user input with `isIsoDate` first, so a throw here is a programming error.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** True for a well-formed, existing calendar date ('2026-02-30' is false). */
export function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (m === null) return false;
  const d = new Date(0);
  // setUTCFullYear (unlike Date.UTC) keeps years 0-99 as they are; it rolls 02-30 over to
  // 03-02, which the comparison below catches.
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Days since 1970-01-01 (negative before). */
export function toDayNumber(date: string): number {
  if (!isIsoDate(date)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return Math.round(Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY);
}

export function fromDayNumber(day: number): string {
  return toIsoDate(new Date(day * MS_PER_DAY));
}

/** The UTC calendar date of an instant: 2026-01-01T02:00:00-03:00 is '2026-01-01'. */
export function toIsoDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** Midnight UTC at the start of the date. */
export function startOfDay(date: string): Date {
  return new Date(toDayNumber(date) * MS_PER_DAY);
}

export function addDays(date: string, n: number): string {
  if (!Number.isInteger(n)) throw new RangeError('days must be an integer');
  return fromDayNumber(toDayNumber(date) + n);
}

/** `to - from` in days: daysBetween('2026-01-01', '2026-01-31') = 30. */
export function daysBetween(from: string, to: string): number {
  return toDayNumber(to) - toDayNumber(from);
}

/** 0 = Sunday ... 6 = Saturday. */
export function dayOfWeek(date: string): number {
  // 1970-01-01 was a Thursday (4); the double modulo keeps earlier dates positive.
  return (((toDayNumber(date) + 4) % 7) + 7) % 7;
}

export function isWeekend(date: string): boolean {
  const dow = dayOfWeek(date);
  return dow === 0 || dow === 6;
}

/** Easter Sunday (Gregorian), anonymous algorithm of Meeus/Jones/Butcher. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const FIXED_HOLIDAYS = ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '11-20', '12-25'];

/** Easter-relative bank holidays: Carnival Monday and Tuesday, Good Friday, Corpus Christi. */
const EASTER_OFFSETS = [-48, -47, -2, 60];

const holidayCache = new Map<number, ReadonlySet<string>>();

/**
 * National bank holidays of a year, sorted. Nov 20 is included for every year: it became
 * national in 2024 and the service only settles dates from then on.
 */
export function nationalHolidays(year: number): string[] {
  const yyyy = String(year).padStart(4, '0');
  const easter = easterSunday(year);
  return [...FIXED_HOLIDAYS.map((md) => `${yyyy}-${md}`), ...EASTER_OFFSETS.map((n) => addDays(easter, n))].sort();
}

export function isHoliday(date: string): boolean {
  const year = Number(date.slice(0, 4));
  let set = holidayCache.get(year); // memo only: the result depends on the year alone
  if (set === undefined) {
    set = new Set(nationalHolidays(year));
    holidayCache.set(year, set);
  }
  return set.has(date);
}

export function isBusinessDay(date: string): boolean {
  return !isWeekend(date) && !isHoliday(date);
}

/** The date itself when it is a business day, else the next one (settlement, slip credit). */
export function nextBusinessDay(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/** The first business day strictly after the date (e.g. "anticipate to the next business day"). */
export function businessDayAfter(date: string): string {
  return nextBusinessDay(addDays(date, 1));
}
