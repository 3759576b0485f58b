import { html } from '../../../http/html.js';
import { bilingual } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';

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

export const SEARCH_KINDS = ['operation-date', 'operation-date-installments', 'payment-date'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface ConciliationView {
  startDate: string;
  endDate: string;
  kind: SearchKind;
  maxDays: number;
  error?: 'tooLong' | 'badDates';
}

export function conciliationPage(page: PageContext, view: ConciliationView): string {
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
