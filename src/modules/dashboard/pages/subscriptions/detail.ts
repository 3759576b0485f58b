import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { BillingTimelineEntry } from '../../../recurrence/billings-service.js';
import type { SubscriptionView } from '../../../recurrence/resources.js';
import { brl, dateTime, reais } from '../../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { badge, type Tone } from '../../lists.js';
import { subscriptionBadge } from './list.js';
import { cardSection, type CardState } from './card-state.js';

/** Billings shown on a subscription's page: two years of a monthly plan. */
const TIMELINE_SIZE = 24;
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }) });

/** GET /dashboard/subscriptions/:id: a subscription and its billing timeline, each attempt with its outcome. */
export function subscriptionPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/subscriptions/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'recurrence');
    const id = (request.params as { id: string }).id.toLowerCase();
    // Another merchant's id: both reads are 404 (the services read by the principal's merchantId).
    const subscription = await ctx.recurrence.subscriptions.get(principal, id);
    const billings = await ctx.recurrence.billings.ofSubscription(principal, id, TIMELINE_SIZE);
    const cardState = await cardStateOf(ctx, principal.merchantId, subscription, billings);
    return sendPage(reply, 200, render(pageOf(request, deps), subscription, billings, TIMELINE_SIZE, cardState));
  });
}

/** The stored card of a card subscription and its history (null for a Pix one). */
async function cardStateOf(ctx: DashboardServices, merchantId: string, s: SubscriptionView, billings: BillingTimelineEntry[]): Promise<CardState | null> {
  if (s.vaultId === null || s.pixAuthorization) return null;
  const card = (await ctx.cards.getVaults([{ merchantId, vaultId: s.vaultId }])).get(s.vaultId) ?? null;
  // The latest billing, if its charge failed: open awaiting a retry, or ended Denied / PaymentInvalid.
  const latest = billings.find((b) => b.attemptsHistory.length > 0);
  const lastTry = latest?.attemptsHistory.at(-1);
  const failed = latest && latest.status !== 'Paid' && latest.status !== 'Canceled' && lastTry && lastTry.returnCode !== '00'
    ? { installment: latest.installment, status: latest.status, returnCode: lastTry.returnCode, declineCategory: lastTry.declineCategory, nextAttemptAt: latest.nextAttemptAt }
    : null;
  const now = ctx.clock.now().getTime();
  const ends = card ? Date.UTC(Number(card.expirationYear), Number(card.expirationMonth), 1) : Infinity;
  return { card, history: await ctx.cards.cardHistory(merchantId, s.vaultId), link: await ctx.recurrence.cardLinks.latest(merchantId, s.id), failed, expiring: ends - now <= 30 * 86_400_000 };
}

const words = bilingual(
  {
    title: 'Assinatura',
    order: 'Pedido',
    plan: 'Plano',
    amount: 'Valor por ciclo',
    interval: 'Intervalo',
    days: '{n} dias',
    retries: 'Retentativas permitidas',
    vault: 'Cartão guardado (vaultId)',
    created: 'Criada em',
    status: 'Situação',
    blocked: 'Bloqueada: {reason} (código {code}). A assinatura só volta a cobrar se for reativada.',
    billings: 'Cobranças',
    billing: 'Cobrança {n}',
    due: 'Vencimento',
    next: 'Próxima tentativa',
    attempts: 'Tentativas',
    noAttempts: 'Nenhuma tentativa ainda.',
    noBillings: 'Nenhuma cobrança.',
    approved: 'Aprovada',
    declined: 'Recusada',
    code: 'código',
    payment: 'ver pagamento',
    retryAt: 'nova tentativa em {date}',
    retryDone: 'nova tentativa feita em {date}',
    Opened: 'Em aberto',
    Paid: 'Paga',
    Denied: 'Negada',
    PaymentInvalid: 'Pagamento inválido',
    Canceled: 'Cancelada',
    shown: 'Mostrando as {n} cobranças mais recentes.',
    pixTitle: 'Pix Automático: autorização',
    pixStatus: 'Situação na instituição',
    recurrenceId: 'Recorrência (idRec)',
    pixCode: 'Pix Copia e Cola (jornada 3)',
    expires: 'Válido até',
    reason: 'Motivo',
    canceledBy: 'Cancelada por',
    payer: 'Pagador',
    pixRetries: 'Regras do API Pix: até {n} retentativas em {d} dias após o vencimento',
  },
  {
    title: 'Subscription',
    order: 'Order',
    plan: 'Plan',
    amount: 'Amount per cycle',
    interval: 'Interval',
    days: '{n} days',
    retries: 'Retries allowed',
    vault: 'Stored card (vaultId)',
    created: 'Created',
    status: 'Status',
    blocked: 'Blocked: {reason} (code {code}). The subscription charges again only if it is reactivated.',
    billings: 'Billings',
    billing: 'Billing {n}',
    due: 'Due date',
    next: 'Next attempt',
    attempts: 'Attempts',
    noAttempts: 'No attempt yet.',
    noBillings: 'No billings.',
    approved: 'Approved',
    declined: 'Declined',
    code: 'code',
    payment: 'see payment',
    retryAt: 'retry on {date}',
    retryDone: 'retried on {date}',
    Opened: 'Open',
    Paid: 'Paid',
    Denied: 'Denied',
    PaymentInvalid: 'Payment invalid',
    Canceled: 'Canceled',
    shown: 'Showing the {n} latest billings.',
    pixTitle: 'Pix Automático: authorization',
    pixStatus: 'Status at the PSP',
    recurrenceId: 'Recurrence (idRec)',
    pixCode: 'Pix copy and paste (journey 3)',
    expires: 'Valid until',
    reason: 'Reason',
    canceledBy: 'Canceled by',
    payer: 'Payer',
    pixRetries: 'API Pix rules: up to {n} retries within {d} days after the due date',
  },
);

