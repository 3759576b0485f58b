import type { Database, Executor } from '../../db/connection.js';
import { refundableOf } from '../../domain/pix-refunds.js';
import type { Clock } from '../../clock.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import type { PixProvider, PixReceipt } from '../../pix-provider/types.js';
import type { SettlementService } from '../settlement/service.js';
import { pixRefundsRepository } from './refund-repository.js';
import type { PixRefunds } from './refunds.js';
import { MedReturns, type MedReturnOwner } from './med-returns.js';
import { SandboxMedPsp, type LostClaim } from './sandbox-med.js';

export type { LostClaim } from './sandbox-med.js';
export type { MedReturnOwner } from './med-returns.js';

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
 * released when it closes in the merchant's favour. A claim lost sends nothing: the PSP makes
 * the MED return itself, from the amount it blocked, and reports it among the Pix's devoluções;
 * the hold stays until that return is reflected (./med-returns.ts), which replaces it. In the
 * sandbox the sandbox PSP makes that return (./sandbox-med.ts) and reports it the same way.
 */
export class PixMedClaims {
  readonly returns: MedReturns;
  private readonly sandbox: SandboxMedPsp | null;

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      queue: JobQueue;
      settlement: Pick<SettlementService, 'holdForDispute' | 'releaseDispute'>;
      refunds: PixRefunds;
      provider: PixProvider;
    },
  ) {
    this.returns = new MedReturns({ database: deps.database, clock: deps.clock, refunds: deps.refunds, provider: deps.provider, release: (trx, chargeId, disputeId) => this.release(trx, chargeId, disputeId) });
    this.sandbox = deps.provider.kind === 'sandbox' ? new SandboxMedPsp({ database: deps.database, queue: deps.queue }, (chargeId, endToEndId, returns) => this.returns.reflect(chargeId, endToEndId, returns)) : null;
  }

  /** The claims' owner (the disputes module), told of a return in its transaction (src/root/context.ts wires it). */
  own(owner: MedReturnOwner): void {
    this.returns.own(owner);
  }

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

  /** The hold is lifted and the receivable approved again: the claim won, or its return made. */
  async release(trx: Executor, chargeId: string, disputeId: string): Promise<void> {
    await trx.updateTable('pix_charges').set({ med_dispute_id: null, med_blocked_amount: 0 }).where('id', '=', chargeId).where('med_dispute_id', '=', disputeId).execute();
    await this.deps.settlement.releaseDispute(trx, chargeId);
  }

  /**
   * The claim decided against the merchant, in the decision's transaction: no devolução is
   * asked for (the API Pix lets a receiver ask only ORIGINAL or RETIRADA; the MED return is the
   * PSP's). The hold stays until the PSP's return is reflected. The sandbox PSP schedules its
   * own return here, so a crash before `afterLost` still makes it.
   */
  async awaitReturn(trx: Executor, claim: LostClaim): Promise<void> {
    await this.sandbox?.schedule(trx, claim);
  }

  /** After the decision's commit: the sandbox PSP makes its return at once; a PSP makes it when it does. */
  async afterLost(claim: LostClaim): Promise<void> {
    await this.sandbox?.makeReturn(claim);
  }

  /** The MED returns among the devoluções a PSP reported for received Pix (webhook or `GET /pix`): each reflected once. */
  reported(receipts: PixReceipt[]): Promise<number> {
    return this.returns.reported(receipts);
  }

  /** Reconciliation: `GET /pix/{e2eid}` for each charge still held, so a return whose webhook was lost is reflected. */
  reconcileHeld(): Promise<number> {
    return this.returns.reconcileHeld();
  }

  jobs(): JobDefinition[] {
    return this.sandbox?.jobs() ?? [];
  }
}
