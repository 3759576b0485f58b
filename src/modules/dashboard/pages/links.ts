import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../services.js';
import { DomainError } from '../../../domain/errors.js';
import { html } from '../../../http/html.js';
import type { CreatePaymentLinkBody, PaymentLinkView } from '../../paymentlinks/schemas.js';
import { dateTime, reais } from '../format.js';
import { formProblems, formSchema, worded } from '../forms.js';
import { pageOf, requireMerchant, requireScope, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { bilingual, common, langOf, type Lang } from '../i18n.js';
import { csrfField, layout, type PageContext } from '../layout.js';
import { badge, decodeCursor, encodeCursor, flash, pager, withAfter, type Tone } from '../lists.js';

const PAGE_SIZE = 25;
const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 400 })),
  created: Type.Optional(Type.String({ pattern: GUID })),
  done: Type.Optional(Type.Literal('deactivated')),
});
const IdParams = Type.Object({ id: Type.String({ pattern: GUID }) });

/** datetime-local has no zone: the merchant types Brasília time (UTC-3, no daylight saving since 2019). */
const LOCAL_TIME = /^\s*(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?\s*$/;
const upTo3Digits = (label: 'max' | 'intFree') =>
  worded(Type.Optional(Type.String({ maxLength: 10, pattern: '^\\s*(\\d{1,3})?\\s*$' })), (lang: Lang) => linkWords(lang).badNumber.replace('{field}', linkWords(lang)[label]));
// Checked in the handler (attachValidation): a refused form comes back as typed, with the reasons.
const CreateForm = formSchema({
  description: worded(Type.String({ maxLength: 255, pattern: '\\S' }), (lang) => linkWords(lang).needDescription),
  value: worded(Type.String({ maxLength: 30, pattern: '\\S' }), (lang) => linkWords(lang).needValue),
  qttyInstallments: upTo3Digits('max'),
  qttyInstallmentsIntFree: upTo3Digits('intFree'),
  qttyInstallmentsCustom: worded(Type.Optional(Type.String({ maxLength: 100, pattern: '^\\s*(\\d{1,2}\\s*(,\\s*\\d{1,2}\\s*)*)?$' })), (lang) => linkWords(lang).badList),
  installmentsFee: Type.Optional(Type.String({ maxLength: 30 })),
  expirationDate: worded(Type.String({ maxLength: 40, pattern: LOCAL_TIME.source }), (lang) => linkWords(lang).badDate),
  message: Type.Optional(Type.String({ maxLength: 500 })),
});
/** The create form's fields as typed (shown again as typed when refused). */
type LinkForm = Partial<Omit<Static<typeof CreateForm>, '_csrf'>>;

/** "1.234,56" or "1234.56" -> "1234.56": the API's decimal as text (never through a float). */
function decimalText(value: string): string {
  const v = value.trim().replace(/\s|R\$/g, '');
  return v.includes(',') ? v.replace(/\./g, '').replace(',', '.') : v;
}

/** An accepted form as the API's create-link body; the service then applies the API route's rules (checkLinkTerms). */
function toBody(form: LinkForm): CreatePaymentLinkBody {
  const local = LOCAL_TIME.exec(form.expirationDate ?? '')!;
  const body: CreatePaymentLinkBody = { description: form.description!.trim(), value: decimalText(form.value!), expirationDate: `${local[1]}${local[2] ?? ':00'}-03:00` };
  const qttyInstallments = form.qttyInstallments?.trim() ? Number(form.qttyInstallments) : undefined;
  const custom = form.qttyInstallmentsCustom?.trim() ? form.qttyInstallmentsCustom.split(',').map(Number) : undefined;
  // Neither given: one installment, the simplest link a form can ask for.
  if (qttyInstallments !== undefined || custom === undefined) body.qttyInstallments = qttyInstallments ?? 1;
  if (custom !== undefined) body.qttyInstallmentsCustom = custom;
  if (form.qttyInstallmentsIntFree?.trim()) body.qttyInstallmentsIntFree = Number(form.qttyInstallmentsIntFree);
  if (form.installmentsFee?.trim()) body.installmentsFee = decimalText(form.installmentsFee);
  if (form.message?.trim()) body.message = form.message.trim();
  return body;
}

/**
 * GET /dashboard/links (the merchant's links and the create form), POST /dashboard/links
 * (PaymentLinkService.create, as the API's POST /v1/paymentlink) and POST
 * /dashboard/links/:id/deactivate (PaymentLinkService.deactivate, as the API's deactivate).
 */
export function linksPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  async function show(request: FastifyRequest, reply: FastifyReply, status: number, extra: { form?: LinkForm; errors?: string[]; notice?: string; after?: string }) {
    const principal = requireMerchant(request);
    const after = decodeCursor<{ at: string; id: string }>(extra.after, { at: 'string', id: 'string' });
    const result = await ctx.paymentLinks.list(principal.merchantId, PAGE_SIZE, after);
    const nextHref = result.next ? withAfter('/dashboard/links', {}, encodeCursor(result.next)) : undefined;
    return sendPage(reply, status, render(pageOf(request, deps), { items: result.items, nextHref, onFirst: !after, form: extra.form ?? {}, errors: extra.errors, notice: extra.notice }));
  }

  scope.get('/links', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const query = request.query as Static<typeof ListQuery>;
    const t = linkWords(langOf(request));
    let notice: string | undefined;
    if (query.created) notice = t.created.replace('{link}', (await ctx.paymentLinks.information(principal.merchantId, query.created)).link);
    else if (query.done === 'deactivated') notice = t.deactivated;
    return show(request, reply, 200, { notice, after: query.after });
  });

  scope.post('/links', { schema: { hide: true, body: CreateForm }, attachValidation: true }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const form = request.body as LinkForm;
    const problems = formProblems(request, CreateForm);
    if (problems.length > 0) return show(request, reply, 400, { form, errors: problems.map((p) => p.description) });
    try {
      const link = await ctx.paymentLinks.create(principal, toBody(form));
      return seeOther(reply, `/dashboard/links?created=${link.id}`);
    } catch (error) {
      // The API's own rules refused it (value, installments, expiration...): the form again, as typed.
      if (!(error instanceof DomainError) || error.kind !== 'invalid') throw error;
      return show(request, reply, 400, { form, errors: error.errors.map((e) => e.description) });
    }
  });

  scope.post('/links/:id/deactivate', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    try {
      await ctx.paymentLinks.deactivate(principal.merchantId, (request.params as { id: string }).id);
    } catch (error) {
      // Already paid, expired or being paid: said on the page, the list as it is now.
      if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
      return show(request, reply, 409, { errors: error.errors.map((e) => e.description) });
    }
    return seeOther(reply, '/dashboard/links?done=deactivated');
  });
}

