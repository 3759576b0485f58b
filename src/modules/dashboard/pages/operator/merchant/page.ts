import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConnectionView } from '../../../../../acquirer/connections.js';
import type { DashboardServices } from '../../../services.js';
import { notFound } from '../../../../../domain/errors.js';
import { html } from '../../../../../http/html.js';
import { MerchantIdParams } from '../../../../../http/merchant-id-params.js';
import type { AntifraudSettings } from '../../../../antifraud/settings.js';
import { SCOPES, type ActiveCredentialView, type IssuedCredential, type Merchant } from '../../../../merchants/service.js';
import { pricingToJson, type PricingJson } from '../../../../settlement/pricing.js';
import { dateTime } from '../../../format.js';
import { formSchema } from '../../../forms.js';
import { requireOperator, seeOther, sendPage, type DashboardDeps } from '../../../http.js';
import { bilingual, common } from '../../../i18n.js';
import { csrfField, layout, type PageContext } from '../../../layout.js';
import { acquirerSection } from './acquirer.js';
import { antifraudSection } from './antifraud.js';
import { pricingSection } from './pricing.js';

/** What the page says it just did (`?done=`): the settings forms come back here too. */
const DONE = ['created', 'revoked', 'pricing', 'antifraud', 'acquirer', 'acquirerRemoved'] as const;
type Done = (typeof DONE)[number];
const DoneQuery = Type.Object({ done: Type.Optional(Type.Union(DONE.map((d) => Type.Literal(d)))) });

/** The issue form: the bounds of POST /admin/merchants/{id}/credentials (scopes checkboxes, IPs one per line). */
const ScopeField = Type.Union(SCOPES.map((s) => Type.Literal(s)));
const IssueForm = formSchema({
  scopes: Type.Optional(Type.Union([ScopeField, Type.Array(ScopeField, { maxItems: 3 })])),
  allowedIps: Type.Optional(Type.String({ maxLength: 100 * 50 })),
});
const RevokeParams = Type.Object({ merchantId: MerchantIdParams.properties.merchantId, userName: Type.String({ minLength: 1, maxLength: 30 }) });

/**
 * GET /dashboard/operator/merchants/:merchantId: everything about one merchant, read through the
 * services the /admin GET routes call (an unknown merchantId is their 404), and its credential
 * forms (issue, revoke). The settings forms are pricing.ts, antifraud.ts and acquirer.ts.
 */
export function merchantPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  async function show(reply: FastifyReply, page: PageContext, status: number, merchantId: string, extra: { issued?: IssuedCredential; done?: Done } = {}) {
    const merchant = await ctx.merchants.get(merchantId);
    const [credentials, pricing, antifraud, acquirer] = await Promise.all([
      ctx.merchants.credentials(merchantId),
      ctx.settlement.pricing.get(ctx.database.db, merchantId),
      ctx.antifraud.settings.get(merchantId),
      ctx.acquirerConnections.view(merchantId),
    ]);
    return sendPage(reply, status, render(page, { merchant, credentials, pricing: pricingToJson(pricing), antifraud, acquirer, ...extra }));
  }

  scope.get('/operator/merchants/:merchantId', { schema: { hide: true, params: MerchantIdParams, querystring: DoneQuery } }, async (request, reply) => {
    const page = requireOperator(request, deps);
    const { merchantId } = request.params as { merchantId: string };
    return show(reply, page, 200, merchantId, { done: (request.query as Static<typeof DoneQuery>).done });
  });

  // Answers the page itself (no redirect): the password is shown in this answer only, as the API's 201 does.
  scope.post('/operator/merchants/:merchantId/credentials', { schema: { hide: true, params: MerchantIdParams, body: IssueForm } }, async (request, reply) => {
    const page = requireOperator(request, deps);
    const { merchantId } = request.params as { merchantId: string };
    const form = request.body as Static<typeof IssueForm>;
    const scopes = form.scopes === undefined ? [] : Array.isArray(form.scopes) ? form.scopes : [form.scopes];
    const allowedIps = (form.allowedIps ?? '').split(/[\s,]+/).filter(Boolean);
    // The same service call as POST /admin/merchants/{id}/credentials: it refuses no scope and a bad IP.
    const issued = await ctx.merchants.createCredential(merchantId, { scopes, allowedIps });
    return show(reply, page, 201, merchantId, { issued });
  });

  scope.post('/operator/merchants/:merchantId/credentials/:userName/revoke', { schema: { hide: true, params: RevokeParams } }, async (request, reply) => {
    requireOperator(request, deps);
    const { merchantId, userName } = request.params as Static<typeof RevokeParams>;
    // Only this merchant's credential: a userName of another merchant in this URL is a 404.
    const own = await ctx.merchants.credentials(merchantId);
    if (!own.some((c) => c.userName === userName)) throw notFound('Credential');
    await ctx.merchants.revokeCredential(userName);
    return seeOther(reply, `/dashboard/operator/merchants/${merchantId}?done=revoked`);
  });
}

