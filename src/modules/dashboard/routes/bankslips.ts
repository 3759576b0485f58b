import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { addDays, toIsoDate } from '../../../domain/calendar.js';
import { ApiError } from '../../../http/errors.js';
import { renderSlipPdf } from '../../bankslips/pdf.js';
import { pageContext, requireMerchant, sendPage, type DashboardDeps } from '../http.js';
import { bankSlipDetailPage, bankSlipsPage, SLIP_ORDERS, type SlipOrder } from '../pages/bankslips.js';
import { decodeCursor, encodeCursor, requireScope, withAfter } from '../pages/merchant-common.js';

const PAGE_SIZE = 50;
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const ListQuery = Type.Object({
  by: Type.Optional(Type.Union(SLIP_ORDERS.map((o) => Type.Literal(o)))),
  startDate: Type.Optional(Type.String({ pattern: DATE })),
  endDate: Type.Optional(Type.String({ pattern: DATE })),
  after: Type.Optional(Type.String({ maxLength: 400 })),
});
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }) });

/**
 * GET /dashboard/bankslips (the integration API's three listings, a page at a time), its detail
 * (BankSlipService.information) and its PDF (BankSlipService.printable, as the API's pdf route).
 * Bank slips belong to the integration API: its scope is required, as its token would need.
 */
export function bankSlipRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/bankslips', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const query = request.query as { by?: SlipOrder; startDate?: string; endDate?: string; after?: string };
    const today = toIsoDate(ctx.clock.now());
    // Without a range: the 90 days around today (30 back, 60 ahead), the widest the listings allow.
    const view = { by: query.by ?? 'due', startDate: query.startDate ?? addDays(today, -30), endDate: query.endDate ?? addDays(today, 60) };
    const after = decodeCursor<{ date: string; seq: number }>(query.after, { date: 'string', seq: 'number' });
    const page = pageContext(request, deps.assets, deps.sandbox);
    try {
      const result = await ctx.bankSlips.listPage(principal.accountNumber, view.by, view.startDate, view.endDate, PAGE_SIZE, after);
      const nextHref = result.next ? withAfter('/dashboard/bankslips', view, encodeCursor(result.next)) : undefined;
      return sendPage(reply, 200, bankSlipsPage(page, { ...view, items: result.items, nextHref, onFirst: !after }));
    } catch (error) {
      // A reversed or too wide range: the form again with the listing's own message.
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
      return sendPage(reply, 400, bankSlipsPage(page, { ...view, items: [], onFirst: true, errors: error.errors.map((e) => e.description) }));
    }
  });

  scope.get('/bankslips/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const slip = await ctx.bankSlips.information(principal.merchantId, (request.params as { id: string }).id.toLowerCase());
    return sendPage(reply, 200, bankSlipDetailPage(pageContext(request, deps.assets, deps.sandbox), slip));
  });

  scope.get('/bankslips/:id/pdf', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const id = (request.params as { id: string }).id.toLowerCase();
    const pdf = await renderSlipPdf(await ctx.bankSlips.printable(principal.merchantId, id), ctx.clock.now());
    return reply.type('application/pdf').header('Content-Disposition', `inline; filename="boleto-${id}.pdf"`).header('Cache-Control', 'no-store').send(pdf);
  });
}
