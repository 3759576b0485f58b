import { serviceUrl, type Fail } from '../outbound/service-url.js';
import { CIELO_PRODUCTION_API_URL, CIELO_PRODUCTION_QUERY_URL } from './cielo/acquirer.js';

/**
 * The acquirer settings: which connector charges cards by default (each merchant may have its
 * own Cielo connection, set through the operator API), and how to reach it. Validated at
 * start: production refuses to start half-configured (see `acquirerProblems`).
 */
export type AcquirerKind = 'sandbox' | 'cielo';

export interface AcquirerConfig {
  /** Undefined when ACQUIRER was not set (sandbox mode then uses the sandbox acquirer). */
  kind: AcquirerKind | undefined;
  /** ACQUIRER as written, so production can tell "not set" from "set to sandbox". */
  explicit: boolean;
  timeoutMs: number;
  cielo: {
    apiUrl: string;
    queryUrl: string;
    merchantId: string | undefined;
    merchantKey: string | undefined;
    environment: 'production' | 'sandbox';
  };
}

type Env = Record<string, string | undefined>;

/** An http(s) origin (with an optional path prefix): Cielo's, or an operator's own proxy. */
export function acquirerUrl(value: string, name: string, fail: Fail): string {
  return serviceUrl(value, name, fail, 'use CIELO_MERCHANT_ID and CIELO_MERCHANT_KEY');
}

/** Cielo's sandbox answers with codes of its own; its hosts say "sandbox" in their names. */
export function environmentOf(apiUrl: string, explicit: string | undefined, fail: Fail): 'production' | 'sandbox' {
  if (explicit === undefined || explicit === '') return new URL(apiUrl).hostname.includes('sandbox') ? 'sandbox' : 'production';
  if (explicit !== 'production' && explicit !== 'sandbox') fail(`CIELO_ENVIRONMENT must be "production" or "sandbox", got "${explicit}"`);
  return explicit as 'production' | 'sandbox';
}

export function loadAcquirerConfig(env: Env, fail: Fail, integer: (value: string | undefined, fallback: number, name: string, min: number, max: number) => number): AcquirerConfig {
  const raw = env.ACQUIRER?.trim() || undefined;
  if (raw !== undefined && raw !== 'sandbox' && raw !== 'cielo') fail(`ACQUIRER must be "sandbox" or "cielo", got "${raw}"`);
  const apiUrl = acquirerUrl(env.CIELO_API_URL || CIELO_PRODUCTION_API_URL, 'CIELO_API_URL', fail);
  return {
    kind: raw as AcquirerKind | undefined,
    explicit: raw !== undefined,
    timeoutMs: integer(env.ACQUIRER_TIMEOUT_MS, 10_000, 'ACQUIRER_TIMEOUT_MS', 100, 120_000),
    cielo: {
      apiUrl,
      queryUrl: acquirerUrl(env.CIELO_QUERY_URL || CIELO_PRODUCTION_QUERY_URL, 'CIELO_QUERY_URL', fail),
      merchantId: env.CIELO_MERCHANT_ID?.trim() || undefined,
      merchantKey: env.CIELO_MERCHANT_KEY?.trim() || undefined,
      environment: environmentOf(apiUrl, env.CIELO_ENVIRONMENT?.trim(), fail),
    },
  };
}

/** What keeps the acquirer settings from starting the service in this mode (empty = fine). */
export function acquirerProblems(config: AcquirerConfig, mode: 'sandbox' | 'production'): string[] {
  const problems: string[] = [];
  if (mode === 'production' && !config.explicit) {
    problems.push('ACQUIRER is required in production: "cielo" to charge real cards, or "sandbox" to state that nothing reaches a card network');
  }
  if (config.kind === 'cielo') {
    if (!config.cielo.merchantId) problems.push('CIELO_MERCHANT_ID is required with ACQUIRER=cielo');
    if (!config.cielo.merchantKey) problems.push('CIELO_MERCHANT_KEY is required with ACQUIRER=cielo');
  }
  return problems;
}

/** The warning every production start with the sandbox acquirer logs, and /readyz repeats. */
export const SANDBOX_IN_PRODUCTION_WARNING =
  'ACQUIRER=sandbox in production: payments are decided by test card numbers and nothing reaches a card network';
