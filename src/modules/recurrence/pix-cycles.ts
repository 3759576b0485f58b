import type { Executor } from '../../db/connection.js';
import { pixRetryDate } from '../../domain/pix-automatico.js';
import type { JobDefinition } from '../../jobs/registry.js';
import type { RecurrenceOwner } from '../pix/automatico/types.js';
import type { PixRecurrencePort } from './pix-port.js';
import { billingsRepository, SYSTEM, type ChargeState } from './billings-repository.js';
import type { ChargeDeps } from './charge-attempt.js';
import { PIX_SEND_JOB, planCycleOf, type BillingEngine } from './engine.js';
import { billingEvent, subscriptionEvent } from './events.js';
import { chargeCents } from './plan-rules.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { historyOf, type AttemptEntry } from './resources.js';
import type { SubscriptionStatus } from '../../domain/lifecycles.js';

/** Asks the PSP to settle a failed cycle again (`POST /cobr/{txid}/retentativa/{data}`). */
export const PIX_RETRY_JOB = 'billing.pix.retry';

/** Statuses a Pix subscription leaves when its recurrence ends. */
const ENDABLE: readonly SubscriptionStatus[] = ['PendingAuthorization', 'Active', 'Blocked'];

/**
 * The billing engine's Pix side: a Pix subscription's billings are not charged by a worker but
 * by the PSP. Billing 1 is paid with the authorization (journey 3); each later billing's cobr is
 * sent in the API Pix window before its due date (a job), the payer's PSP settles it on the due
 * date, and a refused one is retried as the API Pix allows (PERMITE_3R_7D: up to 3 retries
 * within 7 days after the due date), then Denied. The plan's `attempts` does not apply. The
 * outcomes arrive through `owner()`, in the transaction of the Pix module that recorded them.
 */
export class PixCycles {
  constructor(
    private readonly ctx: ChargeDeps,
    private readonly engine: BillingEngine,
  ) {}

  private get pix(): PixRecurrencePort {
    if (!this.ctx.pixRecurrences) throw new Error('Pix Automático is not wired');
    return this.ctx.pixRecurrences;
  }

