/**
 * Merchant pricing (contract section 9) and the fee arithmetic a payment needs at
 * authorization time. Percents are scaled integers with 4 decimals (2.99% = 29900n), money in
 * cents; rounding is half-up (`mulDivHalfUp`).
 */
import { mulDivHalfUp, prorataInterest, splitInstallments } from './money.js';

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
  const rate = creditMdr(pricing, installments);
  const mdr = mulDivHalfUp(amountCents, rate, PERCENT_SCALE);
  const net = amountCents - mdr - pricing.transactionFee - pricing.antifraudFee;
  return net > 0n ? net : 0n;
}

/*
 * Per-installment conciliation arithmetic (contract section 9) in the 10,4 unit of the seed:
 * integer ten-thousandths of a real (R$ 1.4950 = 14950n). Percents keep their 4-decimal scale,
 * which is also the 10,4 field's (2.99% is written 2.9900).
 */

/** Cents to ten-thousandths of a real (exact). */
export const centsTo4 = (cents: bigint): bigint => cents * 100n;

export interface InstallmentAmounts {
  installmentValue: bigint;
  mdrValue: bigint;
  trnFee: bigint;
  antifraudFee: bigint;
  /** installmentValue - MDR - fees, never below 0 (a 1-cent sale cannot pay R$ 0.25 of fees). */
  net: bigint;
}

/**
 * Splits a sale into installments: value = amount / n with the leftover cents on installment 1;
 * MDR = value x rate, half-up to 4 decimals, on each installment; each per-transaction fee is
 * spread in ten-thousandths with the leftover on installment 1 (R$ 0.10 in 3 = 0.0334 + 0.0333 + 0.0333).
 */
export function installmentAmounts(amountCents: bigint, n: number, mdrPercent: bigint, trnFeeCents: bigint, antifraudFeeCents: bigint): InstallmentAmounts[] {
  const values = splitInstallments(amountCents, n).map(centsTo4);
  const trn = splitInstallments(centsTo4(trnFeeCents), n);
  const af = splitInstallments(centsTo4(antifraudFeeCents), n);
  return values.map((installmentValue, i) => {
    const mdrValue = mulDivHalfUp(installmentValue, mdrPercent, PERCENT_SCALE);
    const net = installmentValue - mdrValue - trn[i] - af[i];
    return { installmentValue, mdrValue, trnFee: trn[i], antifraudFee: af[i], net: net > 0n ? net : 0n };
  });
}

/**
 * Prepayment cost of one installment: net x (monthlyRate / 30) x days, half-up to 4 decimals
 * (brazil-standards.md: R$ 48.00 at 2.5% a month, 30 days early -> R$ 1.20).
 */
export function prepaymentCost(net: bigint, monthlyRate: bigint, days: number): bigint {
  return days > 0 ? prorataInterest(net, monthlyRate, 4, days) : 0n;
}
