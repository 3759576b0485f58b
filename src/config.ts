import { loadDatabaseSettings, type DatabaseSettings } from './db/timeouts.js';
import { hostname } from 'node:os';
import { acquirerProblems, loadAcquirerConfig, type AcquirerConfig } from './acquirer/config.js';
import { loadThreeDsConfig, threeDsProblems, type ThreeDsConfig } from './threeds/config.js';
import { loadPixConfig, pixProblems, type PixConfig } from './pix-provider/config.js';
import { loadBankConfig, type BankConfig } from './bank/config.js';
/**
 * Every setting the service reads from the environment, parsed once and validated.
 * Contract section 1 lists the names and defaults; production mode refuses to start
 * without its secrets (see `assertProductionSecrets`).
 */
export type GatewayMode = 'sandbox' | 'production';
export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  gatewayBasePath: string;
  integrationBasePath: string;
  databaseUrl: string;
  /** DATABASE_URL was set (production never falls back to the embedded file). */
  databaseUrlSet: boolean;
  /** DATABASE_READ_URL: a PostgreSQL replica for the reads that decide nothing (src/db/read-replica.ts). */
  databaseReadUrl: string | undefined;
  mode: GatewayMode;
  adminApiKey: string | undefined;
  dataKey: string | undefined;
  /** DATA_KEYS_PREVIOUS: keys that open values sealed before a rotation, never seal (base64, 32 bytes each). */
  dataKeysPrevious: string[];
  publicUrl: string;
  tokenTtlSeconds: number;
  role: Role;
  /** Fastify `trustProxy`: false, true, a hop count or a list of addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  logLevel: string;
  /** log2 of the scrypt cost for credential passwords. */
  passwordHashCost: number;
  /** How often an idle worker polls the job table, in ms. */
  workerPollMs: number;
  /** Jobs one worker runs at the same time (webhook deliveries wait on receivers, so many). */
  workerConcurrency: number;
  /** Billing charges one worker (or a sandbox advance) runs at once, each an acquirer call in flight, beside workerConcurrency's jobs. */
  billingConcurrency: number;
  /** A claimed job's lease (wall clock, ms), renewed every third of it while the job runs: a dead worker's jobs are free after it. */
  jobLeaseMs: number;
  /** Names this instance across restarts (default `<hostname>:<PORT>`): a restart takes back at once the running jobs its previous process held. */
  instanceId: string;
  /** A webhook or callback receiver must answer within this (contract: 30 s). */
  webhookTimeoutMs: number;
  /** FEBRABAN bank code (3 digits) that starts every bank slip barcode. */
  bankSlipBankCode: string;
  /** BANK_SLIP_PROVIDER, BANK_SLIP_AGENCY, BANK_SLIP_ACCOUNT, BANK_SLIP_AGREEMENT, BANK_SLIP_BENEFICIARY_* (src/bank/config.ts). */
  bankSlip: BankConfig;
  /** ACQUIRER, CIELO_*, ACQUIRER_TIMEOUT_MS (src/acquirer/config.ts). */
  acquirer: AcquirerConfig;
  /** THREEDS_SERVER, THREEDS_SERVER_URL, ... (src/threeds/config.ts). */
  threeDs: ThreeDsConfig;
  /** PIX_PROVIDER, PIX_API_URL, PIX_CLIENT_*, PIX_*_FILE, PIX_KEY, PIX_WEBHOOK_* (src/pix-provider/config.ts). */
  pix: PixConfig;
  /** DB_*_TIMEOUT_MS: connection, statement, idle-in-transaction and start-up waits (src/db/timeouts.ts). */
  databaseSettings: DatabaseSettings;
  /** METRICS_TOKEN: the bearer token /metrics requires; production without it does not serve /metrics. */
  metricsToken: string | undefined;
  /** DOCS_PUBLIC: serve /docs and /openapi.json (default: sandbox yes, production no). */
  docsPublic: boolean;
  /** CORS_ORIGINS: origins a browser may call the APIs from ('*' any); empty: no CORS headers. */
  corsOrigins: string[];
  /** Conciliation range searches: CONCIL_MAX_RANGE_DAYS, CONCIL_MAX_CONCURRENT_PER_MERCHANT, CONCIL_PAGE_ROWS (rows per keyset read). */
  conciliation: { maxRangeDays: number; maxConcurrentPerMerchant: number; pageRows: number };
  /** DASHBOARD_SESSION_MINUTES (absolute lifetime) and DASHBOARD_IDLE_MINUTES (ends an unused session). */
  dashboard: { sessionMinutes: number; idleMinutes: number };
}

import { ConfigError } from './config-error.js';

