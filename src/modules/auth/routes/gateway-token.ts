import type { AuthRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { loginHandler } from './login-handler.js';
import { TokenRequest, TokenResponse } from '../schemas.js';

/** POST {gateway}/api/auth/token: a bearer token for the gateway API (seed "Token"). */
export function gatewayTokenRoute(app: App, ctx: AuthRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/api/auth/token`, {
    schema: {
      tags: ['Authentication'],
      operationId: 'createGatewayToken',
      security: [],
      summary: 'Issue a gateway API token',
      description: 'Five failed logins for one userName within 15 minutes lock it for 15 minutes (429 with Retry-After).',
      body: TokenRequest,
      response: { 200: TokenResponse, 401: TokenResponse, 403: TokenResponse, 429: TokenResponse, ...errorResponses(400) },
    },
    handler: loginHandler(ctx, 'gateway'),
  });
}
