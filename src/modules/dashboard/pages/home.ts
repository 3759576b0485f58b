import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../services.js';
import { addDays } from '../../../domain/calendar.js';
import { html, type SafeHtml } from '../../../http/html.js';
import type { DayFigures } from '../../payments/dashboard-queries.js';
import type { ExpectedDay, PrepaymentQuote } from '../../settlement/receivables-forecast.js';
import { brasiliaDate, lastDays } from '../brasilia-days.js';
import { brl, d4ToCents, date, percent } from '../format.js';
import { NeedsLogin, pageOf, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { bilingual } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';

/** Days the sales charts cover, and days ahead the receivables chart covers. */
const SALES_DAYS = 30;
const RECEIVABLES_DAYS = 60;

/**
 * GET /dashboard: the merchant's home, its figures and charts in business time (an operator is
 * sent to the merchants list). What counts, per the contract (section 6), is decided by the
 * payments module (dashboard-queries.ts dayFigures): a sale is a payment that stands approved (Authorized or
 * Paid; a Canceled one no longer counts); approved means the acquirer said 00; the rate is over
 * every decided payment (not Pending); a decline is a Denied payment, by code.
 */
export function homePage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!request.dashboardSession) throw new NeedsLogin();
    if (request.dashboardSession.role === 'operator') return seeOther(reply, '/dashboard/operator/merchants');
    const p = requireMerchant(request);
    // Business time: the sandbox clock may have been moved forward.
    const today = brasiliaDate(ctx.clock.now());
    const days = lastDays(today, SALES_DAYS);
    const [figures, declines, expected, prepayment] = await Promise.all([
      ctx.payments.reads.dayFigures(p.merchantId, days),
      ctx.payments.reads.declines(p.merchantId, days[0].from, days[days.length - 1].to),
      ctx.settlement.expectedPerDay(p.accountNumber, today, addDays(today, RECEIVABLES_DAYS)),
      ctx.settlement.prepaymentQuote(p.merchantId, p.accountNumber),
    ]);
    return sendPage(reply, 200, render(pageOf(request, deps), { figures: homeFigures(figures, declines), expected, prepayment }));
  });
}

interface HomeFigures {
  days: DayFigures[];
  declines: { returnCode: string; count: number }[];
  total: { sales: bigint; approved: number; decided: number };
}

function homeFigures(days: DayFigures[], declines: { returnCode: string; count: number }[]): HomeFigures {
  return {
    days,
    declines,
    total: {
      sales: days.reduce((s, d) => s + d.sales, 0n),
      approved: days.reduce((s, d) => s + d.approved, 0),
      decided: days.reduce((s, d) => s + d.decided, 0),
    },
  };
}

const strings = bilingual(
  {
    title: 'Início',
    todaySales: 'Vendas de hoje',
    monthSales: 'Vendas em 30 dias',
    approvalRate: 'Taxa de aprovação (30 dias)',
    prepayment: 'Antecipação disponível (estimativa)',
    prepaymentNote: 'Antecipando todas as parcelas em aberto para {date}: {count} parcelas, líquido {net}, desconto {discount}. Estimado por data de recebimento: o pedido de antecipação calcula cada parcela e pode diferir em centavos.',
    prepaymentNone: 'Nenhuma parcela em aberto pode ser antecipada agora.',
    salesChart: 'Vendas por dia (últimos 30 dias)',
    rateChart: 'Taxa de aprovação por dia',
    declinesChart: 'Recusas por código de retorno (30 dias)',
    receivablesChart: 'Recebíveis previstos por dia (próximos 60 dias)',
    data: 'Ver os dados em tabela',
    day: 'Dia',
    sales: 'Vendas',
    rate: 'Aprovação',
    approved: 'Aprovados',
    decided: 'Decididos',
    code: 'Código de retorno',
    count: 'Quantidade',
    expected: 'Valor previsto',
    installments: 'Parcelas',
    noDeclines: 'Nenhuma recusa nos últimos 30 dias.',
    noReceivables: 'Nenhum recebível previsto nos próximos 60 dias.',
  },
  {
    title: 'Home',
    todaySales: "Today's sales",
    monthSales: 'Sales in 30 days',
    approvalRate: 'Approval rate (30 days)',
    prepayment: 'Prepayment available (estimate)',
    prepaymentNote: 'Prepaying every open installment to {date}: {count} installments, net {net}, discount {discount}. Estimated per receipt date: a prepayment request prices each installment and may differ by cents.',
    prepaymentNone: 'No open installment can be prepaid now.',
    salesChart: 'Sales per day (last 30 days)',
    rateChart: 'Approval rate per day',
    declinesChart: 'Declines by return code (30 days)',
    receivablesChart: 'Receivables expected per day (next 60 days)',
    data: 'Show the data as a table',
    day: 'Day',
    sales: 'Sales',
    rate: 'Approval',
    approved: 'Approved',
    decided: 'Decided',
    code: 'Return code',
    count: 'Count',
    expected: 'Expected amount',
    installments: 'Installments',
    noDeclines: 'No declines in the last 30 days.',
    noReceivables: 'No receivables expected in the next 60 days.',
  },
);

