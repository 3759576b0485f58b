import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../../db/connection.js';
import { DomainError, isCallerError } from '../../domain/errors.js';
import { conflict, notFound } from '../../http/errors.js';
import type { Principal } from '../auth/service.js';
import type { VaultView } from '../cards/service.js';
import type { BillingEngine } from './engine.js';
import type { ChargeDeps } from './charge-attempt.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { billingsRepository } from './billings-repository.js';
import { isPix, type SubscriptionRow } from './resources.js';
import { cardUpdatedEvent } from './card-replacement.js';
import { scheduleCardExpiring } from './card-expiring.js';
import type { SubscriptionService } from './subscriptions-service.js';

/** A card update link lives this long (business time): long enough for an e-mail to be read. */
export const CARD_UPDATE_LINK_TTL_MS = 7 * 86_400_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export type LinkState =
  | { kind: 'open'; subscription: SubscriptionRow; card: VaultView | null; expiresAt: string }
  | { kind: 'used' | 'expired' | 'unknown' };

export interface NewCardForm {
  cardNumber: string;
  expirationMonth: string;
  expirationYear: string;
  securityCode?: string;
  cardholderName: string;
}

export type SubmitResult = { ok: true; last4: string; billingStatus: string | null } | { ok: false; reason: string } | { ok: false; gone: 'used' | 'expired' | 'unknown' };

/**
 * Card update links (dunning): a page where the customer of a card subscription enters a new
 * card. The card is checked (zero auth) and stored, becomes the subscription's card, and the
 * billing that failed is charged again at once: an Opened one with a failed attempt, or, for a
 * Blocked subscription, the billing its reactivation issues. The link works once and expires;
 * its page shows nothing of the old card but brand and last four digits.
 */
export class CardUpdateLinks {
  constructor(
    private readonly ctx: ChargeDeps,
    private readonly engine: BillingEngine,
    private readonly subscriptions: SubscriptionService,
    private readonly publicUrl: string,
  ) {}

  async create(principal: Principal, subscriptionId: string): Promise<{ url: string; expiresAt: string }> {
    const db = this.ctx.database.db;
    const row = await subscriptionsRepository.find(db, principal.merchantId, subscriptionId);
    if (!row) throw notFound('Subscription');
    if (isPix(row)) throw conflict('A Pix subscription has no card to update.');
    if (row.status === 'Canceled' || row.status === 'Finished') throw conflict(`The subscription is ${row.status}: it will not be charged again.`);
    const token = `cul_${randomBytes(24).toString('base64url')}`;
    const now = this.ctx.clock.now();
    const expiresAt = new Date(now.getTime() + CARD_UPDATE_LINK_TTL_MS).toISOString();
    await db.insertInto('card_update_links').values({ token_hash: hashOf(token), subscription_id: row.subscription_id, merchant_id: row.merchant_id, created_at: now.toISOString(), expires_at: expiresAt, used_at: null }).execute();
    return { url: `${this.publicUrl}/pay/card-update/${token}`, expiresAt };
  }

  /** The subscription's latest card update link (the dashboard's dunning state), without its token. */
  async latest(merchantId: string, subscriptionId: string): Promise<{ createdAt: string; expiresAt: string; usedAt: string | null } | null> {
    const row = await this.ctx.database.db
      .selectFrom('card_update_links')
      .select(['created_at', 'expires_at', 'used_at'])
      .where('merchant_id', '=', merchantId)
      .where('subscription_id', '=', subscriptionId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { createdAt: row.created_at, expiresAt: row.expires_at, usedAt: row.used_at } : null;
  }

  /** What the page shows for a token. */
  async state(token: string): Promise<LinkState> {
    const db = this.ctx.database.db;
    const link = await db.selectFrom('card_update_links').selectAll().where('token_hash', '=', hashOf(token)).executeTakeFirst();
    if (!link) return { kind: 'unknown' };
    if (link.used_at !== null) return { kind: 'used' };
    if (link.expires_at <= this.ctx.clock.now().toISOString()) return { kind: 'expired' };
    const subscription = await subscriptionsRepository.find(db, link.merchant_id, link.subscription_id);
    if (!subscription || subscription.status === 'Canceled' || subscription.status === 'Finished') return { kind: 'expired' };
    const card = (await this.ctx.cards.getVaults([{ merchantId: link.merchant_id, vaultId: subscription.vault_id }])).get(subscription.vault_id) ?? null;
    return { kind: 'open', subscription, card, expiresAt: link.expires_at };
  }

  /** The customer's new card: checked and stored, made the subscription's, the failed billing charged again. A refused card changes nothing. */
  async submit(token: string, form: NewCardForm): Promise<SubmitResult> {
    const state = await this.state(token);
    if (state.kind !== 'open') return { ok: false, gone: state.kind };
    const sub = state.subscription;
    let stored: VaultView;
    try {
      stored = await this.ctx.cards.createVault(sub.merchant_id, { cardNumber: form.cardNumber, expirationMonth: form.expirationMonth, expirationYear: form.expirationYear, securityCode: form.securityCode }, form.cardholderName, { verify: true });
    } catch (error) {
      if (isCallerError(error)) return { ok: false, reason: error.errors.map((e) => e.description).join(' ') };
      if (error instanceof DomainError) return { ok: false, reason: 'The card could not be checked right now; your card was not changed. Try again in a moment.' };
      throw error;
    }
    const at = this.ctx.clock.now().toISOString();
    const used = await this.ctx.database.db.transaction().execute(async (trx: Executor) => {
      const taken = await trx.updateTable('card_update_links').set({ used_at: at }).where('token_hash', '=', hashOf(token)).where('used_at', 'is', null).executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      await subscriptionsRepository.setVault(trx, sub.subscription_id, stored.vaultId, at);
      await scheduleCardExpiring(this.ctx, trx, sub, stored);
      const oldLast4 = state.card ? state.card.maskedNumber.slice(-4) : '';
      await this.engine.emit(trx, [cardUpdatedEvent(sub, { vaultId: stored.vaultId, brand: stored.brand, oldLast4, newLast4: stored.maskedNumber.slice(-4), expirationMonth: stored.expirationMonth, expirationYear: stored.expirationYear, source: 'card_update_link', updatedAt: at }, at)]);
      return true;
    });
    if (!used) return { ok: false, gone: 'used' };
    return { ok: true, last4: stored.maskedNumber.slice(-4), billingStatus: await this.rescue(sub) };
  }

  /** Charges the failed billing again at once; answers its status after the charge (null: nothing to charge). */
  private async rescue(sub: SubscriptionRow): Promise<string | null> {
    const db = this.ctx.database.db;
    if (sub.status === 'Blocked') {
      const principal: Principal = { userName: 'card-update-link', merchantId: sub.merchant_id, accountNumber: Number(sub.account_number), scopes: ['recurrence'] };
      await this.subscriptions.setStatus(principal, sub.subscription_id, 'Actived');
    }
    // The billing that is due (a reactivation's, or one waiting for its retry); never one not due yet.
    const now = this.ctx.clock.now().toISOString();
    const open = (await billingsRepository.ofSubscription(db, sub.merchant_id, sub.subscription_id, 4)).find((b) => b.status === 'Opened' && b.expire_at <= now);
    if (!open) return null;
    // The attempt the scheduled retry (or the reactivation's first charge) would make, made now: its own job later finds it taken.
    await this.engine.chargeBatch([{ billingId: open.billing_id, attempt: open.attempts_made }]);
    const after = await billingsRepository.loadForCharge(db, open.billing_id);
    return after?.status ?? null;
  }
}
