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

/*
 * Dates are converted with integer arithmetic (H. Hinnant's days_from_civil / civil_from_days,
 * proleptic Gregorian) rather than through Date objects and their ISO strings: every payment's
 * receivables need a few dozen conversions, and a Date round trip (an object and an ISO string
 * each way) costs far more than the arithmetic. test/domain/calendar.test.ts checks them
 * against Date day by day.
 */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** [year, month, day] of a day number (`a`: the month counted from March, 0-11). */
function civilFromDays(dayNumber: number): [number, number, number] {
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const a = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * a + 2) / 5) + 1;
  const month = a < 10 ? a + 3 : a - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** [year, month, day] of a well-formed, existing date, else null. */
function parts(value: string): [number, number, number] | null {
  const m = ISO_DATE.exec(value);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return null;
  const last = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= last ? [year, month, day] : null;
}

/** True for a well-formed, existing calendar date ('2026-02-30' is false). */
export function isIsoDate(value: string): boolean {
  return parts(value) !== null;
}

/** Days since 1970-01-01 (negative before). */
export function toDayNumber(date: string): number {
  const p = parts(date);
  if (p === null) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return daysFromCivil(p[0], p[1], p[2]);
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

export function fromDayNumber(day: number): string {
  const [year, month, date] = civilFromDays(day);
  // Outside 0000-9999 the ISO form has a sign and six digits: Date writes it.
  if (year < 0 || year > 9999) return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(date)}`;
}

/** The UTC calendar date of an instant: 2026-01-01T02:00:00-03:00 is '2026-01-01'. */
export function toIsoDate(instant: Date): string {
  const ms = instant.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid time value');
  return fromDayNumber(Math.floor(ms / MS_PER_DAY));
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
