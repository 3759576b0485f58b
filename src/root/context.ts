import type { Logger } from 'pino';
import { SystemClock, VirtualClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { resolveSecrets } from './sandbox-secrets.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { StreamSlots } from '../http/stream-slots.js';
import { JobQueue } from '../jobs/queue.js';
import { JobHandlers } from '../jobs/registry.js';
import { Worker } from '../jobs/worker.js';
import { Maintenance } from '../jobs/maintenance.js';
import { AntiFraudEngine } from '../modules/antifraud/engine.js';
import { ConfiguredIpCountries } from '../modules/antifraud/ip-countries.js';
import { AdminKey } from '../modules/auth/admin-key.js';
import { AuthService } from '../modules/auth/service.js';
import { CardKeyService } from '../modules/cards/keys.js';
import { CardService } from '../modules/cards/service.js';
import { oldestCardKey } from '../modules/cards/sealed-columns.js';
import { PaymentService } from '../modules/payments/service.js';
import { DisputeService } from '../modules/disputes/service.js';
import { PricingStore } from '../modules/settlement/pricing.js';
import { SettlementService } from '../modules/settlement/service.js';
import { PixService } from '../modules/pix/service.js';
import { LocationSigner } from '../modules/pix/location-signer.js';
import { createPixProvider } from '../pix-provider/index.js';
import { formatFixed } from '../domain/money.js';
import { AcquirerConnections } from '../acquirer/connections.js';
import { AcquirerRouter } from '../acquirer/router.js';
import { SandboxAcquirer } from '../acquirer/sandbox/acquirer.js';
import { threeDsDepsOf } from '../threeds/connect.js';
import type { ThreeDsDeps } from '../threeds/types.js';
import { signingKeysOf, TokenSigner } from '../modules/auth/tokens.js';
import { MerchantService } from '../modules/merchants/service.js';
import { PaymentLinkService } from '../modules/paymentlinks/service.js';
import { RecurrenceService } from '../modules/recurrence/service.js';
import { SandboxClockService } from '../modules/sandbox/clock-service.js';
import { SandboxResetService } from '../modules/sandbox/reset-service.js';
import { DataCipher } from '../security/data-cipher.js';
import { openKeyring } from '../security/keyring.js';
import { BankSlipService } from '../modules/bankslips/service.js';
import { systemResolver, type HostResolver } from '../modules/webhooks/address-policy.js';
import { WebhookDelivery } from '../modules/webhooks/delivery.js';
import { HttpPoster } from '../modules/webhooks/http-post.js';
import { DeliveryMetrics } from '../modules/webhooks/metrics.js';
import { WebhookService } from '../modules/webhooks/service.js';
import { DELIVER_JOB } from '../modules/webhooks/outbox.js';
import { GatewayMetrics } from '../observability/metrics.js';
import type { PaymentBacklog } from '../observability/backlog.js';
import type { StatementCounter } from '../observability/statements.js';

/**
 * Every service of one process, built once (src/root/app.ts hands each module's routes only their
 * RouteDeps). There is no global database or clock: tests build as many contexts as they like,
 * each on its own database.
 */
export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  cipher: DataCipher;
  adminApiKey: string;
  merchants: MerchantService;
  auth: AuthService;
  /** RSA keys behind encryptedCard (GET /cards/public-key). */
  cardKeys: CardKeyService;
  /** Card tokens and the card vault. */
  cards: CardService;
  queue: JobQueue;
  handlers: JobHandlers;
  worker: Worker;
  antifraud: AntiFraudEngine;
  /** The card network: each merchant's connector (its own Cielo connection, else ACQUIRER's). */
  acquirer: AcquirerRouter;
  /** Per-merchant acquirer connections (operator API). */
  acquirerConnections: AcquirerConnections;
  payments: PaymentService;
  /** The 3DS server and where its challenges come back (src/threeds). */
  threeDs: ThreeDsDeps;
  /** Chargebacks of card payments: registered, answered, decided (src/modules/disputes). */
  disputes: DisputeService;
  /** Payment links and their hosted checkout (contract section 7). */
  paymentLinks: PaymentLinkService;
  /** Plans, subscriptions, billings and the billing engine (contract section 8). */
  recurrence: RecurrenceService;
  /** Pricing, receivables, settlement sweep, prepayment (contract section 9). */
  settlement: SettlementService;
  /** Issue, registration, lifecycle and listings of bank slips (contract section 10). */
  bankSlips: BankSlipService;
  /** Per-merchant slots of the large streamed answers: range searches and bank slip listings. */
  streamSlots: StreamSlots;
  /** Pix charges (the instant-payment sales of conciliation). */
  pix: PixService;
  /** The sandbox PSP's key for the payloads at the locations of dynamic Pix codes (PIX_PROVIDER=sandbox). */
  pixLocationSigner: LocationSigner;
  /** Webhook subscriptions, the delivery engine's jobs and the delivery log (contract section 11). */
  webhooks: WebhookService;
  /** The operator's IP -> country table, the anti-fraud engine's default resolver. */
  ipCountries: ConfiguredIpCountries;
  /** Present in sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** Sandbox mode only: removes the business data (all, or one merchant's) and resets the clock. */
  sandboxReset?: SandboxResetService;
  /** The business series of /metrics: payments, acquirer calls, jobs, webhook backlog, pool (src/observability). */
  metrics: GatewayMetrics;
}

