import { createHash } from 'node:crypto';
import type { Database, Executor } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import type { ProviderReturn } from '../../pix-provider/types.js';
import { endToEndIdOf } from './refunds.js';

export const SANDBOX_MED_RETURN_JOB = 'pix.med.sandbox_return';

/** A MED claim decided against the merchant, as the sandbox PSP is told of it. */
export interface LostClaim {
  chargeId: string;
  disputeId: string;
  /** The return's natureza, from the claim's reason (FR01 MED_FRAUDE, BE08 MED_OPERACIONAL). */
  nature: 'MED_OPERACIONAL' | 'MED_FRAUDE';
  /** When it was decided (ISO): the return's rtrId carries it, as the SPI's ids carry their date. */
  at: string;
}

const RTR_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * The sandbox's rtrId of a claim's return, as the SPI writes one (D, the ISPB, yyyyMMddHHmm, 11
 * characters), derived from the claim: the same claim always makes the same return, so the
 * job and the direct call after the decision report one return, reflected once.
 */
export function sandboxRtrId(claim: Pick<LostClaim, 'disputeId' | 'at'>): string {
  const stamp = claim.at.replace(/[-:T]/g, '').slice(0, 12);
  const digest = createHash('sha256').update(claim.disputeId).digest();
  return `D00000000${stamp}${Array.from(digest.subarray(0, 11), (byte) => RTR_ALPHABET[byte % RTR_ALPHABET.length]).join('')}`;
}

/**
 * PIX_PROVIDER=sandbox: the gateway plays the PSP that blocked the claimed amount. When the
 * claim is lost, it makes the MED return itself, from that amount, and reports it as a PSP
 * reports a Pix's devoluções, on the path a PSP's report takes (./med-returns.ts). Scheduled as
 * a job in the decision's transaction, and made at once after its commit.
 */
export class SandboxMedPsp {
  constructor(
    private readonly deps: { database: Database; queue: JobQueue },
    private readonly report: (chargeId: string, endToEndId: string | null, returns: ProviderReturn[]) => Promise<number>,
  ) {}

  async schedule(trx: Executor, claim: LostClaim): Promise<void> {
    await this.deps.queue.enqueue(trx, { kind: SANDBOX_MED_RETURN_JOB, payload: claim, runAt: new Date(claim.at), dedupeKey: `${SANDBOX_MED_RETURN_JOB}:${claim.disputeId}` });
  }

  /** The return of what the claim holds; nothing when the claim no longer holds the charge (returned already, or released). */
  async makeReturn(claim: LostClaim): Promise<void> {
    const charge = await this.deps.database.db.selectFrom('pix_charges').select(['med_dispute_id', 'med_blocked_amount']).where('id', '=', claim.chargeId).executeTakeFirst();
    if (!charge || charge.med_dispute_id !== claim.disputeId) return;
    const devolucao: ProviderReturn = {
      id: `MED${claim.disputeId.replace(/-/g, '')}`.slice(0, 35),
      rtrId: sandboxRtrId(claim),
      amountCents: BigInt(charge.med_blocked_amount),
      nature: claim.nature,
      status: 'Refunded',
    };
    // The sandbox's immediate charges are paid without an endToEndId: the report names the charge.
    await this.report(claim.chargeId, await endToEndIdOf(this.deps.database.db, claim.chargeId), [devolucao]);
  }

  jobs(): JobDefinition[] {
    return [{ kind: SANDBOX_MED_RETURN_JOB, handler: async (claim: LostClaim) => this.makeReturn(claim) }];
  }
}
