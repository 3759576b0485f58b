import { validateExpiry } from '../../domain/cards.js';
import type { Executor } from '../../db/connection.js';
import type { NewJob } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import type { ChargeDeps } from './charge-attempt.js';
import type { BusinessEvent } from '../webhooks/outbox.js';
import { subscriptionsRepository } from './subscriptions-repository.js';

export const CARD_EXPIRING_JOB = 'subscription.card_expiring';
/** The warning comes this long before the card stops working (the first instant after its expiry month). */
const WARN_BEFORE_MS = 30 * 86_400_000;

interface ExpiringPayload {
  subscriptionId: string;
  merchantId: string;
  vaultId: string;
  expirationMonth: string;
  expirationYear: string;
}

/**
 * The job that tells `subscription.card_expiring` 30 days before a subscription's card expires,
 * on the business clock (the sandbox clock's advance runs it). Its dedupe key names the card and
 * its expiry, so each card is told about once per subscription, however often it is scheduled.
 */
export function cardExpiringJob(sub: { subscription_id: string; merchant_id: string }, card: { vaultId: string; expirationMonth: string; expirationYear: string }, now: Date): NewJob | null {
  const expiry = validateExpiry(card.expirationMonth, card.expirationYear, now);
  if (!expiry.ok) return null;
  const runAt = new Date(Math.max(now.getTime(), expiry.expiresAt.getTime() - WARN_BEFORE_MS));
  const payload: ExpiringPayload = { subscriptionId: sub.subscription_id, merchantId: sub.merchant_id, vaultId: card.vaultId, expirationMonth: card.expirationMonth, expirationYear: card.expirationYear };
  return { kind: CARD_EXPIRING_JOB, payload, runAt, dedupeKey: `${CARD_EXPIRING_JOB}:${sub.subscription_id}:${card.vaultId}:${card.expirationMonth}/${card.expirationYear}` };
}

/** Schedules the warning for a subscription's card, in the caller's transaction. */
export async function scheduleCardExpiring(ctx: Pick<ChargeDeps, 'queue' | 'clock'>, trx: Executor, sub: { subscription_id: string; merchant_id: string }, card: { vaultId: string; expirationMonth: string; expirationYear: string }): Promise<void> {
  const job = cardExpiringJob(sub, card, ctx.clock.now());
  if (job) await ctx.queue.enqueue(trx, job);
}

/** The job's handler: told only while the subscription still charges that very card with that expiry. */
export function cardExpiringJobs(ctx: ChargeDeps, engine: { emit(trx: Executor, events: BusinessEvent[]): Promise<void> }): JobDefinition[] {
  const handler = async (payload: ExpiringPayload) => {
    const db = ctx.database.db;
    const sub = await subscriptionsRepository.find(db, payload.merchantId, payload.subscriptionId);
    if (!sub || sub.vault_id !== payload.vaultId || (sub.status !== 'Active' && sub.status !== 'Blocked')) return;
    const card = (await ctx.cards.getVaults([{ merchantId: payload.merchantId, vaultId: payload.vaultId }])).get(payload.vaultId);
    if (!card || card.expirationMonth !== payload.expirationMonth || card.expirationYear !== payload.expirationYear) return;
    const at = ctx.clock.now().toISOString();
    await db.transaction().execute((trx) =>
      engine.emit(trx, [
        {
          merchantId: sub.merchant_id,
          accountNumber: Number(sub.account_number),
          type: 'subscription.card_expiring',
          at,
          data: { subscriptionId: sub.subscription_id, planId: sub.plan_id, vaultId: card.vaultId, brand: card.brand, last4: card.maskedNumber.slice(-4), expirationMonth: card.expirationMonth, expirationYear: card.expirationYear },
        },
      ]),
    );
  };
  return [{ kind: CARD_EXPIRING_JOB, handler: handler as (payload: unknown) => Promise<void> }];
}
