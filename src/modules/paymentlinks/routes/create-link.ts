import type { PaymentLinkRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CreatePaymentLinkBody, PaymentLinkView } from '../schemas.js';

/** POST {gateway}/v1/paymentlink (extension, contract section 7): a link the payer opens at `link`. */
export function createLinkRoute(app: App, ctx: PaymentLinkRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/paymentlink`, {
    schema: {
      tags: ['Payment links'],
      operationId: 'createPaymentLink',
      summary: 'Create a payment link',
      description:
        'Exactly one of qttyInstallments and qttyInstallmentsCustom. Up to qttyInstallmentsIntFree installments the payer pays value; ' +
        'beyond it each installment is the Price-table payment at installmentsFee percent a month, and the total is n times it. ' +
        'The link expires at expirationDate. Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: CreatePaymentLinkBody,
      response: { 201: PaymentLinkView, ...errorResponses(400, 401, 403, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => reply.code(201).send(await ctx.paymentLinks.create(principalOf(request), request.body)),
  });
}
