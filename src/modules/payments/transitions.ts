import type { Executor } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import { recordPaymentChange } from '../webhooks/outbox.js';
import { paymentsRepository, type PaymentSubject, type TransitionFields } from './repository.js';

/**
 * A payment's status changes, each with its event row and its notifications, always in the
 * caller's transaction: the change, its event and its webhooks commit together or not at all.
 * The payments service (PaymentService, Authorizations) is the only writer of payment_events.
 */

/**
 * Moves a payment from `from` to `to` and records the change. Answers false when the payment
 * was no longer in `from` (a concurrent change won): no event is written for a change not made.
 */
export async function recordTransition(
  trx: Executor,
  queue: JobQueue,
  paymentId: string,
  from: string,
  to: string,
  at: string,
  fields: TransitionFields = {},
): Promise<boolean> {
  const moved = await paymentsRepository.transition(trx, paymentId, from, to, at, fields);
  if (!moved) return false;
  // Pending is internal (the acquirer has not answered yet): the event of a new payment reads '' -> status.
  await recordEvent(trx, queue, moved, from === 'Pending' ? '' : from, to, at);
  return true;
}

/** The event row of a status change, and the webhook and callback notifications it makes. */
export async function recordEvent(trx: Executor, queue: JobQueue, payment: PaymentSubject, oldStatus: string, newStatus: string, at: string): Promise<void> {
  await paymentsRepository.insertEvent(trx, {
    payment_id: payment.payment_id,
    merchant_id: payment.merchant_id,
    account_number: payment.account_number,
    old_status: oldStatus,
    new_status: newStatus,
    occurred_at: at,
  });
  await recordPaymentChange(trx, queue, payment, oldStatus, newStatus, at);
}
