/**
 * What a payer is charged for paying a payment link in n installments (contract section 7:
 * interest-free up to `qttyInstallmentsIntFree`, then `installmentsFee`).
 *
 * Formula: `installmentsFee` is a monthly compound interest rate, and beyond the interest-free
 * count the installment is the Price table (French amortisation, "Tabela Price") payment
 *
 *   PMT = PV * i / (1 - (1 + i)^-n)
 *
 * rounded half-up to the cent; the total charged is n * PMT, so every installment is equal
 * (conciliation splits the amount in n equal parts). Up to the interest-free count the total
 * is the value itself, split with the leftover cents on installment 1 (contract section 9).
 *
 * Exact: with the fee scaled by 10^4 (percent) the rate is fee / 10^6, so with A = 10^6 + fee
 * and B = 10^6, PMT = PV * fee * A^n / (B * (A^n - B^n)), an integer fraction rounded once.
 */
import { mulDivHalfUp, splitInstallments, type DecimalSpec } from './money.js';

export const MAX_INSTALLMENTS = 12;
/** A link's value: > 0, cents (what a card charges), within the 10-digit payment amount. */
export const LINK_VALUE: DecimalSpec = { integerDigits: 8, decimals: 2, min: 1n, max: 9_999_999_999n };
/** installmentsFee: percent a month, up to 4 decimals, 0 to 100 (1.99 % = 19900n). */
export const INSTALLMENTS_FEE: DecimalSpec = { integerDigits: 3, decimals: 4, max: 1_000_000n };
const FEE_SCALE = 1_000_000n; // 100 (percent) * 10^4 (decimals)

export interface InstallmentPlan {
  count: number;
  interestFree: boolean;
  /** Each installment in cents; interest-free plans may put leftover cents on the first. */
  installments: bigint[];
  /** The amount charged, cents. */
  total: bigint;
}

/** The Price-table installment in cents for `valueCents` at `fee` (scaled 10^4 percent a month). */
export function priceInstallment(valueCents: bigint, fee: bigint, count: number): bigint {
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be an integer >= 1');
  if (fee <= 0n) throw new RangeError('fee must be > 0 (a zero fee is interest-free)');
  const a = (FEE_SCALE + fee) ** BigInt(count);
  const b = FEE_SCALE ** BigInt(count);
  return mulDivHalfUp(valueCents, fee * a, FEE_SCALE * (a - b));
}

export function installmentPlan(valueCents: bigint, count: number, interestFreeUpTo: number, fee: bigint): InstallmentPlan {
  if (count <= interestFreeUpTo || fee === 0n) {
    return { count, interestFree: true, installments: splitInstallments(valueCents, count), total: valueCents };
  }
  const each = priceInstallment(valueCents, fee, count);
  return { count, interestFree: false, installments: Array.from({ length: count }, () => each), total: each * BigInt(count) };
}
