import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { badRequest } from '../../../http/errors.js';
import { PaymentIdParams } from '../../payments/schemas.js';
import { seeOther, sendPage, type DashboardDeps } from '../http.js';
import { reviewPage } from '../pages/operator-review.js';
import { operatorPage } from './operator-forms.js';

const PAGE_SIZE = 25;

const ReviewQuery = Type.Object({
  /** `<created_at>~<paymentId>` of the previous page's last row. */
  after: Type.Optional(Type.String({ maxLength: 120 })),
  done: Type.Optional(Type.String({ maxLength: 36 })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
});

function parseAfter(after: string | undefined): { at: string; id: string } | undefined {
  if (after === undefined || after === '') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T[0-9:.]+Z)~([0-9a-zA-Z-]{1,36})$/.exec(after);
  if (!m) throw badRequest('query.after', 'after must be the cursor of a page link.');
  return { at: m[1], id: m[2] };
}

/** GET /dashboard/operator/review (Blocked payments, oldest first) and the approve/reject forms. */
export function operatorReviewRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/operator/review', { schema: { hide: true, querystring: ReviewQuery } }, async (request, reply) => {
    const page = operatorPage(request, deps);
    const query = request.query as { after?: string; done?: string; status?: string };
    const after = parseAfter(query.after);
    // One more row than shown tells whether there is a next page (no count).
    const rows = await ctx.payments.reads.reviewQueue(after, PAGE_SIZE + 1);
    const shown = rows.slice(0, PAGE_SIZE);
    const last = shown.at(-1);
    const next = rows.length > PAGE_SIZE && last ? `${last.created_at}~${last.payment_id}` : undefined;
    const done = query.done && query.status ? { paymentId: query.done, status: query.status } : undefined;
    return sendPage(reply, 200, reviewPage(page, { rows: shown, next, first: !after, done }));
  });

  // POST /admin/payments/{id}/review's call: only a Blocked payment (409 otherwise); approve -> Authorized, reject -> Canceled.
  scope.post(
    '/operator/review/:paymentId',
    { schema: { hide: true, params: PaymentIdParams, body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })), decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) }) } },
    async (request, reply) => {
      operatorPage(request, deps);
      const { paymentId } = request.params as { paymentId: string };
      const result = await ctx.payments.review(paymentId, (request.body as { decision: 'approve' | 'reject' }).decision);
      return seeOther(reply, `/dashboard/operator/review?done=${encodeURIComponent(paymentId)}&status=${encodeURIComponent(result.status)}`);
    },
  );
}
