import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { AppContext } from '../../context.js';
import { migrationsApplied } from '../../db/migrate.js';
import { sql } from 'kysely';
import { errorResponses } from '../../http/openapi.js';
import type { App } from '../../http/types.js';

/** /healthz (process up), /readyz (database reachable, migrations applied), /metrics (Prometheus). */
export function registerOpsRoutes(app: App, ctx: AppContext, metrics: Registry): void {
  app.get('/healthz', {
    schema: { tags: ['ops'], summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  let migrated = false; // once true it stays true: migrations are never un-applied under a running process
  app.get('/readyz', {
    schema: { tags: ['ops'], summary: 'Readiness', response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) } },
    handler: async (_request, reply) => {
      try {
        await sql`select 1`.execute(ctx.database.db);
        migrated ||= await migrationsApplied(ctx.database);
      } catch {
        return reply.code(503).send([{ tag: 'database_unreachable', description: 'The database does not answer.' }]);
      }
      if (!migrated) return reply.code(503).send([{ tag: 'migrations_pending', description: 'Database migrations are not applied.' }]);
      return { status: 'ready' as const };
    },
  });

  app.get('/metrics', {
    schema: { tags: ['ops'], summary: 'Prometheus metrics' },
    handler: async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
  });
}
