import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { conflict, notFound } from '../../domain/errors.js';
import { paging, type ListEnvelope, type ListQuery } from '../../http/listing.js';
import { requireOwnMerchantId } from '../../http/ownership.js';
import type { Principal } from '../auth/service.js';
import { billingsRepository } from './billings-repository.js';
import { planTerms, type PlanShapeInput } from './plan-rules.js';
import type { BillingEngine } from './engine.js';
import type { PixRecurrencePort } from './pix-port.js';
import type { Logger } from 'pino';
import { billingEvent, planEvent, subscriptionEvent } from './events.js';
import { plansRepository, type PlanSortColumn } from './plans-repository.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { toPlan, type PlanRow, type PlanView } from './resources.js';

export interface PlanBody extends PlanShapeInput {
  merchantId?: string;
  name: string;
  description: string;
  paymentMethod: string;
}

export type PlanStatus = 'Active' | 'Inactive' | 'Canceled';

/** orderBy fields of plans: the resource's own top-level fields (contract section 2). */
const SORTABLE: Record<string, PlanSortColumn> = {
  id: 'plan_id',
  merchantId: 'merchant_id',
  name: 'name',
  description: 'description',
  amount: 'amount',
  planType: 'plan_type',
  trialDays: 'trial_days',
  paymentMethod: 'payment_method',
  interval: 'interval_days',
  installments: 'installments',
  attempts: 'attempts',
  status: 'status',
  createdDate: 'created_at',
  createdBy: 'created_by',
};

/** Terms whose change needs a plan without subscriptions (only name and description are free). */
const TERMS: (keyof PlanRow)[] = ['amount', 'plan_type', 'trial_days', 'payment_method', 'interval_days', 'installments', 'attempts'];

/** Plans (seed "Plans", contract section 8). */
export class PlanService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly engine: Pick<BillingEngine, 'emit'>,
    private readonly pix?: Pick<PixRecurrencePort, 'cancelByMerchant'>,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  async create(principal: Principal, body: PlanBody): Promise<string> {
    // The merchant comes from the token when omitted (seed Authentication 5); a foreign one is 403.
    if (body.merchantId !== undefined) requireOwnMerchantId(principal, body.merchantId, 'merchantId');
    const terms = planTerms(body, { trialDays: 0, attempts: 0 });
    const at = this.clock.now().toISOString();
    const planId = randomUUID();
    await plansRepository.insert(this.database.db, {
      plan_id: planId,
      merchant_id: principal.merchantId,
      name: body.name,
      description: body.description,
      amount: Number(terms.amount),
      plan_type: terms.planType,
      trial_days: terms.trialDays,
      payment_method: body.paymentMethod,
      interval_days: terms.intervalDays,
      installments: terms.installments,
      attempts: terms.attempts,
      status: 'Active',
      created_by: principal.userName,
      created_at: at,
      updated_at: at,
    });
    return planId;
  }

  async get(principal: Principal, planId: string): Promise<PlanView> {
    return toPlan(await this.find(principal, planId));
  }

  async list(principal: Principal, query: ListQuery & { name?: string; status?: string }): Promise<ListEnvelope<PlanView>> {
    const p = paging(query, SORTABLE);
    const { rows, total } = await plansRepository.list(this.database.db, { merchantId: principal.merchantId, name: query.name, status: query.status }, p);
    return { items: rows.map(toPlan), page: p.page, limit: p.limit, total };
  }

  /**
   * The seed's update rules: the amount of an Active plan cannot change (409), and a plan with
   * subscriptions changes only name and description (409). trialDays and attempts omitted keep
   * their values; interval and installments follow the type rules as on create, except that what
   * GET answers for a fixed type (its own interval, installments null) is accepted: a plan read
   * back can be posted as an update.
   */
  async update(principal: Principal, planId: string, body: PlanBody & { merchantId: string }): Promise<string> {
    // The path's id first: another merchant's plan is 404 (no existence leak) whatever the body
    // says; only then is a body merchantId that is not the caller's 403.
    const row = await this.find(principal, planId);
    requireOwnMerchantId(principal, body.merchantId, 'merchantId');
    const terms = planTerms(body, { trialDays: row.trial_days, attempts: row.attempts }, { update: true });
    const next: Partial<PlanRow> = {
      name: body.name,
      description: body.description,
      amount: Number(terms.amount),
      plan_type: terms.planType,
      trial_days: terms.trialDays,
      payment_method: body.paymentMethod,
      interval_days: terms.intervalDays,
      installments: terms.installments,
      attempts: terms.attempts,
    };
    if (next.amount !== row.amount && row.status === 'Active') {
      throw conflict('The amount of an Active plan cannot change; set the plan Inactive first.');
    }
    const changed = TERMS.some((k) => next[k] !== row[k]);
    if (changed && (await plansRepository.inUse(this.database.db, planId))) {
      throw conflict('The plan has subscriptions: only name and description can change.');
    }
    await plansRepository.update(this.database.db, planId, { ...next, updated_at: this.clock.now().toISOString() });
    return planId;
  }

  /**
   * Any state to any state (contract section 8). Canceled cascades in one transaction: the
   * Opened billings of the plan's live subscriptions are Canceled, then the subscriptions.
   */
  async setStatus(principal: Principal, planId: string, status: PlanStatus): Promise<string> {
    const row = await this.find(principal, planId);
    if (row.status === status) return planId;
    const at = this.clock.now().toISOString();
    const pixCanceled: string[] = [];
    await this.database.db.transaction().execute(async (trx) => {
      // First: it takes the plan row's lock, which a concurrent subscribe waits for (PostgreSQL).
      await plansRepository.update(trx, planId, { status, updated_at: at });
      if (status !== 'Canceled') {
        await this.engine.emit(trx, [planEvent(row, row.status, status, at)]);
        return;
      }
      const billings = await billingsRepository.cancelOpenedOfPlan(trx, planId, { by: principal.userName, at });
      const subscriptions = await subscriptionsRepository.cancelLiveOfPlan(trx, planId, at);
      pixCanceled.push(...subscriptions.filter((s) => s.vault_id === '').map((s) => s.subscription_id));
      const accountOf = new Map(subscriptions.map((s) => [s.subscription_id, s.account_number]));
      const reason = 'The plan was canceled.';
      await this.engine.emit(trx, [
        planEvent(row, row.status, status, at),
        ...billings.map((b) => billingEvent('billing.canceled', { ...b, account_number: accountOf.get(b.subscription_id)! }, at, { reason })),
        ...subscriptions.map((s) => subscriptionEvent('subscription.canceled', s, s.oldStatus, at, { reason, ...(s.vault_id === '' ? { canceledBy: 'merchant' } : {}) })),
      ]);
    });
    // After the commit: their Pix recurrences are cancelled at the PSP (a PSP that does not
    // answer now is logged; the recurrence's charges find the subscription Canceled and are not sent).
    for (const subscriptionId of pixCanceled) {
      try {
        await this.pix?.cancelByMerchant(subscriptionId);
      } catch (error) {
        this.logger?.warn({ subscriptionId, err: (error as Error).message }, 'Pix recurrence not cancelled at the PSP with its plan');
      }
    }
    return planId;
  }

  private async find(principal: Principal, planId: string): Promise<PlanRow> {
    const row = await plansRepository.find(this.database.db, principal.merchantId, planId);
    if (!row) throw notFound('Plan');
    return row;
  }
}
