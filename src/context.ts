import type { Logger } from 'pino';
import { SystemClock, VirtualClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { resolveSecrets } from './bootstrap.js';
import { adminKeyDigest } from './http/guards.js';
import { JobQueue } from './jobs/queue.js';
import { JobHandlers } from './jobs/registry.js';
import { Worker } from './jobs/worker.js';
import { registerMaintenanceJobs } from './jobs/maintenance.js';
import { AntiFraudEngine } from './modules/antifraud/engine.js';
import { ConfiguredIpCountries } from './modules/antifraud/ip-countries.js';
import { AuthService } from './modules/auth/service.js';
import { CardKeyService } from './modules/cards/keys.js';
import { CardService } from './modules/cards/service.js';
import { PaymentService, RECOVER_JOB } from './modules/payments/service.js';
import { PricingStore } from './modules/settlement/pricing.js';
import { SettlementService, SWEEP_JOB } from './modules/settlement/service.js';
import { EXPIRE_JOB, PixService } from './modules/pix/service.js';
import { SandboxAcquirer } from './acquirer/sandbox.js';
import type { Acquirer } from './acquirer/types.js';
import { TokenSigner } from './modules/auth/tokens.js';
import { MerchantService } from './modules/merchants/service.js';
import { EXPIRE_JOB as LINK_EXPIRE_JOB, PaymentLinkService } from './modules/paymentlinks/service.js';
import { RecurrenceService } from './modules/recurrence/service.js';
import { SandboxClockService } from './modules/sandbox/clock-service.js';
import { DataCipher } from './security/data-cipher.js';
import { BankSlipService, registerBankSlipJobs } from './modules/bankslips/service.js';
import { systemResolver, type HostResolver } from './modules/webhooks/address-policy.js';
import { WebhookDelivery } from './modules/webhooks/delivery.js';
import { HttpPoster } from './modules/webhooks/http-post.js';
import { DeliveryMetrics } from './modules/webhooks/metrics.js';
import { WebhookService } from './modules/webhooks/service.js';

/**
 * Everything a request handler or job needs, built once per process. There is no global
 * database or clock: tests build as many contexts as they like, each on its own database.
 */
export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  cipher: DataCipher;
  adminKeyDigest: Buffer;
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
  /** The card network: the sandbox acquirer is the one implementation so far. */
  acquirer: Acquirer;
  payments: PaymentService;
  /** Payment links and their hosted checkout (contract section 7). */
  paymentLinks: PaymentLinkService;
  /** Plans, subscriptions, billings and the billing engine (contract section 8). */
  recurrence: RecurrenceService;
  /** Pricing, receivables, settlement sweep, prepayment (contract section 9). */
  settlement: SettlementService;
  /** Issue, registration, lifecycle and listings of bank slips (contract section 10). */
  bankSlips: BankSlipService;
  /** Pix charges (the instant-payment sales of conciliation). */
  pix: PixService;
  /** Webhook subscriptions, the delivery engine's jobs and the delivery log (contract section 11). */
  webhooks: WebhookService;
  /** The operator's IP -> country table, the anti-fraud engine's default resolver. */
  ipCountries: ConfiguredIpCountries;
  /** Present in sandbox mode only. */
  sandboxClock?: SandboxClockService;
}

export interface ContextOptions {
  /** An already open database (tests); otherwise `config.databaseUrl` is opened. */
  database?: Database;
  logger: Logger;
  /** Host name look-ups of webhook URLs in production (tests play DNS with their own). */
  resolveHost?: HostResolver;
}

export async function createContext(config: Config, options: ContextOptions): Promise<AppContext> {
  const database = options.database ?? (await openDatabase(config.databaseUrl));
  await migrateToLatest(database);
  const secrets = await resolveSecrets(config, database);
  const cipher = DataCipher.fromBase64(secrets.dataKey);

  const virtualClock = config.mode === 'sandbox' ? new VirtualClock() : undefined;
  const clock: Clock = virtualClock ?? new SystemClock();

  const handlers = new JobHandlers();
  // The registry gives each kind its own max attempts.
  const queue = new JobQueue(database, clock, handlers);
  const worker = new Worker(queue, handlers, clock, { pollMs: config.workerPollMs, concurrency: config.workerConcurrency, logger: options.logger });
  const sandboxClock = virtualClock ? new SandboxClockService(database, virtualClock, queue, handlers, worker) : undefined;
  await sandboxClock?.load();
  const ipCountries = new ConfiguredIpCountries(database, clock);
  // The public key must exist before the first request asks for it.
  const cardKeys = new CardKeyService(database, cipher, clock);
  await cardKeys.ensureKey();

  const antifraud = new AntiFraudEngine(database, clock, cipher, ipCountries, { sandbox: config.mode === 'sandbox' });
  const cards = new CardService(database, cipher, clock, cardKeys);
  const acquirer = new SandboxAcquirer();
  const settlement = new SettlementService(database, clock, queue, new PricingStore(database, clock));
  const payments = new PaymentService({ database, clock, logger: options.logger, cards, antifraud, queue, settlement }, acquirer);
  const pix = new PixService(database, clock, queue, settlement, config.publicUrl);

  const merchants = new MerchantService(database, clock, config.passwordHashCost);
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
    adminKeyDigest: adminKeyDigest(secrets.adminApiKey),
    merchants,
    auth: new AuthService(database, clock, new TokenSigner(cipher.deriveKey('jwt-signing'), config.tokenTtlSeconds), config.passwordHashCost),
    cardKeys,
    cards,
    queue,
    handlers,
    worker,
    antifraud,
    acquirer,
    payments,
    paymentLinks: new PaymentLinkService({ config, database, clock, logger: options.logger, queue, merchants, payments }),
    recurrence: new RecurrenceService({ database, clock, logger: options.logger, payments, queue }),
    settlement,
    bankSlips: new BankSlipService({ database, clock, queue, config }),
    pix,
    webhooks,
    ipCountries,
    sandboxClock,
  };
  await registerMaintenanceJobs(ctx);
  registerBankSlipJobs(ctx);
  handlers.register(RECOVER_JOB, async ({ paymentId }: { paymentId: string }) => payments.recover(paymentId));
  ctx.recurrence.registerJobs(handlers);
  webhooks.registerJobs(handlers);
  handlers.register(SWEEP_JOB, async () => void (await settlement.sweep()));
  handlers.register(EXPIRE_JOB, async ({ id }: { id: string }) => pix.expire(id));
  handlers.register(LINK_EXPIRE_JOB, async ({ id }: { id: string }) => ctx.paymentLinks.expire(id));
  return ctx;
}
