import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AcquirerConnectionBody } from '../../../acquirer/schemas.js';
import type { ConnectionInput } from '../../../acquirer/connections.js';
import { notFound } from '../../../http/errors.js';
import { MerchantIdParams } from '../../../http/params.js';
import { AntifraudSettingsPatch } from '../../antifraud/schemas.js';
import type { AntifraudSettingsPatch as AntifraudPatch } from '../../antifraud/settings.js';
import type { PricingPatch as PricingPatchType } from '../../settlement/pricing.js';
import { PricingPatch } from '../../settlement/schemas.js';
import { seeOther, type DashboardDeps } from '../http.js';
import { FieldErrors, bodyCheck, compact, operatorPage } from './operator-forms.js';

/** Every form field is optional text: an empty one leaves the setting as it is (the APIs' partial PUT). */
const text = Type.Optional(Type.String({ maxLength: 500 }));
const PricingForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  credit1x: text, credit2to6: text, credit7to12: text, pix: text, transactionFee: text, antifraudFee: text, monthlyRate: text, automatic: text,
});
const AntifraudForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  windowMinutes: text, maxPerCard: text, maxPerDocument: text, maxPerIp: text, amountLimit: text, reviewScore: text, rejectScore: text, checkIpCountry: text,
});
const AcquirerForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  provider: text, merchantId: text, merchantKey: text, apiUrl: text, queryUrl: text, environment: text,
});

// The /admin routes' own body schemas, checked on the patch the form makes, before the service's rules.
const checkPricing = bodyCheck(PricingPatch);
const checkAntifraud = bodyCheck(AntifraudSettingsPatch);
const checkAcquirer = bodyCheck(AcquirerConnectionBody);

type Fields = Record<string, string | undefined>;
const params = { hide: true, params: MerchantIdParams };

/**
 * The merchant page's settings forms. Each makes the body of its /admin PUT from the fields,
 * checks it with that route's schema, then calls what the route calls (the merchant must exist,
 * then the owning service): the same rules, the same messages, nothing written on a 400.
 */
export function operatorMerchantSettingsRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  const merchantOf = async (request: { params: unknown }) => {
    const { merchantId } = request.params as { merchantId: string };
    await ctx.merchants.get(merchantId);
    return merchantId;
  };
  const done = (merchantId: string, what: string) => `/dashboard/operator/merchants/${merchantId}?done=${what}`;

  // PUT /admin/merchants/{id}/pricing
  scope.post('/operator/merchants/:merchantId/pricing', { schema: { ...params, body: PricingForm } }, async (request, reply) => {
    operatorPage(request, deps);
    const f = request.body as Fields;
    const e = new FieldErrors();
    const patch = compact({
      mdr: { credit1x: e.decimal(f.credit1x, 'mdr.credit1x'), credit2to6: e.decimal(f.credit2to6, 'mdr.credit2to6'), credit7to12: e.decimal(f.credit7to12, 'mdr.credit7to12'), pix: e.decimal(f.pix, 'mdr.pix') },
      transactionFee: e.decimal(f.transactionFee, 'transactionFee'),
      antifraudFee: e.decimal(f.antifraudFee, 'antifraudFee'),
      prepayment: { monthlyRate: e.decimal(f.monthlyRate, 'prepayment.monthlyRate'), automatic: e.flag(f.automatic, 'prepayment.automatic') },
    });
    e.check();
    checkPricing(patch);
    const merchantId = await merchantOf(request);
    await ctx.settlement.pricing.put(merchantId, patch as PricingPatchType);
    return seeOther(reply, done(merchantId, 'pricing'));
  });

  // PUT /admin/merchants/{id}/antifraud
  scope.post('/operator/merchants/:merchantId/antifraud', { schema: { ...params, body: AntifraudForm } }, async (request, reply) => {
    operatorPage(request, deps);
    const f = request.body as Fields;
    const e = new FieldErrors();
    const patch = compact({
      velocity: {
        windowMinutes: e.integer(f.windowMinutes, 'velocity.windowMinutes'),
        maxPerCard: e.integer(f.maxPerCard, 'velocity.maxPerCard'),
        maxPerDocument: e.integer(f.maxPerDocument, 'velocity.maxPerDocument'),
        maxPerIp: e.integer(f.maxPerIp, 'velocity.maxPerIp'),
      },
      amountLimit: e.integer(f.amountLimit, 'amountLimit'),
      reviewScore: e.integer(f.reviewScore, 'reviewScore'),
      rejectScore: e.integer(f.rejectScore, 'rejectScore'),
      checkIpCountry: e.flag(f.checkIpCountry, 'checkIpCountry'),
    });
    e.check();
    checkAntifraud(patch);
    const merchantId = await merchantOf(request);
    await ctx.antifraud.settings.put(merchantId, patch as AntifraudPatch);
    return seeOther(reply, done(merchantId, 'antifraud'));
  });

  // PUT /admin/merchants/{id}/acquirer: the MerchantKey goes to the service and is never shown again.
  scope.post('/operator/merchants/:merchantId/acquirer', { schema: { ...params, body: AcquirerForm } }, async (request, reply) => {
    operatorPage(request, deps);
    const f = request.body as Fields;
    const body = compact({
      provider: f.provider || 'cielo',
      merchantId: f.merchantId?.trim() ?? '',
      merchantKey: f.merchantKey ?? '',
      apiUrl: f.apiUrl?.trim() || undefined,
      queryUrl: f.queryUrl?.trim() || undefined,
      environment: f.environment || undefined,
    });
    checkAcquirer(body);
    const merchantId = await merchantOf(request);
    await ctx.acquirerConnections.put(merchantId, body as unknown as ConnectionInput);
    return seeOther(reply, done(merchantId, 'acquirer'));
  });

  // DELETE /admin/merchants/{id}/acquirer
  scope.post('/operator/merchants/:merchantId/acquirer/remove', { schema: params }, async (request, reply) => {
    operatorPage(request, deps);
    const merchantId = await merchantOf(request);
    if (!(await ctx.acquirerConnections.remove(merchantId))) throw notFound('Acquirer connection');
    return seeOther(reply, done(merchantId, 'acquirerRemoved'));
  });
}
