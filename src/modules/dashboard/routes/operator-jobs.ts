import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { secondsSince } from '../../../observability/scraped.js';
import { sendPage, type DashboardDeps } from '../http.js';
import { jobsPage, type KindHealth } from '../pages/operator-jobs.js';
import { operatorPage } from './operator-forms.js';

const LAST_FAILED = 20;

/**
 * GET /dashboard/operator/jobs: the queue as /metrics reports it. Backlog, running and the
 * oldest due job come from the same reading as gateway_jobs_queue_depth and
 * gateway_jobs_oldest_due_seconds (GatewayMetrics.queueGroups); failed attempts from
 * gateway_job_failures_total; the failed jobs from the queue itself.
 */
export function operatorJobsRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/operator/jobs', { schema: { hide: true } }, async (request, reply) => {
    const page = operatorPage(request, deps);
    const [groups, attempts, failed, lastFailed] = await Promise.all([
      ctx.metrics.queueGroups(),
      ctx.metrics.jobFailureCounts(),
      ctx.queue.failedByKind(),
      ctx.queue.lastFailed(LAST_FAILED),
    ]);
    let kinds: KindHealth[] | null = null;
    if (groups) {
      const now = ctx.clock.now().getTime();
      const names = new Set([...ctx.handlers.kinds(), ...groups.map((g) => g.kind), ...Object.keys(failed)]);
      kinds = [...names].sort().map((kind) => {
        const pending = groups.find((g) => g.kind === kind && g.status === 'pending');
        const running = groups.find((g) => g.kind === kind && g.status === 'running');
        // As gateway_jobs_oldest_due_seconds: now minus the earliest run_at of the pending jobs, 0 when none is due yet.
        const late = secondsSince(now, pending?.firstRunAt ?? null);
        const a = attempts[kind];
        return { kind, pending: pending?.jobs ?? 0, running: running?.jobs ?? 0, oldestDueSeconds: late, failed: failed[kind] ?? 0, failedAttempts: a ? a.retry + a.failed : 0 };
      });
    }
    return sendPage(reply, 200, jobsPage(page, { kinds, lastFailed }));
  });
}
