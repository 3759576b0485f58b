import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { readDatabase, type Database } from '../../db/connection.js';
import { DomainError } from '../../domain/errors.js';
import { ApiError, conflict, notFound } from '../../http/errors.js';
import { paging, type ListEnvelope, type ListQuery } from '../../http/listing.js';
import type { Principal } from '../auth/service.js';
import type { CardService } from '../cards/service.js';
import { billingsRepository } from './billings-repository.js';
import type { BillingEngine } from './engine.js';
import { plansRepository } from './plans-repository.js';
import { LIVE, subscriptionsRepository, type SubscriptionSortColumn } from './subscriptions-repository.js';
import { billingEvent, subscriptionEvent } from './events.js';
import { isPix, toSubscription, type SubscribeBody, type SubscriptionRow, type SubscriptionView } from './resources.js';

export type { SubscribeBody } from './resources.js';
import { PixSubscriptions } from './pix-subscriptions.js';
import { scheduleCardExpiring } from './card-expiring.js';
import type { PixRecurrencePort } from './pix-port.js';

const DAY_MS = 86_400_000;

/** orderBy fields: the top-level fields (the embedded plan is not one). */
const SORTABLE: Record<string, SubscriptionSortColumn> = {
  id: 'subscription_id',
  vaultId: 'vault_id',
  orderNumber: 'order_number',
  status: 'status',
  createdDate: 'created_at',
  createdBy: 'created_by',
};