interface HomeView {
  figures: HomeFigures;
  expected: ExpectedDay[];
  prepayment: PrepaymentQuote;
}

/** A chart (drawn by dashboard.js with Chart.js) and the same data as a table under it. */
function chart(id: string, title: string, spec: object, summary: string, table: SafeHtml): SafeHtml {
  return html`<section class="card" aria-labelledby="${id}-title">
<h2 id="${id}-title">${title}</h2>
<div class="chart-box"><canvas id="${id}" role="img" aria-label="${title}" data-chart="${JSON.stringify(spec)}"></canvas></div>
<details class="data"><summary>${summary}</summary><div class="table-wrap">${table}</div></details>
</section>`;
}

function render(page: PageContext, view: HomeView): string {
  const t = strings(page.lang);
  const { figures } = view;
  const todays = figures.days[figures.days.length - 1];
  const label = (d: string) => date(d).slice(0, 5);
  const rateOf = (d: { approved: number; decided: number }) => (d.decided === 0 ? 0 : Math.round((d.approved * 1000) / d.decided) / 10);
  const q = view.prepayment;
  const kpis = html`<div class="kpis">
<div class="card kpi" id="kpi-today"><span>${t.todaySales}</span><strong>${brl(todays.sales)}</strong></div>
<div class="card kpi" id="kpi-month"><span>${t.monthSales}</span><strong>${brl(figures.total.sales)}</strong></div>
<div class="card kpi" id="kpi-rate"><span>${t.approvalRate}</span><strong>${percent(figures.total.approved, figures.total.decided)}</strong></div>
<div class="card kpi" id="kpi-prepayment"><span>${t.prepayment}</span><strong>${brl(d4ToCents(q.received))}</strong>
<small class="muted">${q.count === 0 ? t.prepaymentNone : t.prepaymentNote.replace('{date}', date(q.receivedDate)).replace('{count}', String(q.count)).replace('{net}', brl(d4ToCents(q.net))).replace('{discount}', brl(d4ToCents(q.discount)))}</small></div>
</div>`;

  const sales = chart(
    'chart-sales',
    t.salesChart,
    { type: 'bar', labels: figures.days.map((d) => label(d.date)), series: [{ label: t.sales, data: figures.days.map((d) => Number(d.sales)) }], money: true },
    t.data,
    html`<table id="table-sales"><thead><tr><th scope="col">${t.day}</th><th scope="col" class="num">${t.sales}</th></tr></thead>
<tbody>${figures.days.map((d) => html`<tr><th scope="row">${date(d.date)}</th><td class="num">${brl(d.sales)}</td></tr>`)}</tbody></table>`,
  );
  const rate = chart(
    'chart-rate',
    t.rateChart,
    { type: 'line', labels: figures.days.map((d) => label(d.date)), series: [{ label: `${t.rate} (%)`, data: figures.days.map(rateOf) }] },
    t.data,
    html`<table id="table-rate"><thead><tr><th scope="col">${t.day}</th><th scope="col" class="num">${t.approved}</th><th scope="col" class="num">${t.decided}</th><th scope="col" class="num">${t.rate}</th></tr></thead>
<tbody>${figures.days.map((d) => html`<tr><th scope="row">${date(d.date)}</th><td class="num">${d.approved}</td><td class="num">${d.decided}</td><td class="num">${percent(d.approved, d.decided)}</td></tr>`)}</tbody></table>`,
  );
  const declines = figures.declines.length === 0
    ? html`<section class="card"><h2>${t.declinesChart}</h2><p class="muted">${t.noDeclines}</p></section>`
    : chart(
        'chart-declines',
        t.declinesChart,
        { type: 'bar', labels: figures.declines.map((d) => d.returnCode), series: [{ label: t.count, data: figures.declines.map((d) => d.count) }] },
        t.data,
        html`<table id="table-declines"><thead><tr><th scope="col">${t.code}</th><th scope="col" class="num">${t.count}</th></tr></thead>
<tbody>${figures.declines.map((d) => html`<tr><th scope="row">${d.returnCode}</th><td class="num">${d.count}</td></tr>`)}</tbody></table>`,
      );
  const receivables = view.expected.length === 0
    ? html`<section class="card"><h2>${t.receivablesChart}</h2><p class="muted">${t.noReceivables}</p></section>`
    : chart(
        'chart-receivables',
        t.receivablesChart,
        { type: 'bar', labels: view.expected.map((d) => label(d.date)), series: [{ label: t.expected, data: view.expected.map((d) => Number(d4ToCents(d.value))) }], money: true },
        t.data,
        html`<table id="table-receivables"><thead><tr><th scope="col">${t.day}</th><th scope="col" class="num">${t.installments}</th><th scope="col" class="num">${t.expected}</th></tr></thead>
<tbody>${view.expected.map((d) => html`<tr><th scope="row">${date(d.date)}</th><td class="num">${d.count}</td><td class="num">${brl(d4ToCents(d.value))}</td></tr>`)}</tbody></table>`,
      );
  return layout(
    page,
    t.title,
    html`<script src="${page.assets.chart}" defer></script>
${kpis}
<div class="grid two">${sales}${rate}${declines}${receivables}</div>`,
  );
}
