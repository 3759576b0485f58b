import { daysBetween } from '../../domain/calendar.js';
import type { BankSlipRow } from './row.js';
import { earlyDiscounts } from './discounts.js';

/**
 * What the Pix module needs to make a slip's Pix code (a charge with a due date): the amount,
 * the due date, how many days after it the slip may still be paid (up to its late-payment
 * limit, when late payment is allowed), and the payer.
 */
export function dueChargeOf(slip: BankSlipRow, merchantName: string, merchantCity: string) {
  const late = slip.overdue_allow === 1;
  const daysAfterDue = slip.overdue_allow === 1 && slip.overdue_date_limit ? Math.max(daysBetween(slip.due_date, slip.overdue_date_limit), 0) : 0;
  return {
    sourceId: slip.id,
    merchantId: slip.merchant_id,
    merchantName,
    merchantCity,
    amountCents: BigInt(slip.value),
    dueDate: slip.due_date,
    daysAfterDue,
    payer: { document: slip.payer_document, name: slip.payer_name },
    penaltyPercent: late ? BigInt(slip.overdue_penalty_percent) : 0n,
    interestPercentPerMonth: late ? BigInt(slip.overdue_interest_percent) : 0n,
    discounts: earlyDiscounts(slip),
  };
}
