import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import type { PixProvider, PixReceipt, ProviderReturn } from '../../pix-provider/types.js';
import type { PixRefunds } from './refunds.js';

/** The claims' owner (the disputes module), declared here so that this module does not import it. */
export interface MedReturnOwner {
  /** The PSP's MED return of a claim was reflected: the claim closes as lost, in this transaction. */
  returned(trx: Executor, disputeId: string, made: { refundId: string; amount: number; at: string; nsu: string; codAuth: string }): Promise<void>;
}

/** A MED return the PSP reports made (DEVOLVIDO), with the rtrId it is recorded under. */
type MadeMedReturn = ProviderReturn & { nature: 'MED_OPERACIONAL' | 'MED_FRAUDE'; rtrId: string };

function isMadeMedReturn(r: ProviderReturn): r is MadeMedReturn {
  // Without its rtrId (required by the API Pix) a return cannot be told from a repeat of itself: it is not reflected.
  return (r.nature === 'MED_FRAUDE' || r.nature === 'MED_OPERACIONAL') && r.status === 'Refunded' && r.rtrId !== null;
}

/**
 * The MED returns a PSP makes itself, from the amount it blocked, reflected once each. The PSP
 * reports them among a Pix's devoluções (natureza MED_FRAUDE or MED_OPERACIONAL) in its webhook,
 * in `GET /pix` and in `GET /pix/{e2eid}`; the sandbox PSP reports its own the same way. Each is
 * recorded as a Returned Pix refund under its rtrId (the SPI's ReturnIdentification) in the
 * transaction that lifts the claim's hold, applies its money to the charge and the receivables,
 * and closes the claim: a report seen again, or by both paths, or by two instances at once,
 * finds the id taken and changes nothing.
 */
export class MedReturns {
  private owner: MedReturnOwner | null = null;

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      refunds: PixRefunds;
      provider: PixProvider;
      release: (trx: Executor, chargeId: string, disputeId: string) => Promise<void>;
    },
  ) {}

  own(owner: MedReturnOwner): void {
    this.owner = owner;
  }

  /** The MED returns among the devoluções of Pix the PSP reported, on the charges those Pix paid. */
  async reported(receipts: PixReceipt[]): Promise<number> {
    let reflected = 0;
    for (const receipt of receipts) {
      if (!(receipt.returns ?? []).some(isMadeMedReturn)) continue;
      const paid = await this.deps.database.db.selectFrom('pix_payments').select('charge_id').where('end_to_end_id', '=', receipt.endToEndId).where('outcome', '=', 'applied').executeTakeFirst();
      // A Pix that paid no charge of ours (money kept unapplied, or a slip's code): no charge to reflect on.
      if (!paid?.charge_id) continue;
      reflected += await this.reflect(paid.charge_id, receipt.endToEndId, receipt.returns ?? []);
    }
    return reflected;
  }

  /** The MED returns made among `returns`, on the charge the Pix paid (`endToEndId` null in the sandbox). */
  async reflect(chargeId: string, endToEndId: string | null, returns: ProviderReturn[]): Promise<number> {
    let reflected = 0;
    for (const made of returns.filter(isMadeMedReturn)) if (await this.reflectOne(chargeId, endToEndId, made)) reflected++;
    return reflected;
  }

  /**
   * One return, once: the refund row under its rtrId first (taken: seen before, nothing more),
   * then the hold lifted (the receivable approved again), then the money as any refund made, and
   * the claim closed by its owner. The charge is locked first, so two reports wait in line.
   */
  private async reflectOne(chargeId: string, endToEndId: string | null, made: MadeMedReturn): Promise<boolean> {
    const { database, clock, refunds } = this.deps;
    const at = clock.now().toISOString();
    return database.db.transaction().execute(async (trx) => {
      let query = trx.selectFrom('pix_charges').select(['id', 'merchant_id', 'account_number', 'nsu', 'cod_auth', 'med_dispute_id']).where('id', '=', chargeId);
      if (database.dialect === 'postgres') query = query.forUpdate();
      const charge = await query.executeTakeFirst();
      if (!charge) return false;
      const amount = Number(made.amountCents);
      const row = await refunds.recordMadeByPsp(trx, charge, { refundId: made.rtrId, endToEndId, amount, nature: made.nature, reason: `MED return made by the PSP (devolução ${made.id})`, at });
      if (!row) return false;
      const disputeId = charge.med_dispute_id;
      // The return replaces the hold, whatever it took of it: what it did not take is the merchant's again.
      if (disputeId) await this.deps.release(trx, chargeId, disputeId);
      await refunds.applyOutcome(trx, row, at);
      if (disputeId) await this.owner?.returned(trx, disputeId, { refundId: row.refund_id, amount, at, nsu: charge.nsu, codAuth: charge.cod_auth });
      return true;
    });
  }

  /**
   * Reconciliation: each charge a claim still holds, read with `GET /pix/{e2eid}`. A MED return
   * comes weeks after its Pix, outside the `GET /pix` window, so a lost webhook is recovered
   * here. One read per held charge a run: claims are few, and each ends with its return or its
   * release. A PSP that does not answer is asked again next run.
   */
  async reconcileHeld(): Promise<number> {
    const { database, provider } = this.deps;
    if (provider.kind === 'sandbox') return 0;
    const held = await database.db
      .selectFrom('pix_charges')
      .innerJoin('pix_payments', 'pix_payments.charge_id', 'pix_charges.id')
      .select(['pix_charges.id as chargeId', 'pix_payments.end_to_end_id as endToEndId'])
      .where('pix_charges.med_dispute_id', 'is not', null)
      .where('pix_payments.outcome', '=', 'applied')
      .orderBy('pix_charges.id')
      .execute();
    let reflected = 0;
    for (const { chargeId, endToEndId } of held) {
      let pix: PixReceipt | null;
      try {
        pix = await provider.readPix(endToEndId);
      } catch {
        continue;
      }
      if (pix) reflected += await this.reflect(chargeId, endToEndId, pix.returns ?? []);
    }
    return reflected;
  }
}
