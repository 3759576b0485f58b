import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../modules/auth/service.js';
import type { Scope } from '../modules/merchants/service.js';
import { unauthorized } from './errors.js';

/**
 * Authentication runs in `onRequest`, before the body is parsed: an anonymous caller gets its
 * 401 without the service spending work on its payload.
 */
export const gatewayAuth = (ctx: AppContext, scope?: Scope) => async (request: FastifyRequest) => {
  request.principal = await ctx.auth.authenticate('gateway', request.headers.authorization, request.ip, scope);
};

/**
 * `gatewayAuth` for a route whose service carries the credential's re-read in its own
 * transaction (POST /v1/payments): the token is verified here, and the read that makes a
 * revocation effective at once rides the transaction's first round trip instead of one of its
 * own (`request.carriedCredential`, confirmed before anything commits; see CarriedCredential).
 * A request with an Idempotency-Key is checked here, before its slot is read or replayed.
 * PostgreSQL only: on SQLite there is no round trip to save, and a payment whose transaction
 * started with the credential's read measured 45 % slower (docs/performance.md, issue 15).
 */
export const gatewayAuthCarried = (ctx: AppContext, scope: Scope) => async (request: FastifyRequest) => {
  if (ctx.database.dialect !== 'postgres' || request.headers['idempotency-key'] !== undefined) return gatewayAuth(ctx, scope)(request);
  const { principal, carried } = await ctx.auth.authenticateCarried('gateway', request.headers.authorization, request.ip, scope);
  request.principal = principal;
  request.carriedCredential = carried;
};

export const integrationAuth = (ctx: AppContext) => async (request: FastifyRequest) => {
  request.principal = await ctx.auth.authenticate('integration', request.headers.authorization, request.ip, 'integration');
};

export function adminKeyDigest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** `/admin` and `/sandbox`: `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time. */
export const adminAuth = (ctx: AppContext) => async (request: FastifyRequest, _reply: FastifyReply) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match || !timingSafeEqual(adminKeyDigest(match[1]), ctx.adminKeyDigest)) {
    throw unauthorized('Authorization must be "Bearer <ADMIN_API_KEY>".');
  }
  request.isAdmin = true;
};

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
