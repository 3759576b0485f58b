import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../../services.js';
import { html, type SafeHtml } from '../../../../../http/html.js';
import { MerchantIdParams } from '../../../../../http/merchant-id-params.js';
import type { PricingJson, PricingPatch } from '../../../../settlement/pricing.js';
import { PricingPatch as PricingPatchSchema } from '../../../../settlement/schemas.js';
import { apiBody, apiSchemaCheck, decimal, formSchema, requireValidForm, yesNo } from '../../../forms.js';
import { requireOperator, type DashboardDeps } from '../../../http.js';
import { bilingual, common } from '../../../i18n.js';
import { csrfField, type PageContext } from '../../../layout.js';
import { backToMerchant, merchantOf, numberInput, yesNoSelect } from './settings-form.js';

/** The body of PUT /admin/merchants/{id}/pricing, field by field; an empty field keeps the price as it is. */
const PricingForm = formSchema({
  credit1x: decimal('mdr.credit1x'),
  credit2to6: decimal('mdr.credit2to6'),
  credit7to12: decimal('mdr.credit7to12'),
  pix: decimal('mdr.pix'),
  transactionFee: decimal('transactionFee'),
  antifraudFee: decimal('antifraudFee'),
  monthlyRate: decimal('prepayment.monthlyRate'),
  automatic: yesNo('prepayment.automatic'),
});
const checkPricing = apiSchemaCheck(PricingPatchSchema);

/** POST /dashboard/operator/merchants/:merchantId/pricing: what PUT /admin/merchants/{id}/pricing does, nothing written on a 400. */
export function pricingForm(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.post('/operator/merchants/:merchantId/pricing', { schema: { hide: true, params: MerchantIdParams, body: PricingForm }, attachValidation: true }, async (request, reply) => {
    requireOperator(request, deps);
    requireValidForm(request, PricingForm);
    const patch = apiBody(PricingForm, request.body as Static<typeof PricingForm>);
    checkPricing(patch);
    const merchantId = await merchantOf(ctx, request);
    await ctx.settlement.pricing.put(merchantId, patch as PricingPatch);
    return backToMerchant(reply, merchantId, 'pricing');
  });
}

const words = bilingual(
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
  },
);

/** The merchant page's pricing section: the form, on the prices in force. */
export function pricingSection(page: PageContext, merchantId: string, p: PricingJson): SafeHtml {
  const t = words(page.lang);
  return html`<section aria-labelledby="pricing"><h2 id="pricing">${t.pricing}</h2>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/pricing" class="card">
${csrfField(page)}
<p class="muted">${t.pricingHint}</p>
<div class="grid two"><div>
${numberInput('credit1x', t.credit1x, p.mdr.credit1x)}
${numberInput('credit2to6', t.credit2to6, p.mdr.credit2to6)}
${numberInput('credit7to12', t.credit7to12, p.mdr.credit7to12)}
${numberInput('pix', t.pix, p.mdr.pix)}
</div><div>
${numberInput('transactionFee', t.transactionFee, p.transactionFee)}
${numberInput('antifraudFee', t.antifraudFee, p.antifraudFee)}
${numberInput('monthlyRate', t.monthlyRate, p.prepayment.monthlyRate)}
${yesNoSelect(page.lang, 'automatic', t.automatic, p.prepayment.automatic)}
</div></div>
<button type="submit">${common(page.lang).save}</button>
</form></section>`;
}
