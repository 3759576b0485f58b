import { html } from '../../../http/html.js';
import type { PaymentLinkView } from '../../paymentlinks/schemas.js';
import { dateTime, reais } from '../format.js';
import { bilingual, common } from '../i18n.js';
import { csrfField, layout, type PageContext } from '../layout.js';
import { badge, flash, listWords, pager, type Tone } from './merchant-common.js';

export const linkWords = bilingual(
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

/** The create form's fields as typed (re-shown as typed when refused). */
export interface LinkForm {
  description?: string;
  value?: string;
  qttyInstallments?: string;
  qttyInstallmentsCustom?: string;
  qttyInstallmentsIntFree?: string;
  installmentsFee?: string;
  expirationDate?: string;
  message?: string;
}

const TONE: Record<number, Tone> = { 1: 'wait', 2: 'good', 3: 'bad', 9: 'bad' };

export interface LinksView {
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

export function linksPage(page: PageContext, view: LinksView): string {
  const t = linkWords(page.lang);
  const w = listWords(page.lang);
  const f = view.form;
  return layout(
    page,
    t.title,
    html`${flash(view.notice, view.errors)}
${view.items.length
  ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.description}</th><th scope="col" class="num">${w.amount}</th><th scope="col">${w.status}</th><th scope="col">${t.expires}</th><th scope="col">${t.link}</th><th scope="col">${w.actions}</th></tr></thead>
<tbody>${view.items.map((l) => html`<tr><td>${l.description}</td><td class="num">${reais(l.value)}</td><td>${badge(l.statusFormat, TONE[l.status] ?? '')}</td><td>${dateTime(l.expirationDate)}</td>
<td><a href="${l.link}">${l.link.replace(/^https?:\/\//, '')}</a> <button type="button" class="secondary" data-copy="${l.link}" data-copied-label="${w.copied}" aria-label="${t.copyLink}: ${l.description}">${w.copy}</button></td>
<td>${l.status === 1 ? html`<form method="post" action="/dashboard/links/${l.id}/deactivate" class="inline" data-confirm="${t.confirm}">${csrfField(page)}<button type="submit" class="danger" aria-label="${t.deactivate}: ${l.description}">${t.deactivate}</button></form>` : ''}</td></tr>`)}</tbody></table></div>`
  : html`<p>${common(page.lang).noRows}</p>`}
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