const linkWords = bilingual(
  {
    title: 'Links de pagamento',
    create: 'Criar link',
    description: 'Descrição',
    value: 'Valor (R$)',
    valueHint: 'Ex.: 150,00',
    max: 'Parcelas: até (1 a 12)',
    custom: 'Ou parcelas exatas, separadas por vírgula (ex.: 1,3,6)',
    intFree: 'Parcelas sem juros até (opcional)',
    fee: 'Juros ao mês em % (opcional, ex.: 1,99)',
    expiration: 'Expira em (horário de Brasília)',
    message: 'Mensagem para o pagador (opcional)',
    link: 'Link',
    copyLink: 'Copiar o link',
    expires: 'Expira em',
    deactivate: 'Desativar',
    confirm: 'Desativar este link? O pagador não poderá mais pagar por ele.',
    created: 'Link criado: {link}',
    deactivated: 'Link desativado.',
    caption: 'Seus links de pagamento, dos mais recentes',
    badNumber: '{field} deve ser um número inteiro.',
    badList: 'As parcelas exatas devem ser números separados por vírgula.',
    badDate: 'Informe a data e a hora de expiração.',
    needDescription: 'Informe a descrição.',
    needValue: 'Informe o valor.',
  },
  {
    title: 'Payment links',
    create: 'Create a link',
    description: 'Description',
    value: 'Amount (R$)',
    valueHint: 'E.g. 150,00',
    max: 'Installments: up to (1 to 12)',
    custom: 'Or exact installment counts, comma separated (e.g. 1,3,6)',
    intFree: 'Interest-free up to (optional)',
    fee: 'Interest a month in % (optional, e.g. 1,99)',
    expiration: 'Expires (Brasília time)',
    message: 'Message for the payer (optional)',
    link: 'Link',
    copyLink: 'Copy the link',
    expires: 'Expires',
    deactivate: 'Deactivate',
    confirm: 'Deactivate this link? The payer will no longer be able to pay through it.',
    created: 'Link created: {link}',
    deactivated: 'Link deactivated.',
    caption: 'Your payment links, newest first',
    badNumber: '{field} must be a whole number.',
    badList: 'The exact installment counts must be numbers separated by commas.',
    badDate: 'Enter the expiration date and time.',
    needDescription: 'Enter the description.',
    needValue: 'Enter the amount.',
  },
);

