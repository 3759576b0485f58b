import { describe, expect, it } from 'vitest';
import {
  addDays,
  businessDayAfter,
  dayOfWeek,
  daysBetween,
  easterSunday,
  fromDayNumber,
  isBusinessDay,
  isHoliday,
  isIsoDate,
  isWeekend,
  nationalHolidays,
  nextBusinessDay,
  startOfDay,
  toDayNumber,
  toIsoDate,
} from '../../src/domain/calendar.js';

describe('date helpers', () => {
  it('validates YYYY-MM-DD strictly', () => {
    expect(isIsoDate('2026-02-28')).toBe(true);
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2026-02-29')).toBe(false);
    expect(isIsoDate('2026-13-01')).toBe(false);
    expect(isIsoDate('2026-1-01')).toBe(false);
    expect(isIsoDate('2026-01-01T00:00:00Z')).toBe(false);
    expect(isIsoDate('0099-01-01')).toBe(true);
  });

  it('converts dates as Date does, day by day from 1600 to 2400 and over years 0-99 and 9990-9999', () => {
    const viaDate = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
    const ranges: [string, string][] = [['1600-01-01', '2400-12-31'], ['0000-01-01', '0099-12-31'], ['9990-01-01', '9999-12-31']];
    for (const [from, to] of ranges) {
      const first = Date.parse(`${from}T00:00:00Z`) / 86_400_000;
      const last = Date.parse(`${to}T00:00:00Z`) / 86_400_000;
      expect(toDayNumber(from)).toBe(first);
      const wrong: string[] = [];
      for (let day = first; day <= last; day++) {
        const date = viaDate(day);
        if (fromDayNumber(day) !== date || toDayNumber(date) !== day || toIsoDate(new Date(day * 86_400_000 + 86_399_999)) !== date) wrong.push(date);
      }
      expect(wrong).toEqual([]);
    }
    // Every month's last day and the day after it, leap rules included (1900 no, 2000 yes).
    for (const year of [1900, 2000, 2023, 2024, 2100]) {
      for (let month = 1; month <= 12; month++) {
        const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
        const mm = String(month).padStart(2, '0');
        expect(isIsoDate(`${year}-${mm}-${last}`)).toBe(true);
        expect(isIsoDate(`${year}-${mm}-${last + 1}`)).toBe(false);
      }
    }
    expect(isIsoDate('2026-00-10')).toBe(false);
    expect(isIsoDate('2026-01-00')).toBe(false);
    expect(() => toIsoDate(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('adds days across months, leap days and years', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-01-05', 30)).toBe('2026-02-04');
    expect(addDays('2026-01-05', 0)).toBe('2026-01-05');
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
    expect(() => addDays('2026-02-01', 0.5)).toThrow(RangeError);
  });

  it('counts days and converts between days, dates and instants in UTC', () => {
    expect(daysBetween('2026-01-01', '2026-01-31')).toBe(30);
    expect(daysBetween('2026-01-31', '2026-01-01')).toBe(-30);
    expect(toDayNumber('1970-01-01')).toBe(0);
    expect(toDayNumber('1969-12-31')).toBe(-1);
    expect(fromDayNumber(20_454)).toBe('2026-01-01');
    expect(toIsoDate(new Date('2026-01-01T02:00:00-03:00'))).toBe('2026-01-01');
    expect(toIsoDate(new Date('2025-12-31T23:00:00-03:00'))).toBe('2026-01-01');
    expect(startOfDay('2026-02-16').toISOString()).toBe('2026-02-16T00:00:00.000Z');
  });

  it('knows the day of the week', () => {
    expect(dayOfWeek('1970-01-01')).toBe(4);
    expect(dayOfWeek('1969-12-28')).toBe(0);
    expect(dayOfWeek('2026-02-16')).toBe(1);
    expect(isWeekend('2026-02-14')).toBe(true);
    expect(isWeekend('2026-02-15')).toBe(true);
    expect(isWeekend('2026-02-13')).toBe(false);
  });
});

describe('Easter', () => {
  it('matches known dates', () => {
    expect(easterSunday(2000)).toBe('2000-04-23');
    expect(easterSunday(2019)).toBe('2019-04-21');
    expect(easterSunday(2024)).toBe('2024-03-31');
    expect(easterSunday(2025)).toBe('2025-04-20');
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2027)).toBe('2027-03-28');
    expect(easterSunday(2038)).toBe('2038-04-25');
    expect(easterSunday(2285)).toBe('2285-03-22');
  });
});

describe('national bank holidays', () => {
  it('lists 2026', () => {
    expect(nationalHolidays(2026)).toEqual([
      '2026-01-01', '2026-02-16', '2026-02-17', '2026-04-03', '2026-04-21', '2026-05-01',
      '2026-06-04', '2026-09-07', '2026-10-12', '2026-11-02', '2026-11-15', '2026-11-20', '2026-12-25',
    ]);
  });

  it('lists 2025', () => {
    expect(nationalHolidays(2025)).toEqual([
      '2025-01-01', '2025-03-03', '2025-03-04', '2025-04-18', '2025-04-21', '2025-05-01',
      '2025-06-19', '2025-09-07', '2025-10-12', '2025-11-02', '2025-11-15', '2025-11-20', '2025-12-25',
    ]);
  });

  it('isHoliday and isBusinessDay', () => {
    expect(isHoliday('2026-02-16')).toBe(true);
    expect(isHoliday('2026-02-18')).toBe(false); // Ash Wednesday: banks open
    expect(isBusinessDay('2026-02-17')).toBe(false);
    expect(isBusinessDay('2026-02-18')).toBe(true);
    expect(isBusinessDay('2026-04-03')).toBe(false);
    expect(isBusinessDay('2026-06-04')).toBe(false);
    expect(isBusinessDay('2026-06-05')).toBe(true);
    expect(isBusinessDay('2026-11-20')).toBe(false);
    expect(isBusinessDay('2026-02-14')).toBe(false); // Saturday
    expect(isBusinessDay('2025-06-19')).toBe(false); // Corpus Christi 2025
  });
});

describe('next business day', () => {
  it('is the date itself on a business day', () => {
    expect(nextBusinessDay('2026-04-02')).toBe('2026-04-02');
    expect(nextBusinessDay('2026-02-04')).toBe('2026-02-04');
  });

  it('skips weekends and holidays', () => {
    expect(nextBusinessDay('2026-04-03')).toBe('2026-04-06'); // Good Friday + weekend
    expect(nextBusinessDay('2026-02-14')).toBe('2026-02-18'); // Sat, Sun, Carnival Mon+Tue
    expect(nextBusinessDay('2026-11-20')).toBe('2026-11-23');
    expect(nextBusinessDay('2025-12-25')).toBe('2025-12-26');
    expect(nextBusinessDay('2026-11-15')).toBe('2026-11-16');
  });

  it('businessDayAfter is strict', () => {
    expect(businessDayAfter('2026-04-02')).toBe('2026-04-06');
    expect(businessDayAfter('2026-04-20')).toBe('2026-04-22'); // Tiradentes on the 21st
    expect(businessDayAfter('2026-12-31')).toBe('2027-01-04');
    expect(businessDayAfter('2026-06-03')).toBe('2026-06-05');
  });

  it('settles a credit installment at D+30 moved to a business day', () => {
    // Sold 2026-01-17: D+30 is Carnival Monday, paid on Ash Wednesday.
    expect(nextBusinessDay(addDays('2026-01-17', 30))).toBe('2026-02-18');
    // Sold 2026-03-04: D+30 is Good Friday.
    expect(nextBusinessDay(addDays('2026-03-04', 30))).toBe('2026-04-06');
  });
});