const BILLING_TONE: Record<string, Tone> = { Paid: 'good', Opened: 'wait', Denied: 'bad', PaymentInvalid: 'bad', Canceled: 'bad' };

/** One billing: its facts, then each attempt in order with its outcome and the retry it led to. */
function billingCard(page: PageContext, b: BillingTimelineEntry, pix: boolean) {
  const t = words(page.lang);
  const history = b.attemptsHistory;
  const label = (t as Record<string, string>)[b.status] ?? b.status;
  return html`<section class="card" aria-labelledby="b-${b.id}">
<h3 id="b-${b.id}">${t.billing.replace('{n}', String(b.installment))} ${badge(label, BILLING_TONE[b.status] ?? '')}</h3>
<dl class="facts"><dt>${t.due}</dt><dd>${dateTime(b.expireAt)}</dd><dt>${t.amount}</dt><dd>${brl(b.amountCents)}</dd>
${b.nextAttemptAt ? html`<dt>${t.next}</dt><dd><strong>${dateTime(b.nextAttemptAt)}</strong></dd>` : ''}</dl>
<h4>${t.attempts}</h4>
${history.length
  ? html`<ol class="timeline">${history.map((a, i) => {
      const ok = a.returnCode === '00';
      const later = history[i + 1]?.date;
      const retry = ok ? '' : later ? t.retryDone.replace('{date}', dateTime(later)) : b.nextAttemptAt ? t.retryAt.replace('{date}', dateTime(b.nextAttemptAt)) : '';
      return html`<li><strong>${dateTime(a.date)}</strong> · ${brl(b.amountCents)} · ${badge(ok ? t.approved : t.declined, ok ? 'good' : 'bad')}
<br><span>${t.code} <code>${a.returnCode ?? '-'}</code> ${a.returnMessage}${a.declineCategory ? html` · <span class="muted">${a.declineCategory}</span>` : ''}</span>${a.paymentId ? html` · <a href="/dashboard/${pix ? 'pix' : 'payments'}/${a.paymentId}">${t.payment}</a>` : ''}${retry ? html`<br><span class="muted">${retry}</span>` : ''}</li>`;
    })}</ol>`
  : html`<p class="muted">${t.noAttempts}</p>`}
</section>`;
}

/** A Pix subscription's authorization: the recurrence at the PSP and the code the payer scans. */
function pixCard(page: PageContext, s: SubscriptionView) {
  const t = words(page.lang);
  const a = s.pixAuthorization!;
  return html`<section class="card" aria-labelledby="pix-auth"><h2 id="pix-auth">${t.pixTitle}</h2>
<dl class="facts"><dt>${t.pixStatus}</dt><dd>${a.status}</dd>
<dt>${t.recurrenceId}</dt><dd><code>${a.recurrenceId}</code></dd>
${s.payer ? html`<dt>${t.payer}</dt><dd>${s.payer.name} (${s.payer.documentNumber})</dd>` : ''}
<dt>${t.expires}</dt><dd>${dateTime(a.expiresAt)}</dd>
${a.reason ? html`<dt>${t.reason}</dt><dd>${a.reason}</dd>` : ''}
${a.canceledBy ? html`<dt>${t.canceledBy}</dt><dd>${a.canceledBy}</dd>` : ''}</dl>
<label for="pix-emv">${t.pixCode}</label>
<textarea id="pix-emv" readonly rows="4" cols="60">${a.pixEmv}</textarea>
</section>`;
}

function render(page: PageContext, s: SubscriptionView, billings: BillingTimelineEntry[], limit: number, cardState: CardState | null): string {
  const t = words(page.lang);
  return layout(
    page,
    `${t.title} ${s.orderNumber}`,
    html`<p><a href="/dashboard/subscriptions">${common(page.lang).back}</a></p>
${s.status === 'Blocked' ? html`<p class="alert" role="alert">${t.blocked.replace('{reason}', s.blockedReason ?? '-').replace('{code}', s.blockedReturnCode ?? '-')}</p>` : ''}
<div class="card"><dl class="facts">
<dt>${t.status}</dt><dd>${subscriptionBadge(page, s.status)}</dd>
<dt>${t.plan}</dt><dd>${s.plan.name} (${s.plan.planType})</dd>
<dt>${t.amount}</dt><dd>${reais(s.plan.amount)}</dd>
<dt>${t.interval}</dt><dd>${t.days.replace('{n}', String(s.plan.interval))}</dd>
<dt>${t.retries}</dt><dd>${s.plan.pix ? t.pixRetries.replace('{n}', String(s.plan.pix.maxRetries)).replace('{d}', String(s.plan.pix.retryWindowDays)) : s.plan.attempts}</dd>
<dt>${t.order}</dt><dd>${s.orderNumber}</dd>
${s.vaultId !== null ? html`<dt>${t.vault}</dt><dd><code>${s.vaultId}</code></dd>` : ''}
<dt>${t.created}</dt><dd>${dateTime(s.createdDate)}</dd>
</dl></div>
${s.pixAuthorization ? pixCard(page, s) : ''}
${cardState ? cardSection(page, cardState) : ''}
<h2>${t.billings}</h2>
${billings.length ? billings.map((b) => billingCard(page, b, s.pixAuthorization !== undefined)) : html`<p>${t.noBillings}</p>`}
${billings.length >= limit ? html`<p class="muted">${t.shown.replace('{n}', String(limit))}</p>` : ''}`,
  );
}
