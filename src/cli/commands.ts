import { SETTINGS } from '../config-catalogue.js';
import { migrateDown, migrateToLatest, migrationStatus } from '../db/migrate.js';
import { DomainError, invalid } from '../domain/errors.js';
import { SCOPES, type Scope } from '../modules/merchants/service.js';
import { SEALED_COLUMNS } from '../root/sealed-columns.js';
import { reencryptAll } from '../security/reencrypt.js';
import { BANKSLIP_COMMANDS } from './bankslips.js';
import { LISTEN_COMMANDS } from './listen-and-trigger.js';
import type { CliIo, Command } from './command.js';

const arg = (tag: string, description: string) => invalid(tag, description);

function migrateCommand(step: 'up' | 'status' | 'down', name: string, summary: string): Command {
  return {
    name,
    args: step === 'down' ? '[--yes]' : undefined,
    summary,
    options: step === 'down' ? { yes: { type: 'boolean', help: 'confirm on a production database (reverting drops what the migration created, with its data)' } } : undefined,
    run: async ({ values, config, print, database }) => {
      const db = await database();
      if (step === 'status') return print(await migrationStatus(db));
      if (step === 'up') return print({ applied: await migrateToLatest(db) });
      const last = (await migrationStatus(db)).applied.at(-1)?.name;
      // down() drops tables and columns with their data: on a production database only when said twice.
      if (last && config.mode === 'production' && !values.yes) {
        throw invalid(
          'confirmation_required',
          `migrate down would revert ${last} on a production database, dropping what it created with its data. Stop every instance, take a backup, then run: gateway migrate down --yes`,
        );
      }
      print({ reverted: await migrateDown(db) });
    },
  };
}

