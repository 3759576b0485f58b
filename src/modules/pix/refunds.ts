import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { devolucaoIdOf, pixRefundAmountOf } from '../../domain/pix-refunds.js';
import { conflict, invalid, notFound } from '../../domain/errors.js';
import { timeOrderedUuid } from '../../ids.js';
import type { JobQueue } from '../../jobs/queue.js';
import { RetryLater, type JobDefinition } from '../../jobs/registry.js';
import { PixProviderRefused, type PixProvider, type ProviderRefund, type ProviderReturn, type RefundOutcome } from '../../pix-provider/types.js';
import type { SettlementService } from '../settlement/service.js';
import { recordEvents } from '../webhooks/outbox.js';
import { pixRefundsRepository, type PixRefundRow } from './refund-repository.js';
import { pixChargeEvent } from './charge-paid.js';

export const PIX_REFUND_RECOVER_JOB = 'pix.refund_recover';
const recoverKey = (refundId: string) => `${PIX_REFUND_RECOVER_JOB}:${refundId}`;
/** A refund still InProcess is read from the PSP this long after it was sent (its webhook normally comes first), and as often after. */
const RECOVER_AFTER_MS = 60_000;
/**
 * A devolução the PSP has no record of this long after it was sent never arrived (no request
 * outlives the connector's timeout by minutes): it is NotDone, and nothing was returned.
 */
const NOT_RECEIVED_AFTER_MS = 5 * 60_000;
/** "At once" reads after a lost answer, before the caller is answered: the delays between tries. */
const LOOKUP_DELAYS_MS = [0, 250, 1000];

const STATUS_OF = { Processing: 'InProcess', Refunded: 'Returned', Failed: 'NotDone' } as const;

export interface PixRefundBody {
  amount?: number;
  reason?: string;
}

