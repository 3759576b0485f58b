import type { Executor } from '../../../db/connection.js';
import { MAX_RETRIES } from '../../../domain/pix-automatico.js';
import { conflict } from '../../../domain/errors.js';
import { settleCharge } from '../charge-paid.js';
import type { RecurrenceDeps, RecurrenceOwner } from './types.js';
import { recurrencesRepository, type RecurrenceRow } from './repository.js';
import { applyAuthorized, applyTentative } from './outcomes.js';

export const SETTLE_JOB = 'pix.recurrence.sandbox_settle';
export interface SettlePayload {
  txid: string;
  /** 0: the due date's settlement; k: retry k. */
  attempt: number;
}

export type SandboxOutcome = 'paid' | 'insufficient_funds';
/** The ISO 20022 reason a Pix is refused for when the payer's balance does not cover it. */
const INSUFFICIENT = { returnCode: 'AM04', reason: 'Insufficient funds in the payer account' };

/**
 * PIX_PROVIDER=sandbox: the gateway plays the payer and both PSPs of Pix Automático. The payer
 * authorizes, refuses or cancels (`/sandbox/pix/recurrences/...`); on each due date and retry
 * date (a job on the sandbox clock) the payer's PSP settles the cycle's charge, paid or refused
 * as the recurrence's outcome says (paid unless set to insufficient_funds).
 */
export class SandboxPsp {
  constructor(
    private readonly deps: Pick<RecurrenceDeps, 'database' | 'clock' | 'queue' | 'settlement'>,
    private readonly owner: () => RecurrenceOwner,
    private readonly close: (trx: Executor, rec: RecurrenceRow, end: { status: string; reason: string; by: string | null }) => Promise<boolean>,
  ) {}

  /** The payer authorizes in their bank app and pays the journey-3 charge: one transaction. */
  async authorize(recurrenceId: string): Promise<RecurrenceRow> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      const rec = await this.pending(trx, recurrenceId);
      if (rec.expires_at <= at) throw conflict('The recurrence code has expired: it can no longer be authorized.');
      const charge = await trx.selectFrom('pix_charges').selectAll().where('id', '=', rec.first_charge_id).executeTakeFirstOrThrow();
      // The sandbox has no `/pix` report: the journey-3 charge is paid here, with the authorization.
      await settleCharge(trx, this.deps, charge, at);
      if (!(await applyAuthorized(trx, this.owner(), rec, at))) throw conflict('The recurrence changed status meanwhile.');
      return { ...rec, status: 'APROVADA', updated_at: at };
    });
  }

  /** The payer refuses the recurrence: REJEITADA, and the subscription is Canceled. */
  async reject(recurrenceId: string): Promise<RecurrenceRow> {
    return this.end(recurrenceId, ['CRIADA'], 'REJEITADA', 'The payer refused the recurrence in their bank app.');
  }

  /** The payer cancels the authorization in their bank app (`/webhookrec` status CANCELADA). */
  async cancel(recurrenceId: string): Promise<RecurrenceRow> {
    return this.end(recurrenceId, ['CRIADA', 'APROVADA'], 'CANCELADA', 'Cancelled by the payer in their bank app.');
  }

  async setOutcome(recurrenceId: string, outcome: SandboxOutcome): Promise<RecurrenceRow> {
    const db = this.deps.database.db;
    const rec = await recurrencesRepository.find(db, recurrenceId);
    if (!rec) throw conflict('Unknown recurrence.');
    await recurrencesRepository.setOutcome(db, recurrenceId, outcome, this.deps.clock.now().toISOString());
    return { ...rec, next_outcome: outcome };
  }

  /** The payer's PSP settles tentative `attempt` of a charge at `at`. */
  async schedule(trx: Executor, txid: string, attempt: number, at: Date): Promise<void> {
    await this.deps.queue.enqueue(trx, { kind: SETTLE_JOB, payload: { txid, attempt } satisfies SettlePayload, runAt: at, dedupeKey: `${SETTLE_JOB}:${txid}:${attempt}` });
  }

  /** The settlement job: paid (the charge's Pix is recorded as any Pix) or refused, told to the owner in the same transaction. */
  async settle({ txid, attempt }: SettlePayload): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    await this.deps.database.db.transaction().execute(async (trx) => {
      const charge = await recurrencesRepository.findCharge(trx, txid);
      // Cancelled meanwhile, settled already, or a stale tentative: nothing to do.
      if (!charge || charge.status !== 'ATIVA' || charge.retries !== attempt) return;
      const rec = await recurrencesRepository.find(trx, charge.recurrence_id);
      if (!rec || rec.status !== 'APROVADA') return;
      const paid = rec.next_outcome !== 'insufficient_funds';
      await applyTentative(trx, this.deps, this.owner(), charge, paid ? { paid, at } : { paid, at, ...INSUFFICIENT, final: attempt >= MAX_RETRIES });
    });
  }

  private async pending(trx: Executor, recurrenceId: string): Promise<RecurrenceRow> {
    const rec = await recurrencesRepository.find(trx, recurrenceId);
    if (!rec) throw conflict('Unknown recurrence.');
    if (rec.status !== 'CRIADA') throw conflict(`The recurrence is ${rec.status}: only a CRIADA one awaits the payer.`);
    return rec;
  }

  private async end(recurrenceId: string, from: string[], status: string, reason: string): Promise<RecurrenceRow> {
    const at = this.deps.clock.now().toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      const rec = await recurrencesRepository.find(trx, recurrenceId);
      if (!rec) throw conflict('Unknown recurrence.');
      if (!from.includes(rec.status)) throw conflict(`The recurrence is ${rec.status}.`);
      if (!(await this.close(trx, rec, { status, reason, by: 'payer' }))) throw conflict('The recurrence changed status meanwhile.');
      await this.owner().ended(trx, { subscriptionId: rec.subscription_id, reason, by: 'payer' });
      return { ...rec, status, reason, canceled_by: status === 'CANCELADA' ? 'payer' : null, updated_at: at };
    });
  }
}
