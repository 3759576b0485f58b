import { Type } from '@sinclair/typebox';
import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BlocklistEntry } from '../schemas.js';

/** DELETE /admin/antifraud/blocklist/{id}: answers the removed entry. */
export function deleteBlocklistEntryRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.delete('/admin/antifraud/blocklist/:id', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'deleteBlocklistEntry',
      description: 'Removes one blocklist entry by its id: payments it blocked stay as they are.',
      summary: 'Remove a blocklist entry',
      security: security.admin,
      params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      response: { 200: BlocklistEntry, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.antifraud.blocklist.remove(request.params.id),
  });
}