export interface ContextOptions {
  /** An already open database (tests); otherwise `config.databaseUrl` is opened. */
  database?: Database;
  /** Counts the statements of `database` (opened with its `log`): gateway_db_statements_total. */
  statements?: StatementCounter;
  logger: Logger;
  /** Host name look-ups of webhook URLs in production (tests play DNS with their own). */
  resolveHost?: HostResolver;
}

/** The sandbox keeps the key it generated in the database; a DATA_KEY set later does not open its data. */
function sandboxKeyHint(config: Config): string | undefined {
  if (config.mode !== 'sandbox' || !config.dataKey) return undefined;
  return 'A sandbox database first started without DATA_KEY keeps the key it generated (settings.sandbox_data_key): unset DATA_KEY to use it.';
}

export async function createContext(config: Config, options: ContextOptions): Promise<AppContext> {
  const database =
    options.database ??
    (await openDatabase(config.databaseUrl, {
      settings: config.databaseSettings,
      readUrl: config.databaseReadUrl,
      queryLog: options.statements?.log,
      onConnectionError: (error) => options.logger.warn({ error: error.message }, 'database connection lost (it is replaced on the next use)'),
    }));
  await migrateToLatest(database);
  const secrets = await resolveSecrets(config, database);
  // The keyring: DATA_KEY seals, DATA_KEYS_PREVIOUS only opens. Refuses to start (ConfigError)
  // when it cannot open this database's canary; loads the lookup keys (fingerprints, hashes).
  const cipher = DataCipher.fromBase64(secrets.dataKey, config.dataKeysPrevious);
  await openKeyring(database, cipher, { hint: sandboxKeyHint(config), legacyCanary: oldestCardKey });

  const virtualClock = config.mode === 'sandbox' ? new VirtualClock() : undefined;
  const clock: Clock = virtualClock ?? new SystemClock();

  const handlers = new JobHandlers();
  const streamSlots = new StreamSlots(config.conciliation.maxConcurrentPerMerchant);
  // The payment service is built below; its backlog is read at scrape time.
  const metrics = new GatewayMetrics({ database, clock, kinds: () => handlers.kinds(), webhookDeliveryKind: DELIVER_JOB, logger: options.logger, statements: options.statements, paymentBacklog: (): Promise<PaymentBacklog> => payments.backlog() });
  // The registry gives each kind its own max attempts.
  const queue = new JobQueue(database, clock, handlers, { metrics, logger: options.logger });
  const worker = new Worker(queue, handlers, clock, {
    pollMs: config.workerPollMs,
    concurrency: config.workerConcurrency,
    leaseMs: config.jobLeaseMs,
    instanceId: config.instanceId,
    logger: options.logger,
  });
  // The advance claims under the worker's id and lease, and logs like it (a failed lease renewal).
  const sandboxClock = virtualClock ? new SandboxClockService(database, virtualClock, queue, handlers, worker, {
        logger: options.logger,
        parallel: config.workerConcurrency,
        // What trails a sale (the relay, the recovery of Pending payments) is done before time moves on.
        beforeRound: (target) => payments.settleBackground(target),
      }) : undefined;
  await sandboxClock?.load();
  const ipCountries = new ConfiguredIpCountries(database, clock);
  // The public key must exist before the first request asks for it.
  const cardKeys = new CardKeyService(database, cipher, clock);
  await cardKeys.ensureKey();

  const antifraud = new AntiFraudEngine(database, clock, cipher, ipCountries, { sandbox: config.mode === 'sandbox' });
  const acquirerConnections = new AcquirerConnections(database, cipher, clock);
  const acquirer = new AcquirerRouter(config.acquirer, new SandboxAcquirer(database, clock), acquirerConnections, metrics);
  const cards = new CardService(database, cipher, clock, cardKeys, (request) => acquirer.zeroAuth(request), queue);
  // Settlement moves fully received payments to Paid through the payment service, which is built next (it needs settlement).
  const settlement = new SettlementService(database, clock, queue, new PricingStore(database, clock), (): PaymentService => payments);
  const threeDs = threeDsDepsOf(config, cipher);
  const payments = new PaymentService({ database, clock, logger: options.logger, cards, antifraud, queue, settlement, metrics, threeDs }, acquirer);
  const merchants = new MerchantService(database, clock, config.passwordHashCost);
  const pix = new PixService(database, clock, queue, settlement, merchants, createPixProvider(config.pix, config.publicUrl, clock), {
    intervalSeconds: config.pix.reconcileIntervalSeconds,
    windowSeconds: config.pix.reconcileWindowSeconds,
  });

  const production = config.mode === 'production';
  const resolve = options.resolveHost ?? systemResolver;
  const poster = new HttpPoster({ timeoutMs: config.webhookTimeoutMs, publicOnly: production, resolve });
  const deliveryMetrics = new DeliveryMetrics();
  const delivery = new WebhookDelivery({ database, clock, cipher, logger: options.logger, poster, metrics: deliveryMetrics, production });
  const webhooks = new WebhookService({ database, clock, cipher, queue, delivery, poster, metrics: deliveryMetrics, production, resolve });
  const ctx: AppContext = {
    config,
    database,
    clock,
    logger: options.logger,
    cipher,
    adminApiKey: secrets.adminApiKey,
    merchants,
    auth: new AuthService({
      database,
      clock,
      signer: new TokenSigner(signingKeysOf(cipher), config.tokenTtlSeconds),
      merchants,
      passwordHashCost: config.passwordHashCost,
      adminKey: new AdminKey(secrets.adminApiKey),
      logger: options.logger,
    }),
    cardKeys,
    cards,
    queue,
    handlers,
    worker,
    antifraud,
    acquirer,
    acquirerConnections,
    payments,
    threeDs,
    disputes: new DisputeService({ database, clock, queue, cipher, payments, settlement, pix: pix.medClaims }),
    paymentLinks: new PaymentLinkService({ config, database, clock, logger: options.logger, queue, merchants, payments }),
    recurrence: new RecurrenceService({ database, clock, logger: options.logger, payments, queue, cards, pixRecurrences: pix.recurrences, chargeConcurrency: config.billingConcurrency, cardSettings: (merchantId) => merchants.cardSettings(merchantId), publicUrl: config.publicUrl }),
    settlement,
    bankSlips: new BankSlipService({ database, clock, queue, config, merchants, pix, streamSlots }),
    streamSlots,
    pix,
    pixLocationSigner: new LocationSigner(database, cipher),
    webhooks,
    ipCountries,
    sandboxClock,
    metrics,
  };
  // Every module owns its job kinds (`jobs()`: kind, handler, options); all are registered the same way.
  const maintenance = new Maintenance({ database, clock, queue, purgers: [(wallNow) => purgeIdempotencyKeys(database, wallNow)] });
  for (const owner of [maintenance, ctx.bankSlips, payments, ctx.recurrence, webhooks, settlement, pix, ctx.paymentLinks]) handlers.registerAll(owner.jobs());
  await maintenance.start();
  await pix.startReconciliation();
  // A slip's Pix code paid at the PSP pays the slip through the slips' own payment path (same
  // webhooks, listings and conciliation as any payment); its refusal (late, other amount) keeps the Pix unapplied.
  pix.ownDueCharges({
    paid: (slipId, paidAt, amountCents) => ctx.bankSlips.payByPix(slipId, paidAt, amountCents),
    isOpen: (slipId) => ctx.bankSlips.isPayable(slipId),
  });
  // Pix Automático: the recurrences' outcomes (authorized, ended, a cycle paid or refused) reach the billing engine.
  pix.recurrences.own(ctx.recurrence.pixCycles.owner());
  // MED: the PSP's return of a claim, reflected on the charge, closes the claim in the same transaction.
  pix.medClaims.own({ returned: (trx, disputeId, made) => ctx.disputes.medReturned(trx, disputeId, made) });
  if (sandboxClock) {
    // Each module removes its own rows (a module owns its tables).
    const owners = [payments, ctx.disputes, cards, ctx.recurrence, settlement, ctx.bankSlips, pix, ctx.paymentLinks, webhooks, acquirer.sandbox];
    ctx.sandboxReset = new SandboxResetService({ database, clock, queue, sandboxClock, owners, assertMerchant: (id) => merchants.get(id) });
  }
  return ctx;
}

/**
 * Stops what a context runs, after its HTTP app is closed: the worker (waiting for its running
 * jobs), the keep-alive connections to webhook receivers and acquirers, and the database unless
 * the caller shares it with another context.
 */
export async function closeContext(ctx: AppContext, options: { keepDatabase?: boolean } = {}): Promise<void> {
  await ctx.payments.stopBackground();
  await ctx.worker.stop();
  ctx.webhooks.close();
  ctx.acquirer.close();
  ctx.pix.close();
  if (!options.keepDatabase) await ctx.database.close();
}
