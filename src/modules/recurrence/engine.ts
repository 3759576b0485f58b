import { timeOrderedUuid } from '../../ids.js';
import type { Executor } from '../../db/connection.js';
import { ApiError } from '../../http/errors.js';
import { RetryLater } from '../../jobs/registry.js';
import { billingsRepository, SYSTEM, type ChargeState } from './billings-repository.js';
import { runAttempt, type AttemptResult, type ChargeDeps } from './charge-attempt.js';
import { decide, type Decision } from './charge-outcome.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { BILLING_END, billingEvent, subscriptionEvent } from './events.js';
import { recordEvents, type BusinessEvent } from '../webhooks/outbox.js';
import { historyOf, type AttemptEntry } from './views.js';
import { cobrSendAt } from '../../domain/pix-automatico.js';

export const CHARGE_JOB = 'billing.charge';
export interface ChargePayload {
  billingId: string;
  /** 0 = the first charge at the due date, k = the k-th retry. */
  attempt: number;
}
/** One job per billing attempt: a second enqueue (a replay, two instances) is a no-op. */
export const chargeKey = (billingId: string, attempt: number) => `${CHARGE_JOB}:${billingId}:${attempt}`;

const DAY_MS = 86_400_000;
/** A Pix billing's cobr is sent to the PSP in its window before the due date (./pix-cycles.ts runs it). */
export const PIX_SEND_JOB = 'billing.pix.send';

/** The plan terms a billing's end needs, read with the billing. */
export const planCycleOf = (state: Pick<ChargeState, 'plan_amount' | 'interval_days' | 'plan_installments' | 'plan_payment_method'>): PlanCycle => ({
  amount: state.plan_amount,
  interval_days: state.interval_days,
  installments: state.plan_installments,
  payment_method: state.plan_payment_method,
});
/** A payment left Pending with no better estimate (its answer was lost a moment ago) is looked at again after this. */
const PENDING_RECHECK_MS = 30_000;

/** The plan terms the engine needs when a billing ends. */
export interface PlanCycle {
  amount: number;
  interval_days: number;
  installments: number | null;
  /** Pix: the next billing's charge is a cobr sent in its window (./pix-cycles.ts). */
  payment_method?: string;
}

/** How a new billing is charged: a card charge job at its due date, a Pix cobr sent before it, or nothing yet (a Pix billing 1, paid with the authorization). */
export type ChargeBy = 'card' | 'pix' | 'none';

/** What a billing's end needs to know about it. */
type EndedBilling = Pick<ChargeState, 'billing_id' | 'merchant_id' | 'subscription_id' | 'installment' | 'expire_at' | 'account_number' | 'plan_id'>;

/**
 * The billing engine (contract section 8), driven by jobs and the clock. Billing 1 is issued
 * with the subscription; billing n+1 when billing n ends (Paid, Denied, PaymentInvalid or
 * cancelled), due `interval` days after billing n's due date whatever the outcome, so there
 * is at most one Opened billing per subscription. Each charge attempt is a job keyed by
 * billing and attempt; the billing row itself fences the attempt (see `charge`).
 */
export class BillingEngine {
  constructor(private readonly ctx: ChargeDeps) {}

  /** Writes recurrence events (events.ts) through the caller's transaction, as outbox rows. */
  emit(trx: Executor, events: BusinessEvent[]): Promise<void> {
    return recordEvents(trx, this.ctx.queue, events);
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
    const billingId = timeOrderedUuid(this.ctx.clock.now());
    const due = dueAt.toISOString();
    const inserted = await billingsRepository.insertIfAbsent(trx, {
      billing_id: billingId,
      merchant_id: sub.merchant_id,
      subscription_id: sub.subscription_id,
      installment,
      status: 'Opened',
      amount,
      expire_at: due,
      attempts_made: 0,
      next_attempt_at: due,
      charging_payment_id: null,
      attempts_history: '[]',
      created_by: by,
      created_at: this.ctx.clock.now().toISOString(),
      modified_by: null,
      modified_at: null,
    });
    if (!inserted) return null;
    await this.emit(trx, [billingEvent('billing.opened', { billing_id: billingId, installment, amount, expire_at: due, subscription_id: sub.subscription_id, merchant_id: sub.merchant_id, account_number: sub.account_number }, this.ctx.clock.now().toISOString())]);
    if (chargeBy === 'card') await this.ctx.queue.enqueue(trx, { kind: CHARGE_JOB, payload: { billingId, attempt: 0 } satisfies ChargePayload, runAt: dueAt, dedupeKey: chargeKey(billingId, 0) });
    if (chargeBy === 'pix') await this.ctx.queue.enqueue(trx, { kind: PIX_SEND_JOB, payload: { billingId }, runAt: cobrSendAt(dueAt, this.ctx.clock.now()), dedupeKey: `${PIX_SEND_JOB}:${billingId}` });
    return billingId;
  }

