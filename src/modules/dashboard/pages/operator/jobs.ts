import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { FailedJob } from '../../../../jobs/queue.js';
import { secondsSince } from '../../../../observability/backlog.js';
import { dateTime, duration } from '../../format.js';
import { requireOperator, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';

const LAST_FAILED = 20;

/**
 * GET /dashboard/operator/jobs: the queue as /metrics reports it. Backlog, running and the
 * oldest due job come from the same reading as gateway_jobs_queue_depth and
 * gateway_jobs_oldest_due_seconds (GatewayMetrics.queueGroups); failed attempts from
 * gateway_job_failures_total; the failed jobs from the queue itself.
 */
export function operatorJobsPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/operator/jobs', { schema: { hide: true } }, async (request, reply) => {
    const page = requireOperator(request, deps);
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
    return sendPage(reply, 200, render(page, { kinds, lastFailed }));
  });
}

const jobsText = bilingual(
  {
    title: 'Saúde das filas',
    intro: 'Por tipo de tarefa: na fila (pendentes), executando, o atraso da tarefa vencida mais antiga (gateway_jobs_oldest_due_seconds), as que falharam de vez e as tentativas falhas desde que este processo começou (gateway_job_failures_total).',
    kind: 'Tipo',
    pending: 'Na fila',
    running: 'Executando',
    oldestDue: 'Atraso',
    failed: 'Falharam',
    attemptsFailed: 'Tentativas falhas',
    none: '-',
    unavailable: 'O banco de dados não respondeu a tempo: a fila não pôde ser lida agora.',
    lastFailed: 'Últimas tarefas que falharam',
    id: 'Id',
    attempts: 'Tentativas',
    error: 'Último erro',
    at: 'Quando',
    noFailures: 'Nenhuma tarefa falhou.',
    caption: 'Filas por tipo de tarefa',
  },
  {
    title: 'Job queue health',
    intro: 'Per job kind: queued (pending), running, how late the oldest due job is (gateway_jobs_oldest_due_seconds), those failed for good and the failed attempts since this process started (gateway_job_failures_total).',
    kind: 'Kind',
    pending: 'Queued',
    running: 'Running',
    oldestDue: 'Late by',
    failed: 'Failed',
    attemptsFailed: 'Failed attempts',
    none: '-',
    unavailable: 'The database did not answer in time: the queue could not be read now.',
    lastFailed: 'Last failed jobs',
    id: 'Id',
    attempts: 'Attempts',
    error: 'Last error',
    at: 'When',
    noFailures: 'No job has failed.',
    caption: 'Queues by job kind',
  },
);

interface KindHealth {
  kind: string;
  pending: number;
  running: number;
  /** Seconds the oldest due pending job is late (0: none due). */
  oldestDueSeconds: number;
  failed: number;
  failedAttempts: number;
}

interface JobsView {
  /** Null when the job table could not be read in time. */
  kinds: KindHealth[] | null;
  lastFailed: FailedJob[];
}

function render(page: PageContext, view: JobsView): string {
  const t = jobsText(page.lang);
  const kinds = view.kinds
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t.caption}"><table>
<caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.kind}</th><th scope="col" class="num">${t.pending}</th><th scope="col" class="num">${t.running}</th><th scope="col" class="num">${t.oldestDue}</th><th scope="col" class="num">${t.failed}</th><th scope="col" class="num">${t.attemptsFailed}</th></tr></thead>
<tbody>${view.kinds.map(
        (k) => html`<tr><th scope="row"><code>${k.kind}</code></th><td class="num">${k.pending}</td><td class="num">${k.running}</td>
<td class="num">${k.oldestDueSeconds > 0 ? html`<span class="status wait">${duration(k.oldestDueSeconds)}</span>` : t.none}</td>
<td class="num">${k.failed > 0 ? html`<span class="status bad">${k.failed}</span>` : 0}</td><td class="num">${k.failedAttempts}</td></tr>`,
      )}</tbody>
</table></div>`
    : html`<p class="alert" role="alert">${t.unavailable}</p>`;
  const failed = view.lastFailed.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="last-failed"><table>
<thead><tr><th scope="col">${t.id}</th><th scope="col">${t.kind}</th><th scope="col" class="num">${t.attempts}</th><th scope="col">${t.at}</th><th scope="col">${t.error}</th></tr></thead>
<tbody>${view.lastFailed.map(
        (j) => html`<tr><td class="num">${j.id}</td><td><code>${j.kind}</code></td><td class="num">${j.attempts}/${j.maxAttempts}</td><td>${dateTime(j.failedAt)}</td><td class="wrap">${j.lastError ?? ''}</td></tr>`,
      )}</tbody>
</table></div>`
    : html`<p>${t.noFailures}</p>`;
  return layout(page, t.title, html`<p>${t.intro}</p>
${kinds}
<h2 id="last-failed">${t.lastFailed}</h2>
${failed}`);
}
