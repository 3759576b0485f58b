import type { AuthRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { loginHandler } from './login-handler.js';
import { TokenRequest, TokenResponse } from '../schemas.js';

/** POST {integration}/api/authentication/login: requires a credential with the `integration` scope. */
export function integrationLoginRoute(app: App, ctx: AuthRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/authentication/login`, {
    schema: {
      tags: ['Authentication'],
      operationId: 'loginIntegration',
      security: [],
      summary: 'Issue an integration API token',
      description: '403 in the token response shape when the credential lacks the integration scope.',
      body: TokenRequest,
      response: { 200: TokenResponse, 401: TokenResponse, 403: TokenResponse, 429: TokenResponse, ...errorResponses(400) },
    },
    handler: loginHandler(ctx, 'integration'),
  });
}
