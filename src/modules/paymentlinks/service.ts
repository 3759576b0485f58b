import { randomUUID } from 'node:crypto';
import type { EventType } from '../webhooks/event-types.js';
import { recordEvents, type BusinessEvent } from '../webhooks/outbox.js';
import { conflict, notFound } from '../../domain/errors.js';
import { RetryLater, type JobDefinition } from '../../jobs/registry.js';
import type { Principal } from '../auth/service.js';
import { CheckoutPayments } from './checkout/payments.js';
import type { LinkPayment, PaymentLinkDeps } from './deps.js';
import { brl } from '../../domain/format-br.js';
import { linkReference, paymentLinksRepository as repo, type PaymentLinkRow } from './repository.js';
import { checkLinkTerms } from './link-terms.js';
import type { CreatePaymentLinkBody, PaymentLinkView } from './schemas.js';
import { LINK_STATUS, statusFormat } from './status.js';
import { toView } from './view.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';

export const EXPIRE_JOB = 'paymentlink.expire';
const expireKey = (id: string) => `${EXPIRE_JOB}:${id}`;
/** Payment statuses in which the payer's money was taken: the link is paid. */
const SETTLED = new Set<PaymentStatus>(['Authorized', 'Blocked', 'Paid']);

/** A payment link's catalogue event (docs/events.md), written in the transaction of its change. */
function linkEvent(row: Pick<PaymentLinkRow, 'id' | 'merchant_id' | 'account_number'>, type: EventType, at: string, extra: Record<string, unknown> = {}): BusinessEvent {
  return { merchantId: row.merchant_id, accountNumber: Number(row.account_number), type, at, data: { paymentLinkId: row.id, ...extra } };
}

/**
 * Payment links (contract section 7): create, look up, deactivate, expire at expirationDate,
 * and the hosted checkout (`checkout`). Every status change appends a history entry in the
 * same transaction. Reads bring a link up to date first: an expiry that is due is applied
 * even before its job runs, so a link never looks open after its expirationDate.
 */
export class PaymentLinkService {
  readonly checkout: CheckoutPayments;

  constructor(private readonly ctx: PaymentLinkDeps) {
    this.checkout = new CheckoutPayments(ctx, this);
  }

