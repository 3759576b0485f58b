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
import { AuthService } from './modules/auth/service.js';
import { TokenSigner } from './modules/auth/tokens.js';
import { MerchantService } from './modules/merchants/service.js';
import { SandboxClockService } from './modules/sandbox/clock-service.js';
import { DataCipher } from './security/data-cipher.js';

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
  queue: JobQueue;
  handlers: JobHandlers;
  worker: Worker;
  /** Present in sandbox mode only. */
  sandboxClock?: SandboxClockService;
}

export interface ContextOptions {
  /** An already open database (tests); otherwise `config.databaseUrl` is opened. */
  database?: Database;
  logger: Logger;
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
  const worker = new Worker(queue, handlers, clock, { pollMs: config.workerPollMs, logger: options.logger });
  const sandboxClock = virtualClock ? new SandboxClockService(database, virtualClock, queue, handlers, worker) : undefined;
  await sandboxClock?.load();

  const ctx: AppContext = {
    config,
    database,
    clock,
    logger: options.logger,
    cipher,
    adminApiKey: secrets.adminApiKey,
    adminKeyDigest: adminKeyDigest(secrets.adminApiKey),
    merchants: new MerchantService(database, clock, config.passwordHashCost),
    auth: new AuthService(database, clock, new TokenSigner(cipher.deriveKey('jwt-signing'), config.tokenTtlSeconds), config.passwordHashCost),
    queue,
    handlers,
    worker,
    sandboxClock,
  };
  await registerMaintenanceJobs(ctx);
  return ctx;
}
