import { timeOrderedUuid } from '../../ids.js';
import { DomainError } from '../../domain/errors.js';
import { RetryLater, type JobResult } from '../../jobs/registry.js';
import { billingsRepository, type ChargeState } from './billings-repository.js';
import { runAttempt, runFreshAttempts, type AttemptResult, type ChargeDeps } from './charge-attempt.js';
import { decide, type Decision } from './charge-outcome.js';
import { recordOutcomes, type Concluded } from './charge-record.js';
import { billingEvent } from './events.js';
import type { ChargePayload, EngineWrites } from './billing-terms.js';

/** A payment left Pending with no better estimate (its answer was lost a moment ago) is looked at again after this. */
const PENDING_RECHECK_MS = 30_000;

/** A job of the batch that holds its billing's attempt: what it charges under, and what that came to. */
interface Attempt {
  /** The job's position in the batch. */
  index: number;
  state: ChargeState;
  attempt: number;
  paymentId: string;
  /** Claimed by an earlier run that died: its payment may exist. */
  resumed: boolean;
}

/**
 * The charge jobs of a batch (the jobs of one claim), charged together:
 * - the billings are read in one statement and their attempts claimed in another: each claim is
 *   the billing row's fenced UPDATE naming the payment id the attempt will use, committed before
 *   any payment is made, so a duplicate job, a second worker or a stale retry finds the attempt
 *   taken and does nothing;
 * - the payments are made as one batch (the payment service's `createMany`): the stored cards
 *   read in one statement, the Pending rows inserted in one and committed before any acquirer
 *   call, every authorization sent at once outside any transaction, and the outcomes with their
 *   events recorded in one; so a batch waits on the acquirer once, not once per billing;
 * - the outcomes are recorded in one transaction, each fenced by its claim (./charge-record.ts).
 * A run that dies after its claims leaves them claimed but unrecorded; the jobs are retried
 * (lease expiry or backoff) and resume under the same payment ids, reading back the payments that
 * were made rather than paying again (runAttempt). Answers one result per payload.
 */
export async function chargeBatch(ctx: ChargeDeps, engine: EngineWrites, payloads: readonly ChargePayload[]): Promise<JobResult[]> {
  const results: JobResult[] = payloads.map(() => undefined);
  const fail = (index: number, error: unknown) => {
    results[index] = error instanceof Error ? error : new Error(String(error));
  };
  const states = new Map((await billingsRepository.loadForChargeMany(ctx.database.db, payloads.map((p) => p.billingId))).map((s) => [s.billing_id, s]));
  const fresh: Attempt[] = [];
  const resumed: Attempt[] = [];
  const held = new Set<string>();
  payloads.forEach(({ billingId, attempt }, index) => {
    const state = states.get(billingId);
    // Gone, ended, or held by an earlier job of this batch (a duplicate): nothing to do.
    if (!state || state.status !== 'Opened' || held.has(billingId)) return;
    if (state.attempts_made === attempt + 1 && state.charging_payment_id !== null) {
      // Claimed and never recorded: the run that claimed it died. Resume under its payment id.
      held.add(billingId);
      resumed.push({ index, state, attempt, paymentId: state.charging_payment_id, resumed: true });
    } else if (state.attempts_made === attempt && state.charging_payment_id === null) {
      held.add(billingId);
      fresh.push({ index, state, attempt, paymentId: timeOrderedUuid(ctx.clock.now()), resumed: false });
    }
    // Otherwise a duplicate or stale job: this attempt was made (or another is in flight).
  });

  const attempts = [...(await resumable(ctx, engine, resumed, fail)), ...(await claimed(ctx, engine, fresh, fail))];
  const made = await makeFresh(ctx, attempts, fail);
  const concluded: Concluded[] = [];
  await Promise.all(
    attempts.map(async (a) => {
      if (!a.resumed && !made.has(a.index)) return;
      try {
        const outcome = await settle(ctx, a, made.get(a.index));
        if (outcome instanceof RetryLater) results[a.index] = outcome;
        else concluded.push({ ...outcome, state: a.state, attempt: a.attempt, paymentId: a.paymentId, index: a.index });
      } catch (error) {
        fail(a.index, error);
      }
    }),
  );
  await record(ctx, engine, concluded, fail);
  return results;
}

