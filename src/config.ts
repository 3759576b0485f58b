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
  mode: GatewayMode;
  adminApiKey: string | undefined;
  dataKey: string | undefined;
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
  /** A webhook or callback receiver must answer within this (contract: 30 s). */
  webhookTimeoutMs: number;
  /** FEBRABAN bank code (3 digits) that starts every bank slip barcode. */
  bankSlipBankCode: string;
}

export class ConfigError extends Error {}

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
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    gatewayBasePath,
    integrationBasePath,
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/gateway.db',
    mode,
    adminApiKey: env.ADMIN_API_KEY || undefined,
    dataKey: env.DATA_KEY || undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    tokenTtlSeconds: integer(env.TOKEN_TTL_SECONDS, 3600, 'TOKEN_TTL_SECONDS', 60, 86400 * 7),
    role,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL ?? 'info',
    passwordHashCost: integer(env.PASSWORD_HASH_COST, 15, 'PASSWORD_HASH_COST', 10, 20),
    workerPollMs: integer(env.WORKER_POLL_MS, 250, 'WORKER_POLL_MS', 10, 60000),
    workerConcurrency: integer(env.WORKER_CONCURRENCY, 32, 'WORKER_CONCURRENCY', 1, 512),
    webhookTimeoutMs: integer(env.WEBHOOK_TIMEOUT_MS, 30000, 'WEBHOOK_TIMEOUT_MS', 100, 120000),
    bankSlipBankCode: bankCode(env.BANK_SLIP_BANK_CODE),
  };
}

/** Production never invents secrets: it names every one that is missing or malformed. */
export function assertProductionSecrets(config: Config): void {
  if (config.mode !== 'production') return;
  const problems: string[] = [];
  if (!config.adminApiKey) problems.push('ADMIN_API_KEY is required in production (the operator key for /admin)');
  else if (config.adminApiKey.length < 32) problems.push('ADMIN_API_KEY must be at least 32 characters');
  if (!config.dataKey) problems.push('DATA_KEY is required in production (32 bytes, base64: openssl rand -base64 32)');
  else if (Buffer.from(config.dataKey, 'base64').length !== 32) problems.push('DATA_KEY must be 32 bytes encoded in base64');
  if (problems.length) throw new ConfigError(`Refusing to start in production mode:\n- ${problems.join('\n- ')}`);
}