  /**
   * After billing n ended: billing n+1, due n's due date + interval, while the subscription is
   * Active; when n was a Custom plan's last installment, the subscription is Finished instead.
   */
  async afterEnd(trx: Executor, billing: EndedBilling, plan: PlanCycle, subscriptionStatus: string): Promise<void> {
    if (subscriptionStatus !== 'Active') return;
    if (plan.installments !== null && billing.installment >= plan.installments) {
      const at = this.ctx.clock.now().toISOString();
      if (await subscriptionsRepository.transition(trx, billing.subscription_id, ['Active'], 'Finished', at)) {
        await this.emit(trx, [subscriptionEvent('subscription.finished', billing, 'Active', at)]);
      }
      return;
    }
    const due = new Date(Date.parse(billing.expire_at) + plan.interval_days * DAY_MS);
    await this.issue(trx, billing, plan.amount, billing.installment + 1, due, SYSTEM, plan.payment_method === 'Pix' ? 'pix' : 'card');
  }

  /**
   * The charge job. The attempt is claimed in the billing row (a conditional UPDATE, committed)
   * before any payment is made, and the claim names the payment id the attempt will use:
   * - a duplicate job, a second worker or a stale retry finds the attempt count moved on and
   *   does nothing;
   * - a run that dies after the claim leaves the attempt claimed but unrecorded; the job is
   *   retried (lease expiry or backoff) and resumes under the same payment id, reading back the
   *   payment if it was made rather than paying again (see runAttempt);
   * - the outcome is recorded fenced by the claim, so it is recorded once.
   */
  async charge({ billingId, attempt }: ChargePayload): Promise<void> {
    const state = await billingsRepository.loadForCharge(this.ctx.database.db, billingId);
    if (!state) return;
    const taken = await this.takeAttempt(state, attempt);
    if (!taken) return;

    const result = await runAttempt(this.ctx, state, taken.paymentId, taken.resumed);
    await this.conclude(state, attempt, taken.paymentId, result);
  }

  private decisionOf(state: ChargeState, attempt: number, result: AttemptResult): Decision {
    const context = { dueDate: new Date(state.expire_at), failuresSoFar: attempt + 1, attempts: state.plan_attempts };
    return result.payment ? decide(result.payment, context) : { kind: 'final', status: 'PaymentInvalid', blockSubscription: false };
  }

  /** Decides and records an attempt's result: waits for a Pending payment, voids a held one first. */
  private async conclude(state: ChargeState, attempt: number, paymentId: string, first: AttemptResult): Promise<void> {
    const billingId = state.billing_id;
    let result = first;
    let decision = this.decisionOf(state, attempt, result);
    if (decision.kind === 'wait') throw new RetryLater(new Date(this.ctx.clock.now().getTime() + (result.retryInMs ?? PENDING_RECHECK_MS)), 'payment pending at the acquirer');
    if (decision.kind === 'void') {
      result = await this.voidHeld(state.merchant_id, paymentId);
      decision = this.decisionOf(state, attempt, result);
      // Still undecided (a concurrent change not visible yet): the job runs again and resumes.
      if (decision.kind === 'void' || decision.kind === 'wait') throw new Error(`payment ${paymentId} of billing ${billingId} is still ${result.payment!.status}`);
    }
    let blocked = false;
    await this.ctx.database.db.transaction().execute(async (trx) => {
      // The payment's own events (payment.denied, ...) come before the billing's.
      if (result.payment) await this.ctx.payments.relayPending(trx, [paymentId]);
      blocked = await this.recordIn(trx, state, attempt, paymentId, result, decision);
    });
    // After the commit: a rolled-back block is never reported.
    if (blocked) this.logBlocked(state, result);
  }

  /** The payment id this run charges the attempt under, or null when it must not charge. */
  private async takeAttempt(state: ChargeState, attempt: number): Promise<{ paymentId: string; resumed: boolean } | null> {
    const db = this.ctx.database.db;
    if (state.status !== 'Opened') return null;
    if (state.attempts_made === attempt + 1 && state.charging_payment_id !== null) {
      // Claimed and never recorded: the run that claimed it died. Resume under its payment id.
      const paymentId = state.charging_payment_id;
      if (state.sub_status !== 'Active' && !(await this.ctx.payments.find(paymentId))) {
        // It died before paying, and the subscription stopped since: never charge it now.
        const at = this.ctx.clock.now().toISOString();
        await db.transaction().execute(async (trx) => {
          if (await billingsRepository.record(trx, { billingId: state.billing_id, attempt, paymentId }, { status: 'Canceled', next_attempt_at: null, attempts_history: state.attempts_history }, at)) {
            await this.emit(trx, [billingEvent('billing.canceled', state, at, { reason: `The subscription is ${state.sub_status}.` })]);
          }
        });
        return null;
      }
      return { paymentId, resumed: true };
    }
    // A duplicate or stale job: this attempt was made (or another is in flight).
    if (state.attempts_made !== attempt || state.charging_payment_id !== null) return null;
    const paymentId = timeOrderedUuid(this.ctx.clock.now());
    if (state.sub_status === 'Active' && (await billingsRepository.claim(db, state.billing_id, attempt, paymentId, this.ctx.clock.now().toISOString()))) {
      return { paymentId, resumed: false };
    }
    await this.stopIfHalted(state.billing_id, attempt);
    return null;
  }

