import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { pageContext, requireMerchant, sendPage, type DashboardDeps } from '../http.js';
import { decodeCursor, encodeCursor, requireScope, withAfter } from '../pages/merchant-common.js';
import { subscriptionDetailPage } from '../pages/subscription-detail.js';
import { SUBSCRIPTION_STATUSES, subscriptionsPage } from '../pages/subscriptions.js';

const PAGE_SIZE = 25;
/** Billings shown on a subscription's page: two years of a monthly plan. */
const TIMELINE_SIZE = 24;

const ListQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal(''), ...SUBSCRIPTION_STATUSES.map((s) => Type.Literal(s))])),
  after: Type.Optional(Type.String({ maxLength: 400 })),
});
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }) });

/** GET /dashboard/subscriptions (plans and subscriptions) and /dashboard/subscriptions/:id (its billing timeline). */
export function recurrenceRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/subscriptions', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'recurrence');
    const query = request.query as { status?: string; after?: string };
    const after = decodeCursor<{ createdAt: string; id: string }>(query.after, { createdAt: 'string', id: 'string' });
    const status = query.status || undefined;
    // A merchant has a handful of plans: the API's own list, first 100.
    const [plans, subs] = await Promise.all([
      ctx.recurrence.plans.list(principal, { limit: 100, orderBy: 'createdDate:desc' }),
      ctx.recurrence.subscriptions.page(principal, { status, after, limit: PAGE_SIZE }),
    ]);
    const page = pageContext(request, deps.assets, deps.sandbox);
    const nextHref = subs.next ? withAfter('/dashboard/subscriptions', { status }, encodeCursor(subs.next)) : undefined;
    return sendPage(reply, 200, subscriptionsPage(page, { plans: plans.items, subscriptions: subs.items, status, nextHref, onFirst: !after }));
  });

  scope.get('/subscriptions/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'recurrence');
    const id = (request.params as { id: string }).id.toLowerCase();
    // Another merchant's id: both reads are 404 (the services read by the principal's merchantId).
    const subscription = await ctx.recurrence.subscriptions.get(principal, id);
    const billings = await ctx.recurrence.billings.ofSubscription(principal, id, TIMELINE_SIZE);
    return sendPage(reply, 200, subscriptionDetailPage(pageContext(request, deps.assets, deps.sandbox), subscription, billings, TIMELINE_SIZE));
  });
}
