import { isValidIpOrCidr } from '../security/ip-allowlist.js';
import { serviceUrl, type Fail } from '../outbound/service-url.js';

/**
 * The Pix provider settings (PIX_*): who creates the charges and reports the payments. With
 * `sandbox` the gateway plays the PSP itself (it serves the location payloads); with `bcb` a
 * PSP implementing the Central Bank's "API Pix" does, over OAuth2 and mutual TLS. Validated
 * at start: a half-configured `bcb`, or a sandbox whose location URL cannot fit a BR Code,
 * refuses to start (never a silently broken code).
 */
export type PixProviderKind = 'sandbox' | 'bcb';

export interface PixConfig {
  kind: PixProviderKind;
  /** PIX_API_URL: the PSP's API Pix base (e.g. https://pix.example.com/api/v2). */
  apiUrl: string | undefined;
  /** PIX_TOKEN_URL: the OAuth2 token endpoint (default `<origin of PIX_API_URL>/oauth/token`). */
  tokenUrl: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** PIX_CERT_FILE, PIX_KEY_FILE, PIX_CA_FILE: the mutual-TLS client certificate, its key, and the PSP's CA (PEM files). */
  certFile: string | undefined;
  keyFile: string | undefined;
  caFile: string | undefined;
  /** PIX_KEY: the receiving Pix key (chave) of the account at the PSP. */
  pixKey: string | undefined;
  /** PIX_WEBHOOK_PATH: where the PSP POSTs payments (the path `<path>/pix` is served too, as the API Pix appends it). */
  webhookPath: string | undefined;
  /** PIX_WEBHOOK_SECRET: the shared secret the PSP sends (Authorization: Bearer, or as the password of Basic). */
  webhookSecret: string | undefined;
  /** PIX_WEBHOOK_ALLOWED_IPS: addresses/CIDRs the PSP calls from (the mTLS usually ends at the operator's proxy). */
  webhookAllowedIps: string[];
  /** PIX_RECONCILE_INTERVAL_SECONDS / PIX_RECONCILE_WINDOW_SECONDS: how often the PSP's lists are read, and how far back `GET /pix` reads at least (src/modules/pix/reconciliation.ts). */
  reconcileIntervalSeconds: number;
  reconcileWindowSeconds: number;
  timeoutMs: number;
  /** PIX_RECEIVER_ACCOUNT, PIX_RECEIVER_ACCOUNT_TYPE, PIX_RECEIVER_AGENCY: the receiving account a Pix Automático cycle charge (cobr) names. */
  receiverAccount: string | undefined;
  receiverAccountType: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
  receiverAgency: string | undefined;
}

type Env = Record<string, string | undefined>;
type Integer = (value: string | undefined, fallback: number, name: string, min: number, max: number) => number;

/** What a dynamic code's location may take: field 26 holds 99 characters, 22 of them GUI and sub-field heads. */
export const MAX_LOCATION_LENGTH = 77;
/** The txids the gateway writes: a UUID's 32 hex digits (the API Pix asks 26 to 35 alphanumerics for a cob). */
export const TXID_LENGTH = 32;