  /** A subscription that stopped (Blocked, Canceled) is never charged: its Opened billing is Canceled. */
  private async stopIfHalted(billingId: string, attempt: number): Promise<void> {
    const db = this.ctx.database.db;
    const again = await billingsRepository.loadForCharge(db, billingId);
    if (!again || again.status !== 'Opened' || again.attempts_made !== attempt || again.charging_payment_id !== null) return;
    if (again.sub_status === 'Active') return;
    const at = this.ctx.clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      if (await billingsRepository.cancelOpened(trx, billingId, { by: SYSTEM, at })) {
        await this.emit(trx, [billingEvent('billing.canceled', again, at, { reason: `The subscription is ${again.sub_status}.` })]);
      }
    });
  }

  /**
   * Anti-fraud Review held an authorized payment (Blocked). Nobody reviews a billing as it runs,
   * so the engine voids the authorization and the billing reads "Denied, nothing charged". An
   * operator who decided meanwhile wins: the payment's new status is read back instead.
   */
  private async voidHeld(merchantId: string, paymentId: string): Promise<AttemptResult> {
    try {
      await this.ctx.payments.cancel(merchantId, paymentId);
    } catch (error) {
      if (!(error instanceof ApiError && error.statusCode === 409)) throw error;
    }
    const row = (await this.ctx.payments.find(paymentId))!;
    const voided = row.status === 'Canceled';
    return {
      payment: { status: row.status, returnCode: voided ? '59' : row.return_code },
      returnCode: voided ? '59' : row.return_code,
      returnMessage: voided ? 'Held by anti-fraud review: the authorization was voided, nothing was charged.' : (row.return_message ?? row.status),
      paymentId,
    };
  }

  /** In the caller's transaction: the attempt's outcome, its events, and the next billing when it ended. True when it blocked the subscription. */
  private async recordIn(trx: Executor, state: ChargeState, attempt: number, paymentId: string, result: AttemptResult, decision: Decision): Promise<boolean> {
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    const entry: AttemptEntry = { date: at, returnCode: result.returnCode, returnMessage: result.returnMessage, paymentId: result.paymentId };
    const attemptsHistory = JSON.stringify([...historyOf(state), entry]);
    const claim = { billingId: state.billing_id, attempt, paymentId };
    // What the events of this attempt tell of it: the charge's answer.
    const outcome = { paymentId: result.paymentId, returnCode: result.returnCode, returnMessage: result.returnMessage };
    // Read inside the transaction, locked: the subscription may have been cancelled while we
    // charged, and a cancel now waits for this commit, then cancels the next billing issued here.
    let subStatus = await subscriptionsRepository.statusOf(trx, state.subscription_id, this.ctx.database.dialect);
    if (decision.kind === 'retry' && subStatus === 'Active') {
      const recorded = await billingsRepository.record(trx, claim, { status: 'Opened', next_attempt_at: decision.at.toISOString(), attempts_history: attemptsHistory }, at);
      if (recorded) {
        await this.emit(trx, [billingEvent('billing.retry_scheduled', state, at, { ...outcome, nextAttemptDate: decision.at.toISOString(), attempt: attempt + 1 })]);
        await this.ctx.queue.enqueue(trx, {
          kind: CHARGE_JOB,
          payload: { billingId: state.billing_id, attempt: attempt + 1 } satisfies ChargePayload,
          runAt: decision.at,
          dedupeKey: chargeKey(state.billing_id, attempt + 1),
        });
      }
      return false;
    }
    // A retry for a subscription that stopped meanwhile ends as Canceled: it will not be charged again.
    const status = decision.kind === 'paid' ? 'Paid' : decision.kind === 'final' ? decision.status : 'Canceled';
    if (!(await billingsRepository.record(trx, claim, { status, next_attempt_at: null, attempts_history: attemptsHistory }, at))) return false;
    await this.emit(trx, [billingEvent(BILLING_END[status], state, at, outcome)]);
    let blocked = false;
    if (decision.kind === 'final' && decision.blockSubscription) {
      const why = { blocked_reason: result.returnMessage, blocked_return_code: result.returnCode };
      if (await subscriptionsRepository.transition(trx, state.subscription_id, ['Active'], 'Blocked', at, why)) {
        subStatus = 'Blocked';
        blocked = true;
        await this.emit(trx, [subscriptionEvent('subscription.blocked', state, 'Active', at, { reason: result.returnMessage, returnCode: result.returnCode, billingId: state.billing_id, paymentId: result.paymentId })]);
      }
    }
    await this.afterEnd(trx, state, planCycleOf(state), subStatus);
    return blocked;
  }

  private logBlocked(state: ChargeState, result: AttemptResult): void {
    this.ctx.logger.warn(
      { event: 'subscription.blocked', subscriptionId: state.subscription_id, billingId: state.billing_id, merchantId: state.merchant_id, paymentId: result.paymentId, returnCode: result.returnCode },
      'subscription blocked',
    );
  }
}