export { ConfigError };

type Env = Record<string, string | undefined>;

function basePath(value: string | undefined, fallback: string, name: string): string {
  const path = (value ?? fallback).trim();
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(path)) {
    throw new ConfigError(`${name} must be an absolute path such as ${fallback}, got "${path}"`);
  }
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function integer(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return n;
}

/** A barcode starts with the bank's 3-digit FEBRABAN code; anything else would print unreadable slips. */
function bankCode(value: string | undefined): string {
  const code = (value ?? '').trim() || '001';
  if (!/^\d{3}$/.test(code)) throw new ConfigError(`BANK_SLIP_BANK_CODE must be 3 digits (e.g. 001), got "${code}"`);
  return code;
}

/**
 * Worker ids are `<instanceId>/<pid>-<random>`: the `/` must stay a separator, so the id has
 * none. Two processes on one host cannot share a port, so `<hostname>:<PORT>` names "the same
 * instance" across restarts (an operator running several per host on other ports is covered).
 */
function instanceId(value: string | undefined, port: number): string {
  if (value === undefined || value === '') {
    return `${hostname()}:${port}`.replace(/[^A-Za-z0-9._:-]/g, '-').slice(-100);
  }
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(value)) {
    throw new ConfigError(`INSTANCE_ID must be 1 to 100 characters among A-Z a-z 0-9 . _ : -, got "${value}"`);
  }
  return value;
}

/**
 * DATA_KEYS_PREVIOUS: comma-separated base64 keys of 32 bytes. A malformed entry is named by
 * its position, never echoed: it is a secret.
 */
function previousDataKeys(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry, i) => {
    const key = entry.trim();
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== 32) {
      throw new ConfigError(`DATA_KEYS_PREVIOUS entry ${i + 1} must be 32 bytes encoded in base64 (comma-separated, as DATA_KEY: openssl rand -base64 32)`);
    }
    return key;
  });
}

/** A bearer token in a header: visible ASCII, no spaces, long enough not to be guessed. Never echoed: it is a secret. */
function metricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[\x21-\x7e]{16,512}$/.test(value)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 512 visible ASCII characters without spaces (e.g. openssl rand -hex 32)');
  }
  return value;
}

/** `*`, or origins as a browser sends them (scheme://host[:port], no path): anything else would never match. */
function corsOrigins(value: string | undefined): string[] {
  const origins = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(origin)) {
      throw new ConfigError(`CORS_ORIGINS must be "*" or comma-separated origins such as https://docs.example.com, got "${origin}"`);
    }
  }
  return origins;
}

function flag(value: string | undefined, fallback: boolean, name: string): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return fallback;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new ConfigError(`${name} must be "true" or "false", got "${value}"`);
}

