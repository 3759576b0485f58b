/**
 * Merchant pricing (contract section 9) and the fee arithmetic a payment needs at
 * authorization time. Percents are scaled integers with 4 decimals (2.99% = 29900n), money in
 * cents; rounding is half-up (`mulDivHalfUp`).
 */
import { mulDivHalfUp } from './money.js';

export interface Pricing {
  mdr: { credit1x: bigint; credit2to6: bigint; credit7to12: bigint; pix: bigint };
  /** Cents per transaction. */
  transactionFee: bigint;
  antifraudFee: bigint;
  prepayment: { monthlyRate: bigint; automatic: boolean };
}

/** The contract's defaults: MDR 2.99 / 3.49 / 3.99 / Pix 0.99 %, R$ 0.10 + R$ 0.15 per transaction, 1.99 % a month. */
export const DEFAULT_PRICING: Pricing = {
  mdr: { credit1x: 29900n, credit2to6: 34900n, credit7to12: 39900n, pix: 9900n },
  transactionFee: 10n,
  antifraudFee: 15n,
  prepayment: { monthlyRate: 19900n, automatic: false },
};

const PERCENT_SCALE = 1_000_000n; // 100 % with 4 decimals

/** MDR band by installment count: 1x, 2-6x, 7-12x. */
export function creditMdr(pricing: Pricing, installments: number): bigint {
  if (installments <= 1) return pricing.mdr.credit1x;
  return installments <= 6 ? pricing.mdr.credit2to6 : pricing.mdr.credit7to12;
}

/** What the merchant nets from a card sale in cents: amount - MDR - transaction and anti-fraud fees. */
export function creditNetCents(pricing: Pricing, amountCents: bigint, installments: number): bigint {
  const mdr = mulDivHalfUp(amountCents, creditMdr(pricing, installments), PERCENT_SCALE);
  const net = amountCents - mdr - pricing.transactionFee - pricing.antifraudFee;
  return net > 0n ? net : 0n;
}

/** A split share in cents: base x percent (2 decimals, 33.33 % = 3333n) / 100, half-up. */
export function splitShareCents(baseCents: bigint, percentHundredths: bigint): bigint {
  return mulDivHalfUp(baseCents, percentHundredths, 10_000n);
}
