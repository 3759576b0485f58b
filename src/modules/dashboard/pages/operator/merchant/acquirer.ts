import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ConnectionInput, ConnectionView } from '../../../../../acquirer/connections.js';
import { AcquirerConnectionBody } from '../../../../../acquirer/schemas.js';
import type { DashboardServices } from '../../../services.js';
import { notFound } from '../../../../../domain/errors.js';
import { html, type SafeHtml } from '../../../../../http/html.js';
import { MerchantIdParams } from '../../../../../http/merchant-id-params.js';
import { dateTime } from '../../../format.js';
import { apiSchemaCheck, formSchema } from '../../../forms.js';
import { requireOperator, type DashboardDeps } from '../../../http.js';
import { bilingual, common } from '../../../i18n.js';
import { csrfField, type PageContext } from '../../../layout.js';
import { backToMerchant, merchantOf } from './settings-form.js';

const text = Type.Optional(Type.String({ maxLength: 500 }));
const AcquirerForm = formSchema({ provider: text, merchantId: text, merchantKey: text, apiUrl: text, queryUrl: text, environment: text });
const checkConnection = apiSchemaCheck(AcquirerConnectionBody);

/**
 * The merchant's own acquirer connection: POST .../acquirer does what PUT
 * /admin/merchants/{id}/acquirer does (the MerchantKey goes to the service and is never shown
 * again), POST .../acquirer/remove what its DELETE does.
 */
export function acquirerForm(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.post('/operator/merchants/:merchantId/acquirer', { schema: { hide: true, params: MerchantIdParams, body: AcquirerForm } }, async (request, reply) => {
    requireOperator(request, deps);
    const f = request.body as Static<typeof AcquirerForm>;
    // An empty URL or environment is left to the service's defaults; an empty merchantId is the API's own 400.
    const given = {
      provider: f.provider || 'cielo',
      merchantId: f.merchantId?.trim() ?? '',
      merchantKey: f.merchantKey ?? '',
      apiUrl: f.apiUrl?.trim() || undefined,
      queryUrl: f.queryUrl?.trim() || undefined,
      environment: f.environment || undefined,
    };
    const body = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
    checkConnection(body);
    const merchantId = await merchantOf(ctx, request);
    await ctx.acquirerConnections.put(merchantId, body as unknown as ConnectionInput);
    return backToMerchant(reply, merchantId, 'acquirer');
  });

  scope.post('/operator/merchants/:merchantId/acquirer/remove', { schema: { hide: true, params: MerchantIdParams } }, async (request, reply) => {
    requireOperator(request, deps);
    const merchantId = await merchantOf(ctx, request);
    if (!(await ctx.acquirerConnections.remove(merchantId))) throw notFound('Acquirer connection');
    return backToMerchant(reply, merchantId, 'acquirerRemoved');
  });
}

const words = bilingual(
  {
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

/** The merchant page's acquirer section: the connection in force (its key's last 4 only) and the form to set one. */
export function acquirerSection(page: PageContext, merchantId: string, c: ConnectionView | null): SafeHtml {
  const t = words(page.lang);
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
<button type="submit">${common(page.lang).save}</button>
</form></section>`;
}
