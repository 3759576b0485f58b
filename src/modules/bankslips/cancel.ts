import { conflict, notFound } from '../../domain/errors.js';
import { overdueKey, PIX_REMOVE_JOB, registerKey, type BankSlipDeps } from './deps.js';
import { toDetail } from './record-fields.js';
import { bankSlipsRepository as repo } from './repository.js';
import { INTEGRATION, STATUS, type BankSlipRow } from './row.js';
import type { BankSlipDetail } from './schemas.js';
import { recordCancellation, recordEvent } from './slip-events.js';

const DEFAULT_REASON = 'Cancelled by the merchant';

/**
 * The merchant cancels an unpaid slip (POST {integration}/api/billissuer/{id}/cancel, and the
 * dashboard's Cancel). A registered slip (statusBill 2 or 9) keeps its statusBill, as a bank
 * write-off does, and shows CancelDate and CancellationReason: the seed has no cancelled code.
 * It is no longer payable (slip-payment.ts refuses it; its Pix code is removed at the PSP), it never becomes
 * overdue, and the day's remittance asks the bank to write it off (movement 02). A slip still
 * being registered (statusBill 1) was never sent to the bank: it ends in 99 with the reason in
 * `message`, and its registration job goes. Each is a `bank_slip.canceled` event in the same
 * transaction (and the 1 -> 99 change its BankSlipStatus notification).
 */
export async function cancelBankSlip(ctx: BankSlipDeps, merchantId: string, id: string, reason?: string): Promise<BankSlipDetail> {
  const why = reason?.trim() || DEFAULT_REASON;
  // A payment or the overdue job may move the slip between our read and our write: read again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const slip = await repo.find(ctx.database.db, id, merchantId);
    if (!slip) throw notFound('Bank slip');
    assertCancellable(slip);
    const at = ctx.clock.now().toISOString();
    const fields = { canceled_at: at, cancellation_reason: why, canceled_by: 'merchant' };
    const before = slip.status_bill === STATUS.processing;
    const to = before ? STATUS.failed : slip.status_bill;
    const extra = before ? { status_integration: INTEGRATION.failed, failure_reason: `Cancelled before registration: ${why}` } : {};
    const moved = await ctx.database.db.transaction().execute(async (trx) => {
      if (!(await repo.cancel(trx, slip.id, slip.status_bill, to, at, { ...fields, ...extra }))) return false;
      if (before) {
        await ctx.queue.cancel(trx, registerKey(slip.id));
        await recordEvent(trx, ctx.queue, slip, STATUS.processing, STATUS.failed, at);
      }
      await ctx.queue.cancel(trx, overdueKey(slip.id));
      // A bolecode's Pix code is withdrawn at the PSP too, by a job: the PSP may be down now.
      if (slip.pix_emv !== null) await ctx.queue.enqueue(trx, { kind: PIX_REMOVE_JOB, payload: { id: slip.id }, runAt: new Date(at), dedupeKey: `${PIX_REMOVE_JOB}:${slip.id}` });
      await recordCancellation(trx, ctx.queue, slip, why, to, at);
      return true;
    });
    if (moved) return toDetail({ ...slip, ...fields, ...extra, status_bill: to, updated_at: at });
  }
  throw conflict('The bank slip changed status meanwhile; try again.');
}

function assertCancellable(slip: BankSlipRow): void {
  if (slip.canceled_at !== null) {
    const by = slip.canceled_by === 'bank' ? 'written off by the bank' : 'cancelled';
    throw conflict(`The bank slip is already ${by} (${slip.cancellation_reason ?? 'no reason given'}).`);
  }
  if (slip.status_bill === STATUS.paid) throw conflict('The bank slip is paid and cannot be cancelled.');
  if (slip.status_bill === STATUS.failed) throw conflict('The bank slip failed registration (statusBill 99): there is nothing to cancel.');
}
