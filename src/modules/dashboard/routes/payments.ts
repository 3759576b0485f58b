import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { addDays, isIsoDate } from '../../../domain/calendar.js';
import { ApiError } from '../../../http/errors.js';
import { brasiliaDate, brasiliaStart } from '../charts.js';
import { pageContext, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { common, langOf } from '../i18n.js';
import { paymentDetailPage, type InstallmentView } from '../pages/payment-detail.js';
import { filterQuery, paymentsPage, type PaymentsFilterView } from '../pages/payments.js';
import { PAYMENT_STATUSES } from '../pages/payment-status.js';

const PAGE_SIZE = 50;
/** Payment ids are UUIDs: anything else is no payment (404), never a query. */
const PAYMENT_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const ListQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 10 })),
  to: Type.Optional(Type.String({ maxLength: 10 })),
  // Sizes only: the values are checked by the handler, after the session (a visitor without one goes to the login first).
  status: Type.Optional(Type.String({ maxLength: 20 })),
  reference: Type.Optional(Type.String({ maxLength: 50 })),
  lastFour: Type.Optional(Type.String({ maxLength: 4 })),
  after: Type.Optional(Type.String({ maxLength: 200 })),
});
type ListQuery = { from?: string; to?: string; status?: string; reference?: string; lastFour?: string; after?: string };

/** The keyset of the next page: the last row's (created_at, payment_id), opaque to the browser. */
const cursorOf = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString('base64url');
function parseCursor(text: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !id || !PAYMENT_ID.test(id) || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(at ?? '')) throw new ApiError(400, 'after', 'after is not a page of this list; start again from the first page.');
  return { at, id };
}

/** The merchant's payments (list, detail, cancel): reads through PaymentService, the cancel as the API's. */
export function paymentRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/payments', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const p = requireMerchant(request);
    const q = request.query as ListQuery;
    const today = brasiliaDate(ctx.clock.now());
    const filter: PaymentsFilterView = {
      from: q.from || addDays(today, -29),
      to: q.to || today,
      status: q.status ?? '',
      reference: q.reference?.trim() ?? '',
      lastFour: q.lastFour ?? '',
    };
    const problems: { tag: string; description: string }[] = [];
    if (!isIsoDate(filter.from)) problems.push({ tag: 'from', description: 'from must be a date YYYY-MM-DD.' });
    if (!isIsoDate(filter.to)) problems.push({ tag: 'to', description: 'to must be a date YYYY-MM-DD.' });
    if (filter.status && !(PAYMENT_STATUSES as readonly string[]).includes(filter.status)) problems.push({ tag: 'status', description: `status must be one of ${PAYMENT_STATUSES.join(', ')}.` });
    if (filter.lastFour && !/^[0-9]{4}$/.test(filter.lastFour)) problems.push({ tag: 'lastFour', description: 'lastFour must be the last 4 digits of the card.' });
    if (problems.length === 0 && filter.from > filter.to) problems.push({ tag: 'from', description: 'from must not be after to.' });
    if (problems.length > 0) throw new ApiError(400, problems);
    const rows = await ctx.payments.reads.search(
      p.merchantId,
      {
        from: brasiliaStart(filter.from),
        to: brasiliaStart(addDays(filter.to, 1)),
        status: filter.status || undefined,
        reference: filter.reference || undefined,
        lastFour: filter.lastFour || undefined,
        after: q.after ? parseCursor(q.after) : undefined,
      },
      PAGE_SIZE + 1,
    );
    const shown = rows.slice(0, PAGE_SIZE);
    let next: string | undefined;
    if (rows.length > PAGE_SIZE) {
      const last = shown[shown.length - 1];
      const query = filterQuery(filter);
      query.set('after', cursorOf(last.created_at, last.payment_id));
      next = `/dashboard/payments?${query.toString()}`;
    }
    const page = pageContext(request, deps.assets, deps.sandbox);
    return sendPage(reply, 200, paymentsPage(page, { filter, rows: shown, next, paged: q.after !== undefined }));
  });

  const Params = Type.Object({ id: Type.String({ maxLength: 200 }) });
  const notFound = (request: { cookies: Record<string, string | undefined> }) => new ApiError(404, 'not_found', common(langOf(request.cookies.gw_lang)).notFound);

  scope.get('/payments/:id', { schema: { hide: true, params: Params, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } }, async (request, reply) => {
    const p = requireMerchant(request);
    const { id } = request.params as { id: string };
    if (!PAYMENT_ID.test(id)) throw notFound(request);
    // PaymentService.detail reads by the merchant's id: another merchant's payment is a 404.
    const detail = await ctx.payments.reads.detail(p.merchantId, id);
    const moments = [detail.payment.createdAt, ...detail.events.map((e) => e.at)];
    const [installments, deliveries] = await Promise.all([
      ctx.settlement.installmentsOf(p.accountNumber, id),
      ctx.webhooks.deliveriesOfPayment(p.accountNumber, { paymentId: id, nsu: detail.payment.nsu }, moments),
    ]);
    const page = pageContext(request, deps.assets, deps.sandbox);
    const done = (request.query as { done?: string }).done;
    return sendPage(reply, 200, paymentDetailPage(page, { detail, installments: installments as InstallmentView[], deliveries, notice: done }));
  });

  // The same call as POST {gateway}/v1/payments/{id}/cancel: PaymentService.cancel with the principal's merchantId.
  scope.post('/payments/:id/cancel', { schema: { hide: true, params: Params, body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }) } }, async (request, reply) => {
    const p = requireMerchant(request);
    const { id } = request.params as { id: string };
    if (!PAYMENT_ID.test(id)) throw notFound(request);
    await ctx.payments.cancel(p.merchantId, id);
    return seeOther(reply, `/dashboard/payments/${id}?done=canceled`);
  });
}
