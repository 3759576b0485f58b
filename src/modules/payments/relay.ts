import type { Executor } from '../../db/connection.js';
import { recordPaymentChanges } from '../webhooks/outbox.js';
import type { PaymentDeps } from './deps.js';
import { paymentsRepository, type PaymentEventRow, type PaymentRow } from './repository.js';

/** What the relay writes through: the database, the webhooks' queue, settlement, the stored cards. */
export type RelayDeps = Pick<PaymentDeps, 'database' | 'queue' | 'settlement' | 'cards'>;

/** Events relayed per transaction: a second of sales at the target rate, in one commit. */
export const RELAY_BATCH = 500;

/**
 * The payments relay: what follows a payment's event (its webhook and callback notifications,
 * the receivables of a sale) is made from `payment_events` rows still marked `relayed = 0`, in
 * batches, instead of on the payment path. The payment path writes the payment and its event
 * only; a batch claims events (PostgreSQL skips those another instance holds), reads their
 * payments, and writes everything that follows in one transaction, so a reader sees a sale with
 * all of its effects or none. A later change of a payment (a refund, a dispute, a cancel) relays
 * that payment's pending events first, in its own transaction: it always finds its receivables,
 * and its notifications follow the sale's.
 */
export async function relayEvents(trx: Executor, ctx: RelayDeps, options: { limit: number; paymentIds?: string[] }): Promise<number> {
  const events = await paymentsRepository.claimUnrelayed(trx, ctx.database.dialect, options.limit, options.paymentIds);
  if (events.length === 0) return 0;
  const payments = new Map((await paymentsRepository.findAll(trx, [...new Set(events.map((e) => e.payment_id))])).map((p) => [p.payment_id, p]));
  // A payment removed since (a sandbox reset) leaves nothing to relay.
  const relayed = events.filter((e) => payments.has(e.payment_id));
  await recordPaymentChanges(
    trx,
    ctx.queue,
    relayed.map((e) => ({ payment: payments.get(e.payment_id)!, oldStatus: e.old_status, newStatus: e.new_status, at: e.occurred_at })),
  );
  const sales = relayed.filter(isSale).map((e) => ({ ...payments.get(e.payment_id)!, status: e.new_status }) satisfies PaymentRow);
  if (sales.length > 0) await ctx.settlement.onPaymentsAuthorized(trx, sales);
  // A stored card's first approved charge gives it the network's reference for later merchant-initiated ones.
  const references = new Map(sales.filter((p) => p.vault_id && p.network_reference).reverse().map((p) => [p.vault_id!, p.network_reference!]));
  if (references.size > 0) await ctx.cards.keepNetworkReferences(trx, references);
  return events.length;
}

/** A sale the acquirer approved: it has receivables (Blocked ones held until the review). */
const isSale = (e: PaymentEventRow): e is PaymentEventRow & { new_status: 'Authorized' | 'Blocked' } => e.old_status === '' && (e.new_status === 'Authorized' || e.new_status === 'Blocked');

/** In the caller's transaction, before it changes these payments: their events not relayed yet. */
export async function relayPending(trx: Executor, ctx: RelayDeps, paymentIds: string[]): Promise<void> {
  await relayEvents(trx, ctx, { limit: RELAY_BATCH, paymentIds });
}

/** One batch in a transaction of its own; answers how many events it relayed. */
export function relayBatch(ctx: RelayDeps): Promise<number> {
  return ctx.database.db.transaction().execute((trx) => relayEvents(trx, ctx, { limit: RELAY_BATCH }));
}