/** The sandbox location of a txid: `<host><path of PUBLIC_URL>/pix/v2/<txid>` (a BR Code carries no scheme). */
export function sandboxLocation(publicUrl: string, txid: string): string {
  const url = new URL(publicUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/pix/v2/${txid}`;
}

/** The sandbox location of a recurrence's locrec: `<host><path of PUBLIC_URL>/pix/v2/rec/<id>`. */
export function sandboxRecurrenceLocation(publicUrl: string, locationId: string): string {
  const url = new URL(publicUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/pix/v2/rec/${locationId}`;
}

function httpUrl(value: string, name: string, fail: Fail): string {
  return serviceUrl(value, name, fail, 'use PIX_CLIENT_ID and PIX_CLIENT_SECRET');
}

const text = (value: string | undefined) => value?.trim() || undefined;

export function loadPixConfig(env: Env, publicUrl: string, fail: Fail, integer: Integer): PixConfig {
  const kind = (text(env.PIX_PROVIDER) ?? 'sandbox') as PixProviderKind;
  if (kind !== 'sandbox' && kind !== 'bcb') fail(`PIX_PROVIDER must be "sandbox" or "bcb", got "${kind}"`);
  if (kind === 'sandbox') {
    // The gateway serves the locations itself: a PUBLIC_URL too long for the code is refused here,
    // never cut (a code whose location names no host cannot be read by any bank app).
    const location = sandboxLocation(publicUrl, '0'.repeat(TXID_LENGTH));
    if (location.length > MAX_LOCATION_LENGTH) {
      const room = MAX_LOCATION_LENGTH - sandboxLocation('http://x', '0'.repeat(TXID_LENGTH)).length + 1;
      fail(
        `PUBLIC_URL is too long for Pix codes: the location "${sandboxLocation(publicUrl, '<txid>')}" takes ${location.length} characters ` +
          `with its ${TXID_LENGTH}-character txid, and a BR Code holds ${MAX_LOCATION_LENGTH}: the host and path of PUBLIC_URL may take ` +
          `at most ${room} characters. Use a shorter host for PUBLIC_URL.`,
      );
    }
  }
  const webhookPath = text(env.PIX_WEBHOOK_PATH);
  if (webhookPath !== undefined && !/^\/[A-Za-z0-9._~\-/]+$/.test(webhookPath)) fail(`PIX_WEBHOOK_PATH must be an absolute path such as /pix/psp-webhook, got "${webhookPath}"`);
  const allowed = (env.PIX_WEBHOOK_ALLOWED_IPS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = allowed.find((entry) => !isValidIpOrCidr(entry));
  if (bad !== undefined) fail(`PIX_WEBHOOK_ALLOWED_IPS entries must be IP addresses or CIDR ranges, got "${bad}"`);
  const receiverAccount = text(env.PIX_RECEIVER_ACCOUNT);
  if (receiverAccount !== undefined && !/^[0-9A-Za-z-]{1,20}$/.test(receiverAccount)) fail('PIX_RECEIVER_ACCOUNT must be the account number, 1 to 20 characters (digits, letters, hyphen)');
  const receiverAccountType = text(env.PIX_RECEIVER_ACCOUNT_TYPE) ?? 'CORRENTE';
  if (!['CORRENTE', 'POUPANCA', 'PAGAMENTO'].includes(receiverAccountType)) fail(`PIX_RECEIVER_ACCOUNT_TYPE must be CORRENTE, POUPANCA or PAGAMENTO, got "${receiverAccountType}"`);
  const receiverAgency = text(env.PIX_RECEIVER_AGENCY);
  if (receiverAgency !== undefined && !/^\d{1,4}$/.test(receiverAgency)) fail('PIX_RECEIVER_AGENCY must be the branch number, 1 to 4 digits');
  const apiUrl = text(env.PIX_API_URL) && httpUrl(env.PIX_API_URL as string, 'PIX_API_URL', fail);
  const tokenUrl = text(env.PIX_TOKEN_URL) ? httpUrl(env.PIX_TOKEN_URL as string, 'PIX_TOKEN_URL', fail) : apiUrl && `${new URL(apiUrl).origin}/oauth/token`;
  return {
    kind,
    apiUrl,
    tokenUrl,
    clientId: text(env.PIX_CLIENT_ID),
    clientSecret: text(env.PIX_CLIENT_SECRET),
    certFile: text(env.PIX_CERT_FILE),
    keyFile: text(env.PIX_KEY_FILE),
    caFile: text(env.PIX_CA_FILE),
    pixKey: text(env.PIX_KEY),
    webhookPath: webhookPath?.replace(/\/+$/, ''),
    webhookSecret: text(env.PIX_WEBHOOK_SECRET),
    webhookAllowedIps: allowed,
    reconcileIntervalSeconds: integer(env.PIX_RECONCILE_INTERVAL_SECONDS, 300, 'PIX_RECONCILE_INTERVAL_SECONDS', 10, 86_400),
    reconcileWindowSeconds: integer(env.PIX_RECONCILE_WINDOW_SECONDS, 86_400, 'PIX_RECONCILE_WINDOW_SECONDS', 60, 432_000),
    timeoutMs: integer(env.PIX_TIMEOUT_MS, 10_000, 'PIX_TIMEOUT_MS', 100, 120_000),
    receiverAccount,
    receiverAccountType: receiverAccountType as PixConfig['receiverAccountType'],
    receiverAgency,
  };
}

/** What keeps PIX_PROVIDER=bcb from starting (empty = fine). Secrets are named, never echoed. */
export function pixProblems(config: PixConfig, mode: 'sandbox' | 'production'): string[] {
  if (config.kind !== 'bcb') return [];
  const problems: string[] = [];
  const need = (value: unknown, name: string, why: string) => value || problems.push(`${name} is required with PIX_PROVIDER=bcb (${why})`);
  need(config.apiUrl, 'PIX_API_URL', "the PSP's API Pix base URL");
  need(config.clientId, 'PIX_CLIENT_ID', 'OAuth2 client credentials');
  need(config.clientSecret, 'PIX_CLIENT_SECRET', 'OAuth2 client credentials');
  need(config.pixKey, 'PIX_KEY', 'the Pix key that receives the payments');
  need(config.webhookPath, 'PIX_WEBHOOK_PATH', 'where the PSP posts payments');
  need(config.webhookSecret, 'PIX_WEBHOOK_SECRET', "the secret the PSP's webhook calls carry");
  if (config.webhookSecret && config.webhookSecret.length < 16) problems.push('PIX_WEBHOOK_SECRET must be at least 16 characters');
  if (Boolean(config.certFile) !== Boolean(config.keyFile)) problems.push('PIX_CERT_FILE and PIX_KEY_FILE go together (the mutual-TLS certificate and its key)');
  if (mode === 'production') {
    if (!config.certFile) problems.push('PIX_CERT_FILE and PIX_KEY_FILE are required in production with PIX_PROVIDER=bcb (the API Pix requires mutual TLS)');
    if (config.apiUrl?.startsWith('http:')) problems.push('PIX_API_URL must be https in production');
    if (config.webhookAllowedIps.length === 0) problems.push("PIX_WEBHOOK_ALLOWED_IPS is required in production with PIX_PROVIDER=bcb (the PSP's or the proxy's addresses)");
  }
  return problems;
}
