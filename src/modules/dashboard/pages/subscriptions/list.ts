import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { PlanView, SubscriptionView } from '../../../recurrence/resources.js';
import { dateTime, reais } from '../../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { badge, decodeCursor, encodeCursor, pager, withAfter, type Tone } from '../../lists.js';
import { SUBSCRIPTION_STATUSES } from '../../../../domain/lifecycles.js';

const PAGE_SIZE = 25;

const ListQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal(''), ...SUBSCRIPTION_STATUSES.map((s) => Type.Literal(s))])),
  after: Type.Optional(Type.String({ maxLength: 400 })),
});

/** GET /dashboard/subscriptions: the merchant's plans, and its subscriptions by status. */
export function subscriptionListPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/subscriptions', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'recurrence');
    const query = request.query as Static<typeof ListQuery>;
    const after = decodeCursor<{ createdAt: string; id: string }>(query.after, { createdAt: 'string', id: 'string' });
    const status = query.status || undefined;
    // A merchant has a handful of plans: the API's own list, first 100.
    const [plans, subs] = await Promise.all([
      ctx.recurrence.plans.list(principal, { limit: 100, orderBy: 'createdDate:desc' }),
      ctx.recurrence.subscriptions.page(principal, { status, after, limit: PAGE_SIZE }),
    ]);
    const nextHref = subs.next ? withAfter('/dashboard/subscriptions', { status }, encodeCursor(subs.next)) : undefined;
    return sendPage(reply, 200, render(pageOf(request, deps), { plans: plans.items, subscriptions: subs.items, status, nextHref, onFirst: !after }));
  });
}

const recurrenceWords = bilingual(
  {
    title: 'Planos e assinaturas',
    plans: 'Planos',
    subscriptions: 'Assinaturas',
    name: 'Nome',
    type: 'Tipo',
    interval: 'Intervalo (dias)',
    retries: 'Retentativas',
    plan: 'Plano',
    order: 'Pedido (orderNumber)',
    noPlans: 'Nenhum plano ainda. Crie planos pela API de recorrência.',
    Active: 'Ativa',
    PendingAuthorization: 'Aguardando autorização',
    Blocked: 'Bloqueada',
    Canceled: 'Cancelada',
    Finished: 'Finalizada',
    Inactive: 'Inativo',
    PlanActive: 'Ativo',
    PlanCanceled: 'Cancelado',
  },
  {
    title: 'Plans and subscriptions',
    plans: 'Plans',
    subscriptions: 'Subscriptions',
    name: 'Name',
    type: 'Type',
    interval: 'Interval (days)',
    retries: 'Retries',
    plan: 'Plan',
    order: 'Order (orderNumber)',
    noPlans: 'No plans yet. Create plans through the recurrence API.',
    Active: 'Active',
    PendingAuthorization: 'Awaiting authorization',
    Blocked: 'Blocked',
    Canceled: 'Canceled',
    Finished: 'Finished',
    Inactive: 'Inactive',
    PlanActive: 'Active',
    PlanCanceled: 'Canceled',
  },
);

const TONE: Record<string, Tone> = { Active: 'good', Finished: 'good', Blocked: 'bad', Canceled: 'bad', Inactive: 'wait', PendingAuthorization: 'wait' };

/** A subscription's status as a badge (the detail page shows it too). */
export function subscriptionBadge(page: PageContext, status: string) {
  const t = recurrenceWords(page.lang) as Record<string, string>;
  return badge(t[status] ?? status, TONE[status] ?? '');
}

function planStatus(page: PageContext, status: string) {
  const t = recurrenceWords(page.lang);
  const label = status === 'Active' ? t.PlanActive : status === 'Canceled' ? t.PlanCanceled : status === 'Inactive' ? t.Inactive : status;
  return badge(label, TONE[status] ?? '');
}

interface SubscriptionsView {
  plans: PlanView[];
  subscriptions: SubscriptionView[];
  status?: string;
  nextHref?: string;
  onFirst: boolean;
}

function render(page: PageContext, view: SubscriptionsView): string {
  const t = recurrenceWords(page.lang);
  const c = common(page.lang);
  const plans = view.plans.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${t.plans}"><table><caption>${t.plans}</caption>
<thead><tr><th scope="col">${t.name}</th><th scope="col">${t.type}</th><th scope="col" class="num">${c.amount}</th><th scope="col" class="num">${t.interval}</th><th scope="col" class="num">${t.retries}</th><th scope="col">${c.status}</th></tr></thead>
<tbody>${view.plans.map((p) => html`<tr><td>${p.name}</td><td>${p.planType}</td><td class="num">${reais(p.amount)}</td><td class="num">${p.interval}</td><td class="num">${p.attempts}</td><td>${planStatus(page, p.status)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="muted">${t.noPlans}</p>`;
  return layout(
    page,
    t.title,
    html`<h2>${t.plans}</h2>
${plans}
<h2 id="subs">${t.subscriptions}</h2>
<form method="get" action="/dashboard/subscriptions" class="filters card">
<div><label for="status">${c.status}</label>
<select id="status" name="status"><option value="">${c.all}</option>${SUBSCRIPTION_STATUSES.map((s) => html`<option value="${s}"${view.status === s ? html` selected` : ''}>${(t as Record<string, string>)[s]}</option>`)}</select></div>
<button type="submit">${c.filter}</button>
</form>
${view.subscriptions.length
  ? html`<div class="table-wrap"><table><caption>${t.subscriptions}</caption>
<thead><tr><th scope="col">${t.order}</th><th scope="col">${t.plan}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${c.status}</th><th scope="col">${c.created}</th></tr></thead>
<tbody>${view.subscriptions.map((s) => html`<tr><td><a href="/dashboard/subscriptions/${s.id}">${s.orderNumber}</a></td><td>${s.plan.name}</td><td class="num">${reais(s.plan.amount)}</td><td>${subscriptionBadge(page, s.status)}</td><td>${dateTime(s.createdDate)}</td></tr>`)}</tbody></table></div>`
  : html`<p>${c.noRows}</p>`}
${pager(page.lang, `/dashboard/subscriptions${view.status ? `?status=${encodeURIComponent(view.status)}` : ''}`, view.nextHref, view.onFirst)}`,
  );
}