/** Every command; `gateway --help` lists them in this order. */
export const COMMANDS: Command[] = [
  migrateCommand('up', 'migrate', 'apply pending migrations (every instance also does at start)'),
  migrateCommand('up', 'migrate up', 'apply pending migrations'),
  migrateCommand('status', 'migrate status', 'list applied and pending migrations'),
  migrateCommand('down', 'migrate down', 'revert the last migration (--yes required in production)'),
  {
    name: 'merchants create',
    summary: 'register a merchant (a CPF/CNPJ already registered is refused)',
    options: {
      name: { type: 'string', help: 'trade name', required: true },
      document: { type: 'string', help: 'CPF or CNPJ, digits only', required: true },
      'legal-name': { type: 'string', help: 'legal name (default: the trade name)' },
      email: { type: 'string', help: 'contact e-mail' },
    },
    run: async ({ values, print, context }) => {
      const ctx = await context();
      const document = String(values.document);
      const existing = await ctx.merchants.findByDocument(document);
      if (existing) {
        throw new DomainError('conflict', '--document', `A merchant with document ${document} already exists (${existing.merchantId}); issue it another credential instead: gateway credentials create --merchant ${existing.merchantId} --scopes ...`);
      }
      print(await ctx.merchants.create({ name: String(values.name), documentNumber: document, legalName: values['legal-name'] as string | undefined, email: values.email as string | undefined }));
    },
  },
  {
    name: 'merchants list',
    summary: 'list merchants, a page at a time',
    options: { page: { type: 'string', help: 'page number (default 1)', integer: [1, 1_000_000] }, limit: { type: 'string', help: 'items per page (default 20)', integer: [1, 100] } },
    run: async ({ values, print, context }) => print(await (await context()).merchants.list({ page: Number(values.page ?? 1), limit: Number(values.limit ?? 20) })),
  },
  {
    name: 'credentials create',
    summary: "issue a merchant's API credential (the password is shown once)",
    options: {
      merchant: { type: 'string', help: 'merchant id (mer_...)', required: true },
      scopes: { type: 'string', help: `comma-separated: ${SCOPES.join(', ')}`, required: true },
      'allowed-ips': { type: 'string', help: 'comma-separated addresses/CIDRs the credential may log in from' },
    },
    run: async ({ values, print, context }) => {
      const scopes = String(values.scopes).split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (scopes.length === 0 || unknown.length > 0) throw arg('--scopes', `--scopes takes any of ${SCOPES.join(', ')}${unknown.length ? `, not ${unknown.join(', ')}` : ''}.`);
      const allowedIps = (values['allowed-ips'] as string | undefined)?.split(',').map((s) => s.trim()).filter(Boolean);
      print(await (await context()).merchants.createCredential(String(values.merchant), { scopes: scopes as Scope[], allowedIps }));
    },
  },
  {
    name: 'credentials revoke',
    args: 'USER_NAME',
    summary: 'revoke a credential (its tokens stop working at once)',
    positionals: 1,
    run: async ({ positionals, print, context }) => {
      if (!positionals[0]) throw arg('USER_NAME', 'the userName to revoke is required: gateway credentials revoke USER_NAME');
      print(await (await context()).merchants.revokeCredential(positionals[0]));
    },
  },
  {
    name: 'keys rotate',
    summary: 'new RSA key for encryptedCard (the previous one decrypts 24 h more)',
    run: async ({ print, context }) => print(await (await context()).cardKeys.rotate()),
  },
  {
    name: 'keys reencrypt',
    summary: 'move every sealed value to the current DATA_KEY (resumable; progress on stderr)',
    options: { batch: { type: 'string', help: 'rows per transaction (default 500)', integer: [1, 10_000] } },
    run: async ({ values, io, print, context }) => {
      const ctx = await context();
      const summary = await reencryptAll(ctx.database, ctx.cipher, SEALED_COLUMNS, { batch: Number(values.batch ?? 500), onProgress: (progress) => io.err(JSON.stringify(progress)) });
      print(summary);
      if (summary.remaining > 0) {
        io.err(`${summary.remaining} sealed values are still under another key (see failedKeyIds): keep their keys in DATA_KEYS_PREVIOUS.`);
        return 1;
      }
    },
  },
  ...BANKSLIP_COMMANDS,
  ...LISTEN_COMMANDS,
  {
    name: 'sandbox reset',
    summary: "clock back to real time and the business data removed (merchants and credentials stay); --merchant: one merchant's data, clock untouched",
    options: { merchant: { type: 'string', help: 'reset only this merchant (mer_...)' } },
    needsSecrets: false,
    run: async ({ values, config, print, context }) => {
      if (config.mode !== 'sandbox') throw invalid('sandbox_only', 'sandbox reset exists only in sandbox mode (GATEWAY_MODE=sandbox).');
      const reset = (await context()).sandboxReset;
      if (!reset) throw invalid('sandbox_only', 'sandbox reset exists only in sandbox mode (GATEWAY_MODE=sandbox).');
      // A server running on the same database follows at its next clock advance or restart (the reset's generation).
      print(values.merchant ? await reset.resetMerchant(String(values.merchant)) : await reset.resetAll());
    },
  },
  {
    name: 'env',
    summary: 'list every setting with its default, meaning and whether it is set here (secret values never shown)',
    needsSecrets: false,
    run: async ({ print }) =>
      print(SETTINGS.map((s) => ({ ...s, secret: s.secret ?? false, set: Boolean(process.env[s.name]), ...(s.secret || !process.env[s.name] ? {} : { value: process.env[s.name] }) }))),
  },
  {
    name: 'serve',
    summary: 'run the server (same as npm start) until SIGTERM/SIGINT',
    needsSecrets: false,
    run: async () => {
      // server.ts starts on import and owns the process from then on: it exits 0 after a
      // SIGTERM/SIGINT shutdown, 1 or 2 when it cannot start. Never resolving keeps this
      // command (and `npx gateway serve`) running instead of exiting as soon as it started.
      await import('../server.js');
      return await new Promise<number>(() => {});
    },
  },
];

export function usageLine(command: Command): string {
  const flags = Object.entries(command.options ?? {})
    .filter(([name]) => !command.args?.includes(`--${name}`))
    .map(([name, o]) => {
      const text = o.type === 'boolean' ? `--${name}` : `--${name} ${name.toUpperCase().replace(/-/g, '_')}`;
      return o.required ? text : `[${text}]`;
    });
  return [command.name, command.args, ...flags].filter(Boolean).join(' ');
}

export function commandHelp(command: Command): string {
  const lines = [`usage: gateway ${usageLine(command)}`, '', command.summary];
  const options = Object.entries(command.options ?? {});
  if (options.length) lines.push('', 'options:', ...options.map(([name, o]) => `  --${name.padEnd(12)} ${o.help}${o.required ? ' (required)' : ''}`));
  lines.push('  --help         show this help and run nothing');
  return lines.join('\n');
}

export function usage(commands: Command[] = COMMANDS): string {
  return ['usage: gateway <command> [options]   (gateway <command> --help for its options)', ...commands.map((c) => `  ${usageLine(c).padEnd(60)} ${c.summary}`)].join('\n');
}
