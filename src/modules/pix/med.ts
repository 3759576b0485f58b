import type { Database, Executor } from '../../db/connection.js';
import { devolucaoIdOf, refundableOf } from '../../domain/pix-refunds.js';
import { timeOrderedUuid } from '../../ids.js';
import type { Clock } from '../../clock.js';
import type { SettlementService } from '../settlement/service.js';
import { pixRefundsRepository } from './refund-repository.js';
import type { PixRefunds } from './refunds.js';

/** A Pix charge as a MED claim sees it. */
export interface ClaimedCharge {
  id: string;
  merchant_id: string;
  account_number: number;
  status: string;
  nsu: string;
  cod_auth: string;
  med_dispute_id: string | null;
  /** What the claim may hold: what is left of the charge, less returns in process. */
  claimable: number;
}

/**
 * The Pix side of MED claims (the disputes module holds the claim itself): the claimed amount is
 * held on the charge (not refundable) and its receivable blocked (B) while the claim is open;
 * released when it closes in the merchant's favour; returned to the payer, as a Pix refund of
 * the MED natureza through the refund path, when it does not.
 */
export class PixMedClaims {
  constructor(private readonly deps: { database: Database; clock: Clock; settlement: Pick<SettlementService, 'holdForDispute' | 'releaseDispute'>; refunds: PixRefunds }) {}

  async find(trx: Executor, chargeId: string, lock: boolean): Promise<ClaimedCharge | undefined> {
    let query = trx.selectFrom('pix_charges').selectAll().where('id', '=', chargeId);
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) return undefined;
    const claimable = refundableOf({ status: row.status, amount: BigInt(row.paid_amount ?? row.amount), refunded: BigInt(row.refunded_amount), inProcess: await pixRefundsRepository.inProcessOf(trx, chargeId) });
    return { id: row.id, merchant_id: row.merchant_id, account_number: Number(row.account_number), status: row.status, nsu: row.nsu, cod_auth: row.cod_auth, med_dispute_id: row.med_dispute_id, claimable: Number(claimable) };
  }

  /** Holds `amount` for the claim; false when another claim took the charge meanwhile. */
  async block(trx: Executor, chargeId: string, disputeId: string, amount: number): Promise<boolean> {
    const moved = await trx.updateTable('pix_charges').set({ med_dispute_id: disputeId, med_blocked_amount: amount }).where('id', '=', chargeId).where('med_dispute_id', 'is', null).executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    await this.deps.settlement.holdForDispute(trx, chargeId);
    return true;
  }

  /** The claim closed: the hold is lifted and the receivable approved again. */
  async release(trx: Executor, chargeId: string, disputeId: string): Promise<void> {
    await trx.updateTable('pix_charges').set({ med_dispute_id: null, med_blocked_amount: 0 }).where('id', '=', chargeId).where('med_dispute_id', '=', disputeId).execute();
    await this.deps.settlement.releaseDispute(trx, chargeId);
  }

  /**
   * The claim decided against the merchant: the hold is lifted and the claimed amount recorded
   * as a Pix refund of the MED natureza (InProcess, with its recovery job), in the caller's
   * transaction. Answers its id: the caller sends it after the commit (`sendReturn`).
   */
  async recordReturn(trx: Executor, chargeId: string, disputeId: string, amount: number, nature: 'MED_OPERACIONAL' | 'MED_FRAUDE'): Promise<string> {
    await this.release(trx, chargeId, disputeId);
    const charge = (await trx.selectFrom('pix_charges').select(['id', 'merchant_id', 'account_number']).where('id', '=', chargeId).executeTakeFirstOrThrow());
    const now = this.deps.clock.now();
    const refundId = devolucaoIdOf(timeOrderedUuid(now));
    await this.deps.refunds.insert(trx, charge, { refundId, amount, nature, reason: `MED ${disputeId}`.slice(0, 140), now });
    return refundId;
  }

  sendReturn(refundId: string): Promise<void> {
    return this.deps.refunds.sendRecorded(refundId);
  }
}