const merchantText = bilingual(
  {
    facts: 'Dados do lojista',
    name: 'Nome',
    document: 'CPF/CNPJ',
    account: 'Conta',
    legalName: 'Razão social',
    email: 'E-mail',
    created: 'Criado em',
    credentials: 'Credenciais de API',
    issued: 'Credencial emitida. Copie a senha agora: ela não será mostrada de novo.',
    copy: 'Copiar senha',
    copied: 'Copiada',
    userName: 'Usuário (userName)',
    password: 'Senha',
    scopes: 'Escopos',
    allowedIps: 'IPs permitidos',
    anyIp: 'qualquer',
    revoke: 'Revogar',
    revokeConfirm: 'Revogar a credencial {user}? Os tokens emitidos param de funcionar na hora.',
    noCredentials: 'Nenhuma credencial ativa.',
    issue: 'Emitir credencial',
    ipsLabel: 'IPs ou faixas CIDR permitidos (um por linha; vazio = qualquer)',
    issueButton: 'Emitir',
    backToList: 'Todos os lojistas',
    done_created: 'Lojista cadastrado.',
    done_revoked: 'Credencial revogada.',
    done_pricing: 'Preços salvos.',
    done_antifraud: 'Antifraude salvo.',
    done_acquirer: 'Conexão com a adquirente salva.',
    done_acquirerRemoved: 'Conexão própria removida: os pagamentos vão para a adquirente padrão.',
  },
  {
    facts: 'Merchant details',
    name: 'Name',
    document: 'CPF/CNPJ',
    account: 'Account',
    legalName: 'Legal name',
    email: 'Email',
    created: 'Created',
    credentials: 'API credentials',
    issued: 'Credential issued. Copy the password now: it will not be shown again.',
    copy: 'Copy password',
    copied: 'Copied',
    userName: 'User (userName)',
    password: 'Password',
    scopes: 'Scopes',
    allowedIps: 'Allowed IPs',
    anyIp: 'any',
    revoke: 'Revoke',
    revokeConfirm: 'Revoke credential {user}? Tokens issued to it stop working at once.',
    noCredentials: 'No active credential.',
    issue: 'Issue a credential',
    ipsLabel: 'Allowed IPs or CIDR ranges (one per line; empty = any)',
    issueButton: 'Issue',
    backToList: 'All merchants',
    done_created: 'Merchant registered.',
    done_revoked: 'Credential revoked.',
    done_pricing: 'Pricing saved.',
    done_antifraud: 'Anti-fraud settings saved.',
    done_acquirer: 'Acquirer connection saved.',
    done_acquirerRemoved: 'Own connection removed: payments go to the default acquirer.',
  },
);

