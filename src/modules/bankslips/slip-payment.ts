import type { Updateable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { BankSlipsTable } from '../../db/schema.js';
import { brasiliaDate } from '../../domain/brasilia.js';
import { businessDayAfter, toIsoDate } from '../../domain/calendar.js';
import type { JobQueue } from '../../jobs/queue.js';
import { BANK_SLIP_VALUE, formatFixed, parseDecimal } from '../../domain/money.js';
import { conflict, invalid, notFound } from '../../domain/errors.js';
import { settlementOn, type OverdueTerms } from '../../domain/late-payment.js';
import { toDetail } from './record-fields.js';
import { earlyDiscounts } from './discounts.js';
import { bankSlipsRepository as repo } from './repository.js';
import { STATUS, type BankSlipRow } from './row.js';
import type { BankSlipDetail } from './schemas.js';
import { overdueKey, type BankSlipDeps } from './deps.js';
import { recordTransition } from './slip-events.js';

export interface PayOptions {
  /** ISO datetime; default now (business time). */
  paidAt?: string;
  /** Reais; must be the amount due on that day. */
  value?: number;
  /**
   * The day the payment counts for; default the UTC day of paidAt. A Pix counts for its
   * Brasília date, the day its cobv was priced for at the PSP.
   */
  paymentDate?: string;
}

const REFUSALS = {
  overdue_not_allowed: 'This bank slip does not accept payment after its due date.',
  past_date_limit: 'The last day this bank slip accepted a late payment has passed.',
} as const;

export function termsOf(slip: BankSlipRow): OverdueTerms {
  return {
    dueDate: slip.due_date,
    allow: slip.overdue_allow === 1,
    dateLimit: slip.overdue_date_limit,
    penaltyPercent: BigInt(slip.overdue_penalty_percent),
    interestPercentPerMonth: BigInt(slip.overdue_interest_percent),
    discounts: earlyDiscounts(slip),
  };
}

/**
 * Sandbox payment (POST /sandbox/bankslips/{id}/pay): the bank tells us the payer paid at
 * `paidAt`. Late payments carry penalty and interest when allowed and are refused (409)
 * otherwise; the amount is credited on the next business day after the payment date.
 */
export async function payBankSlip(ctx: BankSlipDeps, id: string, options: PayOptions): Promise<BankSlipDetail> {
  const now = ctx.clock.now();
  const paid = options.paidAt === undefined ? now : new Date(options.paidAt);
  if (paid.getTime() > now.getTime()) throw invalid('paidAt', `paidAt must not be in the future (now is ${now.toISOString()}).`);
  // The overdue job may move the slip between our read and our write: read again and retry.
  for (let attempt = 0; attempt < 3; attempt++) {
    const slip = await repo.find(ctx.database.db, id);
    if (!slip) throw notFound('Bank slip');
    assertPayable(slip, paid);
    const paymentDate = options.paymentDate ?? toIsoDate(paid);
    const settlement = settlementOn(BigInt(slip.value), termsOf(slip), paymentDate);
    if (!settlement.ok) throw conflict(REFUSALS[settlement.reason]);
    if (options.value !== undefined) {
      const value = parseDecimal(options.value, BANK_SLIP_VALUE);
      if (!value.ok || value.value !== settlement.total) {
        throw invalid('value', `value must be the amount due on ${paymentDate}: ${formatFixed(settlement.total, 2)} (partial or divergent payments are not accepted).`);
      }
    }
    const at = now.toISOString();
    const fields = {
      paid_at: paid.toISOString(),
      payment_date: paymentDate,
      credit_date: businessDayAfter(paymentDate),
      paid_value: Number(settlement.total),
      penalty_received: Number(settlement.penalty),
      interest_received: Number(settlement.interest),
    };
    const moved = await ctx.database.db.transaction().execute((trx) => recordPayment(trx, ctx.queue, slip, fields, at));
    if (moved) return toDetail({ ...slip, ...fields, status_bill: STATUS.paid, updated_at: at });
  }
  throw conflict('The bank slip changed status meanwhile; try again.');
}

/**
 * A bolecode's Pix paid (the PSP reported it): the slip becomes paid with the Pix's date and
 * amount, or, when the bank's return file reported this same payment first (same day, same
 * amount), nothing changes: `same_payment`. Anything else is refused (throws), as a payment of
 * a slip that cannot take it.
 */
export async function payByPix(ctx: BankSlipDeps, id: string, paidAt: string, amountCents: bigint): Promise<'applied' | 'same_payment'> {
  const slip = await repo.find(ctx.database.db, id);
  const paymentDate = brasiliaDate(new Date(paidAt));
  if (slip && slip.status_bill === STATUS.paid && slip.payment_date === paymentDate && BigInt(slip.paid_value ?? -1) === amountCents) return 'same_payment';
  await payBankSlip(ctx, id, { paidAt, value: Number(formatFixed(amountCents, 2)), paymentDate });
  return 'applied';
}

/** Whether a slip can still be paid (its Pix code too): registered, unpaid and not cancelled. */
export async function isPayable(ctx: BankSlipDeps, id: string): Promise<boolean> {
  const slip = await repo.find(ctx.database.db, id);
  return !!slip && (slip.status_bill === STATUS.issued || slip.status_bill === STATUS.overdue) && slip.canceled_at === null;
}

export type PaymentFields = Required<Pick<Updateable<BankSlipsTable>, 'paid_at' | 'payment_date' | 'credit_date' | 'paid_value' | 'penalty_received' | 'interest_received'>>;

/**
 * The one way a slip becomes paid, for the sandbox's pay button and for a bank's return file
 * alike: the same transition, event, BankSlipStatus webhook and credit-date listing. False when
 * the slip was no longer in the status it was read in (a concurrent change won).
 */
export async function recordPayment(trx: Executor, queue: JobQueue, slip: BankSlipRow, fields: PaymentFields, at: string): Promise<boolean> {
  const moved = await recordTransition(trx, queue, slip, slip.status_bill, STATUS.paid, at, fields);
  // A paid slip never becomes overdue: its pending overdue check goes.
  if (moved) await queue.cancel(trx, overdueKey(slip.id));
  return moved;
}

function assertPayable(slip: BankSlipRow, paid: Date): void {
  if (slip.status_bill === STATUS.processing) throw conflict('The bank slip is not registered yet (statusBill 1); registration follows within a moment.');
  if (slip.status_bill === STATUS.paid) throw conflict('The bank slip is already paid.');
  if (slip.status_bill === STATUS.failed) throw conflict('The bank slip failed registration (statusBill 99) and cannot be paid.');
  if (slip.canceled_at !== null) throw conflict(`The bank slip was cancelled (${slip.cancellation_reason ?? 'no reason given'}) and cannot be paid.`);
  if (paid.getTime() < Date.parse(slip.registered_at!)) {
    throw invalid('paidAt', `paidAt must not be before the bank slip was registered (${slip.registered_at}).`);
  }
}
