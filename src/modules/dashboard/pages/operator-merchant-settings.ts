import { html, type SafeHtml } from '../../../http/html.js';
import type { ConnectionView } from '../../../acquirer/connections.js';
import type { AntifraudSettings } from '../../antifraud/settings.js';
import type { PricingJson } from '../../settlement/pricing.js';
import { brl, dateTime } from '../format.js';
import { bilingual } from '../i18n.js';
import { csrfField, type PageContext } from '../layout.js';

const text = bilingual(
  {
    pricing: 'Preços',
    pricingHint: 'Percentuais de 0 a 100 (até 4 casas); tarifas em reais (até 2 casas). Valem para as vendas feitas a partir de agora.',
    credit1x: 'MDR crédito à vista (%)',
    credit2to6: 'MDR crédito 2 a 6 parcelas (%)',
    credit7to12: 'MDR crédito 7 a 12 parcelas (%)',
    pix: 'MDR Pix (%)',
    transactionFee: 'Tarifa por transação (R$)',
    antifraudFee: 'Tarifa de antifraude (R$)',
    monthlyRate: 'Taxa de antecipação ao mês (%)',
    automatic: 'Antecipação automática',
    yes: 'Sim',
    no: 'Não',
    save: 'Salvar',
    antifraud: 'Antifraude',
    windowMinutes: 'Janela de velocidade (minutos)',
    maxPerCard: 'Máximo por cartão na janela',
    maxPerDocument: 'Máximo por documento na janela',
    maxPerIp: 'Máximo por IP na janela',
    amountLimit: 'Limite de valor (centavos)',
    reviewScore: 'Pontuação para revisão (1 a 100)',
    rejectScore: 'Pontuação para recusa (1 a 100)',
    checkIpCountry: 'Conferir o país do IP',
    acquirer: 'Conexão com a adquirente',
    usesDefault: 'Este lojista usa a adquirente padrão do gateway.',
    provider: 'Adquirente',
    cieloMerchantId: 'MerchantId na Cielo',
    keyLast4: 'MerchantKey (últimos 4)',
    apiUrl: 'URL da API',
    queryUrl: 'URL de consulta',
    environment: 'Ambiente',
    updated: 'Atualizada em',
    setConnection: 'Definir conexão própria',
    merchantKey: 'MerchantKey (guardada cifrada, nunca mostrada)',
    defaultUrl: 'vazio = produção da Cielo',
    auto: 'pela URL',
    remove: 'Remover conexão própria',
    removeConfirm: 'Remover a conexão própria? Os próximos pagamentos vão para a adquirente padrão.',
  },
  {
    pricing: 'Pricing',
    pricingHint: 'Percents 0 to 100 (up to 4 decimals); fees in reais (up to 2 decimals). They apply to sales made from now on.',
    credit1x: 'Credit MDR, single payment (%)',
    credit2to6: 'Credit MDR, 2 to 6 installments (%)',
    credit7to12: 'Credit MDR, 7 to 12 installments (%)',
    pix: 'Pix MDR (%)',
    transactionFee: 'Fee per transaction (R$)',
    antifraudFee: 'Anti-fraud fee (R$)',
    monthlyRate: 'Prepayment rate per month (%)',
    automatic: 'Automatic prepayment',
    yes: 'Yes',
    no: 'No',
    save: 'Save',
    antifraud: 'Anti-fraud',
    windowMinutes: 'Velocity window (minutes)',
    maxPerCard: 'Maximum per card in the window',
    maxPerDocument: 'Maximum per document in the window',
    maxPerIp: 'Maximum per IP in the window',
    amountLimit: 'Amount limit (cents)',
    reviewScore: 'Score for review (1 to 100)',
    rejectScore: 'Score for rejection (1 to 100)',
    checkIpCountry: "Check the IP's country",
    acquirer: 'Acquirer connection',
    usesDefault: "This merchant uses the gateway's default acquirer.",
    provider: 'Acquirer',
    cieloMerchantId: 'Cielo MerchantId',
    keyLast4: 'MerchantKey (last 4)',
    apiUrl: 'API URL',
    queryUrl: 'Query URL',
    environment: 'Environment',
    updated: 'Updated',
    setConnection: 'Set an own connection',
    merchantKey: 'MerchantKey (stored encrypted, never shown)',
    defaultUrl: "empty = Cielo's production",
    auto: 'from the URL',
    remove: 'Remove own connection',
    removeConfirm: 'Remove the own connection? Next payments go to the default acquirer.',
  },
);

const field = (id: string, label: string, value: string | number, extra: SafeHtml | string = '') =>
  html`<label for="${id}">${label}</label><input id="${id}" name="${id}" value="${value}" inputmode="decimal" ${extra}>`;