/** Subscriptions (seed "Subscriptions", contract section 8). */
export class SubscriptionService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly engine: BillingEngine,
    private readonly cards: Pick<CardService, 'getVault' | 'verifyStored'>,
    private readonly pix?: PixRecurrencePort,
    /** The merchant's card settings (verifyCardsOnSubscribe); absent: never verify. */
    private readonly cardSettings?: (merchantId: string) => Promise<{ verifyCardsOnSubscribe: boolean }>,
  ) {
    this.pixSubscriptions = new PixSubscriptions(database, clock, engine, pix);
  }

  private readonly pixSubscriptions: PixSubscriptions;

  /** Billing 1 is issued with the subscription, due after the trial (creation + trialDays). */
  async create(principal: Principal, body: SubscribeBody): Promise<string> {
    const db = this.database.db;
    const plan = await plansRepository.find(db, principal.merchantId, body.planId);
    if (!plan) throw new ApiError(404, 'not_found', 'planId not found.');
    if (plan.payment_method === 'Pix') return this.pixSubscriptions.create(principal, plan, body);
    if (body.payer !== undefined) throw new ApiError(400, 'payer', 'payer is for a Pix plan; a CreditCard plan takes vaultId.');
    if (body.vaultId === undefined) throw new ApiError(400, 'vaultId', 'vaultId is required for a CreditCard plan.');
    const vaultId = body.vaultId;
    await this.requireVault(principal, vaultId);
    // The merchant asked for its subscriptions' cards to be checked first: a refused card is a 422, and no subscription.
    if (this.cardSettings && (await this.cardSettings(principal.merchantId)).verifyCardsOnSubscribe) await this.cards.verifyStored(principal.merchantId, vaultId);
    const subscriptionId = randomUUID();
    const card = await this.cards.getVault(principal.merchantId, vaultId).catch(() => null);
    const now = this.clock.now();
    await db.transaction().execute(async (trx) => {
      // Re-read under a share lock (PostgreSQL): a plan being cancelled right now either
      // finishes first (we see it) or waits for us (its cascade then sees this subscription).
      const current = await plansRepository.findLocked(trx, this.database.dialect, plan.plan_id);
      if (current.status !== 'Active') throw conflict(`The plan is ${current.status}: it takes no new subscriptions.`);
      const row: SubscriptionRow = {
        subscription_id: subscriptionId,
        merchant_id: principal.merchantId,
        account_number: principal.accountNumber,
        plan_id: plan.plan_id,
        vault_id: vaultId,
        order_number: body.orderNumber,
        status: 'Active',
        blocked_reason: null,
        blocked_return_code: null,
        canceled_reason: null,
        canceled_by: null,
        created_by: principal.userName,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      await subscriptionsRepository.insert(trx, row);
      if (card) await scheduleCardExpiring({ queue: this.engine.queue, clock: this.clock }, trx, row, card);
      await this.engine.emit(trx, [subscriptionEvent('subscription.active', row, '', row.created_at)]);
      await this.engine.issue(trx, row, current.amount, 1, new Date(now.getTime() + current.trial_days * DAY_MS), principal.userName);
    });
    return subscriptionId;
  }

  async get(principal: Principal, subscriptionId: string): Promise<SubscriptionView> {
    const row = await this.find(principal, subscriptionId);
    const plans = await plansRepository.findMany(this.database.db, [row.plan_id]);
    const pix = await this.pixSubscriptions.authorizations([row]);
    return toSubscription(row, plans.get(row.plan_id)!, pix.get(row.subscription_id));
  }

  async list(principal: Principal, query: ListQuery & { planName?: string; status?: string }): Promise<ListEnvelope<SubscriptionView>> {
    const p = paging(query, SORTABLE);
    const db = this.database.db;
    const { rows, total } = await subscriptionsRepository.list(db, { merchantId: principal.merchantId, planName: query.planName, status: query.status }, p);
    const plans = await plansRepository.findMany(db, rows.map((r) => r.plan_id));
    const pix = await this.pixSubscriptions.authorizations(rows);
    return { items: rows.map((r) => toSubscription(r, plans.get(r.plan_id)!, pix.get(r.subscription_id))), page: p.page, limit: p.limit, total };
  }

  /**
   * The dashboard's subscriptions list (read method): newest first, keyset-paged, because the
   * API's `list` pages by OFFSET and counts every row, which a screen scrolled deep cannot afford.
   * `after` is the last row of the previous page; `next` is there when another page may follow.
   */
  async page(principal: Principal, query: { status?: string; after?: { createdAt: string; id: string }; limit: number }): Promise<{ items: SubscriptionView[]; next?: { createdAt: string; id: string } }> {
    // The dashboard's list decides nothing: the replica when one is usable (DATABASE_READ_URL).
    const db = readDatabase(this.database).db;
    const rows = await subscriptionsRepository.keysetPage(db, { merchantId: principal.merchantId, status: query.status }, query.limit + 1, query.after);
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const plans = await plansRepository.findMany(db, page.map((r) => r.plan_id));
    const pix = await this.pixSubscriptions.authorizations(page);
    const last = page[page.length - 1];
    return { items: page.map((r) => toSubscription(r, plans.get(r.plan_id)!, pix.get(r.subscription_id))), ...(more && last ? { next: { createdAt: last.created_at, id: last.subscription_id } } : {}) };
  }

  /**
   * `Actived` -> Active, also from Blocked and Canceled: the next billing is due at that moment
   * (a new Opened billing, charged at once by its job). `Canceled` -> Canceled with its Opened
   * billings. Finished is final (409), as is reactivating under a Canceled plan.
   */
  async setStatus(principal: Principal, subscriptionId: string, status: 'Actived' | 'Canceled'): Promise<{ id: string }> {
    const row = await this.find(principal, subscriptionId);
    if (row.status === 'Finished') throw conflict('The subscription is Finished: every installment of its plan was billed.');
    const target = status === 'Actived' ? 'Active' : 'Canceled';
    if (isPix(row)) {
      if (row.status !== target) await this.pixSubscriptions.setStatus(principal, row, target);
      return { id: subscriptionId };
    }
    if (row.status !== target) {
      if (target === 'Active') await this.reactivate(principal, row);
      else await this.cancel(principal, row);
    }
    return { id: subscriptionId };
  }

  /** Vault swap: later charges use the new stored card. */
  async setVault(principal: Principal, subscriptionId: string, vaultId: string): Promise<{ id: string }> {
    const row = await this.find(principal, subscriptionId);
    if (isPix(row)) throw conflict('A Pix subscription has no stored card: the payer pays by Pix Automático.');
    await this.requireVault(principal, vaultId);
    await subscriptionsRepository.setVault(this.database.db, row.subscription_id, vaultId, this.clock.now().toISOString());
    return { id: subscriptionId };
  }

  private async reactivate(principal: Principal, row: SubscriptionRow): Promise<void> {
    const db = this.database.db;
    const now = this.clock.now();
    await db.transaction().execute(async (trx) => {
      const plan = await plansRepository.findLocked(trx, this.database.dialect, row.plan_id);
      if (plan.status === 'Canceled') throw conflict('The plan is Canceled: its subscriptions cannot be reactivated.');
      const last = await billingsRepository.lastInstallment(trx, row.subscription_id);
      if (plan.installments !== null && last >= plan.installments) {
        throw conflict(`All ${plan.installments} installments of this Custom plan were already billed.`);
      }
      // Active again: the reason of a past block no longer applies.
      const cleared = { blocked_reason: null, blocked_return_code: null };
      if (!(await subscriptionsRepository.transition(trx, row.subscription_id, ['Blocked', 'Canceled'], 'Active', now.toISOString(), cleared))) {
        throw conflict('The subscription changed status meanwhile; try again.');
      }
      await this.engine.emit(trx, [subscriptionEvent('subscription.active', row, row.status, now.toISOString())]);
      // A charge still in flight from before the cancel keeps its billing Opened; its end issues the next one.
      if (await billingsRepository.hasOpened(trx, row.subscription_id)) return;
      await this.engine.issue(trx, row, plan.amount, last + 1, now, principal.userName);
    });
  }

  private async cancel(principal: Principal, row: SubscriptionRow): Promise<void> {
    const at = this.clock.now().toISOString();
    await this.database.db.transaction().execute(async (trx) => {
      if (!(await subscriptionsRepository.transition(trx, row.subscription_id, LIVE, 'Canceled', at))) {
        throw conflict('The subscription changed status meanwhile; try again.');
      }
      const billings = await billingsRepository.cancelOpenedOfSubscription(trx, row.subscription_id, { by: principal.userName, at });
      await this.engine.emit(trx, [
        subscriptionEvent('subscription.canceled', row, row.status, at),
        ...billings.map((b) => billingEvent('billing.canceled', { ...b, account_number: row.account_number }, at, { reason: 'The subscription was canceled.' })),
      ]);
    });
  }

  private async requireVault(principal: Principal, vaultId: string): Promise<void> {
    try {
      await this.cards.getVault(principal.merchantId, vaultId);
    } catch (error) {
      // Another merchant's, unknown or deleted: 404, no existence leak (contract section 2).
      if (error instanceof DomainError && error.kind === 'not_found') throw new ApiError(404, 'not_found', 'vaultId not found.');
      throw error;
    }
  }

  private async find(principal: Principal, subscriptionId: string): Promise<SubscriptionRow> {
    const row = await subscriptionsRepository.find(this.database.db, principal.merchantId, subscriptionId);
    if (!row) throw notFound('Subscription');
    return row;
  }
}
