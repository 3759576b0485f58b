import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { assertProductionSecrets, ConfigError, loadConfig, type Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import { openDatabase } from './db/connection.js';
import { migrateDown, migrateToLatest, migrationStatus } from './db/migrate.js';
import { ApiError } from './http/errors.js';
import { createLogger } from './logger.js';
import { SCOPES, type Scope } from './modules/merchants/service.js';
import { reencryptAll } from './security/reencrypt.js';

/**
 * The operator's command line: the same services as the /admin API, printing JSON.
 *   gateway migrate [up]     (apply pending migrations; also done by every instance at start)
 *   gateway migrate status   (applied and pending migrations)
 *   gateway migrate down [--yes]   (revert the last one; --yes required in production)
 *   gateway merchants create --name "Loja" --document 11222333000181 [--legal-name ..] [--email ..]
 *   gateway merchants list
 *   gateway credentials create --merchant mer_... --scopes payments,recurrence [--allowed-ips 10.0.0.0/8]
 *   gateway credentials revoke usr_...
 *   gateway keys rotate      (new RSA key for encryptedCard; the previous one decrypts 24 h more)
 *   gateway keys reencrypt [--batch 500]   (moves every sealed value to the current DATA_KEY; resumable)
 *   gateway serve            (same as npm start; runs until SIGTERM/SIGINT)
 */
const USAGE = `usage: gateway <command>
  migrate [status | up | down [--yes]]
  merchants create --name NAME --document CPF_OR_CNPJ [--legal-name NAME] [--email EMAIL]
  merchants list [--page N] [--limit N]
  credentials create --merchant MERCHANT_ID --scopes payments,recurrence,integration [--allowed-ips IP,CIDR]
  credentials revoke USER_NAME
  keys rotate
  keys reencrypt [--batch N]
  serve`;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

/** Runs one command; answers the process exit code. `context` lets tests share their database. */
export async function runCli(argv: string[], io: CliIo = defaultIo, context?: AppContext): Promise<number> {
  const [group, action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      document: { type: 'string' },
      'legal-name': { type: 'string' },
      email: { type: 'string' },
      merchant: { type: 'string' },
      scopes: { type: 'string' },
      'allowed-ips': { type: 'string' },
      batch: { type: 'string' },
      page: { type: 'string' },
      limit: { type: 'string' },
      yes: { type: 'boolean' },
    },
  });
  const print = (value: unknown) => io.out(JSON.stringify(value, null, 2));
  let config: Config | undefined;
  let ctx = context;
  try {
    config = context?.config ?? loadConfig();
    if (group === 'serve') {
      // server.ts starts on import and owns the process from then on: it exits 0 after a
      // SIGTERM/SIGINT shutdown, 1 or 2 when it cannot start. Never resolving keeps this
      // command (and `npx gateway serve`) running instead of exiting as soon as it started.
      await import('./server.js');
      return await new Promise<number>(() => {});
    }
    if (group === 'migrate') {
      const step = action ?? 'up';
      if (step !== 'status' && step !== 'up' && step !== 'down') {
        io.err(USAGE);
        return 64;
      }
      assertProductionSecrets(config);
      const database = context?.database ?? (await openDatabase(config.databaseUrl));
      try {
        if (step === 'status') print(await migrationStatus(database));
        else if (step === 'up') print({ applied: await migrateToLatest(database) });
        else {
          const last = (await migrationStatus(database)).applied.at(-1)?.name;
          // down() drops tables and columns with their data: on a production database only when said twice.
          if (last && config.mode === 'production' && !values.yes) {
            throw new ApiError(
              400,
              'confirmation_required',
              `migrate down would revert ${last} on a production database, dropping what it created with its data. Stop every instance, take a backup, then run: gateway migrate down --yes`,
            );
          }
          print({ reverted: await migrateDown(database) });
        }
      } finally {
        if (!context) await database.close();
      }
      return 0;
    }
    const key = `${group} ${action}`;
    if (!['merchants create', 'merchants list', 'credentials create', 'credentials revoke', 'keys rotate', 'keys reencrypt'].includes(key)) {
      io.err(USAGE);
      return 64;
    }
    assertProductionSecrets(config);
    ctx ??= await createContext(config, { logger: createLogger('warn') });
    switch (key) {
      case 'merchants create':
        if (!values.name || !values.document) throw new ApiError(400, 'arguments', '--name and --document are required.');
        print(await ctx.merchants.create({ name: values.name, documentNumber: values.document, legalName: values['legal-name'], email: values.email }));
        break;
      case 'merchants list':
        print(await ctx.merchants.list({ page: Number(values.page ?? 1), limit: Number(values.limit ?? 20) }));
        break;
      case 'credentials create': {
        const scopes = (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (!values.merchant || scopes.length === 0 || unknown.length > 0) {
          throw new ApiError(400, 'arguments', `--merchant and --scopes (any of ${SCOPES.join(', ')}) are required.`);
        }
        const allowedIps = values['allowed-ips']?.split(',').map((s) => s.trim()).filter(Boolean);
        print(await ctx.merchants.createCredential(values.merchant, { scopes: scopes as Scope[], allowedIps }));
        break;
      }
      case 'credentials revoke':
        if (!positionals[0]) throw new ApiError(400, 'arguments', 'the userName to revoke is required.');
        print(await ctx.merchants.revokeCredential(positionals[0]));
        break;
      case 'keys rotate':
        print(await ctx.cardKeys.rotate());
        break;
      case 'keys reencrypt': {
        // Progress lines (JSON) on stderr, the summary on stdout; exit 1 while values remain under an older key.
        const batch = Number(values.batch ?? 500);
        if (!Number.isInteger(batch) || batch < 1 || batch > 10000) throw new ApiError(400, 'arguments', '--batch must be an integer between 1 and 10000.');
        const summary = await reencryptAll(ctx.database, ctx.cipher, { batch, onProgress: (progress) => io.err(JSON.stringify(progress)) });
        print(summary);
        if (summary.remaining > 0) {
          io.err(`${summary.remaining} sealed values are still under another key (see failedKeyIds): keep their keys in DATA_KEYS_PREVIOUS.`);
          return 1;
        }
        break;
      }
    }
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      print(error.errors);
      return 1;
    }
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  } finally {
    if (ctx && !context) await ctx.database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