/** Resumed attempts that may go on: one whose run died before paying is not charged once its subscription stopped. */
async function resumable(ctx: ChargeDeps, engine: EngineWrites, resumed: Attempt[], fail: (index: number, error: unknown) => void): Promise<Attempt[]> {
  const going: Attempt[] = [];
  await Promise.all(
    resumed.map(async (a) => {
      try {
        if (a.state.sub_status === 'Active' || (await ctx.payments.find(a.paymentId))) going.push(a);
        else await cancelUnpaid(ctx, engine, a);
      } catch (error) {
        fail(a.index, error);
      }
    }),
  );
  return going;
}

/** It died before paying, and the subscription stopped since: never charge it now. */
async function cancelUnpaid(ctx: ChargeDeps, engine: EngineWrites, { state, attempt, paymentId }: Attempt): Promise<void> {
  const at = ctx.clock.now().toISOString();
  await ctx.database.db.transaction().execute(async (trx) => {
    if (await billingsRepository.record(trx, { billingId: state.billing_id, attempt, paymentId }, { status: 'Canceled', next_attempt_at: null, attempts_history: state.attempts_history }, at)) {
      await engine.emit(trx, [billingEvent('billing.canceled', state, at, { reason: `The subscription is ${state.sub_status}.` })]);
    }
  });
}

/** The fresh attempts this batch claimed, in one statement; a billing whose subscription stopped is Canceled instead. */
async function claimed(ctx: ChargeDeps, engine: EngineWrites, fresh: Attempt[], fail: (index: number, error: unknown) => void): Promise<Attempt[]> {
  const active = fresh.filter((a) => a.state.sub_status === 'Active');
  const at = ctx.clock.now().toISOString();
  const won = await billingsRepository.claimMany(ctx.database.db, active.map((a) => ({ billingId: a.state.billing_id, attempt: a.attempt, paymentId: a.paymentId })), at);
  await Promise.all(
    fresh
      .filter((a) => !won.has(a.state.billing_id))
      .map((a) => stopIfHalted(ctx, engine, a.state.billing_id, a.attempt).catch((error) => fail(a.index, error))),
  );
  return fresh.filter((a) => won.has(a.state.billing_id));
}

/** A subscription that stopped (Blocked, Canceled) is never charged: its Opened billing is Canceled. */
async function stopIfHalted(ctx: ChargeDeps, engine: EngineWrites, billingId: string, attempt: number): Promise<void> {
  const db = ctx.database.db;
  const again = await billingsRepository.loadForCharge(db, billingId);
  if (!again || again.status !== 'Opened' || again.attempts_made !== attempt || again.charging_payment_id !== null) return;
  if (again.sub_status === 'Active') return;
  const at = ctx.clock.now().toISOString();
  await db.transaction().execute(async (trx) => {
    if (await billingsRepository.cancelOpened(trx, billingId, { by: 'system', at })) {
      await engine.emit(trx, [billingEvent('billing.canceled', again, at, { reason: `The subscription is ${again.sub_status}.` })]);
    }
  });
}

/**
 * The fresh attempts' payments, made together: their stored cards read in one statement, then
 * the payments recorded, sent and answered as one batch (runFreshAttempts). A resumed attempt
 * reads back or settles its own payment (runAttempt). Answers the results by job position.
 */
async function makeFresh(ctx: ChargeDeps, attempts: Attempt[], fail: (index: number, error: unknown) => void): Promise<Map<number, AttemptResult>> {
  const fresh = attempts.filter((a) => !a.resumed);
  const made = new Map<number, AttemptResult>();
  if (fresh.length === 0) return made;
  try {
    const found = await ctx.cards.getVaults(fresh.map((a) => ({ merchantId: a.state.merchant_id, vaultId: a.state.vault_id })));
    const results = await runFreshAttempts(ctx, fresh.map((a) => ({ state: a.state, paymentId: a.paymentId, card: found.get(a.state.vault_id) ?? null })));
    fresh.forEach((a, i) => {
      const result = results[i];
      if (result instanceof Error) fail(a.index, result);
      else made.set(a.index, result);
    });
  } catch (error) {
    // The batch's payments could not be recorded at all: each job is retried and resumes under its claim.
    for (const a of fresh) fail(a.index, error);
  }
  return made;
}

