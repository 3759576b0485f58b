import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../http/errors.js';
import { MerchantIdParams } from '../../../http/params.js';
import { SCOPES, type IssuedCredential, type Scope } from '../../merchants/service.js';
import { pricingToJson } from '../../settlement/pricing.js';
import { seeOther, sendPage, type DashboardDeps } from '../http.js';
import type { PageContext } from '../layout.js';
import { DONE, merchantPage, type Done } from '../pages/operator-merchant.js';
import { operatorPage } from './operator-forms.js';

const DoneQuery = Type.Object({ done: Type.Optional(Type.Union(DONE.map((d) => Type.Literal(d)))) });

/** The issue form: the bounds of POST /admin/merchants/{id}/credentials (scopes checkboxes, IPs one per line). */
const ScopeField = Type.Union(SCOPES.map((s) => Type.Literal(s)));
const IssueBody = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  scopes: Type.Optional(Type.Union([ScopeField, Type.Array(ScopeField, { maxItems: 3 })])),
  allowedIps: Type.Optional(Type.String({ maxLength: 100 * 50 })),
});

/**
 * Everything the operator's merchant page shows, read through the services the /admin GET routes
 * call. An unknown merchantId is the services' 404.
 */
async function render(ctx: AppContext, page: PageContext, merchantId: string, extra: { issued?: IssuedCredential; done?: Done } = {}): Promise<string> {
  const merchant = await ctx.merchants.get(merchantId);
  const [credentials, pricing, antifraud, acquirer] = await Promise.all([
    ctx.merchants.credentials(merchantId),
    ctx.settlement.pricing.get(ctx.database.db, merchantId),
    ctx.antifraud.settings.get(merchantId),
    ctx.acquirerConnections.view(merchantId),
  ]);
  return merchantPage(page, { merchant, credentials, pricing: pricingToJson(pricing), antifraud, acquirer, ...extra });
}

/** GET /dashboard/operator/merchants/:merchantId, and its credential forms (issue, revoke). */
export function operatorMerchantRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/operator/merchants/:merchantId', { schema: { hide: true, params: MerchantIdParams, querystring: DoneQuery } }, async (request, reply) => {
    const page = operatorPage(request, deps);
    const { merchantId } = request.params as { merchantId: string };
    return sendPage(reply, 200, await render(ctx, page, merchantId, { done: (request.query as { done?: Done }).done }));
  });

  // Answers the page itself (no redirect): the password is shown in this answer only, as the API's 201 does.
  scope.post('/operator/merchants/:merchantId/credentials', { schema: { hide: true, params: MerchantIdParams, body: IssueBody } }, async (request, reply) => {
    const page = operatorPage(request, deps);
    const { merchantId } = request.params as { merchantId: string };
    const body = request.body as { scopes?: Scope | Scope[]; allowedIps?: string };
    const scopes = body.scopes === undefined ? [] : Array.isArray(body.scopes) ? body.scopes : [body.scopes];
    const allowedIps = (body.allowedIps ?? '').split(/[\s,]+/).filter(Boolean);
    // The same service call as POST /admin/merchants/{id}/credentials: it refuses no scope and a bad IP.
    const issued = await ctx.merchants.createCredential(merchantId, { scopes, allowedIps });
    return sendPage(reply, 201, await render(ctx, page, merchantId, { issued }));
  });

  scope.post(
    '/operator/merchants/:merchantId/credentials/:userName/revoke',
    { schema: { hide: true, params: Type.Object({ merchantId: MerchantIdParams.properties.merchantId, userName: Type.String({ minLength: 1, maxLength: 30 }) }) } },
    async (request, reply) => {
      operatorPage(request, deps);
      const { merchantId, userName } = request.params as { merchantId: string; userName: string };
      // Only this merchant's credential: a userName of another merchant in this URL is a 404.
      const own = await ctx.merchants.credentials(merchantId);
      if (!own.some((c) => c.userName === userName)) throw notFound('Credential');
      await ctx.merchants.revokeCredential(userName);
      return seeOther(reply, `/dashboard/operator/merchants/${merchantId}?done=revoked`);
    },
  );
}
