import { serviceUrl, type Fail } from '../outbound/service-url.js';

/**
 * The 3DS server settings: which connector authenticates buyers, and how to reach it. The
 * sandbox server decides by test cards; `emvco` speaks EMVCo 3DS 2.2 messages (AReq/ARes,
 * results) over HTTP to THREEDS_SERVER_URL. Production without a 3DS server takes external
 * authentications only (a payment asking the gateway to authenticate is refused, 400).
 */
export type ThreeDsServerKind = 'sandbox' | 'emvco' | 'none';

export interface ThreeDsConfig {
  kind: ThreeDsServerKind;
  url: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
  challengeTimeoutSeconds: number;
}

type Env = Record<string, string | undefined>;
type Integer = (value: string | undefined, fallback: number, name: string, min: number, max: number) => number;

export function loadThreeDsConfig(env: Env, mode: 'sandbox' | 'production', fail: Fail, integer: Integer): ThreeDsConfig {
  const raw = env.THREEDS_SERVER?.trim() || (mode === 'sandbox' ? 'sandbox' : 'none');
  if (raw !== 'sandbox' && raw !== 'emvco' && raw !== 'none') fail(`THREEDS_SERVER must be "sandbox", "emvco" or "none", got "${raw}"`);
  const url = env.THREEDS_SERVER_URL?.trim() ? serviceUrl(env.THREEDS_SERVER_URL.trim(), 'THREEDS_SERVER_URL', fail, 'use THREEDS_SERVER_API_KEY') : undefined;
  return {
    kind: raw as ThreeDsServerKind,
    url,
    apiKey: env.THREEDS_SERVER_API_KEY?.trim() || undefined,
    timeoutMs: integer(env.THREEDS_TIMEOUT_MS, 10_000, 'THREEDS_TIMEOUT_MS', 100, 120_000),
    challengeTimeoutSeconds: integer(env.THREEDS_CHALLENGE_TIMEOUT_SECONDS, 600, 'THREEDS_CHALLENGE_TIMEOUT_SECONDS', 30, 3600),
  };
}

/** What keeps the 3DS settings from starting the service (empty = fine). */
export function threeDsProblems(config: ThreeDsConfig): string[] {
  return config.kind === 'emvco' && !config.url ? ['THREEDS_SERVER_URL is required with THREEDS_SERVER=emvco'] : [];
}
