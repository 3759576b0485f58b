import { Type } from '@sinclair/typebox';
import type { AuthRouteDeps } from '../route-deps.js';
import { gatewayAuth, integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';

const Me = Type.Object({
  merchantId: Type.String(),
  accountNumber: Type.Integer(),
  name: Type.String(),
  userName: Type.String(),
  scopes: Type.Array(Type.String()),
});

/**
 * GET {gateway}/v1/me and GET {integration}/api/me (extension): who the token belongs to.
 * The quickest check that a token works, and where an integrator reads its accountNumber.
 */
export function meRoutes(app: App, ctx: AuthRouteDeps): void {
  const handler = async (request: import('fastify').FastifyRequest) => {
    const principal = principalOf(request);
    const merchant = await ctx.merchants.get(principal.merchantId);
    return { merchantId: merchant.merchantId, accountNumber: merchant.accountNumber, name: merchant.name, userName: principal.userName, scopes: principal.scopes };
  };
  const response = { 200: Me, ...errorResponses(401, 403) };
  app.get(`${ctx.config.gatewayBasePath}/v1/me`, {
    schema: { tags: ['Authentication'], operationId: 'getGatewayMe', description: 'The merchant, the credential and the scopes behind the gateway API token sent: a quick check that a token works.', summary: 'The merchant and credential of this token', security: security.gateway, response },
    onRequest: gatewayAuth(ctx),
    handler,
  });
  app.get(`${ctx.config.integrationBasePath}/api/me`, {
    schema: { tags: ['Authentication'], operationId: 'getIntegrationMe', description: 'The merchant, the credential and the scopes behind the integration API token sent: a quick check that a token works.', summary: 'The merchant and credential of this token', security: security.integration, response },
    onRequest: integrationAuth(ctx),
    handler,
  });
}
