import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { Selectable } from 'kysely';
import type { PixDueChargesTable, PixPaymentsTable } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { PixReceipt } from '../../pix-provider/types.js';
import type { SettlementService } from '../settlement/service.js';
import { settleCharge } from './charge-paid.js';
import { amountDueOn, dayOf, dueColumnsOf } from './due-terms.js';

export type ReceiptSource = PixPaymentsTable['source'];
export interface ReceiptSummary {
  /** Reports that moved a charge to Paid. */
  applied: number;
  /** Reports already recorded (a repeated webhook, or one the reconciliation saw first). */
  duplicates: number;
  /** New reports that paid no charge (unknown txid, another amount, a charge already Paid): kept for the operator. */
  unmatched: number;
}

/**
 * Payments a PSP reports, from its webhook or from `GET /pix`. Each is recorded under its
 * endToEndId in the same transaction that pays the charge, so a report seen twice, or by both
 * paths, or by two instances at once, is applied once: the second insert finds the key taken
 * (on PostgreSQL it waits for the first transaction, then does nothing).
 */
export class PixReceipts {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      queue: JobQueue;
      settlement: SettlementService;
      /** A due charge (a slip's code) was paid: its owner applies it, or throws to refuse it. */
      dueChargePaid: (sourceId: string, paidAt: string, amountCents: bigint) => Promise<'applied' | 'same_payment'>;
    },
  ) {}

  async receive(receipts: PixReceipt[], source: ReceiptSource): Promise<ReceiptSummary> {
    const summary: ReceiptSummary = { applied: 0, duplicates: 0, unmatched: 0 };
    for (const receipt of receipts) summary[await this.receiveOne(receipt, source)]++;
    return summary;
  }

  private async receiveOne(receipt: PixReceipt, source: ReceiptSource): Promise<keyof ReceiptSummary> {
    const db = this.deps.database.db;
    const due = receipt.txid === null ? undefined : await db.selectFrom('pix_due_charges').selectAll().where('txid', '=', receipt.txid).executeTakeFirst();
    if (due) return this.receiveDue(due, receipt, source);
    const receivedAt = this.deps.clock.now().toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      const charge = receipt.txid === null ? undefined : await trx.selectFrom('pix_charges').selectAll().where('txid', '=', receipt.txid).executeTakeFirst();
      // A fixed-amount charge paid with another amount, or paid twice, is money in but no sale:
      // recorded with why, never applied (the operator refunds it).
      // A charge with a due date is paid its amount due on the day the payer paid.
      const due = charge ? dueColumnsOf(charge) : null;
      const owed = !charge ? null : due ? amountDueOn(due, dayOf(receipt.paidAt)) : { ok: true as const, total: BigInt(charge.amount) };
      const outcome: PixPaymentsTable['outcome'] = !charge || !owed
        ? 'unknown_charge'
        : !owed.ok
          ? 'not_payable'
          : owed.total !== receipt.amountCents
            ? 'amount_mismatch'
            : charge.status === 'Paid'
              ? 'not_pending'
              : 'applied';
      const inserted = await trx
        .insertInto('pix_payments')
        .values({
          end_to_end_id: receipt.endToEndId,
          txid: receipt.txid,
          charge_id: charge?.id ?? null,
          merchant_id: charge?.merchant_id ?? null,
          amount: Number(receipt.amountCents),
          paid_at: receipt.paidAt,
          source,
          outcome,
          received_at: receivedAt,
        })
        .onConflict((oc) => oc.column('end_to_end_id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) return 'duplicates';
      if (outcome !== 'applied' || !charge) return 'unmatched';
      // An Expired charge paid before its expiry (the report came late) is still paid: the money arrived.
      await settleCharge(trx, this.deps, charge, receipt.paidAt, receipt.amountCents);
      return 'applied';
    });
  }

  /**
   * A slip's Pix code paid: the slip's module applies it in its own transaction (its payment
   * path, webhooks and listings), then the report is recorded. A report seen again finds the
   * key taken; a report of the payment the bank's return file brought first (same day and
   * amount) changes nothing and counts as a duplicate; another payment of a paid slip is refused. The slip's module decides
   * whether the amount is what is due that day; a refusal is recorded as `not_payable`.
   */
  private async receiveDue(due: Selectable<PixDueChargesTable>, receipt: PixReceipt, source: ReceiptSource): Promise<keyof ReceiptSummary> {
    const db = this.deps.database.db;
    const seen = await db.selectFrom('pix_payments').select('end_to_end_id').where('end_to_end_id', '=', receipt.endToEndId).executeTakeFirst();
    if (seen) return 'duplicates';
    let outcome: PixPaymentsTable['outcome'] = 'applied';
    let samePayment = false;
    try {
      samePayment = (await this.deps.dueChargePaid(due.source_id, receipt.paidAt, receipt.amountCents)) === 'same_payment';
    } catch {
      outcome = 'not_payable';
    }
    return db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('pix_payments')
        .values({ end_to_end_id: receipt.endToEndId, txid: receipt.txid, charge_id: due.source_id, merchant_id: due.merchant_id, amount: Number(receipt.amountCents), paid_at: receipt.paidAt, source, outcome, received_at: this.deps.clock.now().toISOString() })
        .onConflict((oc) => oc.column('end_to_end_id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) return 'duplicates';
      if (outcome !== 'applied') return 'unmatched';
      await trx.updateTable('pix_due_charges').set({ status: 'Paid', paid_at: receipt.paidAt }).where('txid', '=', due.txid).execute();
      // The bank's return file reported this payment first: the slip was paid once, by this Pix.
      return samePayment ? 'duplicates' : 'applied';
    });
  }
}
