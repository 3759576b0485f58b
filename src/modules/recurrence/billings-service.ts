import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { addDays, isIsoDate } from '../../domain/calendar.js';
import { conflict, invalid, notFound } from '../../domain/errors.js';
import { paging, type ListEnvelope, type ListQuery } from '../../http/listing.js';
import { requireOwnMerchantId } from '../../http/ownership.js';
import type { Principal } from '../auth/service.js';
import { billingsRepository, type BillingSortColumn } from './billings-repository.js';
import { planCycleOf, type BillingEngine } from './engine.js';
import type { PixRecurrencePort } from './pix-port.js';
import { billingEvent } from './events.js';
import { plansRepository } from './plans-repository.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import { historyOf, toBilling, toSubscription, type AttemptEntry, type BillingDetail, type BillingRow, type BillingView } from './resources.js';
import { chargeCents } from './plan-rules.js';
import type { BillingStatus } from '../../domain/lifecycles.js';

/** orderBy fields: the top-level fields (the embedded subscription is not one). */
const SORTABLE: Record<string, BillingSortColumn> = {
  id: 'billing_id',
  status: 'status',
  expireAt: 'expire_at',
  amount: 'amount',
  installment: 'installment',
  createdDate: 'created_at',
  createdBy: 'created_by',
  modifiedDate: 'modified_at',
  modifiedBy: 'modified_by',
};

export interface BillingQuery extends ListQuery {
  mid?: string;
  status?: BillingStatus;
  expirationDateRangeStartDate?: string;
  expirationDateRangeEndDate?: string;
}

/**
 * A range bound: `YYYY-MM-DD` covers that whole UTC day, an ISO datetime is that instant.
 * Answers the instant the bound starts at (start) or the instant just after it (end, exclusive).
 */
function bound(value: string, tag: string, edge: 'start' | 'end'): string {
  if (isIsoDate(value)) return `${edge === 'start' ? value : addDays(value, 1)}T00:00:00.000Z`;
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalid(tag, `${tag} must be a date (YYYY-MM-DD) or an ISO 8601 datetime.`);
  return new Date(edge === 'start' ? ms : ms + 1).toISOString();
}

/** One billing of a subscription's timeline (dashboard). */
export interface BillingTimelineEntry {
  id: string;
  installment: number;
  status: string;
  expireAt: string;
  /** What each attempt charges, in cents (the plan amount rounded as the charge rounds it). */
  amountCents: bigint;
  attemptsMade: number;
  /** While Opened: when it is charged next (the due date, or the retry scheduled after a 51). */
  nextAttemptAt: string | null;
  attemptsHistory: AttemptEntry[];
}

/** Billings (seed "Billings", contract section 8). */
export class BillingService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly engine: BillingEngine,
    private readonly pix?: Pick<PixRecurrencePort, 'cancelCharge'>,
  ) {}

  async list(principal: Principal, query: BillingQuery): Promise<ListEnvelope<BillingView>> {
    // `mid` is the merchantId (contract section 8): another merchant's is 403, a malformed one 400.
    if (query.mid !== undefined) requireOwnMerchantId(principal, query.mid, 'query.mid');
    const startTag = 'query.expirationDateRangeStartDate';
    const endTag = 'query.expirationDateRangeEndDate';
    const expireFrom = query.expirationDateRangeStartDate ? bound(query.expirationDateRangeStartDate, startTag, 'start') : undefined;
    const expireBefore = query.expirationDateRangeEndDate ? bound(query.expirationDateRangeEndDate, endTag, 'end') : undefined;
    if (expireFrom && expireBefore && expireFrom >= expireBefore) throw invalid(endTag, `${endTag} must not be before ${startTag}.`);
    const p = paging(query, SORTABLE);
    const { rows, total } = await billingsRepository.list(this.database.db, { merchantId: principal.merchantId, status: query.status, expireFrom, expireBefore }, p);
    return { items: await this.embed(rows), page: p.page, limit: p.limit, total };
  }

  async get(principal: Principal, billingId: string): Promise<BillingDetail> {
    const row = await this.find(principal, billingId);
    const [view] = await this.embed([row]);
    return { ...view, attemptsHistory: historyOf(row) };
  }

  /**
   * The dashboard's billing timeline of one subscription (read method; 404 for another
   * merchant's): its latest `limit` billings, each with its attempts, the date of its next
   * attempt (the retry scheduled, while Opened) and its amount. The API has no such listing.
   */
  async ofSubscription(principal: Principal, subscriptionId: string, limit = 24): Promise<BillingTimelineEntry[]> {
    const db = this.database.db;
    if (!(await subscriptionsRepository.find(db, principal.merchantId, subscriptionId))) throw notFound('Subscription');
    const rows = await billingsRepository.ofSubscription(db, principal.merchantId, subscriptionId, limit);
    return rows.map((r) => ({
      id: r.billing_id,
      installment: r.installment,
      status: r.status,
      expireAt: r.expire_at,
      amountCents: chargeCents(BigInt(r.amount)),
      attemptsMade: r.attempts_made,
      nextAttemptAt: r.status === 'Opened' ? r.next_attempt_at : null,
      attemptsHistory: historyOf(r),
    }));
  }

  /**
   * Only an Opened billing not being charged at this moment (409 otherwise). The subscription
   * goes on: the next billing is issued as when a billing ends.
   */
  async cancel(principal: Principal, billingId: string): Promise<string> {
    const row = await this.find(principal, billingId);
    const charged = await billingsRepository.loadForCharge(this.database.db, billingId);
    if (charged?.plan_payment_method === 'Pix' && row.status === 'Opened') {
      // Billing 1 of a Pix subscription is the charge its authorization pays; a later one's cobr is cancelled at the PSP first.
      if (row.installment === 1) throw conflict("Billing 1 of a Pix subscription is paid with the payer's authorization: cancel the subscription instead.");
      await this.pix?.cancelCharge(billingId);
    }
    const at = this.clock.now().toISOString();
    await this.database.db.transaction().execute(async (trx) => {
      if (!(await billingsRepository.cancelOpened(trx, billingId, { by: principal.userName, at }))) {
        const current = (await billingsRepository.find(trx, principal.merchantId, billingId)) ?? row;
        throw conflict(
          current.status === 'Opened'
            ? 'The billing is being charged at this moment; its outcome decides.'
            : `Only an Opened billing can be cancelled; this one is ${current.status}.`,
        );
      }
      const state = (await billingsRepository.loadForCharge(trx, billingId))!;
      await this.engine.emit(trx, [billingEvent('billing.canceled', state, at, { reason: 'The billing was canceled.' })]);
      await this.engine.afterEnd(trx, state, planCycleOf(state), state.sub_status);
    });
    return billingId;
  }

  /** Embeds each billing's subscription with its plan: three queries per page, whatever its size. */
  private async embed(rows: BillingRow[]): Promise<BillingView[]> {
    const db = this.database.db;
    const subs = await subscriptionsRepository.findMany(db, rows.map((r) => r.subscription_id));
    const plans = await plansRepository.findMany(db, subs.map((s) => s.plan_id));
    const views = new Map(subs.map((s) => [s.subscription_id, toSubscription(s, plans.get(s.plan_id)!)]));
    return rows.map((r) => toBilling(r, views.get(r.subscription_id)!));
  }

  private async find(principal: Principal, billingId: string): Promise<BillingRow> {
    const row = await billingsRepository.find(this.database.db, principal.merchantId, billingId);
    if (!row) throw notFound('Billing');
    return row;
  }
}