  /** The send job: the cycle's cobr, unless the billing ended or the subscription stopped meanwhile. */
  async send(billingId: string): Promise<void> {
    const db = this.ctx.database.db;
    const state = await billingsRepository.loadForCharge(db, billingId);
    if (!state || state.status !== 'Opened') return;
    if (state.sub_status !== 'Active') {
      const at = this.ctx.clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        if (await billingsRepository.cancelOpened(trx, billingId, { by: SYSTEM, at })) {
          await this.engine.emit(trx, [billingEvent('billing.canceled', state, at, { reason: `The subscription is ${state.sub_status}.` })]);
        }
      });
      return;
    }
    await this.pix.sendCharge({
      billingId,
      subscriptionId: state.subscription_id,
      amountCents: chargeCents(BigInt(state.amount)),
      dueAt: new Date(state.expire_at),
      description: `Billing ${state.installment}`,
    });
  }

  /** The retry job: asks the PSP for the retry the billing has scheduled. */
  async retry(billingId: string): Promise<void> {
    const state = await billingsRepository.loadForCharge(this.ctx.database.db, billingId);
    if (!state || state.status !== 'Opened' || state.sub_status !== 'Active' || !state.next_attempt_at) return;
    await this.pix.requestRetry(billingId, new Date(state.next_attempt_at));
  }

  jobs(): JobDefinition[] {
    return [
      { kind: PIX_SEND_JOB, handler: async ({ billingId }: { billingId: string }) => this.send(billingId), parallel: true },
      { kind: PIX_RETRY_JOB, handler: async ({ billingId }: { billingId: string }) => this.retry(billingId), parallel: true },
    ];
  }

  /** What the Pix module tells the recurrence module (src/root/context.ts wires it). */
  owner(): RecurrenceOwner {
    return {
      authorized: (trx, e) => this.authorized(trx, e.subscriptionId, e.chargeId, e.paidAt),
      ended: (trx, e) => this.ended(trx, e.subscriptionId, e.reason, e.by),
      cyclePaid: async (trx, e) => {
        const state = await billingsRepository.loadForCharge(trx, e.billingId);
        if (state) await this.paid(trx, state, e.chargeId, e.paidAt, 'Paid by Pix Automático');
      },
      cycleFailed: (trx, e) => this.failed(trx, e.billingId, e.chargeId, e.at, e.returnCode, e.reason, e.final),
    };
  }

  /** PendingAuthorization -> Active, and billing 1 Paid by the journey-3 charge. */
  private async authorized(trx: Executor, subscriptionId: string, chargeId: string, paidAt: string): Promise<void> {
    const sub = (await subscriptionsRepository.findMany(trx, [subscriptionId]))[0];
    if (!sub || !(await subscriptionsRepository.transition(trx, subscriptionId, ['PendingAuthorization'], 'Active', paidAt))) return;
    await this.engine.emit(trx, [subscriptionEvent('subscription.authorized', sub, 'PendingAuthorization', paidAt, { status: 'Active', paymentMethod: 'Pix' })]);
    const first = await billingsRepository.installmentOf(trx, subscriptionId, 1);
    const state = first && (await billingsRepository.loadForCharge(trx, first.billing_id));
    if (state) await this.paid(trx, { ...state, sub_status: 'Active' }, chargeId, paidAt, 'Paid by Pix with the authorization (journey 3)');
  }

  private async paid(trx: Executor, state: ChargeState, chargeId: string, at: string, message: string): Promise<void> {
    const entry: AttemptEntry = { date: at, returnCode: '00', returnMessage: message, paymentId: chargeId };
    const history = JSON.stringify([...historyOf(state), entry]);
    if (!(await billingsRepository.recordPix(trx, state.billing_id, state.attempts_made, { status: 'Paid', next_attempt_at: null, attempts_history: history, attempts_made: state.attempts_made + 1 }, at))) return;
    await this.engine.emit(trx, [billingEvent('billing.paid', state, at, { paymentId: chargeId, returnCode: '00', returnMessage: message, paymentMethod: 'Pix' })]);
    const subStatus = await subscriptionsRepository.statusOf(trx, state.subscription_id, this.ctx.database.dialect);
    await this.engine.afterEnd(trx, state, planCycleOf(state), subStatus);
  }

  /** A refused settlement: the next API Pix retry, or Denied when they are used or the PSP ended the charge (then the next cycle). */
  private async failed(trx: Executor, billingId: string, chargeId: string, at: string, returnCode: string, reason: string, final: boolean): Promise<void> {
    const state = await billingsRepository.loadForCharge(trx, billingId);
    if (!state || state.status !== 'Opened') return;
    const entry: AttemptEntry = { date: at, returnCode, returnMessage: reason, paymentId: chargeId };
    const history = JSON.stringify([...historyOf(state), entry]);
    const outcome = { paymentId: chargeId, returnCode, returnMessage: reason, paymentMethod: 'Pix' };
    // attempts_made counts the settlements refused so far: the retries used are that count.
    const next = final ? null : pixRetryDate(new Date(state.expire_at), state.attempts_made);
    const subStatus = await subscriptionsRepository.statusOf(trx, state.subscription_id, this.ctx.database.dialect);
    if (next && subStatus === 'Active') {
      if (!(await billingsRepository.recordPix(trx, billingId, state.attempts_made, { status: 'Opened', next_attempt_at: next.toISOString(), attempts_history: history, attempts_made: state.attempts_made + 1 }, at))) return;
      await this.engine.emit(trx, [billingEvent('billing.retry_scheduled', state, at, { ...outcome, nextAttemptDate: next.toISOString(), attempt: state.attempts_made + 1 })]);
      await this.ctx.queue.enqueue(trx, { kind: PIX_RETRY_JOB, payload: { billingId }, runAt: new Date(at), dedupeKey: `${PIX_RETRY_JOB}:${billingId}:${state.attempts_made + 1}` });
      return;
    }
    const status = subStatus === 'Active' ? 'Denied' : 'Canceled';
    if (!(await billingsRepository.recordPix(trx, billingId, state.attempts_made, { status, next_attempt_at: null, attempts_history: history, attempts_made: state.attempts_made + 1 }, at))) return;
    await this.engine.emit(trx, [billingEvent(status === 'Denied' ? 'billing.denied' : 'billing.canceled', state, at, outcome)]);
    await this.engine.afterEnd(trx, state, planCycleOf(state), subStatus);
  }

  /** The recurrence ended (refused, expired, cancelled by the payer): Canceled with the reason, its open billing too. */
  async ended(trx: Executor, subscriptionId: string, reason: string, by: string): Promise<void> {
    const sub = (await subscriptionsRepository.findMany(trx, [subscriptionId]))[0];
    if (!sub || !ENDABLE.includes(sub.status)) return;
    const at = this.ctx.clock.now().toISOString();
    if (!(await subscriptionsRepository.transition(trx, subscriptionId, ENDABLE, 'Canceled', at, { canceled_reason: reason, canceled_by: by }))) return;
    const billings = await billingsRepository.cancelOpenedOfSubscription(trx, subscriptionId, { by: SYSTEM, at });
    await this.engine.emit(trx, [
      subscriptionEvent('subscription.canceled', sub, sub.status, at, { reason, canceledBy: by }),
      ...billings.map((b) => billingEvent('billing.canceled', { ...b, account_number: sub.account_number }, at, { reason })),
    ]);
  }
}
