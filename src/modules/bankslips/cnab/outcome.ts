import type { Updateable } from 'kysely';
import type { BankSlipsTable } from '../../../db/schema.js';
import { businessDayAfter, nextBusinessDay } from '../../../domain/calendar.js';
import type { ReturnItem } from '../../../domain/cnab240-return.js';
import { formatFixed, percentOf } from '../../../domain/money.js';
import { PERCENT_DECIMALS } from '../../../domain/late-payment.js';
import type { PaymentFields } from '../slip-payment.js';
import { INTEGRATION, STATUS, type BankSlipRow } from '../row.js';
import { describeReasons, REJECTION_REASONS, RETURN_MOVEMENTS, WRITE_OFF_REASONS } from './codes.js';

/**
 * What one return record does to its slip, decided from the slip as it is now, so that the
 * same file imported twice finds every slip already in the state the file describes
 * (`unchanged`) and changes nothing. A record that contradicts the slip (a second, different
 * payment; a rejection of a paid slip) is `rejected` with the reason, and the operator takes it
 * up with the bank: the gateway never overwrites a payment it recorded.
 */
export type Outcome =
  | { kind: 'unchanged' }
  | { kind: 'rejected'; description: string }
  | { kind: 'registered'; fields: Updateable<BankSlipsTable> }
  | { kind: 'bank_rejected'; fields: Updateable<BankSlipsTable> }
  | { kind: 'paid'; fields: PaymentFields }
  | { kind: 'written_off'; fields: Updateable<BankSlipsTable> };

const money = (cents: bigint | number) => formatFixed(BigInt(cents), 2);
const dayStart = (date: string) => `${date}T00:00:00.000Z`;

/** Problems that make the file unusable (checked for every record before anything is applied). */
export function recordProblem(item: ReturnItem, slip: BankSlipRow | undefined): string | null {
  if (!slip) return `unknown nosso número ${item.ourNumber}: no bank slip of this gateway has it`;
  if (BigInt(slip.value) !== item.valueCents) return `the slip value ${money(item.valueCents)} (positions 82-96) differs from bank slip ${slip.our_number}'s ${money(slip.value)}`;
  if (RETURN_MOVEMENTS[item.movement] === 'paid') {
    if (item.occurrenceDate === null) return 'a payment (movement 06/17) without its payment date (segment U, positions 138-145)';
    if (item.paidCents <= 0n) return `a payment (movement ${item.movement}) of ${money(item.paidCents)}: the paid value (segment U, positions 78-92) must be more than zero`;
  }
  return null;
}

export function outcomeOf(item: ReturnItem, slip: BankSlipRow, today: string): Outcome {
  switch (RETURN_MOVEMENTS[item.movement]) {
    case 'registered':
      if (slip.status_integration === INTEGRATION.registered) return { kind: 'unchanged' };
      if (slip.status_integration === INTEGRATION.processing && slip.bar_code !== null) return { kind: 'registered', fields: { status_integration: INTEGRATION.registered } };
      return { kind: 'rejected', description: `the bank confirms bank slip ${slip.our_number}, which is in statusIntegration ${slip.status_integration}` };
    case 'rejected': {
      if (slip.status_integration === INTEGRATION.rejected) return { kind: 'unchanged' };
      if (slip.status_bill !== STATUS.issued && slip.status_bill !== STATUS.overdue) {
        return { kind: 'rejected', description: `the bank rejects bank slip ${slip.our_number}, which is in statusBill ${slip.status_bill}` };
      }
      const reason = `Rejected by the bank: ${describeReasons(item.reasons, REJECTION_REASONS)}`;
      // statusIntegration 9 "rejected", statusBill 99 "failed": the slip cannot be paid.
      return { kind: 'bank_rejected', fields: { status_integration: INTEGRATION.rejected, failure_reason: reason } };
    }
    case 'paid':
      return paidOutcome(item, slip);
    case 'written_off': {
      if (slip.canceled_by === 'bank') return { kind: 'unchanged' };
      if (slip.status_bill !== STATUS.issued && slip.status_bill !== STATUS.overdue) {
        return { kind: 'rejected', description: `the bank writes off bank slip ${slip.our_number}, which is in statusBill ${slip.status_bill}` };
      }
      if (slip.canceled_by === 'merchant') return { kind: 'unchanged' };
      return {
        kind: 'written_off',
        fields: { canceled_at: dayStart(item.occurrenceDate ?? today), cancellation_reason: `Written off by the bank: ${describeReasons(item.reasons, WRITE_OFF_REASONS)}`, canceled_by: 'bank' },
      };
    }
    default:
      // Fees, protest steps, due-date changes confirmed: news, not a change of the slip.
      return { kind: 'unchanged' };
  }
}

/**
 * A payment as the bank reports it: the amount the payer paid (a partial payment too: the money
 * arrived, and effectivePaymentValue below value shows the shortfall), on the bank's payment
 * and credit dates. FEBRABAN reports penalty and interest as one amount; it is split as the
 * slip's terms say: the penalty first (at most the slip's penalty when late), the rest interest.
 */
function paidOutcome(item: ReturnItem, slip: BankSlipRow): Outcome {
  const paymentDate = item.occurrenceDate!;
  if (slip.status_bill === STATUS.paid) {
    if (slip.payment_date === paymentDate && BigInt(slip.paid_value ?? -1) === item.paidCents) return { kind: 'unchanged' };
    return {
      kind: 'rejected',
      description: `bank slip ${slip.our_number} is already paid (${money(slip.paid_value ?? 0)} on ${slip.payment_date}); the file reports ${money(item.paidCents)} on ${paymentDate}`,
    };
  }
  if (slip.status_bill !== STATUS.issued && slip.status_bill !== STATUS.overdue) {
    return { kind: 'rejected', description: `a payment of ${money(item.paidCents)} for bank slip ${slip.our_number}, which is in statusBill ${slip.status_bill}` };
  }
  const late = paymentDate > nextBusinessDay(slip.due_date);
  const maxPenalty = late ? percentOf(BigInt(slip.value), BigInt(slip.overdue_penalty_percent), PERCENT_DECIMALS) : 0n;
  const penalty = item.chargesCents < maxPenalty ? item.chargesCents : maxPenalty;
  return {
    kind: 'paid',
    fields: {
      paid_at: dayStart(paymentDate),
      payment_date: paymentDate,
      credit_date: item.creditDate ?? businessDayAfter(paymentDate),
      paid_value: Number(item.paidCents),
      penalty_received: Number(penalty),
      interest_received: Number(item.chargesCents - penalty),
    },
  };
}
