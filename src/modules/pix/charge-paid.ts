import type { Selectable, Transaction } from 'kysely';
import type { DB, PixChargesTable } from '../../db/schema.js';
import { conflict } from '../../domain/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { SettlementService } from '../settlement/service.js';
import type { EventType } from '../webhooks/event-types.js';
import { recordNotifications, type BusinessEvent } from '../webhooks/outbox.js';
import { assertTransition, sourcesOf } from '../../domain/lifecycles.js';

/** The states a Pix charge expires from (the Pix charges table): its expiry's guard. */
export const EXPIRABLE = sourcesOf('pixCharges', 'Expired');

/** A Pix charge's catalogue event (docs/events.md); amount in cents. */
export function pixChargeEvent(row: Pick<PixChargesTable, 'id' | 'merchant_id' | 'account_number' | 'amount'>, type: EventType, at: string, extra: Record<string, unknown> = {}): BusinessEvent {
  return { merchantId: row.merchant_id, accountNumber: Number(row.account_number), type, at, data: { chargeId: row.id, amount: Number(row.amount), ...extra } };
}

/**
 * A charge becomes Paid at `at`, in the caller's transaction, from the status it was read in
 * (Pending, or Expired when the PSP reports a payment that arrived late): its webhook
 * notification and its D+0 receivable follow, whether the payment was played in the sandbox or
 * reported by a PSP; `paidCents` is what the payer paid (a charge with a due date: its day's
 * amount), the sale's amount. A concurrent change of status is a conflict (the transaction rolls back);
 * a move the Pix charges table does not have (a Paid charge paid again) is IllegalTransition.
 */
export async function settleCharge(trx: Transaction<DB>, deps: { queue: JobQueue; settlement: SettlementService }, row: Selectable<PixChargesTable>, at: string, paidCents: bigint = BigInt(row.amount)): Promise<void> {
  assertTransition('pixCharges', row.status, 'Paid');
  const moved = await trx.updateTable('pix_charges').set({ status: 'Paid', paid_at: at, paid_amount: Number(paidCents) }).where('id', '=', row.id).where('status', '=', row.status).executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw conflict('The charge changed status meanwhile.');
  // A Pix sale is new and complete at once: "" -> Paid. Its installment's own notification
  // (received the same day) follows from the settlement below.
  await recordNotifications(trx, deps.queue, [
    { merchantId: row.merchant_id, accountNumber: Number(row.account_number), type: 'TransactionStatus', nsu: row.nsu, codAuth: row.cod_auth, installmentNumber: 0, oldValue: '', newValue: 'Paid', at },
  ], [], [pixChargeEvent(row, 'pix_charge.paid', at, { oldStatus: row.status, nsu: row.nsu, paidAt: at, paidAmount: Number(paidCents), referenceTransaction: row.reference_transaction })]);
  await deps.settlement.recordSale(trx, {
    sourceType: 'pix',
    sourceId: row.id,
    merchantId: row.merchant_id,
    accountNumber: Number(row.account_number),
    transactionAt: at,
    cardNumber: null,
    cardName: 'PIX',
    codAuth: row.cod_auth,
    nsu: row.nsu,
    reference: row.reference_transaction,
    amountCents: paidCents,
    installments: 1,
    splits: [],
    status: 'A',
  });
}
