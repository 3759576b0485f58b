import { SANDBOX_IN_PRODUCTION_WARNING } from './acquirer/config.js';
import { assertProductionSecrets, ConfigError, loadConfig } from './config.js';
import { ensureDemoAccount } from './root/sandbox-secrets.js';
import { closeContext, createContext } from './root/context.js';
import { openDatabaseWhenReady } from './db/connection.js';
import { buildApp } from './root/app.js';
import { createLogger } from './logger.js';
import { StatementCounter } from './observability/statements.js';

/**
 * `npm start`: one binary for every role. ROLE=api serves HTTP, ROLE=worker runs jobs (and
 * answers /healthz, /readyz, /metrics), ROLE=all (default) does both.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  assertProductionSecrets(config);
  const logger = createLogger(config.logLevel);
  const statements = new StatementCounter();
  const database = await openDatabaseWhenReady(config.databaseUrl, {
    settings: config.databaseSettings,
    queryLog: statements.log,
    readUrl: config.databaseReadUrl,
    onConnectionError: (error) => logger.warn({ error: error.message }, 'database connection lost (it is replaced on the next use)'),
    log: (message, fields) => logger.warn(fields, message),
  });
  const ctx = await createContext(config, { logger, database, statements });
  const app = await buildApp(ctx, { apis: config.role !== 'worker' });
  await app.listen({ port: config.port, host: config.host });
  if (config.role !== 'api') ctx.worker.start();
  // The relay follows this instance's own sales wherever they are made; the recovery pass runs with the worker.
  ctx.payments.startBackground({ recovery: config.role !== 'api' });

  if (config.mode === 'sandbox') {
    const demo = await ensureDemoAccount(ctx.database, ctx.merchants, ctx.cipher);
    printSandboxBanner(config.publicUrl, config.gatewayBasePath, config.integrationBasePath, demo, ctx.adminApiKey);
  }
  if (config.mode === 'production' && ctx.acquirer.defaultIsSandbox) logger.warn({ acquirer: 'sandbox' }, SANDBOX_IN_PRODUCTION_WARNING);
  // Production without a PSP: Pix codes are served by the gateway itself and nothing ever pays them.
  if (config.mode === 'production' && config.pix.kind === 'sandbox') logger.warn({ pixProvider: 'sandbox' }, 'PIX_PROVIDER=sandbox in production: Pix charges are never paid (set PIX_PROVIDER=bcb and the PIX_* settings of your PSP)');
  logger.info({ port: config.port, mode: config.mode, role: config.role, database: ctx.database.dialect, acquirer: ctx.acquirer.defaultIsSandbox ? 'sandbox' : 'cielo' }, 'ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new requests, finishing in-flight requests and jobs');
    try {
      await app.close(); // stops accepting, waits for in-flight requests
      await closeContext(ctx); // waits for running jobs, then closes connections and the database
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function printSandboxBanner(
  publicUrl: string,
  gatewayPath: string,
  integrationPath: string,
  demo: { merchantId: string; accountNumber: number; userName: string; password: string },
  adminApiKey: string,
): void {
  // Printed on purpose: these are sandbox credentials the developer needs to start.
  process.stdout.write(
    [
      '',
      'Payment gateway sandbox is ready.',
      `  Gateway API:      ${publicUrl}${gatewayPath}`,
      `  Integration API:  ${publicUrl}${integrationPath}`,
      `  API docs:         ${publicUrl}/docs`,
      `  Dashboard:        ${publicUrl}/dashboard (the demo userName and password below; operators: the admin key)`,
      '',
      'Demo merchant (kept across restarts):',
      `  merchantId:       ${demo.merchantId}`,
      `  accountNumber:    ${demo.accountNumber}`,
      `  userName:         ${demo.userName}`,
      `  password:         ${demo.password}`,
      `  admin key:        ${adminApiKey}`,
      '',
    ].join('\n') + '\n',
  );
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