export function toPixRefund(row: PixRefundRow) {
  return {
    refundId: row.refund_id,
    chargeId: row.charge_id,
    amount: Number(row.amount),
    status: row.status,
    nature: row.nature,
    reason: row.reason,
    statusReason: row.status_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface PixRefundDeps {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  settlement: SettlementService;
  provider: PixProvider;
}

/**
 * Pix refunds (API Pix devoluções), on one path whatever the PSP: the refund is recorded
 * InProcess under its own id (with its recovery job), sent outside any transaction with that id
 * as the devolução id, so the PSP keeps it once, and its outcome recorded after, with its money
 * and events. The final status comes with the answer, the PSP's webhook of returns, or a read
 * (`GET /pix/{e2eid}/devolucao/{id}`) by the job; a refund is never sent a second time.
 */
export class PixRefunds {
  constructor(private readonly deps: PixRefundDeps) {}

  async create(merchantId: string, chargeId: string, body: PixRefundBody) {
    const { deps } = this;
    const now = deps.clock.now();
    const refundId = devolucaoIdOf(timeOrderedUuid(now));
    const row = await deps.database.db.transaction().execute(async (trx) => {
      // Locked (PostgreSQL; SQLite has one writer): the checks and the insert see every refund decided before.
      let query = trx.selectFrom('pix_charges').selectAll().where('id', '=', chargeId).where('merchant_id', '=', merchantId);
      if (deps.database.dialect === 'postgres') query = query.forUpdate();
      const charge = await query.executeTakeFirst();
      if (!charge) throw notFound('Pix charge');
      const decided = pixRefundAmountOf(
        {
          status: charge.status,
          amount: BigInt(charge.paid_amount ?? charge.amount),
          refunded: BigInt(charge.refunded_amount),
          inProcess: await pixRefundsRepository.inProcessOf(trx, chargeId),
          blocked: BigInt(charge.med_blocked_amount),
        },
        body.amount === undefined ? undefined : BigInt(body.amount),
      );
      if (!decided.ok) throw decided.tag === 'status' ? conflict(decided.message, 'status') : invalid('amount', decided.message);
      return this.insert(trx, charge, { refundId, amount: Number(decided.amount), reason: body.reason ?? null, now });
    });
    return toPixRefund(await this.send(row));
  }

  /**
   * Records a refund InProcess with its recovery job, in the caller's transaction (which holds
   * the charge and has checked the amount); the caller sends it after the commit. Always
   * ORIGINAL: a MED return is the PSP's to make (`recordMadeByPsp`), never requested.
   */
  private async insert(trx: Executor, charge: { id: string; merchant_id: string; account_number: number }, input: { refundId: string; amount: number; reason: string | null; now: Date }): Promise<PixRefundRow> {
    const { deps } = this;
    const endToEndId = await endToEndIdOf(trx, charge.id);
    if (!endToEndId && deps.provider.kind !== 'sandbox') throw conflict('The Pix that paid this charge is not known (no endToEndId): it cannot be returned through the PSP.', 'status');
    const at = input.now.toISOString();
    const refund: PixRefundRow = {
      refund_id: input.refundId,
      charge_id: charge.id,
      merchant_id: charge.merchant_id,
      account_number: Number(charge.account_number),
      end_to_end_id: endToEndId,
      amount: input.amount,
      nature: 'ORIGINAL',
      reason: input.reason,
      status: 'InProcess',
      status_reason: null,
      // Set with the insert: should we die before the send, the window runs from here.
      sent_at: deps.clock.wallNow().toISOString(),
      created_at: at,
      updated_at: at,
    };
    await pixRefundsRepository.insert(trx, refund);
    await deps.queue.enqueue(trx, { kind: PIX_REFUND_RECOVER_JOB, payload: { refundId: input.refundId }, runAt: new Date(input.now.getTime() + RECOVER_AFTER_MS), dedupeKey: recoverKey(input.refundId) });
    return refund;
  }

  /**
   * A devolução the PSP made itself (a MED return from the amount it blocked), in the caller's
   * transaction: recorded Returned under `refundId` (its rtrId) unless it was before. Answers
   * the row when new; the caller applies its money (`applyOutcome`) once its own effects, the
   * hold lifted, are written.
   */
  async recordMadeByPsp(trx: Executor, charge: { id: string; merchant_id: string; account_number: number }, input: { refundId: string; endToEndId: string | null; amount: number; nature: 'MED_OPERACIONAL' | 'MED_FRAUDE'; reason: string; at: string }): Promise<PixRefundRow | undefined> {
    const row: PixRefundRow = {
      refund_id: input.refundId,
      charge_id: charge.id,
      merchant_id: charge.merchant_id,
      account_number: Number(charge.account_number),
      end_to_end_id: input.endToEndId,
      amount: input.amount,
      nature: input.nature,
      reason: input.reason.slice(0, 140),
      status: 'Returned',
      status_reason: null,
      sent_at: input.at,
      created_at: input.at,
      updated_at: input.at,
    };
    return (await pixRefundsRepository.insertOnce(trx, row)) ? row : undefined;
  }

  async list(merchantId: string, chargeId: string) {
    const db = this.deps.database.db;
    const charge = await db.selectFrom('pix_charges').select('id').where('id', '=', chargeId).where('merchant_id', '=', merchantId).executeTakeFirst();
    if (!charge) throw notFound('Pix charge');
    return { items: (await pixRefundsRepository.listOf(db, chargeId)).map(toPixRefund) };
  }

  /** Sends a recorded refund and records what is known; an answer lost and not found at once leaves it InProcess for its job. */
  private async send(refund: PixRefundRow): Promise<PixRefundRow> {
    let outcome: RefundOutcome | null;
    try {
      outcome = await this.deps.provider.refund(providerRefundOf(refund));
    } catch (error) {
      // A refusal (4xx) made nothing: the PSP answered, and said no.
      if (error instanceof PixProviderRefused) outcome = { status: 'Failed', reason: error.message.slice(0, 140) };
      else outcome = await this.lookupAtOnce(refund);
    }
    return outcome ? this.record(refund.refund_id, outcome) : refund;
  }

  private async lookupAtOnce(refund: PixRefundRow): Promise<RefundOutcome | null> {
    for (const delay of LOOKUP_DELAYS_MS) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const known = await this.deps.provider.lookupRefund(providerRefundOf(refund));
        if (known) return known;
      } catch {
        // Unanswered: try again, then leave it to the recovery job.
      }
    }
    return null;
  }

  /**
   * Records a final outcome of an InProcess refund, once (compare-and-set on its status), with
   * its effects in the same transaction: for a return made, the charge's refunded amount, its
   * receivable and `pix.refunded`; for one not made, `pix.refund_failed`. `Processing` changes
   * nothing (the job reads again).
   */
  async record(refundId: string, outcome: RefundOutcome): Promise<PixRefundRow> {
    const { deps } = this;
    const db = deps.database.db;
    const status = STATUS_OF[outcome.status];
    if (status !== 'InProcess') {
      const at = deps.clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        const settled = await pixRefundsRepository.settle(trx, refundId, 'InProcess', status, status === 'NotDone' ? (outcome.reason ?? 'The PSP did not make the return') : null, at);
        if (!settled) return;
        await deps.queue.cancel(trx, recoverKey(refundId));
        await this.applyOutcome(trx, settled, at);
      });
    }
    return (await pixRefundsRepository.find(db, refundId))!;
  }

  /** The money and the event of a refund that has just reached its final status. */
  async applyOutcome(trx: Executor, refund: PixRefundRow, at: string): Promise<void> {
    const charge = { id: refund.charge_id, merchant_id: refund.merchant_id, account_number: Number(refund.account_number), amount: Number(refund.amount) };
    const data = { refundId: refund.refund_id, nature: refund.nature };
    if (refund.status === 'Returned') {
      const refundedAmount = await pixRefundsRepository.addRefunded(trx, refund.charge_id, Number(refund.amount));
      await this.deps.settlement.onPixRefund(trx, { chargeId: refund.charge_id, accountNumber: Number(refund.account_number) }, BigInt(refund.amount));
      await recordEvents(trx, this.deps.queue, [pixChargeEvent(charge, 'pix.refunded', at, { ...data, refundedAmount })]);
    } else {
      const refundedAmount = Number((await trx.selectFrom('pix_charges').select('refunded_amount').where('id', '=', refund.charge_id).executeTakeFirstOrThrow()).refunded_amount);
      await recordEvents(trx, this.deps.queue, [pixChargeEvent(charge, 'pix.refund_failed', at, { ...data, reason: refund.status_reason, refundedAmount })]);
    }
  }

  /**
   * Final statuses of our devoluções the PSP reports (`devolucoes` of its `pix` items, by webhook
   * or reconciliation); ids not ours are ignored, and so are the MED returns the PSP made itself
   * (./med-returns.ts reflects those).
   */
  async reported(returns: ProviderReturn[]): Promise<number> {
    let recorded = 0;
    for (const d of returns) {
      if (d.status === 'Processing' || d.nature === 'MED_FRAUDE' || d.nature === 'MED_OPERACIONAL') continue;
      const refund = await pixRefundsRepository.find(this.deps.database.db, d.id);
      if (refund?.status !== 'InProcess') continue;
      await this.record(d.id, { status: d.status, ...(d.reason ? { reason: d.reason } : {}) });
      recorded++;
    }
    return recorded;
  }

  /**
   * The recovery job: reads the PSP (`GET .../devolucao/{id}`). In process: read again later;
   * unknown to the PSP after NOT_RECEIVED_AFTER_MS: it never arrived, NotDone.
   */
  async recover(refundId: string): Promise<void> {
    const { deps } = this;
    const refund = await pixRefundsRepository.find(deps.database.db, refundId);
    if (!refund || refund.status !== 'InProcess') return;
    const retry = (why = 'the devolução is still in process') => new RetryLater(new Date(deps.clock.now().getTime() + RECOVER_AFTER_MS), why);
    let known: RefundOutcome | null;
    try {
      known = await deps.provider.lookupRefund(providerRefundOf(refund));
    } catch (error) {
      // The PSP cannot be asked now: that is no answer, and the job must not run out of attempts over it.
      if (error instanceof PixProviderRefused) throw error;
      throw retry('the PSP did not answer the read');
    }
    if (known) {
      if (known.status === 'Processing') throw retry();
      await this.record(refundId, known);
      return;
    }
    if (deps.clock.wallNow().getTime() - Date.parse(refund.sent_at) < NOT_RECEIVED_AFTER_MS) throw retry();
    await this.record(refundId, { status: 'Failed', reason: 'The PSP has no record of the return; nothing was returned' });
  }

  /**
   * Sandbox: the PSP reports the return not made (NAO_REALIZADO). One InProcess is settled so;
   * one the sandbox had answered Returned is undone: its cents leave `refundedAmount` and what
   * conciliation took of the receivable is credited back.
   */
  async sandboxFail(refundId: string, reason = 'Devolução não realizada (sandbox)') {
    const { deps } = this;
    if (deps.provider.kind !== 'sandbox') throw conflict('With a PSP, the PSP reports whether a return was made.', 'status');
    const at = deps.clock.now().toISOString();
    await deps.database.db.transaction().execute(async (trx) => {
      const refund = await pixRefundsRepository.find(trx, refundId, deps.database.dialect === 'postgres');
      if (!refund) throw notFound('Pix refund');
      if (refund.nature !== 'ORIGINAL') throw conflict('A MED return is the PSP\'s, made from the amount it blocked: it cannot be failed.', 'status');
      if (refund.status === 'NotDone') throw conflict('This refund is NotDone already.', 'status');
      const settled = await pixRefundsRepository.settle(trx, refundId, refund.status, 'NotDone', reason, at);
      if (!settled) throw conflict('The refund changed status meanwhile.', 'status');
      await deps.queue.cancel(trx, recoverKey(refundId));
      if (refund.status === 'Returned') {
        await pixRefundsRepository.addRefunded(trx, refund.charge_id, -Number(refund.amount));
        await deps.settlement.onPixRefundUndone(trx, refund.charge_id, BigInt(refund.amount));
      }
      await this.applyOutcome(trx, settled, at);
    });
    return toPixRefund((await pixRefundsRepository.find(deps.database.db, refundId))!);
  }

  jobs(): JobDefinition[] {
    return [{ kind: PIX_REFUND_RECOVER_JOB, handler: async ({ refundId }: { refundId: string }) => this.recover(refundId) }];
  }
}

/** A recorded refund as the PSP is asked about it; only an ORIGINAL one is ever sent. */
function providerRefundOf(refund: PixRefundRow): ProviderRefund {
  return { endToEndId: refund.end_to_end_id, refundId: refund.refund_id, amountCents: BigInt(refund.amount), nature: 'ORIGINAL', ...(refund.reason ? { description: refund.reason } : {}) };
}

/** The endToEndId of the Pix that paid the charge (the PSP's report); none in the sandbox. */
export async function endToEndIdOf(db: Executor, chargeId: string): Promise<string | null> {
  const row = await db.selectFrom('pix_payments').select('end_to_end_id').where('charge_id', '=', chargeId).where('outcome', '=', 'applied').executeTakeFirst();
  return row?.end_to_end_id ?? null;
}
