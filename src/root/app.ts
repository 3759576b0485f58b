import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from './context.js';
import { installErrorHandling } from '../http/error-handler.js';
import { installIdempotency } from '../http/idempotency.js';
import { installMetrics } from '../http/metrics.js';
import { installOpenApi } from '../http/openapi.js';
import { validatorCompiler } from '../http/validation.js';
import type { App } from '../http/types.js';
import { registerOpsRoutes } from '../modules/ops/routes.js';
import { registerAuthRoutes } from '../modules/auth/routes.js';
import { registerAdminRoutes } from '../modules/merchants/routes.js';
import { registerCardRoutes } from '../modules/cards/routes.js';
import { registerPaymentRoutes } from '../modules/payments/routes.js';
import { registerDisputeRoutes } from '../modules/disputes/routes.js';
import { registerPaymentLinkRoutes } from '../modules/paymentlinks/routes.js';
import { registerPixRoutes } from '../modules/pix/routes.js';
import { registerSettlementRoutes } from '../modules/settlement/routes.js';
import { registerRecurrenceRoutes } from '../modules/recurrence/routes.js';
import { registerSandboxRoutes } from '../modules/sandbox/routes.js';
import { registerAntifraudRoutes } from '../modules/antifraud/routes.js';
import { registerBankSlipRoutes } from '../modules/bankslips/routes.js';
import { registerWebhookRoutes } from '../modules/webhooks/routes.js';
import { registerAcquirerRoutes } from '../acquirer/routes.js';
import { registerThreeDsRoutes } from '../threeds/routes.js';
import { registerDashboardRoutes } from '../modules/dashboard/routes.js';
import { requestLogger } from '../http/request-logger.js';

export const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildOptions {
  /** False for ROLE=worker: only health, readiness and metrics are served. */
  apis?: boolean;
}

/** Assembles the HTTP app: one listener serves every API (contract section 1). */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.logger as unknown as FastifyBaseLogger,
    // One line per request is written by our own onResponse hook (no bodies, no headers).
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's child logger is made only when the request writes a line (request-logger.ts).
    childLoggerFactory: requestLogger,
    bodyLimit: BODY_LIMIT,
    // A hop count is valid at run time (proxy-addr); Fastify's typings only omit it.
    trustProxy: ctx.config.trustProxy as boolean | string[],
    // The caller's X-Request-Id is kept when it is sane, so its logs and ours line up.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Requests that arrive while closing are answered by our own hook, in the error array.
    return503OnClosing: false,
    frameworkErrors: (_error, _req, reply) => {
      void (reply as import('fastify').FastifyReply).code(400).send([{ tag: 'url', description: 'The request URL is malformed.' }]);
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies: anything else is a 415 (the JSON parser is Fastify's, secure against __proto__).
  app.removeContentTypeParser(['text/plain']);
  installErrorHandling(app);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (closing) {
      // Shutting down: in-flight requests finish; new ones go to another instance.
      return reply
        .code(503)
        .headers({ 'retry-after': '1', connection: 'close' })
        .send([{ tag: 'shutting_down', description: 'This instance is shutting down. Retry the request.' }]);
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        // Query strings may carry account numbers or ids, never secrets; paths never carry secrets.
        url: request.url.replace(/\d{12,19}/g, '****'),
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
  });

  // CORS_ORIGINS: browsers on those origins may call the APIs (docs served elsewhere, a web
  // front end): their preflight OPTIONS is 204 with the CORS headers. Without it no CORS header
  // is sent and OPTIONS is 405 with Allow. Credentials are bearer tokens, never cookies.
  await app.register(cors, {
    origin: ctx.config.corsOrigins.includes('*') ? '*' : ctx.config.corsOrigins.length ? ctx.config.corsOrigins : false,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'location'],
    maxAge: 600,
  });

  const metrics = installMetrics(app, [...ctx.webhooks.metrics(), ...ctx.metrics.all()]);
  await installOpenApi(app, ctx.config);
  installIdempotency(app, ctx.database, ctx.clock, ctx.cipher.lookupKey('idempotency-request-hash'));

  // Each module's routes get only what they use (its RouteDeps), never the whole context.
  const { config, auth, sandboxClock } = ctx;
  registerOpsRoutes(app, { config, database: ctx.database, logger: ctx.logger, acquirer: ctx.acquirer }, metrics);
  if (options.apis !== false) {
    registerAuthRoutes(app, { config, auth, merchants: ctx.merchants });
    registerAdminRoutes(app, { auth, merchants: ctx.merchants });
    registerAntifraudRoutes(app, { auth, merchants: ctx.merchants, antifraud: ctx.antifraud, ipCountries: ctx.ipCountries });
    registerAcquirerRoutes(app, { auth, acquirerConnections: ctx.acquirerConnections, merchants: ctx.merchants });
    registerCardRoutes(app, { config, auth, cardKeys: ctx.cardKeys, cards: ctx.cards });
    registerPaymentRoutes(app, { config, auth, payments: ctx.payments });
    registerThreeDsRoutes(app, { config, threeDs: ctx.threeDs, challenges: ctx.payments.authentication });
    registerDisputeRoutes(app, { config, auth, disputes: ctx.disputes, sandboxClock });
    registerPaymentLinkRoutes(app, { config, auth, paymentLinks: ctx.paymentLinks });
    registerSettlementRoutes(app, { config, auth, database: ctx.database, merchants: ctx.merchants, settlement: ctx.settlement, streamSlots: ctx.streamSlots });
    registerPixRoutes(app, { config, auth, pix: ctx.pix, pixLocationSigner: ctx.pixLocationSigner, sandboxClock });
    registerRecurrenceRoutes(app, { config, auth, recurrence: ctx.recurrence });
    registerBankSlipRoutes(app, { config, auth, clock: ctx.clock, bankSlips: ctx.bankSlips, sandboxClock });
    registerWebhookRoutes(app, { config, auth, webhooks: ctx.webhooks });
    if (sandboxClock) registerSandboxRoutes(app, { auth, clock: ctx.clock, cards: ctx.cards, sandboxClock, sandboxReset: ctx.sandboxReset });
    registerDashboardRoutes(app, {
      config, auth, database: ctx.database, clock: ctx.clock, queue: ctx.queue, handlers: ctx.handlers, metrics: ctx.metrics,
      streamSlots: ctx.streamSlots, merchants: ctx.merchants, cards: ctx.cards, antifraud: ctx.antifraud,
      acquirerConnections: ctx.acquirerConnections, payments: ctx.payments, disputes: ctx.disputes, paymentLinks: ctx.paymentLinks,
      recurrence: ctx.recurrence, settlement: ctx.settlement, bankSlips: ctx.bankSlips, pix: ctx.pix, webhooks: ctx.webhooks,
      sandboxClock, sandboxReset: ctx.sandboxReset,
    });
  }
  return app;
}
