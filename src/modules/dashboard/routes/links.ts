import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { ApiError } from '../../../http/errors.js';
import type { CreatePaymentLinkBody } from '../../paymentlinks/schemas.js';
import { pageContext, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { linksPage, linkWords, type LinkForm } from '../pages/links.js';
import { decodeCursor, encodeCursor, requireScope, withAfter } from '../pages/merchant-common.js';

const PAGE_SIZE = 25;
const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 400 })),
  created: Type.Optional(Type.String({ pattern: GUID })),
  done: Type.Optional(Type.Literal('deactivated')),
});
const text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const CreateForm = Type.Object({
  _csrf: text(200),
  description: text(255),
  value: text(30),
  qttyInstallments: text(10),
  qttyInstallmentsCustom: text(100),
  qttyInstallmentsIntFree: text(10),
  installmentsFee: text(30),
  expirationDate: text(40),
  message: text(500),
});
const IdParams = Type.Object({ id: Type.String({ pattern: GUID }) });

/** "1.234,56" or "1234.56" -> "1234.56": the API's decimal as text (never through a float). */
function decimalText(value: string): string {
  const v = value.trim().replace(/\s|R\$/g, '');
  return v.includes(',') ? v.replace(/\./g, '').replace(',', '.') : v;
}

/**
 * The form as the API's create-link body, or the problems a person can fix; the service then
 * applies the same rules (checkLinkTerms) as the API route.
 */
function toBody(form: LinkForm, t: ReturnType<typeof linkWords>): { body?: CreatePaymentLinkBody; errors: string[] } {
  const errors: string[] = [];
  const int = (value: string | undefined, label: string): number | undefined => {
    if (!value?.trim()) return undefined;
    if (!/^\d{1,3}$/.test(value.trim())) {
      errors.push(t.badNumber.replace('{field}', label));
      return undefined;
    }
    return Number(value);
  };
  const description = form.description?.trim() ?? '';
  if (!description) errors.push(t.needDescription);
  if (!form.value?.trim()) errors.push(t.needValue);
  const qttyInstallments = int(form.qttyInstallments, t.max);
  const qttyInstallmentsIntFree = int(form.qttyInstallmentsIntFree, t.intFree);
  let qttyInstallmentsCustom: number[] | undefined;
  if (form.qttyInstallmentsCustom?.trim()) {
    const parts = form.qttyInstallmentsCustom.split(',').map((p) => p.trim());
    if (parts.every((p) => /^\d{1,2}$/.test(p))) qttyInstallmentsCustom = parts.map(Number);
    else errors.push(t.badList);
  }
  // datetime-local has no zone: the merchant types Brasília time (UTC-3, no daylight saving since 2019).
  const local = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?$/.exec(form.expirationDate?.trim() ?? '');
  if (!local) errors.push(t.badDate);
  if (errors.length) return { errors };
  const body: CreatePaymentLinkBody = { description, value: decimalText(form.value!), expirationDate: `${local![1]}${local![2] ?? ':00'}-03:00` };
  // Neither given: one installment, the simplest link a form can ask for.
  if (qttyInstallments !== undefined || qttyInstallmentsCustom === undefined) body.qttyInstallments = qttyInstallments ?? 1;
  if (qttyInstallmentsCustom !== undefined) body.qttyInstallmentsCustom = qttyInstallmentsCustom;
  if (qttyInstallmentsIntFree !== undefined) body.qttyInstallmentsIntFree = qttyInstallmentsIntFree;
  if (form.installmentsFee?.trim()) body.installmentsFee = decimalText(form.installmentsFee);
  if (form.message?.trim()) body.message = form.message.trim();
  return { body, errors };
}

/**
 * GET /dashboard/links (the merchant's links and the create form), POST /dashboard/links
 * (PaymentLinkService.create, as the API's POST /v1/paymentlink) and POST
 * /dashboard/links/:id/deactivate (PaymentLinkService.deactivate, as the API's deactivate).
 */
export function linkRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  async function show(request: FastifyRequest, reply: FastifyReply, status: number, extra: { form?: LinkForm; errors?: string[]; notice?: string; after?: string }) {
    const principal = requireMerchant(request);
    const after = decodeCursor<{ at: string; id: string }>(extra.after, { at: 'string', id: 'string' });
    const result = await ctx.paymentLinks.list(principal.merchantId, PAGE_SIZE, after);
    const nextHref = result.next ? withAfter('/dashboard/links', {}, encodeCursor(result.next)) : undefined;
    const page = pageContext(request, deps.assets, deps.sandbox);
    return sendPage(reply, status, linksPage(page, { items: result.items, nextHref, onFirst: !after, form: extra.form ?? {}, errors: extra.errors, notice: extra.notice }));
  }

  scope.get('/links', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const query = request.query as { after?: string; created?: string; done?: string };
    const t = linkWords(pageContext(request, deps.assets, deps.sandbox).lang);
    let notice: string | undefined;
    if (query.created) notice = t.created.replace('{link}', (await ctx.paymentLinks.information(principal.merchantId, query.created)).link);
    else if (query.done === 'deactivated') notice = t.deactivated;
    return show(request, reply, 200, { notice, after: query.after });
  });

  scope.post('/links', { schema: { hide: true, body: CreateForm } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const form = request.body as LinkForm;
    const t = linkWords(pageContext(request, deps.assets, deps.sandbox).lang);
    const { body, errors } = toBody(form, t);
    if (!body) return show(request, reply, 400, { form, errors });
    try {
      const link = await ctx.paymentLinks.create(principal, body);
      return seeOther(reply, `/dashboard/links?created=${link.id}`);
    } catch (error) {
      // The API's own rules refused it (value, installments, expiration...): the form again, as typed.
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
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
      if (!(error instanceof ApiError) || error.statusCode !== 409) throw error;
      return show(request, reply, 409, { errors: error.errors.map((e) => e.description) });
    }
    return seeOther(reply, '/dashboard/links?done=deactivated');
  });
}