  async create(principal: Principal, body: CreatePaymentLinkBody): Promise<PaymentLinkView> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const terms = checkLinkTerms(body, now);
    const merchant = await ctx.merchants.get(principal.merchantId);
    const at = now.toISOString();
    const row: PaymentLinkRow = {
      id: randomUUID(),
      merchant_id: principal.merchantId,
      account_number: principal.accountNumber,
      seller_name: merchant.name,
      seller_document_number: merchant.documentNumber,
      description: terms.description,
      value: Number(terms.value),
      qtty_installments: terms.qttyInstallments,
      qtty_installments_custom: terms.qttyInstallmentsCustom && JSON.stringify(terms.qttyInstallmentsCustom),
      qtty_installments_int_free: terms.qttyInstallmentsIntFree,
      installments_fee: Number(terms.installmentsFee),
      message: terms.message,
      status: LINK_STATUS.open,
      operation_date: at,
      expiration_date: terms.expirationDate.toISOString(),
      payment_id: null,
      payment_date: null,
      payment_value: null,
      payment_qtty_installments: null,
      payment_authorization_code: null,
      claim_id: null,
      claimed_until: null,
      updated_at: at,
    };
    await ctx.database.db.transaction().execute(async (trx) => {
      await repo.insert(trx, row);
      await repo.addHistory(trx, row.id, LINK_STATUS.open, 'Link de pagamento criado.', at);
      await ctx.queue.enqueue(trx, { kind: EXPIRE_JOB, payload: { id: row.id }, runAt: terms.expirationDate, dedupeKey: expireKey(row.id) });
    });
    return this.view(row);
  }

  async information(merchantId: string, id: string): Promise<PaymentLinkView> {
    const row = await this.current(id, merchantId);
    if (!row) throw notFound('Payment link');
    return this.view(row);
  }

  /**
   * The dashboard's list of links (read method; the API looks links up one at a time): newest
   * first, keyset-paged. An open link past its expirationDate is brought up to date first, as
   * `information` does, so the list never shows it open.
   */
  async list(merchantId: string, limit: number, after?: { at: string; id: string }): Promise<{ items: PaymentLinkView[]; next?: { at: string; id: string } }> {
    const db = this.ctx.database.db;
    const rows = await repo.keysetPage(db, merchantId, limit + 1, after);
    const page = rows.slice(0, limit);
    const now = this.ctx.clock.now().toISOString();
    const current = await Promise.all(page.map(async (r) => (r.status === LINK_STATUS.open && (r.expiration_date <= now || r.claim_id !== null) ? ((await this.current(r.id, merchantId)) ?? r) : r)));
    const last = page[page.length - 1];
    // The history stays on the link's own page: a list row needs its status only.
    return { items: current.map((r) => toView(r, [], this.ctx.config.publicUrl)), ...(rows.length > limit && last ? { next: { at: last.operation_date, id: last.id } } : {}) };
  }

  /** Open -> Desativado. A paid, expired or deactivated link, or one being charged right now, is 409. */
  async deactivate(merchantId: string, id: string): Promise<PaymentLinkView> {
    const { ctx } = this;
    const row = await this.current(id, merchantId);
    if (!row) throw notFound('Payment link');
    if (row.status !== LINK_STATUS.open) {
      throw conflict(`Only an open link can be deactivated; this one is ${row.status} (${statusFormat(row.status)}).`);
    }
    const at = ctx.clock.now().toISOString();
    const done = await ctx.database.db.transaction().execute(async (trx) => {
      const closed = await repo.close(trx, id, LINK_STATUS.deactivated, 'Desativado pelo vendedor.', at);
      // A closed link's expiry job has nothing left to do.
      if (closed) {
        await ctx.queue.cancel(trx, expireKey(id));
        await recordEvents(trx, ctx.queue, [linkEvent(row, 'payment_link.deactivated', at)]);
      }
      return closed;
    });
    if (!done) throw conflict('A payment of this link is being processed; it cannot be deactivated now.', 'payment_in_progress');
    return this.view((await repo.find(ctx.database.db, id))!);
  }

  /** The expiry job, due at expirationDate. A link being charged at that moment is looked at again a minute later. */
  async expire(id: string): Promise<void> {
    const row = await this.current(id);
    if (!row || row.status !== LINK_STATUS.open) return;
    const now = this.ctx.clock.now();
    if (Date.parse(row.expiration_date) <= now.getTime()) throw new RetryLater(new Date(now.getTime() + 60_000));
  }

  /**
   * The link as it stands now: a hold left by a crashed checkout attempt is settled from the
   * link's payments, and a due expiry is applied (the job may not have run yet).
   */
  async current(id: string, merchantId?: string): Promise<PaymentLinkRow | undefined> {
    const { ctx } = this;
    const db = ctx.database.db;
    const row = await repo.find(db, id, merchantId);
    if (!row || row.status !== LINK_STATUS.open) return row;
    const wallNow = ctx.clock.wallNow().toISOString();
    const now = ctx.clock.now().toISOString();
    let held = row.claim_id !== null;
    let changed = false;
    if (row.claim_id !== null && row.claimed_until !== null && row.claimed_until < wallNow) {
      const settled = await this.settleFromPayments(row, row.claim_id);
      if (settled === 'paid') return repo.find(db, id, merchantId);
      // Nothing was charged: the crashed attempt's hold goes. A payment still waiting for the
      // acquirer keeps it (the link must not expire or be deactivated under that payment).
      if (settled === 'none') {
        held = !(await repo.release(db, id, row.claim_id));
        changed = true;
      }
    }
    if (held || row.expiration_date > now) return changed ? repo.find(db, id, merchantId) : row;
    const reason = `Prazo para pagamento encerrado em ${row.expiration_date}.`;
    await db.transaction().execute(async (trx) => {
      if (await repo.close(trx, id, LINK_STATUS.expired, reason, now, { expiredBy: now })) {
        await recordEvents(trx, ctx.queue, [linkEvent(row, 'payment_link.expired', now, { expirationDate: row.expiration_date })]);
      }
    });
    return repo.find(db, id, merchantId);
  }

  /**
   * Decides the link from its payments: one that took the payer's money makes it paid; one
   * still waiting for the acquirer keeps it held. `claimId` is the hold to replace.
   */
  async settleFromPayments(row: PaymentLinkRow, claimId: string): Promise<'paid' | 'pending' | 'none'> {
    const payments = await this.ctx.payments.reads.listByReference(row.merchant_id, linkReference(row.id));
    const settled = payments.find((p) => SETTLED.has(p.status));
    if (settled) {
      await this.markPaid(row.id, claimId, settled);
      return 'paid';
    }
    return payments.some((p) => p.status === 'Pending' || p.status === 'PendingAuthentication') ? 'pending' : 'none';
  }

  /** Open -> Pago with the payment's fields and its history entry; false when the hold was lost. */
  async markPaid(id: string, claimId: string, payment: LinkPayment): Promise<boolean> {
    const { ctx } = this;
    const at = ctx.clock.now().toISOString();
    const reason =
      `Pago em ${payment.installments}x, total ${brl(BigInt(payment.amount))}, cartão ${payment.brand.toUpperCase()} final ` +
      `${payment.masked_card_number.slice(-4)}, autorização ${payment.authorization_code ?? '-'} (pagamento ${payment.payment_id}).` +
      (payment.status === 'Blocked' ? ' Em análise antifraude.' : '');
    const fields = {
      payment_id: payment.payment_id,
      payment_date: at,
      payment_value: payment.amount,
      payment_qtty_installments: payment.installments,
      payment_authorization_code: payment.authorization_code,
    };
    const marked = await ctx.database.db.transaction().execute(async (trx) => {
      const ok = await repo.markPaid(trx, id, claimId, fields, reason);
      if (ok) {
        await ctx.queue.cancel(trx, expireKey(id));
        const paid = { paymentId: payment.payment_id, amount: Number(payment.amount), installments: payment.installments, paymentStatus: payment.status };
        await recordEvents(trx, ctx.queue, [linkEvent((await repo.find(trx, id))!, 'payment_link.paid', at, paid)]);
      }
      return ok;
    });
    if (!marked) ctx.logger.error({ paymentLinkId: id, paymentId: payment.payment_id }, 'payment link paid but no longer held by this attempt');
    return marked;
  }

  async view(row: PaymentLinkRow): Promise<PaymentLinkView> {
    return toView(row, await repo.history(this.ctx.database.db, row.id), this.ctx.config.publicUrl);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    let history = executor.deleteFrom('payment_link_history');
    if (merchantId !== undefined) {
      history = history.where('payment_link_id', 'in', executor.selectFrom('payment_links').select('id').where('merchant_id', '=', merchantId));
    }
    const payment_link_history = Number((await history.executeTakeFirst()).numDeletedRows);
    // Checkout rate-limit windows are keyed by caller, not merchant: a whole reset clears them, one merchant's leaves them to expire.
    const rate_limit_windows = merchantId === undefined ? Number((await executor.deleteFrom('rate_limit_windows').executeTakeFirst()).numDeletedRows) : 0;
    return { payment_link_history, rate_limit_windows, payment_links: await sandboxDelete(executor, 'payment_links', merchantId) };
  }

  /** The expiry job (src/root/context.ts registers it). */
  jobs(): JobDefinition[] {
    return [{ kind: EXPIRE_JOB, handler: async ({ id }: { id: string }) => this.expire(id) }];
  }
}
