import { isIsoDate } from '../../domain/calendar.js';
import type { EarlyDiscount } from '../../domain/late-payment.js';
import { BANK_SLIP_VALUE, formatFixed, parseDecimal, percentOf, toJsonNumber, type DecimalSpec } from '../../domain/money.js';
import type { BankSlipRow } from './row.js';

/** A discount percent as FEBRABAN's 13,2 field (and the API Pix's valorPerc) carries it. */
const DISCOUNT_PERCENT: DecimalSpec = { integerDigits: 2, decimals: 2, min: 1n, max: 9_999n };
/** FEBRABAN carries three discounts: one in segment P, two in segment R. */
export const MAX_DISCOUNTS = 3;

export interface DiscountBody {
  type: 'fixed' | 'percent';
  value: number;
  until: string;
}

/** A slip's discount as stored: `value` in cents (fixed) or hundredths of a percent (percent). */
export interface SlipDiscount {
  type: 'fixed' | 'percent';
  value: bigint;
  until: string;
  amountCents: bigint;
}

/**
 * The issue body's `discount` (one, or a list of up to three), checked against the slip: a
 * fixed value in reais or a percent, each less than the value, until a date from today to the
 * due date, the dates distinct. Problems go to `problem` with their field path.
 */
export function parseDiscounts(input: DiscountBody | DiscountBody[] | undefined, slip: { valueCents: bigint | null; dueDate: string; today: string }, problem: (tag: string, description: string) => void): SlipDiscount[] {
  if (input === undefined) return [];
  const list = Array.isArray(input) ? input : [input];
  const path = (i: number, field: string) => (Array.isArray(input) ? `discount[${i}].${field}` : `discount.${field}`);
  if (list.length > MAX_DISCOUNTS) problem('discount', `At most ${MAX_DISCOUNTS} discounts (FEBRABAN's segments P and R carry three).`);
  const discounts: SlipDiscount[] = [];
  list.forEach((d, i) => {
    const parsed = parseDecimal(d.value, d.type === 'fixed' ? BANK_SLIP_VALUE : DISCOUNT_PERCENT);
    if (!parsed.ok) {
      problem(path(i, 'value'), d.type === 'fixed' ? 'A fixed discount is in reais, above 0 with at most 2 decimals.' : 'A percent discount is above 0 and below 100, with at most 2 decimals.');
      return;
    }
    if (!isIsoDate(d.until)) return problem(path(i, 'until'), 'until must be a date YYYY-MM-DD.');
    if (d.until < slip.today || (isIsoDate(slip.dueDate) && d.until > slip.dueDate)) return problem(path(i, 'until'), `until must be from today (${slip.today}) to the due date.`);
    if (discounts.some((other) => other.until === d.until)) return problem(path(i, 'until'), 'Each discount needs its own date.');
    const amountCents = d.type === 'fixed' ? parsed.value : slip.valueCents === null ? 0n : percentOf(slip.valueCents, parsed.value, 2);
    if (slip.valueCents !== null && (amountCents >= slip.valueCents || amountCents < 1n)) return problem(path(i, 'value'), 'A discount must take at least a cent and leave something to pay.');
    discounts.push({ type: d.type, value: parsed.value, until: d.until, amountCents });
  });
  return discounts.sort((a, b) => (a.until < b.until ? -1 : 1));
}

export const discountsJson = (discounts: readonly SlipDiscount[]): string =>
  JSON.stringify(discounts.map((d) => ({ type: d.type, value: String(d.value), until: d.until, amountCents: String(d.amountCents) })));

/** A slip's discounts, by date. */
export function slipDiscounts(slip: Pick<BankSlipRow, 'discounts'>): SlipDiscount[] {
  return (JSON.parse(slip.discounts) as { type: SlipDiscount['type']; value: string; until: string; amountCents: string }[]).map((d) => ({
    type: d.type,
    value: BigInt(d.value),
    until: d.until,
    amountCents: BigInt(d.amountCents),
  }));
}

/** What the amount-due rule takes (domain/late-payment.ts). */
export const earlyDiscounts = (slip: Pick<BankSlipRow, 'discounts'>): EarlyDiscount[] => slipDiscounts(slip).map(({ amountCents, until }) => ({ amountCents, until }));

/** The detail's `discount`: type, value as sent (reais or percent), until, and the reais it takes off. */
export const discountView = (slip: Pick<BankSlipRow, 'discounts'>) =>
  slipDiscounts(slip).map((d) => ({ type: d.type, value: toJsonNumber(d.value, 2), until: d.until, amount: toJsonNumber(d.amountCents, 2) }));

/** "R$ 5,00 até 01/12/2026" for the printed instructions. */
export function discountLine(d: SlipDiscount, brMoney: (cents: number) => string, brDate: (date: string) => string): string {
  const what = d.type === 'fixed' ? brMoney(Number(d.value)) : `${formatFixed(d.value, 2).replace('.', ',')}% (${brMoney(Number(d.amountCents))})`;
  return `Desconto de ${what} para pagamento até ${brDate(d.until)}.`;
}
