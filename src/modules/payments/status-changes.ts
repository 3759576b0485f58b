import type { Executor } from '../../db/connection.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import { recordPaymentChange } from '../webhooks/outbox.js';
import { relayPending, type RelayDeps } from './relay.js';
import { paymentsRepository, type TransitionFields } from './repository.js';

/**
 * A payment's status changes after its outcome, each with its event row and its notifications,
 * always in the caller's transaction: the change, its event and its webhooks commit together or
 * not at all. The payment path's own events (a new payment's outcome) are written by
 * `paymentsRepository.recordOutcomes` and `insertSettled` and made effective by the relay
 * (./relay.ts); a change here first relays what the payment still has pending, so it finds its
 * receivables and its notifications come after the sale's. The payments service is the only
 * writer of payment_events.
 */

/**
 * Moves a payment from `from` to `to` and records the change. Answers false when the payment
 * was no longer in `from` (a concurrent change won): no event is written for a change not made.
 */
export async function recordTransition(
  trx: Executor,
  ctx: RelayDeps,
  paymentId: string,
  from: PaymentStatus,
  to: PaymentStatus,
  at: string,
  fields: TransitionFields = {},
): Promise<boolean> {
  await relayPending(trx, ctx, [paymentId]);
  const moved = await paymentsRepository.transition(trx, paymentId, from, to, at, fields);
  if (!moved) return false;
  await paymentsRepository.insertEvent(trx, {
    payment_id: moved.payment_id,
    merchant_id: moved.merchant_id,
    account_number: moved.account_number,
    old_status: from,
    new_status: to,
    occurred_at: at,
  });
  await recordPaymentChange(trx, ctx.queue, moved, from, to, at);
  return true;
}
