import { Type } from '@sinclair/typebox';
import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BlocklistEntry, BlocklistKind } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/**
 * POST /admin/antifraud/blocklist: a card (number or fingerprint), document, email or IP/CIDR
 * that every merchant's payments are rejected for. A card number is fingerprinted at once and
 * never stored, answered or logged.
 */
export function addBlocklistEntryRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.post('/admin/antifraud/blocklist', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'addBlocklistEntry',
      summary: 'Add a blocklist entry',
      description: 'Accepts an Idempotency-Key header. A value already listed is 409.',
      security: security.admin,
      body: Type.Object({
        kind: BlocklistKind,
        value: Type.String({ minLength: 1, maxLength: 255, description: 'card: number or 64-hex fingerprint; document: CPF/CNPJ; email; ip: address or CIDR' }),
        reason: Type.Optional(Type.String({ maxLength: 255 })),
      }, { examples: [EXAMPLES.addBlocklistEntry] }),
      response: { 201: BlocklistEntry, ...errorResponses(400, 401, 409) },
    },
    config: { idempotent: true },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => reply.code(201).send(await ctx.antifraud.blocklist.add(request.body)),
  });
}
