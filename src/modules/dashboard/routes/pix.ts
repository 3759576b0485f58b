import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { pageContext, requireMerchant, sendPage, type DashboardDeps } from '../http.js';
import { decodeCursor, encodeCursor, requireScope, withAfter } from '../pages/merchant-common.js';
import { pixDetailPage, pixListPage } from '../pages/pix.js';

const PAGE_SIZE = 50;
const ListQuery = Type.Object({ after: Type.Optional(Type.String({ maxLength: 400 })) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });

/** GET /dashboard/pix (the charges, newest first) and /dashboard/pix/:id (status and the copy-and-paste code). */
export function pixRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/pix', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const after = decodeCursor<{ createdAt: string; id: string }>((request.query as { after?: string }).after, { createdAt: 'string', id: 'string' });
    const result = await ctx.pix.list(principal.merchantId, PAGE_SIZE, after);
    const nextHref = result.next ? withAfter('/dashboard/pix', {}, encodeCursor(result.next)) : undefined;
    return sendPage(reply, 200, pixListPage(pageContext(request, deps.assets, deps.sandbox), result.items, nextHref, !after));
  });

  scope.get('/pix/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const charge = await ctx.pix.get(principal.merchantId, (request.params as { id: string }).id);
    return sendPage(reply, 200, pixDetailPage(pageContext(request, deps.assets, deps.sandbox), charge));
  });
}
