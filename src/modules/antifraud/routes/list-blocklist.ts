import { Type } from '@sinclair/typebox';
import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { ListQuery, listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BlocklistEntry, BlocklistKind } from '../schemas.js';

/** GET /admin/antifraud/blocklist: list envelope, optional `kind`; orderBy createdDate, id, kind, value. */
export function listBlocklistRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.get('/admin/antifraud/blocklist', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'listBlocklistEntries',
      description: 'The blocklist (cards, documents, e-mails, IPs refused for every merchant), a page at a time; card entries show only a fingerprint.',
      summary: 'List blocklist entries',
      security: security.admin,
      querystring: Type.Composite([ListQuery, Type.Object({ kind: Type.Optional(BlocklistKind) })]),
      response: { 200: listEnvelope(BlocklistEntry), ...errorResponses(400, 401) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.antifraud.blocklist.list(request.query),
  });
}
