import { Type } from '@sinclair/typebox';
import type { MerchantRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Merchant, MerchantAddress } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/** POST /admin/merchants: onboard a merchant (contract section 3). */
export function createMerchantRoute(app: App, ctx: MerchantRouteDeps): void {
  app.post('/admin/merchants', {
    schema: {
      tags: ['Merchants'],
      operationId: 'createMerchant',
      summary: 'Create a merchant',
      description: "Accepts an Idempotency-Key header. The optional address is the receiver's a payer's bank reads at a sandbox Pix charge's location (checked as the API Pix bounds it).",
      security: security.admin,
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        documentNumber: Type.String({ minLength: 11, maxLength: 14, description: 'CPF (11) or CNPJ (14, alphanumeric allowed), no mask' }),
        legalName: Type.Optional(Type.String({ maxLength: 255 })),
        email: Type.Optional(Type.String({ maxLength: 255, format: 'email' })),
        address: Type.Optional(MerchantAddress),
      }, { examples: [EXAMPLES.createMerchant] }),
      response: { 201: Merchant, ...errorResponses(400, 401, 409) },
    },
    config: { idempotent: true },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => reply.code(201).send(await ctx.merchants.create(request.body)),
  });
}
