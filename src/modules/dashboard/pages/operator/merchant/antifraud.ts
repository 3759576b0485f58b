import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../../services.js';
import { html, type SafeHtml } from '../../../../../http/html.js';
import { MerchantIdParams } from '../../../../../http/merchant-id-params.js';
import { AntifraudSettingsPatch as PatchSchema } from '../../../../antifraud/schemas.js';
import type { AntifraudSettings, AntifraudSettingsPatch } from '../../../../antifraud/settings.js';
import { brl } from '../../../format.js';
import { apiBody, apiSchemaCheck, formSchema, requireValidForm, wholeNumber, yesNo } from '../../../forms.js';
import { requireOperator, type DashboardDeps } from '../../../http.js';
import { bilingual, common } from '../../../i18n.js';
import { csrfField, type PageContext } from '../../../layout.js';
import { backToMerchant, merchantOf, numberInput, yesNoSelect } from './settings-form.js';

/** The body of PUT /admin/merchants/{id}/antifraud, field by field; an empty field keeps the setting as it is. */
const AntifraudForm = formSchema({
  windowMinutes: wholeNumber('velocity.windowMinutes'),
  maxPerCard: wholeNumber('velocity.maxPerCard'),
  maxPerDocument: wholeNumber('velocity.maxPerDocument'),
  maxPerIp: wholeNumber('velocity.maxPerIp'),
  amountLimit: wholeNumber('amountLimit'),
  reviewScore: wholeNumber('reviewScore'),
  rejectScore: wholeNumber('rejectScore'),
  checkIpCountry: yesNo('checkIpCountry'),
});
const checkAntifraud = apiSchemaCheck(PatchSchema);

/** POST /dashboard/operator/merchants/:merchantId/antifraud: what PUT /admin/merchants/{id}/antifraud does, nothing written on a 400. */
export function antifraudForm(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.post('/operator/merchants/:merchantId/antifraud', { schema: { hide: true, params: MerchantIdParams, body: AntifraudForm }, attachValidation: true }, async (request, reply) => {
    requireOperator(request, deps);
    requireValidForm(request, AntifraudForm);
    const patch = apiBody(AntifraudForm, request.body as Static<typeof AntifraudForm>);
    checkAntifraud(patch);
    const merchantId = await merchantOf(ctx, request);
    await ctx.antifraud.settings.put(merchantId, patch as AntifraudSettingsPatch);
    return backToMerchant(reply, merchantId, 'antifraud');
  });
}

const words = bilingual(
  {
    antifraud: 'Antifraude',
    windowMinutes: 'Janela de velocidade (minutos)',
    maxPerCard: 'Máximo por cartão na janela',
    maxPerDocument: 'Máximo por documento na janela',
    maxPerIp: 'Máximo por IP na janela',
    amountLimit: 'Limite de valor (centavos)',
    reviewScore: 'Pontuação para revisão (1 a 100)',
    rejectScore: 'Pontuação para recusa (1 a 100)',
    checkIpCountry: 'Conferir o país do IP',
  },
  {
    antifraud: 'Anti-fraud',
    windowMinutes: 'Velocity window (minutes)',
    maxPerCard: 'Maximum per card in the window',
    maxPerDocument: 'Maximum per document in the window',
    maxPerIp: 'Maximum per IP in the window',
    amountLimit: 'Amount limit (cents)',
    reviewScore: 'Score for review (1 to 100)',
    rejectScore: 'Score for rejection (1 to 100)',
    checkIpCountry: "Check the IP's country",
  },
);

/** The merchant page's anti-fraud section: the form, on the settings in force. */
export function antifraudSection(page: PageContext, merchantId: string, a: AntifraudSettings): SafeHtml {
  const t = words(page.lang);
  return html`<section aria-labelledby="antifraud"><h2 id="antifraud">${t.antifraud}</h2>
<form method="post" action="/dashboard/operator/merchants/${merchantId}/antifraud" class="card">
${csrfField(page)}
<div class="grid two"><div>
${numberInput('windowMinutes', t.windowMinutes, a.velocity.windowMinutes)}
${numberInput('maxPerCard', t.maxPerCard, a.velocity.maxPerCard)}
${numberInput('maxPerDocument', t.maxPerDocument, a.velocity.maxPerDocument)}
${numberInput('maxPerIp', t.maxPerIp, a.velocity.maxPerIp)}
</div><div>
${numberInput('amountLimit', t.amountLimit, a.amountLimit, html`aria-describedby="amountLimitShown"`)}
<p id="amountLimitShown" class="muted">${brl(BigInt(a.amountLimit))}</p>
${numberInput('reviewScore', t.reviewScore, a.reviewScore)}
${numberInput('rejectScore', t.rejectScore, a.rejectScore)}
${yesNoSelect(page.lang, 'checkIpCountry', t.checkIpCountry, a.checkIpCountry)}
</div></div>
<button type="submit">${common(page.lang).save}</button>
</form></section>`;
}
