import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * Serves one static file at `url` (read once, hidden from the OpenAPI document) and answers the
 * URL pages link it with: `url?v=<hash of the body>`. A browser may cache it for a day and
 * still never runs an old script after a deploy. Used by the hosted checkout and the dashboard.
 */
export function serveVersionedAsset(app: FastifyInstance, url: string, body: Buffer, type: string, linkPrefix = ''): string {
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  app.get(url, {
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply
        .type(type)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'public, max-age=86400')
        .header('ETag', `"${version}"`)
        .send(body),
  });
  return `${linkPrefix}${url}?v=${version}`;
}
