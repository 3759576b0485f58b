import { Type } from '@sinclair/typebox';
import type { PaymentRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentIdParams, PaymentResult } from '../schemas.js';

/** POST /admin/payments/{paymentId}/review: approve (-> Authorized) or reject (-> Canceled) a Blocked payment. */
export function reviewPaymentRoute(app: App, ctx: PaymentRouteDeps): void {
  app.post('/admin/payments/:paymentId/review', {
    schema: {
      tags: ['Payments'],
      operationId: 'reviewPayment',
      description: 'The operator approves or denies a payment the anti-fraud engine held for review; the acquirer already authorized it: approving makes it Authorized, denying cancels it at the acquirer.',
      summary: 'Decide on a payment held by anti-fraud review',
      security: security.admin,
      params: PaymentIdParams,
      body: Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) }),
      response: { 200: PaymentResult, ...errorResponses(400, 401, 404, 409, 502) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.payments.review(request.params.paymentId, request.body.decision),
  });
}