const TONE: Record<number, Tone> = { 1: 'wait', 2: 'good', 3: 'bad', 9: 'bad' };

interface LinksView {
  items: PaymentLinkView[];
  nextHref?: string;
  onFirst: boolean;
  form: LinkForm;
  notice?: string;
  errors?: string[];
}

function field(id: keyof LinkForm, label: string, form: LinkForm, attrs: { type?: string; required?: boolean; hint?: string; inputmode?: string } = {}) {
  return html`<label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="${attrs.type ?? 'text'}" value="${form[id] ?? ''}"${attrs.required ? html` required` : ''}${attrs.inputmode ? html` inputmode="${attrs.inputmode}"` : ''}${attrs.hint ? html` placeholder="${attrs.hint}"` : ''}>`;
}

function render(page: PageContext, view: LinksView): string {
  const t = linkWords(page.lang);
  const c = common(page.lang);
  const f = view.form;
  return layout(
    page,
    t.title,
    html`${flash(view.notice, view.errors)}
${view.items.length
  ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.description}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${c.status}</th><th scope="col">${t.expires}</th><th scope="col">${t.link}</th><th scope="col">${c.actions}</th></tr></thead>
<tbody>${view.items.map((l) => html`<tr><td>${l.description}</td><td class="num">${reais(l.value)}</td><td>${badge(l.statusFormat, TONE[l.status] ?? '')}</td><td>${dateTime(l.expirationDate)}</td>
<td><a href="${l.link}">${l.link.replace(/^https?:\/\//, '')}</a> <button type="button" class="secondary" data-copy="${l.link}" data-copied-label="${c.copied}" aria-label="${t.copyLink}: ${l.description}">${c.copy}</button></td>
<td>${l.status === 1 ? html`<form method="post" action="/dashboard/links/${l.id}/deactivate" class="inline" data-confirm="${t.confirm}">${csrfField(page)}<button type="submit" class="danger" aria-label="${t.deactivate}: ${l.description}">${t.deactivate}</button></form>` : ''}</td></tr>`)}</tbody></table></div>`
  : html`<p>${c.noRows}</p>`}
${pager(page.lang, '/dashboard/links', view.nextHref, view.onFirst)}
<h2 id="create">${t.create}</h2>
<form method="post" action="/dashboard/links" class="card">
${csrfField(page)}
${field('description', t.description, f, { required: true })}
${field('value', t.value, f, { required: true, hint: t.valueHint, inputmode: 'decimal' })}
${field('qttyInstallments', t.max, f, { type: 'number', inputmode: 'numeric' })}
${field('qttyInstallmentsCustom', t.custom, f)}
${field('qttyInstallmentsIntFree', t.intFree, f, { type: 'number', inputmode: 'numeric' })}
${field('installmentsFee', t.fee, f, { inputmode: 'decimal' })}
${field('expirationDate', t.expiration, f, { type: 'datetime-local', required: true })}
<label for="message">${t.message}</label>
<textarea id="message" name="message" rows="3" maxlength="500">${f.message ?? ''}</textarea>
<button type="submit">${t.create}</button>
</form>`,
  );
}