function parseTrustProxy(value: string | undefined): Config['trustProxy'] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export function loadConfig(env: Env = process.env): Config {
  const mode = (env.GATEWAY_MODE ?? 'sandbox') as GatewayMode;
  if (mode !== 'sandbox' && mode !== 'production') {
    throw new ConfigError(`GATEWAY_MODE must be "sandbox" or "production", got "${mode}"`);
  }
  const role = (env.ROLE ?? 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role)) {
    throw new ConfigError(`ROLE must be "api", "worker" or "all", got "${role}"`);
  }
  const gatewayBasePath = basePath(env.GATEWAY_BASE_PATH, '/gateway', 'GATEWAY_BASE_PATH');
  const integrationBasePath = basePath(env.INTEGRATION_BASE_PATH, '/integration', 'INTEGRATION_BASE_PATH');
  if (gatewayBasePath === integrationBasePath) {
    throw new ConfigError('GATEWAY_BASE_PATH and INTEGRATION_BASE_PATH must differ');
  }
  const port = integer(env.PORT, 8080, 'PORT', 0, 65535);
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    gatewayBasePath,
    integrationBasePath,
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/gateway.db',
    databaseUrlSet: Boolean(env.DATABASE_URL),
    databaseReadUrl: readUrl(env.DATABASE_READ_URL, env.DATABASE_URL),
    mode,
    adminApiKey: env.ADMIN_API_KEY || undefined,
    dataKey: env.DATA_KEY || undefined,
    dataKeysPrevious: previousDataKeys(env.DATA_KEYS_PREVIOUS),
    publicUrl,
    tokenTtlSeconds: integer(env.TOKEN_TTL_SECONDS, 3600, 'TOKEN_TTL_SECONDS', 60, 86400 * 7),
    role,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL ?? 'info',
    passwordHashCost: integer(env.PASSWORD_HASH_COST, 15, 'PASSWORD_HASH_COST', 10, 20),
    workerPollMs: integer(env.WORKER_POLL_MS, 250, 'WORKER_POLL_MS', 10, 60000),
    workerConcurrency: integer(env.WORKER_CONCURRENCY, 32, 'WORKER_CONCURRENCY', 1, 512),
    billingConcurrency: integer(env.BILLING_CONCURRENCY, 128, 'BILLING_CONCURRENCY', 1, 2048),
    jobLeaseMs: integer(env.JOB_LEASE_MS, 30000, 'JOB_LEASE_MS', 1000, 600000),
    instanceId: instanceId(env.INSTANCE_ID, port),
    webhookTimeoutMs: integer(env.WEBHOOK_TIMEOUT_MS, 30000, 'WEBHOOK_TIMEOUT_MS', 100, 120000),
    bankSlipBankCode: bankCode(env.BANK_SLIP_BANK_CODE),
    bankSlip: loadBankConfig(env, (message) => {
      throw new ConfigError(message);
    }),
    databaseSettings: loadDatabaseSettings(env, integer),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    docsPublic: flag(env.DOCS_PUBLIC, mode === 'sandbox', 'DOCS_PUBLIC'),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    conciliation: {
      // The contract's 90 days (section 9) by default; an operator may ask for less (a month, say, to bound the largest answer).
      maxRangeDays: integer(env.CONCIL_MAX_RANGE_DAYS, 90, 'CONCIL_MAX_RANGE_DAYS', 0, 366),
      maxConcurrentPerMerchant: integer(env.CONCIL_MAX_CONCURRENT_PER_MERCHANT, 2, 'CONCIL_MAX_CONCURRENT_PER_MERCHANT', 1, 1000),
      pageRows: integer(env.CONCIL_PAGE_ROWS, 2000, 'CONCIL_PAGE_ROWS', 1, 50_000),
    },
    dashboard: {
      sessionMinutes: integer(env.DASHBOARD_SESSION_MINUTES, 480, 'DASHBOARD_SESSION_MINUTES', 1, 7 * 24 * 60),
      idleMinutes: integer(env.DASHBOARD_IDLE_MINUTES, 30, 'DASHBOARD_IDLE_MINUTES', 1, 7 * 24 * 60),
    },
    acquirer: loadAcquirerConfig(env, (message) => {
      throw new ConfigError(message);
    }, integer),
    threeDs: loadThreeDsConfig(env, mode, (message) => {
      throw new ConfigError(message);
    }, integer),
    pix: loadPixConfig(env, publicUrl, (message) => {
      throw new ConfigError(message);
    }, integer),
  };
}

/**
 * Production never invents secrets: it names every one that is missing or malformed. Either
 * mode refuses a half-configured acquirer (ACQUIRER=cielo without its credentials).
 */
export function assertProductionSecrets(config: Config): void {
  if (config.mode !== 'production') {
    const problems = [...acquirerProblems(config.acquirer, config.mode), ...pixProblems(config.pix, config.mode), ...threeDsProblems(config.threeDs)];
    if (problems.length) throw new ConfigError(`Refusing to start:\n- ${problems.join('\n- ')}`);
    return;
  }
  const problems: string[] = [];
  if (!config.adminApiKey) problems.push('ADMIN_API_KEY is required in production (the operator key for /admin)');
  else if (config.adminApiKey.length < 32) problems.push('ADMIN_API_KEY must be at least 32 characters');
  if (!config.dataKey) problems.push('DATA_KEY is required in production (32 bytes, base64: openssl rand -base64 32)');
  else if (Buffer.from(config.dataKey, 'base64').length !== 32) problems.push('DATA_KEY must be 32 bytes encoded in base64');
  if (!config.databaseUrlSet) problems.push('DATABASE_URL is required in production (postgres://...); the embedded ./data/gateway.db is for the sandbox');
  problems.push(...acquirerProblems(config.acquirer, config.mode));
  problems.push(...pixProblems(config.pix, config.mode));
  problems.push(...threeDsProblems(config.threeDs));
  if (problems.length) throw new ConfigError(`Refusing to start in production mode:\n- ${problems.join('\n- ')}`);
}

/** DATABASE_READ_URL: PostgreSQL only, beside a PostgreSQL DATABASE_URL. */
function readUrl(value: string | undefined, primary: string | undefined): string | undefined {
  const url = value?.trim() || undefined;
  if (url === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(url) || !/^postgres(ql)?:\/\//.test(primary ?? '')) {
    throw new ConfigError('DATABASE_READ_URL must be a postgres:// URL, beside a postgres:// DATABASE_URL');
  }
  return url;
}
