import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import { SANDBOX_IN_PRODUCTION_WARNING } from '../../acquirer/config.js';
import type { OpsRouteDeps } from './route-deps.js';
import { migrationsApplied } from '../../db/migrate.js';
import { sql } from 'kysely';
import { errorResponses } from '../../http/openapi.js';
import type { App } from '../../http/types.js';
import { metricsAccess } from '../../observability/metrics-access.js';

/** How long /readyz waits for the database before it says 503. */
const READY_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // The probe's query may still finish later; its result is simply dropped.
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** /healthz (process up), /readyz (database reachable, migrations applied), /metrics (Prometheus). */
export function registerOpsRoutes(app: App, ctx: OpsRouteDeps, metrics: Registry): void {
  app.get('/healthz', {
    schema: { tags: ['Operations'], operationId: 'getHealth', security: [], description: 'Liveness probe: answers 200 while the process runs, without touching the database.', summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  let migrated = false; // once true it stays true: migrations are never un-applied under a running process
  app.get('/readyz', {
    schema: {
      tags: ['Operations'],
      operationId: 'getReadiness',
      security: [],
      summary: 'Readiness',
      description: 'Ready when the database answers, takes writes and has its migrations applied. `acquirer` names the default connector; `warnings` says when production charges through the sandbox acquirer.',
      response: {
        200: Type.Object({ status: Type.Literal('ready'), acquirer: Type.String(), warnings: Type.Optional(Type.Array(Type.String())) }),
        ...errorResponses(503),
      },
    },
    handler: async (_request, reply) => {
      let standby = false;
      try {
        // A database that drops traffic must not hang the probe: not ready after READY_TIMEOUT_MS.
        await withTimeout(
          (async () => {
            // Through a failover endpoint the server answering may be a standby not promoted yet.
            if (ctx.database.dialect === 'postgres') standby = (await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(ctx.database.db)).rows[0]!.standby;
            else await sql`select 1`.execute(ctx.database.db);
            migrated ||= await migrationsApplied(ctx.database);
          })(),
          READY_TIMEOUT_MS,
        );
      } catch {
        return reply.code(503).send([{ tag: 'database_unreachable', description: 'The database does not answer.' }]);
      }
      if (standby) return reply.code(503).send([{ tag: 'database_read_only', description: 'The database takes no writes (a standby: a failover is under way).' }]);
      if (!migrated) return reply.code(503).send([{ tag: 'migrations_pending', description: 'Database migrations are not applied.' }]);
      const acquirer = ctx.acquirer.defaultIsSandbox ? 'sandbox' : 'cielo';
      const warnings = ctx.config.mode === 'production' && acquirer === 'sandbox' ? [SANDBOX_IN_PRODUCTION_WARNING] : undefined;
      return { status: 'ready' as const, acquirer, ...(warnings ? { warnings } : {}) };
    },
  });

  // METRICS_TOKEN (bearer) when set; production without it does not serve /metrics (observability/metrics-access.ts).
  const access = metricsAccess(ctx.config);
  if (ctx.config.mode === 'production' && !ctx.config.metricsToken) {
    ctx.logger.warn({ setting: 'METRICS_TOKEN' }, '/metrics is not served: set METRICS_TOKEN to scrape it (Authorization: Bearer <token>)');
  }
  app.get('/metrics', {
    schema: {
      tags: ['Operations'],
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description: 'Requires `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; in production without it, 404.',
      security: [{ metricsToken: [] }],
      response: {
        200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: Type.String() } } },
        ...errorResponses(401, 404),
      },
    },
    handler: async (request, reply) => {
      const refused = access(request.headers.authorization);
      if (refused) {
        if (refused.kind === 'unauthenticated') reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw refused;
      }
      return reply.type(metrics.contentType).send(await metrics.metrics());
    },
  });
}
