import type { Selectable, Transaction } from 'kysely';
import type { Executor } from '../../../db/connection.js';
import type { DB, PixChargesTable } from '../../../db/schema.js';
import type { ReceiptSource } from '../receipts.js';
import { settleCharge } from '../charge-paid.js';
import { recurrencesRepository, tentativesOf, type RecurrenceRow, type RecurringChargeRow } from './repository.js';
import type { RecurrenceDeps, RecurrenceOwner } from './types.js';

/**
 * What the payer's side did, applied to Pix Automático's state and told to its owner in the
 * caller's transaction: the sandbox's payer and the PSP's reports (webhooks, reconciliation)
 * both come through here. Each move is fenced by the status it leaves, so a report seen twice
 * (a webhook and the reconciliation) is applied once.
 */

/** CRIADA -> APROVADA; the owner activates the subscription (billing 1 is the journey-3 charge). False when it had moved already. */
export async function applyAuthorized(trx: Executor, owner: RecurrenceOwner, rec: RecurrenceRow, at: string): Promise<boolean> {
  if (!(await recurrencesRepository.transition(trx, rec.recurrence_id, ['CRIADA'], { status: 'APROVADA', updated_at: at }))) return false;
  await owner.authorized(trx, { subscriptionId: rec.subscription_id, chargeId: rec.first_charge_id, paidAt: at });
  return true;
}

export type TentativeResult =
  | { paid: true; at: string; payment?: { endToEndId: string; amountCents: bigint; source: ReceiptSource } }
  | { paid: false; at: string; returnCode: string; reason: string; final: boolean; endStatus?: 'REJEITADA' | 'CANCELADA' | 'EXPIRADA' };

/**
 * The latest tentative of a cycle's charge settled: paid (its Pix charge becomes Paid, with its
 * conciliation record, unless the PSP's Pix report paid it first) or refused (the next retry is
 * the owner's to ask; `final`: the PSP allows none, the charge ends `endStatus`, REJEITADA by
 * default). False when another report moved it first.
 */
export async function applyTentative(trx: Executor, deps: Pick<RecurrenceDeps, 'queue' | 'settlement'>, owner: RecurrenceOwner, charge: RecurringChargeRow, result: TentativeResult): Promise<boolean> {
  const tentatives = tentativesOf(charge);
  const last = tentatives.length - 1;
  tentatives[last] = { ...tentatives[last], status: result.paid ? 'PAGA' : 'REJEITADA', ...(result.paid ? {} : { reason: result.reason }) };
  const status = result.paid ? 'CONCLUIDA' : result.final ? (result.endStatus ?? 'REJEITADA') : 'ATIVA';
  // A refused tentative counts: the next retry asked is tentative retries + 1.
  const moved = await recurrencesRepository.updateCharge(trx, charge, { status, retries: result.paid ? charge.retries : charge.retries + 1, attempts: JSON.stringify(tentatives), updated_at: result.at });
  if (!moved) return false;
  if (!result.paid) {
    await owner.cycleFailed(trx, { billingId: charge.billing_id, chargeId: charge.charge_id, at: result.at, returnCode: result.returnCode, reason: result.reason, final: result.final });
    return true;
  }
  const row = (await trx.selectFrom('pix_charges').selectAll().where('id', '=', charge.charge_id).executeTakeFirstOrThrow()) as Selectable<PixChargesTable>;
  if (row.status !== 'Paid') {
    await settleCharge(trx as Transaction<DB>, deps, row, result.at);
    // Its Pix, under its endToEndId: the PSP's `/pix` report of the same payment is then a duplicate.
    if (result.payment) {
      await trx.insertInto('pix_payments').values({
        end_to_end_id: result.payment.endToEndId, txid: charge.txid, charge_id: row.id, merchant_id: row.merchant_id, amount: Number(result.payment.amountCents),
        paid_at: result.at, source: result.payment.source, outcome: 'applied', received_at: result.at,
      }).onConflict((oc) => oc.column('end_to_end_id').doNothing()).execute();
    }
  }
  await owner.cyclePaid(trx, { billingId: charge.billing_id, chargeId: charge.charge_id, paidAt: result.at });
  return true;
}
