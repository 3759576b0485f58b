/**
 * Split shares (contract section 6 `configSplit`, section 9 conciliation `splits`): the one
 * home of the rule. A share is base x percent / 100, the percent with 2 decimals (12.5 % =
 * 1250n), rounded half-up (half away from zero) in the base's own unit; the base is the gross
 * value for `bruto` and the merchant's net for `liquido` (brazil-standards.md, "Settlement
 * conventions").
 *
 * The rule is applied at two granularities whose answers are not meant to add up:
 * - a payment (`saleSplitBases`): on the whole sale, in cents; net = amount - MDR (rounded to
 *   the cent on the whole amount) - transaction and anti-fraud fees, never below 0, under the
 *   merchant's pricing at the moment of the sale. This is the `splits[].amount` integrators see.
 * - a conciliation installment: per installment, in ten-thousandths (10,4); gross is the
 *   installment value and net its received value, so MDR is rounded per installment to 4
 *   decimals and a prepayment discount lowers the liquido base.
 * R$ 100.00 in 3 at 3.49 %, liquido 12.5 %: the payment says R$ 12.03 (12.5 % of 96.26 =
 * 12.0325), the three installments 4.0116 + 4.0104 + 4.0104 = 12.0324 (test/domain/split.test.ts).
 */
import { creditNetCents, type Pricing } from './fees.js';
import { percentOf } from './money.js';

export type SplitType = 'bruto' | 'liquido';

/** The two bases a split may take, in one unit (cents for a sale, 10,4 for an installment). */
export interface SplitBases {
  gross: bigint;
  net: bigint;
}

/** A share in the base's unit: base x percent (2 decimals, 33.33 % = 3333n) / 100, half-up. */
export function splitShare(base: bigint, percentHundredths: bigint): bigint {
  return percentOf(base, percentHundredths, 2);
}

/** bruto splits the gross value, liquido the net. */
export function splitBase(type: SplitType, bases: SplitBases): bigint {
  return type === 'bruto' ? bases.gross : bases.net;
}

/** The bases of a card sale in cents: the amount, and what the merchant nets from it. */
export function saleSplitBases(pricing: Pricing, amountCents: bigint, installments: number): SplitBases {
  return { gross: amountCents, net: creditNetCents(pricing, amountCents, installments) };
}

/** A split of a sale as the request gives it: its base's type and its percent (2 decimals, 33.33 % = 3333n). */
export interface SaleSplit {
  type: SplitType;
  percent: bigint;
}

/**
 * The shares of a card sale's splits in cents, in the order given: each is `splitShare` of its
 * base, the gross amount (bruto) or what the merchant nets after MDR and fees under `pricing`
 * (liquido), written out here so that the sale's rule reads in one place.
 */
export function saleSplitShares(splits: readonly SaleSplit[], amountCents: bigint, installments: number, pricing: Pricing): bigint[] {
  const net = creditNetCents(pricing, amountCents, installments);
  return splits.map((s) => percentOf(s.type === 'bruto' ? amountCents : net, s.percent, 2));
}
