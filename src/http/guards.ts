import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator, Principal, Scope } from './principal.js';
import { unauthorized } from './errors.js';

/** What a guard is given: the routes' dependencies carry the authenticator as `auth`. */
export interface GuardDeps {
  auth: Authenticator;
}

/**
 * Authentication runs in `onRequest`, before the body is parsed: an anonymous caller gets its
 * 401 without the service spending work on its payload.
 */
export const gatewayAuth = (ctx: GuardDeps, scope?: Scope) => async (request: FastifyRequest) => {
  request.principal = await ctx.auth.authenticate('gateway', request.headers.authorization, request.ip, scope);
};

export const integrationAuth = (ctx: GuardDeps) => async (request: FastifyRequest) => {
  request.principal = await ctx.auth.authenticate('integration', request.headers.authorization, request.ip, 'integration');
};

/** `/admin` and `/sandbox`: `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time. */
export const adminAuth = (ctx: GuardDeps) => async (request: FastifyRequest, _reply: FastifyReply) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match || !ctx.auth.isAdminKey(match[1])) {
    throw unauthorized('Authorization must be "Bearer <ADMIN_API_KEY>".');
  }
  request.isAdmin = true;
};

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