interface MerchantView {
  merchant: Merchant;
  credentials: ActiveCredentialView[];
  pricing: PricingJson;
  antifraud: AntifraudSettings;
  acquirer: ConnectionView | null;
  /** Just issued: its password is shown this once. */
  issued?: IssuedCredential;
  done?: Done;
}

function credentialsSection(page: PageContext, view: MerchantView) {
  const t = merchantText(page.lang);
  const id = view.merchant.merchantId;
  const issued = view.issued
    ? html`<div class="notice" role="status"><p>${t.issued}</p><dl class="facts">
<dt>${t.userName}</dt><dd><code id="issued-user">${view.issued.userName}</code></dd>
<dt>${t.password}</dt><dd><code id="issued-password">${view.issued.password}</code></dd>
</dl><button type="button" class="secondary" data-copy="${view.issued.password}" data-copied-label="${t.copied}">${t.copy}</button></div>`
    : '';
  const rows = view.credentials.map(
    (c) => html`<tr><td><code>${c.userName}</code></td><td>${c.scopes.join(', ')}</td><td>${c.allowedIps.length ? c.allowedIps.join(', ') : t.anyIp}</td><td>${dateTime(c.createdDate)}</td>
<td><form method="post" action="/dashboard/operator/merchants/${id}/credentials/${c.userName}/revoke" class="inline" data-confirm="${t.revokeConfirm.replace('{user}', c.userName)}">${csrfField(page)}<button type="submit" class="danger" aria-label="${t.revoke} ${c.userName}">${t.revoke}</button></form></td></tr>`,
  );
  return html`<section aria-labelledby="credentials"><h2 id="credentials">${t.credentials}</h2>
${issued}
<div class="table-wrap"><table>
<thead><tr><th scope="col">${t.userName}</th><th scope="col">${t.scopes}</th><th scope="col">${t.allowedIps}</th><th scope="col">${t.created}</th><th scope="col"><span class="muted">${t.revoke}</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${t.noCredentials}</td></tr>`}</tbody>
</table></div>
<form method="post" action="/dashboard/operator/merchants/${id}/credentials" class="card narrow">
${csrfField(page)}
<h3>${t.issue}</h3>
<fieldset><legend>${t.scopes}</legend>
${(['payments', 'recurrence', 'integration'] as const).map((s) => html`<label for="scope-${s}"><input type="checkbox" id="scope-${s}" name="scopes" value="${s}" checked> ${s}</label>`)}
</fieldset>
<label for="allowedIps">${t.ipsLabel}</label>
<textarea id="allowedIps" name="allowedIps" rows="3"></textarea>
<button type="submit">${t.issueButton}</button>
</form></section>`;
}

function render(page: PageContext, view: MerchantView): string {
  const t = merchantText(page.lang);
  const m = view.merchant;
  return layout(
    page,
    m.name,
    html`<p><a href="/dashboard/operator/merchants">${t.backToList}</a></p>
${view.done ? html`<p class="notice" role="status">${t[`done_${view.done}`]}</p>` : ''}
<section class="card" aria-labelledby="facts"><h2 id="facts">${t.facts}</h2><dl class="facts">
<dt>merchantId</dt><dd><code>${m.merchantId}</code></dd>
<dt>${t.document}</dt><dd>${m.documentNumber}</dd>
<dt>${t.account}</dt><dd>${m.accountNumber}</dd>
<dt>${t.legalName}</dt><dd>${m.legalName ?? '-'}</dd>
<dt>${t.email}</dt><dd>${m.email ?? '-'}</dd>
<dt>${t.created}</dt><dd>${dateTime(m.createdDate)}</dd>
</dl></section>
${credentialsSection(page, view)}
${pricingSection(page, m.merchantId, view.pricing)}
${antifraudSection(page, m.merchantId, view.antifraud)}
${acquirerSection(page, m.merchantId, view.acquirer)}
<p><a href="/dashboard/operator/merchants">${common(page.lang).back}</a></p>`,
  );
}
