import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRouteDeps } from '../route-deps.js';
import { STATUS_OF } from '../../../http/errors.js';
import type { ApiName } from '../tokens.js';

/** Shared by both token endpoints: a refused login answers in the token response shape. */
export const loginHandler =
  (ctx: AuthRouteDeps, api: ApiName) =>
  async (request: FastifyRequest<{ Body: { userName: string; password: string } }>, reply: FastifyReply) => {
    const { userName, password } = request.body;
    const result = await ctx.auth.login(api, userName, password, request.ip);
    if (result.retryAfter !== undefined) reply.header('Retry-After', String(result.retryAfter));
    return reply.code(result.refusal ? STATUS_OF[result.refusal] : 200).send(result.body);
  };
