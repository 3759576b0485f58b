import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/root/context.js';
import { buildApp } from '../../src/root/app.js';
import type { App } from '../../src/http/types.js';
import { createLogger } from '../../src/logger.js';
import type { Scope } from '../../src/modules/merchants/service.js';
import { freshDatabase, type TestDatabase } from './database.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import type { HostResolver } from '../../src/modules/webhooks/address-policy.js';

/** Captures every log line the app writes, so tests can prove what never reaches a log. */
export class LogCapture extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestMerchant {
  merchantId: string;
  accountNumber: number;
  userName: string;
  password: string;
  token: string;
  /** `{ authorization: 'Bearer <token>' }` for inject. */
  headers: Record<string, string>;
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  config: Config;
  logs: LogCapture;
  adminHeaders: Record<string, string>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** A merchant with a credential and a token of the given API, in one line. */
  merchant(options?: { scopes?: Scope[]; api?: 'gateway' | 'integration'; allowedIps?: string[] }): Promise<TestMerchant>;
  close(): Promise<void>;
}

/** Builds the whole app on a fresh database (SQLite in memory, or a new PostgreSQL schema). */
export interface TestAppOptions {
  env?: Record<string, string>;
  /** Extra routes (test-only endpoints exercising shared helpers), added before the app is ready. */
  routes?: (app: App, ctx: AppContext) => void;
  /** Host look-ups for webhook URLs (production-mode address checks). */
  resolveHost?: HostResolver;
  /** Another database than the suite's fresh one (one opened with a query log, to count statements). */
  database?: () => Promise<TestDatabase>;
}

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const env = options.env ?? {};
  const database = await (options.database ?? freshDatabase)();
  const config = loadConfig({ GATEWAY_MODE: 'sandbox', ADMIN_API_KEY: 'test-admin-key-0123456789abcdef0123', PASSWORD_HASH_COST: '10', LOG_LEVEL: 'info', ...env });
  const logs = new LogCapture();
  const ctx = await createContext(config, { database, logger: createLogger(config.logLevel, logs), resolveHost: options.resolveHost });
  const app = await buildApp(ctx);
  options.routes?.(app, ctx);
  await app.ready();
  const adminHeaders = { authorization: `Bearer ${ctx.adminApiKey}` };

  const harness: TestApp = {
    app,
    ctx,
    config,
    logs,
    adminHeaders,
    // What trails a request by under a second in production (the payments relay) is done before
    // the test reads on, so a test states what follows a payment without racing the relay's timer.
    inject: async (options) => {
      const response = await app.inject(options);
      // A test that took the database away (a fault, a close) reads the answer, not the relay's failure.
      await ctx.payments.settleBackground().catch((error: unknown) => {
        if (!isDatabaseUnavailable(error) && !/destroyed/.test(String(error))) throw error;
      });
      return response;
    },
    async merchant(options = {}) {
      const merchant = await ctx.merchants.create({ name: 'Loja Teste', documentNumber: '11222333000181' });
      const scopes = options.scopes ?? ['payments', 'recurrence', 'integration'];
      const credential = await ctx.merchants.createCredential(merchant.merchantId, { scopes, allowedIps: options.allowedIps });
      const api = options.api ?? 'gateway';
      const url = api === 'gateway' ? `${config.gatewayBasePath}/api/auth/token` : `${config.integrationBasePath}/api/authentication/login`;
      const login = await app.inject({ method: 'POST', url, payload: { userName: credential.userName, password: credential.password } });
      const token = login.json().accessToken as string;
      return {
        merchantId: merchant.merchantId,
        accountNumber: merchant.accountNumber,
        userName: credential.userName,
        password: credential.password,
        token,
        headers: { authorization: `Bearer ${token}` },
      };
    },
    async close() {
      await app.close();
      // The database is the fresh one this harness opened (its close also drops a PostgreSQL schema).
      await closeContext(ctx, { keepDatabase: true });
      await database.close();
    },
  };
  return harness;
}
