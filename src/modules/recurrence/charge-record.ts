import type { Executor } from '../../db/connection.js';
import { billingsRepository, type BillingOutcome, type ChargeState } from './billings-repository.js';
import type { AttemptResult, ChargeDeps } from './charge-attempt.js';
import type { Decision } from './charge-outcome.js';
import { CHARGE_JOB, chargeKey, planCycleOf, type ChargePayload, type Ending, type EngineWrites, type Outbox } from './billing-terms.js';
import { BILLING_END, billingEvent, subscriptionEvent } from './events.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { historyOf, type AttemptEntry } from './resources.js';
import { cardUpdatedEvent } from './card-replacement.js';
import { cardExpiringJob } from './card-expiring.js';

/** A claimed attempt whose payment is decided: what the batch records. */
export interface Concluded {
  /** Its job's position in the batch. */
  index: number;
  state: ChargeState;
  attempt: number;
  paymentId: string;
  result: AttemptResult;
  /** Never 'wait' nor 'void': those are settled before the batch records. */
  decision: Decision;
}

/**
 * In the caller's transaction: the outcomes of a batch's attempts, each fenced by its claim,
 * with their events, the retries' jobs and the next billings of those that ended. One statement
 * each for the subscriptions' statuses, the billings, the next billings, the events and the jobs,
 * whatever the batch's size; a subscription to block or finish is one more each. Answers the
 * attempts that blocked their subscription.
 */
export async function recordOutcomes(ctx: ChargeDeps, engine: EngineWrites, trx: Executor, items: readonly Concluded[]): Promise<Concluded[]> {
  const at = ctx.clock.now().toISOString();
  // Read inside the transaction, locked: a subscription may have been cancelled while we
  // charged, and a cancel now waits for this commit, then cancels the next billing issued here.
  const subscriptions = await subscriptionsRepository.statusOfMany(trx, items.map((i) => i.state.subscription_id), ctx.database.dialect);
  const statusOf = (item: Concluded) => subscriptions.get(item.state.subscription_id)!;
  // The payments' own events (payment.denied, ...) are made effective, and notified, before the billings'.
  // A charge made again with a replaced card has a payment of its own besides the claimed one.
  const made = items.filter((i) => i.result.payment).flatMap((i) => (i.result.paymentId && i.result.paymentId !== i.paymentId ? [i.paymentId, i.result.paymentId] : [i.paymentId]));
  if (made.length > 0) await ctx.payments.relayPending(trx, made);
  const rows = items.map((item) => ({ item, outcome: outcomeOf(item, statusOf(item) === 'Active', at) }));
  const recorded = await billingsRepository.recordMany(trx, rows.map((r) => r.outcome), at);

  const outbox: Outbox = { events: [], jobs: [] };
  const endings: Ending[] = [];
  const blocked: Concluded[] = [];
  for (const { item, outcome } of rows) {
    if (!recorded.has(item.state.billing_id)) continue;
    const { state, result, decision } = item;
    // What the events of this attempt tell of it: the charge's answer.
    const declineCategory = result.declineCategory ?? null;
    const answer = { paymentId: result.paymentId, returnCode: result.returnCode, returnMessage: result.returnMessage, ...(decision.kind === 'paid' ? {} : { declineCategory }) };
    const status = outcome.fields.status;
    if (result.cardUpdated) {
      outbox.events.push(cardUpdatedEvent(state, result.cardUpdated, at));
      const warn = cardExpiringJob(state, result.cardUpdated, ctx.clock.now());
      if (warn) outbox.jobs.push(warn);
    }
    // Every failed charge is told as such, with when (if ever) it is tried again.
    if (decision.kind !== 'paid' && status !== 'Canceled') {
      outbox.events.push(billingEvent('billing.payment_failed', state, at, { ...answer, attempt: item.attempt, nextAttemptAt: status === 'Opened' && decision.kind === 'retry' ? decision.at.toISOString() : null }));
    }
    if (status === 'Opened' && decision.kind === 'retry') {
      const attempt = item.attempt + 1;
      outbox.events.push(billingEvent('billing.retry_scheduled', state, at, { ...answer, nextAttemptDate: decision.at.toISOString(), attempt }));
      outbox.jobs.push({ kind: CHARGE_JOB, payload: { billingId: state.billing_id, attempt } satisfies ChargePayload, runAt: decision.at, dedupeKey: chargeKey(state.billing_id, attempt) });
      continue;
    }
    outbox.events.push(billingEvent(BILLING_END[status], state, at, answer));
    let subscriptionStatus = statusOf(item);
    if (decision.kind === 'final' && decision.blockSubscription) {
      const why = { blocked_reason: result.returnMessage, blocked_return_code: result.returnCode };
      if (await subscriptionsRepository.transition(trx, state.subscription_id, ['Active'], 'Blocked', at, why)) {
        subscriptionStatus = 'Blocked';
        blocked.push(item);
        outbox.events.push(subscriptionEvent('subscription.blocked', state, 'Active', at, { reason: result.returnMessage, returnCode: result.returnCode, billingId: state.billing_id, paymentId: result.paymentId }));
      }
    }
    endings.push({ billing: state, plan: planCycleOf(state), subscriptionStatus });
  }
  await engine.afterEnds(trx, endings, outbox);
  await engine.flush(trx, outbox);
  return blocked;
}

/**
 * What the billing row becomes: Opened again for a retry while the subscription is Active; else
 * its final status. A retry for a subscription that stopped meanwhile ends as Canceled: it will
 * not be charged again.
 */
function outcomeOf(item: Concluded, active: boolean, at: string): BillingOutcome {
  const { state, result, decision } = item;
  const entry: AttemptEntry = { date: at, returnCode: result.returnCode, returnMessage: result.returnMessage, paymentId: result.paymentId, ...(result.declineCategory ? { declineCategory: result.declineCategory } : {}) };
  const attempts_history = JSON.stringify([...historyOf(state), entry]);
  const claim = { billingId: state.billing_id, attempt: item.attempt, paymentId: item.paymentId };
  if (decision.kind === 'retry' && active) return { claim, fields: { status: 'Opened', next_attempt_at: decision.at.toISOString(), attempts_history } };
  const status = decision.kind === 'paid' ? 'Paid' : decision.kind === 'final' ? decision.status : 'Canceled';
  return { claim, fields: { status, next_attempt_at: null, attempts_history } };
}
