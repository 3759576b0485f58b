import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { addDays, daysBetween } from '../../../../domain/calendar.js';
import { html } from '../../../../http/html.js';
import { InstallmentRecord, SummaryRecord } from '../../../settlement/schemas.js';
import { conciliationSearch } from '../../../settlement/search.js';
import { brasiliaDate } from '../../brasilia-days.js';
import { formProblems } from '../../forms.js';
import { pageOf, requireMerchant, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { csvStream } from './csv.js';

const SEARCH_KINDS = ['operation-date', 'operation-date-installments', 'payment-date'] as const;
type SearchKind = (typeof SEARCH_KINDS)[number];

// Checked in the handler (attachValidation): refused dates bring the form back with the reason.
const ExportQuery = Type.Object({
  startDate: Type.String({ maxLength: 10, format: 'date' }),
  endDate: Type.String({ maxLength: 10, format: 'date' }),
  /** An unknown kind is the first one. */
  kind: Type.Optional(Type.String({ maxLength: 40 })),
});

/** The records' fields, in the API's order: the CSV's columns. */
const COLUMNS: Record<SearchKind, string[]> = {
  'operation-date': Object.keys(SummaryRecord.properties),
  'operation-date-installments': Object.keys(InstallmentRecord.properties),
  'payment-date': Object.keys(InstallmentRecord.properties),
};
const SEARCH = {
  'operation-date': conciliationSearch.byOperationDate,
  'operation-date-installments': conciliationSearch.byOperationDateInstallments,
  'payment-date': conciliationSearch.byPaymentDate,
} as const;

/** The conciliation export: the integration API's range searches (same service, same limits) as a CSV download. */
export function conciliationPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  const maxDays = ctx.config.conciliation.maxRangeDays;

  scope.get('/conciliation', { schema: { hide: true } }, async (request, reply) => {
    requireMerchant(request);
    const today = brasiliaDate(ctx.clock.now());
    return sendPage(reply, 200, render(pageOf(request, deps), { startDate: addDays(today, -Math.min(29, maxDays)), endDate: today, kind: 'operation-date', maxDays }));
  });

  scope.get('/conciliation/export', { schema: { hide: true, querystring: ExportQuery }, attachValidation: true }, async (request, reply) => {
    const p = requireMerchant(request);
    const q = request.query as Partial<Static<typeof ExportQuery>>;
    const kind = (SEARCH_KINDS as readonly string[]).includes(q.kind ?? '') ? (q.kind as SearchKind) : 'operation-date';
    const view = { startDate: q.startDate ?? '', endDate: q.endDate ?? '', kind, maxDays };
    // The service checks the same and answers 400 too; here the form comes back with the reason.
    const refuse = (error: 'tooLong' | 'badDates') => sendPage(reply, 400, render(pageOf(request, deps), { ...view, error }));
    if (formProblems(request, ExportQuery).length > 0 || view.startDate > view.endDate) return refuse('badDates');
    if (daysBetween(view.startDate, view.endDate) > maxDays) return refuse('tooLong');
    // The slot (CONCIL_MAX_CONCURRENT_PER_MERCHANT) is taken here and given back when the stream ends or the browser goes away.
    const records = SEARCH[view.kind](ctx, p, { accountNumber: String(p.accountNumber), startDate: view.startDate, endDate: view.endDate });
    return reply
      .header('Content-Disposition', `attachment; filename="conciliacao-${view.kind}-${view.startDate}-${view.endDate}.csv"`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/csv; charset=utf-8')
      .send(csvStream(COLUMNS[view.kind], records));
  });
}

const strings = bilingual(
  {
    title: 'Conciliação',
    intro: 'Baixe em CSV os mesmos registros que as buscas de conciliação da API de integração devolvem. O período pode ter no máximo {days} dias.',
    startDate: 'Data inicial',
    endDate: 'Data final',
    kind: 'Tipo de busca',
    'operation-date': 'Por data da venda (um registro por venda)',
    'operation-date-installments': 'Por data da venda (um registro por parcela)',
    'payment-date': 'Por data de pagamento (parcelas recebidas ou previstas)',
    download: 'Baixar CSV',
    tooLong: 'O período pode ter no máximo {days} dias entre a data inicial e a final.',
    badDates: 'Informe as duas datas, com a inicial antes da final.',
  },
  {
    title: 'Conciliation',
    intro: 'Download as CSV the same records the integration API conciliation searches answer. The range may span at most {days} days.',
    startDate: 'Start date',
    endDate: 'End date',
    kind: 'Search kind',
    'operation-date': 'By sale date (one record per sale)',
    'operation-date-installments': 'By sale date (one record per installment)',
    'payment-date': 'By payment date (installments received or expected)',
    download: 'Download CSV',
    tooLong: 'The range may span at most {days} days between the start and end dates.',
    badDates: 'Give both dates, the start on or before the end.',
  },
);

interface ConciliationView {
  startDate: string;
  endDate: string;
  kind: SearchKind;
  maxDays: number;
  error?: 'tooLong' | 'badDates';
}

function render(page: PageContext, view: ConciliationView): string {
  const t = strings(page.lang);
  const days = String(view.maxDays);
  return layout(
    page,
    t.title,
    html`${view.error ? html`<p class="alert" role="alert" id="export-error">${t[view.error].replace('{days}', days)}</p>` : ''}
<p>${t.intro.replace('{days}', days)}</p>
<form method="get" action="/dashboard/conciliation/export" class="card">
<label for="c-start">${t.startDate}</label><input id="c-start" name="startDate" type="date" value="${view.startDate}" required>
<label for="c-end">${t.endDate}</label><input id="c-end" name="endDate" type="date" value="${view.endDate}" required>
<label for="c-kind">${t.kind}</label><select id="c-kind" name="kind">
${SEARCH_KINDS.map((k) => html`<option value="${k}"${view.kind === k ? html` selected` : ''}>${t[k]}</option>`)}
</select>
<button type="submit">${t.download}</button>
</form>`,
  );
}