/** Decides on the attempt's payment (made by the batch, or made or read back here); a Pending one waits (RetryLater), a held one is voided first. */
async function settle(ctx: ChargeDeps, a: Attempt, made?: AttemptResult): Promise<{ result: AttemptResult; decision: Decision } | RetryLater> {
  let result = made ?? (await runAttempt(ctx, a.state, a.paymentId, a.resumed));
  let decision = decisionOf(a.state, a.attempt, result);
  if (decision.kind === 'wait') return new RetryLater(new Date(ctx.clock.now().getTime() + (result.retryInMs ?? PENDING_RECHECK_MS)), 'payment pending at the acquirer');
  if (decision.kind === 'void') {
    result = await voidHeld(ctx, a.state.merchant_id, a.paymentId);
    decision = decisionOf(a.state, a.attempt, result);
    // Still undecided (a concurrent change not visible yet): the job runs again and resumes.
    if (decision.kind === 'void' || decision.kind === 'wait') throw new Error(`payment ${a.paymentId} of billing ${a.state.billing_id} is still ${result.payment!.status}`);
  }
  return { result, decision };
}

function decisionOf(state: ChargeState, attempt: number, result: AttemptResult): Decision {
  const context = { dueDate: new Date(state.expire_at), failuresSoFar: attempt + 1, attempts: state.plan_attempts };
  return result.payment ? decide(result.payment, context) : { kind: 'final', status: 'PaymentInvalid', blockSubscription: false };
}

/**
 * Anti-fraud Review held an authorized payment (Blocked). Nobody reviews a billing as it runs,
 * so the engine voids the authorization and the billing reads "Denied, nothing charged". An
 * operator who decided meanwhile wins: the payment's new status is read back instead.
 */
async function voidHeld(ctx: ChargeDeps, merchantId: string, paymentId: string): Promise<AttemptResult> {
  try {
    await ctx.payments.cancel(merchantId, paymentId);
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === 'conflict')) throw error;
  }
  const row = (await ctx.payments.find(paymentId))!;
  const voided = row.status === 'Canceled';
  return {
    payment: { status: row.status, returnCode: voided ? '59' : row.return_code },
    returnCode: voided ? '59' : row.return_code,
    returnMessage: voided ? 'Held by anti-fraud review: the authorization was voided, nothing was charged.' : (row.return_message ?? row.status),
    paymentId,
  };
}

/**
 * The outcomes in one transaction. Should it fail, each is recorded in a transaction of its
 * own, so one billing whose outcome cannot be written does not hold back the others; a failed
 * one fails its job, whose retry resumes under the claim.
 */
async function record(ctx: ChargeDeps, engine: EngineWrites, concluded: Concluded[], fail: (index: number, error: unknown) => void): Promise<void> {
  const write = async (items: Concluded[]) => {
    const blocked = await ctx.database.db.transaction().execute((trx) => recordOutcomes(ctx, engine, trx, items));
    // After the commit: a rolled-back block is never reported.
    for (const item of blocked) {
      ctx.logger.warn(
        { event: 'subscription.blocked', subscriptionId: item.state.subscription_id, billingId: item.state.billing_id, merchantId: item.state.merchant_id, paymentId: item.result.paymentId, returnCode: item.result.returnCode },
        'subscription blocked',
      );
    }
  };
  if (concluded.length === 0) return;
  try {
    await write(concluded);
  } catch (error) {
    if (concluded.length === 1) return fail(concluded[0].index, error);
    for (const item of concluded) await write([item]).catch((alone) => fail(item.index, alone));
  }
}
