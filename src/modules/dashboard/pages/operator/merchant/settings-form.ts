import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../../../services.js';
import { html, type SafeHtml } from '../../../../../http/html.js';
import { seeOther } from '../../../http.js';
import { common, type Lang } from '../../../i18n.js';

/**
 * What the merchant page's settings forms (pricing, anti-fraud, acquirer) share: their inputs,
 * the merchant they are for, and the way back to its page.
 */

/** A text input of a number, with the value the setting has now. */
export function numberInput(id: string, label: string, value: string | number, extra: SafeHtml | string = ''): SafeHtml {
  return html`<label for="${id}">${label}</label><input id="${id}" name="${id}" value="${value}" inputmode="decimal" ${extra}>`;
}

/** A yes/no select on the setting's current value ('true' / 'false', as yesNo fields read them). */
export function yesNoSelect(lang: Lang, id: string, label: string, value: boolean): SafeHtml {
  const t = common(lang);
  return html`<label for="${id}">${label}</label><select id="${id}" name="${id}"><option value="true"${value ? html` selected` : ''}>${t.yes}</option><option value="false"${value ? '' : html` selected`}>${t.no}</option></select>`;
}

/** The merchant of the form's URL; an unknown one is the merchants service's 404, as the /admin routes answer. */
export async function merchantOf(ctx: DashboardServices, request: FastifyRequest): Promise<string> {
  const { merchantId } = request.params as { merchantId: string };
  await ctx.merchants.get(merchantId);
  return merchantId;
}

/** Back to the merchant's page, which says what was saved. */
export function backToMerchant(reply: FastifyReply, merchantId: string, done: string): FastifyReply {
  return seeOther(reply, `/dashboard/operator/merchants/${merchantId}?done=${done}`);
}
