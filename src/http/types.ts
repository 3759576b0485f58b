import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Principal } from './principal.js';

/** The Fastify instance with the TypeBox provider: route schemas type the handlers. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression<RawServerDefault>,
  RawReplyDefaultExpression<RawServerDefault>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the gateway/integration auth hooks. */
    principal?: Principal;
    /** Set by the admin auth hook. */
    isAdmin?: boolean;
    /** Set when this request holds an Idempotency-Key slot that its response must fill. */
    idempotencySlot?: { owner: string; key: string };
  }
  interface FastifyContextConfig {
    /** Switches the Idempotency-Key mechanism on for a route (contract section 2). */
    idempotent?: boolean;
  }
}
