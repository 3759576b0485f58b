/**
 * The gateway's TypeScript SDK: a typed client generated from the OpenAPI document
 * (`schema.d.ts`, written by `npm run sdk:generate` with openapi-typescript; calls go through
 * openapi-fetch), plus what every integration writes by hand otherwise:
 * - tokens: logs in with userName/password (the gateway API's token, the integration API's
 *   login), reuses the token, logs in again before it expires and once more on a 401;
 * - Idempotency-Key: every POST, PUT, PATCH and DELETE carries one (a fresh UUID unless the
 *   call gives its own, which is what a retry of the same operation should do);
 * - webhooks: `verifyWebhook` checks the Standard Webhooks signature of a delivery (./webhooks.ts).
 *
 *   const gateway = createGatewayClient({ baseUrl: 'http://localhost:8080', userName, password });
 *   const { data, error } = await gateway.POST('/gateway/v1/payments', { body: { ... } });
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders, type WebhookNotification } from './webhooks.js';

/** A schema of the document by name: `Schema<'PaymentResponse'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface GatewayClientOptions {
  /** Where the gateway answers, without a path: `http://localhost:8080`. */
  baseUrl: string;
  /** A merchant credential (gateway and integration APIs, by its scopes). */
  userName?: string;
  password?: string;
  /** The operator key (ADMIN_API_KEY), for /admin and /sandbox operations. */
  adminKey?: string;
  /** Log in again this many seconds before a token expires (default 60). */
  refreshBeforeSeconds?: number;
  /** fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch (default Date.now); tests move it. */
  now?: () => number;
}

/** A login that did not give a token (wrong password, revoked credential, too many attempts). */
export class GatewayAuthError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayAuthError';
  }
}

export type Api = 'gateway' | 'integration';

const LOGIN_PATHS: Record<Api, string> = {
  gateway: '/gateway/api/auth/token',
  integration: '/integration/api/authentication/login',
};
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One API's token: fetched on first use, shared by concurrent calls, renewed before it expires. */
class TokenSource {
  private token: string | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | undefined;
  /** How many logins this source made (tests and diagnostics). */
  logins = 0;

  constructor(
    private readonly login: () => Promise<{ accessToken: string; expiresAt: number }>,
    private readonly now: () => number,
    private readonly marginMs: number,
  ) {}

  get(): Promise<string> {
    if (this.token && this.now() < this.expiresAt - this.marginMs) return Promise.resolve(this.token);
    this.pending ??= this.login().then(
      ({ accessToken, expiresAt }) => {
        this.logins += 1;
        this.token = accessToken;
        this.expiresAt = expiresAt;
        this.pending = undefined;
        return accessToken;
      },
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    return this.pending;
  }

  /** The token was refused (revoked, server restarted with other keys): the next call logs in. */
  invalidate(): void {
    this.token = undefined;
  }

  /** When the current token expires (ms), or undefined before the first login. */
  get expiry(): number | undefined {
    return this.token ? this.expiresAt : undefined;
  }
}

export type GatewayClient = Client<paths> & {
  /** The merchant's tokens, per API: `tokens.gateway.get()` logs in if needed. */
  readonly tokens: Record<Api, TokenSource>;
};

/** Which credential a path takes: its API's token, the operator key, or none. */
function authFor(pathname: string): Api | 'admin' | undefined {
  if (pathname === LOGIN_PATHS.gateway || pathname === LOGIN_PATHS.integration) return undefined;
  if (pathname.startsWith('/gateway/')) return 'gateway';
  if (pathname.startsWith('/integration/')) return 'integration';
  if (pathname.startsWith('/admin/') || pathname.startsWith('/sandbox/')) return 'admin';
  return undefined;
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const margin = (options.refreshBeforeSeconds ?? 60) * 1000;

  const login = (api: Api) => async () => {
    if (!options.userName || !options.password) throw new GatewayAuthError(0, `userName and password are required to call the ${api} API`);
    const res = await fetchImpl(
      new Request(`${baseUrl}${LOGIN_PATHS[api]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: options.userName, password: options.password }),
      }),
    );
    const body = (await res.json().catch(() => ({}))) as { accessToken?: string | null; expiration?: string | null; message?: string };
    if (!res.ok || !body.accessToken) throw new GatewayAuthError(res.status, body.message ?? `login failed with ${res.status}`);
    // The token's own expiry, on this machine's clock: the server's `expiration` minus its `created` would be
    // the same length; when absent, an hour (the server's default TOKEN_TTL_SECONDS).
    const expiresAt = body.expiration ? Date.parse(body.expiration) : now() + 3600_000;
    return { accessToken: body.accessToken, expiresAt: Number.isNaN(expiresAt) ? now() + 3600_000 : expiresAt };
  };
  const tokens: Record<Api, TokenSource> = {
    gateway: new TokenSource(login('gateway'), now, margin),
    integration: new TokenSource(login('integration'), now, margin),
  };

  // Requests authenticated by a token, kept (cloned, body included) to be sent again once after a 401.
  const replayable = new Map<string, Request>();

  const middleware: Middleware = {
    async onRequest({ request, id }) {
      if (MUTATING.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());
      if (request.headers.has('authorization')) return request;
      const auth = authFor(new URL(request.url).pathname);
      if (auth === 'admin') {
        if (options.adminKey) request.headers.set('authorization', `Bearer ${options.adminKey}`);
      } else if (auth) {
        request.headers.set('authorization', `Bearer ${await tokens[auth].get()}`);
        replayable.set(id, request.clone());
      }
      return request;
    },
    async onResponse({ response, id }) {
      const original = replayable.get(id);
      replayable.delete(id);
      if (response.status !== 401 || !original) return response;
      const api = authFor(new URL(original.url).pathname) as Api;
      tokens[api].invalidate();
      original.headers.set('authorization', `Bearer ${await tokens[api].get()}`);
      return fetchImpl(original);
    },
    onError({ id }) {
      replayable.delete(id);
    },
  };

  const client = createClient<paths>({ baseUrl, fetch: (request: Request) => fetchImpl(request) });
  client.use(middleware);
  return Object.assign(client, { tokens });
}