const yesNo = (id: string, label: string, value: boolean, t: ReturnType<typeof text>) =>
  html`<label for="${id}">${label}</label><select id="${id}" name="${id}"><option value="true"${value ? html` selected` : ''}>${t.yes}</option><option value="false"${value ? '' : html` selected`}>${t.no}</option></select>`;

export function pricingSection(page: PageContext, merchantId: string, p: PricingJson): SafeHtml {
  const t = text(page.lang);
  return html`<section aria-labelledby="pricing"><h2 id="pricing">${t.pricing}</h2>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/pricing" class="card">
${csrfField(page)}
<p class="muted">${t.pricingHint}</p>
<div class="grid two"><div>
${field('credit1x', t.credit1x, p.mdr.credit1x)}
${field('credit2to6', t.credit2to6, p.mdr.credit2to6)}
${field('credit7to12', t.credit7to12, p.mdr.credit7to12)}
${field('pix', t.pix, p.mdr.pix)}
</div><div>
${field('transactionFee', t.transactionFee, p.transactionFee)}
${field('antifraudFee', t.antifraudFee, p.antifraudFee)}
${field('monthlyRate', t.monthlyRate, p.prepayment.monthlyRate)}
${yesNo('automatic', t.automatic, p.prepayment.automatic, t)}
</div></div>
<button type="submit">${t.save}</button>
</form></section>`;
}

export function antifraudSection(page: PageContext, merchantId: string, a: AntifraudSettings): SafeHtml {
  const t = text(page.lang);
  return html`<section aria-labelledby="antifraud"><h2 id="antifraud">${t.antifraud}</h2>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/antifraud" class="card">
${csrfField(page)}
<div class="grid two"><div>
${field('windowMinutes', t.windowMinutes, a.velocity.windowMinutes)}
${field('maxPerCard', t.maxPerCard, a.velocity.maxPerCard)}
${field('maxPerDocument', t.maxPerDocument, a.velocity.maxPerDocument)}
${field('maxPerIp', t.maxPerIp, a.velocity.maxPerIp)}
</div><div>
${field('amountLimit', t.amountLimit, a.amountLimit, html`aria-describedby="amountLimitShown"`)}
<p id="amountLimitShown" class="muted">${brl(BigInt(a.amountLimit))}</p>
${field('reviewScore', t.reviewScore, a.reviewScore)}
${field('rejectScore', t.rejectScore, a.rejectScore)}
${yesNo('checkIpCountry', t.checkIpCountry, a.checkIpCountry, t)}
</div></div>
<button type="submit">${t.save}</button>
</form></section>`;
}

export function acquirerSection(page: PageContext, merchantId: string, c: ConnectionView | null): SafeHtml {
  const t = text(page.lang);
  const current = c
    ? html`<dl class="facts">
<dt>${t.provider}</dt><dd>${c.provider}</dd>
<dt>${t.cieloMerchantId}</dt><dd><code>${c.merchantId}</code></dd>
<dt>${t.keyLast4}</dt><dd><code>…${c.merchantKeyLast4}</code></dd>
<dt>${t.apiUrl}</dt><dd>${c.apiUrl}</dd>
<dt>${t.queryUrl}</dt><dd>${c.queryUrl}</dd>
<dt>${t.environment}</dt><dd>${c.environment}</dd>
<dt>${t.updated}</dt><dd>${dateTime(c.updatedAt)}</dd>
</dl>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/acquirer/remove" data-confirm="${t.removeConfirm}">${csrfField(page)}<button type="submit" class="danger">${t.remove}</button></form>`
    : html`<p>${t.usesDefault}</p>`;
  return html`<section aria-labelledby="acquirer"><h2 id="acquirer">${t.acquirer}</h2>
<div class="card">${current}</div>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/acquirer" class="card narrow">
${csrfField(page)}
<h3>${t.setConnection}</h3>
<input type="hidden" name="provider" value="cielo">
<label for="acq-merchantId">${t.cieloMerchantId}</label>
<input id="acq-merchantId" name="merchantId" required maxlength="64" autocomplete="off">
<label for="acq-merchantKey">${t.merchantKey}</label>
<input id="acq-merchantKey" name="merchantKey" type="password" required maxlength="128" autocomplete="new-password">
<label for="acq-apiUrl">${t.apiUrl} (${t.defaultUrl})</label>
<input id="acq-apiUrl" name="apiUrl" type="url" maxlength="500">
<label for="acq-queryUrl">${t.queryUrl} (${t.defaultUrl})</label>
<input id="acq-queryUrl" name="queryUrl" type="url" maxlength="500">
<label for="acq-environment">${t.environment}</label>
<select id="acq-environment" name="environment"><option value="">${t.auto}</option><option value="production">production</option><option value="sandbox">sandbox</option></select>
<button type="submit">${t.save}</button>
</form></section>`;
}
