import { describe, expect, it } from 'vitest';
import { lastPayableDay, settlementOn, type OverdueTerms } from '../../src/domain/late-payment.js';

const terms = (over: Partial<OverdueTerms> = {}): OverdueTerms => ({
  dueDate: '2026-12-10', // a Thursday
  allow: true,
  dateLimit: '2027-01-10',
  penaltyPercent: 20_000n, // 2%
  interestPercentPerMonth: 10_000n, // 1% a month
  ...over,
});

describe('late payment arithmetic', () => {
  it('on or before the due date: the value, no charges', () => {
    expect(settlementOn(100_000n, terms(), '2026-12-01')).toEqual({ ok: true, daysLate: 0, penalty: 0n, interest: 0n, discount: 0n, total: 100_000n });
    expect(settlementOn(100_000n, terms(), '2026-12-10')).toMatchObject({ ok: true, total: 100_000n });
  });

  it('late: 2% penalty once, 1% a month pro rata per calendar day from the due date, half-up to the cent', () => {
    // R$ 1,000.00, 10 days late: penalty 20.00; interest 1000 x 1% / 30 x 10 = 3.3333 -> 3.33.
    expect(settlementOn(100_000n, terms(), '2026-12-20')).toEqual({ ok: true, daysLate: 10, penalty: 2_000n, interest: 333n, discount: 0n, total: 102_333n });
    // 1 day: 0.3333 -> 0.33; 30 days: exactly 1% = 10.00.
    expect(settlementOn(100_000n, terms(), '2026-12-11')).toMatchObject({ daysLate: 1, interest: 33n, total: 102_033n });
    expect(settlementOn(100_000n, terms(), '2027-01-09')).toMatchObject({ daysLate: 30, interest: 1_000n, total: 103_000n });
    // Half-up: 2.5% of R$ 1.00 is 2.5 cents -> 3; 1.5% a month on R$ 123.45 for 7 days = 0.432075 -> 0.43.
    expect(settlementOn(100n, terms({ penaltyPercent: 25_000n, interestPercentPerMonth: 0n }), '2026-12-11')).toMatchObject({ penalty: 3n, interest: 0n, total: 103n });
    expect(settlementOn(12_345n, terms({ penaltyPercent: 0n, interestPercentPerMonth: 15_000n }), '2026-12-17')).toMatchObject({ daysLate: 7, interest: 43n, total: 12_388n });
  });

  it('a due date on a weekend or holiday is payable at face value on the next business day', () => {
    // Saturday 2026-11-28 -> Monday 30th at face value; Tuesday is 3 days late.
    const saturday = terms({ dueDate: '2026-11-28', allow: false, dateLimit: null });
    expect(settlementOn(100_000n, saturday, '2026-11-30')).toMatchObject({ ok: true, total: 100_000n });
    expect(settlementOn(100_000n, saturday, '2026-12-01')).toEqual({ ok: false, reason: 'overdue_not_allowed' });
    // Christmas (Friday 2026-12-25) -> Monday 28th.
    expect(settlementOn(100_000n, terms({ dueDate: '2026-12-25' }), '2026-12-28')).toMatchObject({ total: 100_000n });
    expect(settlementOn(100_000n, terms({ dueDate: '2026-12-25' }), '2026-12-29')).toMatchObject({ daysLate: 4, penalty: 2_000n, interest: 133n });
  });

  it('refused when late payment is not allowed, or after the date limit (the limit day itself is accepted)', () => {
    expect(settlementOn(100_000n, terms({ allow: false, dateLimit: null }), '2026-12-11')).toEqual({ ok: false, reason: 'overdue_not_allowed' });
    expect(settlementOn(100_000n, terms(), '2027-01-10')).toMatchObject({ ok: true, daysLate: 31 });
    expect(settlementOn(100_000n, terms(), '2027-01-11')).toEqual({ ok: false, reason: 'past_date_limit' });
  });

  it('a discount applies on or before its date only (the earliest such of up to three), and never with late charges', () => {
    const discounted = terms({ discounts: [{ amountCents: 5_000n, until: '2026-12-05' }] });
    expect(settlementOn(100_000n, discounted, '2026-12-05')).toMatchObject({ discount: 5_000n, total: 95_000n });
    expect(settlementOn(100_000n, discounted, '2026-12-06')).toMatchObject({ discount: 0n, total: 100_000n });
    expect(settlementOn(100_000n, discounted, '2026-12-11')).toMatchObject({ discount: 0n, penalty: 2_000n, total: 102_033n });
    const stepped = terms({ discounts: [{ amountCents: 1_000n, until: '2026-12-10' }, { amountCents: 3_000n, until: '2026-12-01' }, { amountCents: 2_000n, until: '2026-12-05' }] });
    expect(settlementOn(100_000n, stepped, '2026-12-01')).toMatchObject({ discount: 3_000n });
    expect(settlementOn(100_000n, stepped, '2026-12-02')).toMatchObject({ discount: 2_000n });
    expect(settlementOn(100_000n, stepped, '2026-12-10')).toMatchObject({ discount: 1_000n, total: 99_000n });
  });
});

describe('last payable day of a charge with a due date (API Pix validadeAposVencimento examples)', () => {
  it('counts calendar days after the due date moved to a business day, and moves the last day too', () => {
    expect(lastPayableDay('2020-10-20', 4)).toBe('2020-10-26'); // A: Saturday 24th -> Monday
    expect(lastPayableDay('2020-12-25', 4)).toBe('2021-01-04'); // E: holiday due date, holiday last day
    expect(lastPayableDay('2021-08-27', 5)).toBe('2021-09-01'); // F
    expect(lastPayableDay('2021-08-28', 5)).toBe('2021-09-06'); // G: due on a Saturday
    expect(lastPayableDay('2021-08-27', 0)).toBe('2021-08-27');
  });
});
