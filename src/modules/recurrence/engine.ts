import { timeOrderedUuid } from '../../ids.js';
import type { Executor } from '../../db/connection.js';
import type { JobResult } from '../../jobs/registry.js';
import { billingsRepository, SYSTEM } from './billings-repository.js';
import { CHARGE_JOB, chargeKey, PIX_SEND_JOB, type ChargeBy, type ChargePayload, type EndedBilling, type Ending, type EngineWrites, type NewBilling, type Outbox, type PlanCycle } from './billing-terms.js';
import { chargeBatch } from './charge-batch.js';
import type { ChargeDeps } from './charge-attempt.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { billingEvent, subscriptionEvent } from './events.js';
import { recordEvents, type BusinessEvent } from '../webhooks/outbox.js';
import { cobrSendAt } from '../../domain/pix-automatico.js';
import type { BillingRow } from './resources.js';

export { CHARGE_JOB, chargeKey, PIX_SEND_JOB, planCycleOf, type ChargeBy, type ChargePayload, type EndedBilling, type Ending, type NewBilling, type Outbox, type PlanCycle } from './billing-terms.js';

const DAY_MS = 86_400_000;

/**
 * The billing engine (contract section 8), driven by jobs and the clock. Billing 1 is issued
 * with the subscription; billing n+1 when billing n ends (Paid, Denied, PaymentInvalid or
 * cancelled), due `interval` days after billing n's due date whatever the outcome, so there
 * is at most one Opened billing per subscription. Each charge attempt is a job keyed by
 * billing and attempt; the billing row itself fences the attempt (see ./charge-batch.ts).
 */
export class BillingEngine implements EngineWrites {
  constructor(private readonly ctx: ChargeDeps) {}

  /** The job queue, for the module's other scheduled work (card_expiring). */
  get queue(): ChargeDeps['queue'] {
    return this.ctx.queue;
  }

  /** Writes recurrence events (events.ts) through the caller's transaction, as outbox rows. */
  emit(trx: Executor, events: BusinessEvent[]): Promise<void> {
    return recordEvents(trx, this.ctx.queue, events);
  }

  /** Writes what `outbox` gathered, in the caller's transaction. */
  async flush(trx: Executor, outbox: Outbox): Promise<void> {
    if (outbox.events.length > 0) await this.emit(trx, outbox.events);
    if (outbox.jobs.length > 0) await this.ctx.queue.enqueueMany(trx, outbox.jobs);
  }

  /** Inside the caller's transaction: billing `installment`, Opened, due at `dueAt`, its first charge job and its event. */
  async issue(
    trx: Executor,
    sub: { subscription_id: string; merchant_id: string; account_number: number },
    amount: number,
    installment: number,
    dueAt: Date,
    by: string,
    chargeBy: ChargeBy = 'card',
  ): Promise<string | null> {
    const outbox: Outbox = { events: [], jobs: [] };
    const [id] = await this.issueMany(trx, [{ sub, amount, installment, dueAt, by, chargeBy }], outbox);
    await this.flush(trx, outbox);
    return id ?? null;
  }

  /**
   * `issue` for several billings: one insert for the lot (a billing that exists already is
   * skipped); their events and first jobs go to `outbox`. Answers the ids of the billings made.
   */
  async issueMany(trx: Executor, billings: readonly NewBilling[], outbox: Outbox): Promise<string[]> {
    if (billings.length === 0) return [];
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    const rows = billings.map((b): BillingRow => {
      const due = b.dueAt.toISOString();
      return {
        billing_id: timeOrderedUuid(now),
        merchant_id: b.sub.merchant_id,
        subscription_id: b.sub.subscription_id,
        installment: b.installment,
        status: 'Opened',
        amount: b.amount,
        expire_at: due,
        attempts_made: 0,
        next_attempt_at: due,
        charging_payment_id: null,
        attempts_history: '[]',
        created_by: b.by,
        created_at: at,
        modified_by: null,
        modified_at: null,
      };
    });
    const inserted = await billingsRepository.insertIfAbsent(trx, rows);
    const made: string[] = [];
    rows.forEach((row, i) => {
      if (!inserted.has(row.billing_id)) return;
      const { sub, amount, installment, dueAt, chargeBy } = billings[i];
      const billingId = row.billing_id;
      made.push(billingId);
      outbox.events.push(billingEvent('billing.opened', { billing_id: billingId, installment, amount, expire_at: row.expire_at, subscription_id: sub.subscription_id, merchant_id: sub.merchant_id, account_number: sub.account_number }, at));
      if (chargeBy === 'card') outbox.jobs.push({ kind: CHARGE_JOB, payload: { billingId, attempt: 0 } satisfies ChargePayload, runAt: dueAt, dedupeKey: chargeKey(billingId, 0) });
      if (chargeBy === 'pix') outbox.jobs.push({ kind: PIX_SEND_JOB, payload: { billingId }, runAt: cobrSendAt(dueAt, now), dedupeKey: `${PIX_SEND_JOB}:${billingId}` });
    });
    return made;
  }

  /**
   * After billing n ended: billing n+1, due n's due date + interval, while the subscription is
   * Active; when n was a Custom plan's last installment, the subscription is Finished instead.
   */
  async afterEnd(trx: Executor, billing: EndedBilling, plan: PlanCycle, subscriptionStatus: string): Promise<void> {
    const outbox: Outbox = { events: [], jobs: [] };
    await this.afterEnds(trx, [{ billing, plan, subscriptionStatus }], outbox);
    await this.flush(trx, outbox);
  }

  /** `afterEnd` for several billings: the next billings in one insert; events and jobs to `outbox`. */
  async afterEnds(trx: Executor, endings: readonly Ending[], outbox: Outbox): Promise<void> {
    const next: NewBilling[] = [];
    for (const { billing, plan, subscriptionStatus } of endings) {
      if (subscriptionStatus !== 'Active') continue;
      if (plan.installments !== null && billing.installment >= plan.installments) {
        const at = this.ctx.clock.now().toISOString();
        if (await subscriptionsRepository.transition(trx, billing.subscription_id, ['Active'], 'Finished', at)) {
          outbox.events.push(subscriptionEvent('subscription.finished', billing, 'Active', at));
        }
        continue;
      }
      const dueAt = new Date(Date.parse(billing.expire_at) + plan.interval_days * DAY_MS);
      next.push({ sub: billing, amount: plan.amount, installment: billing.installment + 1, dueAt, by: SYSTEM, chargeBy: plan.payment_method === 'Pix' ? 'pix' : 'card' });
    }
    await this.issueMany(trx, next, outbox);
  }

  /** One charge job (the batch of one: see ./charge-batch.ts). */
  async charge(payload: ChargePayload): Promise<void> {
    const [result] = await this.chargeBatch([payload]);
    if (result) throw result;
  }

  /** The charge jobs of a batch, charged together: one result per payload (undefined when done). */
  chargeBatch(payloads: readonly ChargePayload[]): Promise<JobResult[]> {
    return chargeBatch(this.ctx, this, payloads);
  }
}
