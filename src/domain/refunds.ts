/**
 * What a card refund does to a sale's receivables (contract section 9 units: 10,4 values are
 * integer ten-thousandths of a real, percents scaled by 10^4, amounts of the API in cents).
 *
 * - The refunded amount is taken from the installments not yet received, in proportion to
 *   their values (`prorate`); whatever they cannot cover (installments already paid to the
 *   merchant) becomes a debit against the merchant's next receivables (`debitOf`).
 * - The MDR of the refunded part is given back: an installment's MDR is recomputed on its new
 *   value with the sale's rate, exactly as it was computed on the old one. The transaction and
 *   anti-fraud fees stay as they were; as at the sale, a net below zero counts as zero.
 * - A prepayment discount already taken shrinks with the net it was taken on.
 * - Splits need nothing here: their amounts are computed on read from these values.
 */
import { mulDivHalfUp } from './money.js';

const PERCENT_SCALE = 1_000_000n; // 100 % with 4 decimals

/**
 * Spreads `amount` over `values` in proportion to each (integers, one unit). Each share is at
 * most its value; when `amount` covers them all, the shares are the values (the caller debits
 * the rest). Otherwise each share is the floor of its exact part and the units left go one each
 * to the largest remainders, ties to the earlier value: the shares always add up to `amount`.
 */
export function prorate(amount: bigint, values: readonly bigint[]): bigint[] {
  if (amount < 0n || values.some((v) => v < 0n)) throw new RangeError('prorate takes non-negative integers');
  const total = values.reduce((sum, v) => sum + v, 0n);
  if (amount >= total) return [...values];
  const shares = values.map((v) => (amount * v) / total);
  let left = amount - shares.reduce((sum, s) => sum + s, 0n);
  const order = values
    .map((v, i) => ({ i, remainder: (amount * v) % total }))
    .filter((r) => r.remainder > 0n)
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of order) {
    if (left === 0n) break;
    shares[i] += 1n;
    left -= 1n;
  }
  return shares;
}

/** The 10,4 figures of an open installment that a refund changes, and the fees it keeps. */
export interface OpenInstallment {
  installmentValue: bigint;
  mdrValue: bigint;
  /** The sale's MDR percent, scaled by 10^4 (2.99 % = 29900n). */
  mdrRate: bigint;
  trnFee: bigint;
  antifraudFee: bigint;
  prepaymentValue: bigint;
}

export interface ReducedInstallment {
  installmentValue: bigint;
  mdrValue: bigint;
  prepaymentValue: bigint;
  receivedValue: bigint;
}

const netOf = (value: bigint, mdr: bigint, trn: bigint, af: bigint) => {
  const net = value - mdr - trn - af;
  return net > 0n ? net : 0n;
};

/** An open installment after `share` (10,4) of it was refunded. */
export function reduceInstallment(i: OpenInstallment, share: bigint): ReducedInstallment {
  if (share < 0n || share > i.installmentValue) throw new RangeError('a share is between 0 and the installment value');
  const installmentValue = i.installmentValue - share;
  const mdrValue = mulDivHalfUp(installmentValue, i.mdrRate, PERCENT_SCALE);
  const oldNet = netOf(i.installmentValue, i.mdrValue, i.trnFee, i.antifraudFee);
  const net = netOf(installmentValue, mdrValue, i.trnFee, i.antifraudFee);
  const prepaymentValue = i.prepaymentValue === 0n || oldNet === 0n ? 0n : mulDivHalfUp(i.prepaymentValue, net, oldNet);
  return { installmentValue, mdrValue, prepaymentValue, receivedValue: net - prepaymentValue };
}

/**
 * The debit of `gross` (10,4) refunded beyond the open installments: the merchant gives back
 * the amount less its MDR (returned), so every figure is negative; no fee is involved.
 */
export function debitOf(gross: bigint, mdrRate: bigint): { installmentValue: bigint; mdrValue: bigint; receivedValue: bigint } {
  if (gross <= 0n) throw new RangeError('a debit is of a positive amount');
  const mdr = mulDivHalfUp(gross, mdrRate, PERCENT_SCALE);
  return { installmentValue: -gross, mdrValue: -mdr, receivedValue: -(gross - mdr) };
}

/**
 * The debit of a chargeback of `gross` (10,4): the cardholder gets the whole disputed amount
 * back and no MDR or fee is returned (the card networks keep theirs). `forgone` is what the
 * merchant no longer receives of the sale (its open installments, cancelled with it): that part
 * is taken by not paying them, the rest is debited. Null when nothing is left to debit.
 */
export function chargebackDebitOf(gross: bigint, forgone: bigint): { installmentValue: bigint; mdrValue: bigint; receivedValue: bigint } | null {
  if (gross <= 0n || forgone < 0n) throw new RangeError('a chargeback is of a positive amount, less what is forgone');
  const debit = gross - forgone;
  return debit > 0n ? { installmentValue: -debit, mdrValue: 0n, receivedValue: -debit } : null;
}
