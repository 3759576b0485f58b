import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallClockNow } from '../clock.js';
import { DomainError, type ErrorItem, invalid, unavailable } from '../domain/errors.js';
import { EXAMPLES } from '../http/examples.js';
import { verify } from '../modules/webhooks/signature.js';
import type { Command, Run } from './command.js';

/**
 * `gateway listen` and `gateway trigger`: webhooks on a laptop, as `stripe listen` and
 * `stripe trigger` do. Both are clients of a running gateway over its public HTTP API (a
 * merchant credential: GATEWAY_USER_NAME, GATEWAY_PASSWORD; never on the command line, where
 * `ps` would show it), not of its database.
 */

const SERVER_OPTIONS = {
  url: { type: 'string', help: 'the gateway (default: $GATEWAY_URL or http://localhost:8080)' },
  'user-name': { type: 'string', help: "the merchant credential's userName (default: $GATEWAY_USER_NAME); the password is read from $GATEWAY_PASSWORD" },
} as const;

/** A merchant's session on a running gateway: its two tokens and JSON calls that fail as the error array. */
/** What the gateway answered with an error status: the array it sent, and the status to tell a 404 or a 409 apart. */
class GatewayAnswer extends DomainError {
  constructor(
    readonly status: number,
    errors: ErrorItem[],
  ) {
    super(status >= 500 ? 'upstream_failed' : 'refused', errors);
  }
}

class Session {
  private readonly tokens = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    private readonly userName: string,
    private readonly password: string,
  ) {}

  static from(values: Run['values']): Session {
    const baseUrl = String(values.url ?? process.env.GATEWAY_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw invalid('--url', `--url must be the gateway's http(s) address, got "${baseUrl}".`);
    const userName = String(values['user-name'] ?? process.env.GATEWAY_USER_NAME ?? '');
    const password = process.env.GATEWAY_PASSWORD ?? '';
    const problems = [];
    if (!userName) problems.push({ tag: '--user-name', description: "--user-name (or GATEWAY_USER_NAME) is required: the merchant credential's userName." });
    if (!password) problems.push({ tag: 'GATEWAY_PASSWORD', description: "GATEWAY_PASSWORD is required: the merchant credential's password (read from the environment only)." });
    if (problems.length) throw invalid(problems);
    return new Session(baseUrl, userName, password);
  }

  private async token(api: 'gateway' | 'integration'): Promise<string> {
    const cached = this.tokens.get(api);
    if (cached) return cached;
    const path = api === 'gateway' ? '/gateway/api/auth/token' : '/integration/api/authentication/login';
    const body = await this.send('POST', path, { userName: this.userName, password: this.password }, undefined, 'login');
    if (!body?.accessToken) throw new DomainError('unauthenticated', 'login', `the gateway refused the credential ${this.userName}: ${body?.message ?? 'no token'}.`);
    this.tokens.set(api, body.accessToken);
    return body.accessToken;
  }

  /**
   * A sandbox call that needs the operator key (paying a slip or a Pix charge): read from
   * GATEWAY_ADMIN_KEY only, like the password, so it never shows in the process list.
   */
  async sandbox(method: string, path: string, body?: unknown): Promise<any> {
    const key = process.env.GATEWAY_ADMIN_KEY;
    if (!key) throw invalid('GATEWAY_ADMIN_KEY', `GATEWAY_ADMIN_KEY is required for this event: ${path} takes the operator key.`);
    return this.send(method, path, body, key);
  }

  /** A call with the merchant's token of the path's API; answers the JSON body (null for none). */
  async call(method: string, path: string, body?: unknown): Promise<any> {
    const api = path.startsWith('/integration/') ? 'integration' : 'gateway';
    return this.send(method, path, body, await this.token(api));
  }

  private async send(method: string, path: string, body: unknown, token: string | undefined, what = `${method} ${path}`): Promise<any> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw unavailable('gateway', `cannot reach the gateway at ${this.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`);
    }
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (res.ok || what === 'login') return json;
    // The gateway's own error array, as it answered it.
    if (Array.isArray(json) && json.every((e) => e && typeof e.tag === 'string')) throw new GatewayAnswer(res.status, json);
    throw new GatewayAnswer(res.status, [{ tag: 'gateway', description: `${what} answered ${res.status}.` }]);
  }
}

const time = () => wallClockNow().toISOString().slice(11, 19);

/** What a delivery is, for the printed line: an event type, a conciliation notification's change, a callback's status. */
function describe(body: any): string {
  if (!body || typeof body !== 'object') return 'unknown';
  if (typeof body.type === 'string' && body.type.includes('.')) return body.type;
  if (typeof body.type === 'string') return `${body.type} ${body.oldValue ?? ''}->${body.newValue ?? ''}`;
  if (typeof body.paymentId === 'string') return `callback ${body.status ?? ''}`.trim();
  return 'unknown';
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Headers passed on to --forward-to: the delivery's own (signature included, so the local app verifies it as in production). */
const FORWARDED = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent'];

async function listen({ values, io }: Run): Promise<number> {
  const forwardTo = String(values['forward-to']);
  let target: URL;
  try {
    target = new URL(forwardTo);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw invalid('--forward-to', `--forward-to must be an absolute http(s) URL, got "${forwardTo}".`);
  }
  const session = Session.from(values);
  const account = String((await session.call('GET', '/integration/api/me')).accountNumber);
  const subscriptions = `/integration/api/webhooks/subscriptions?accountNumber=${encodeURIComponent(account)}`;

  // What is registered now, to put back on exit. Its basicAuth is never shown again, so it can
  // only be restored from GATEWAY_WEBHOOK_BASIC_AUTH: without it, listening would lose it.
  let previous: { url: string; basicAuth: boolean; types?: string[] } | null = null;
  try {
    previous = await session.call('GET', subscriptions);
  } catch (error) {
    if (!(error instanceof GatewayAnswer && error.status === 404)) throw error;
  }
  const restoreBasicAuth = process.env.GATEWAY_WEBHOOK_BASIC_AUTH;
  if (previous?.basicAuth && !restoreBasicAuth) {
    throw invalid(
      'GATEWAY_WEBHOOK_BASIC_AUTH',
      `The account's webhook (${previous.url}) has basicAuth, which the gateway never shows again: set GATEWAY_WEBHOOK_BASIC_AUTH to it (Base64 of user:password) so that listen can restore it on exit.`,
    );
  }

  let secret = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const body = raw.toString('utf8');
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = null;
      }
      const what = describe(parsed);
      const id = String(req.headers['webhook-id'] ?? '');
      const timestamp = Number(req.headers['webhook-timestamp'] ?? NaN);
      if (!secret || !id || !Number.isInteger(timestamp) || !verify(secret, id, timestamp, body, String(req.headers['webhook-signature'] ?? ''))) {
        io.out(`${time()} ${what} -> signature invalid, not forwarded`);
        return void res.writeHead(401).end();
      }
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) if (req.headers[name] !== undefined) headers[name] = String(req.headers[name]);
      try {
        const answer = await fetch(target, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(25_000) });
        await answer.arrayBuffer();
        io.out(`${time()} ${what} -> ${answer.status}`);
        // The gateway sees what the local app answered: a 500 there is retried, a 400 rejected, as in production.
        res.writeHead(answer.status).end();
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : String(((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
        io.out(`${time()} ${what} -> error: ${reason}`);
        res.writeHead(502).end();
      }
    })();
  });
  const port = Number(values.port ?? 0);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  const restore = async (): Promise<void> => {
    if (previous) await session.call('POST', subscriptions, { url: previous.url, ...(restoreBasicAuth ? { basicAuth: restoreBasicAuth } : {}), ...(previous.types ? { types: previous.types } : {}) });
    else await session.call('DELETE', subscriptions);
  };

  try {
    // Every type, so every event shows; the secret is the account's own (kept across re-registrations),
    // so the forwarded signatures verify in the local app with the secret it already has.
    secret = (await session.call('POST', subscriptions, { url: receiverUrl, types: ['*'] })).secret;
  } catch (error) {
    server.close();
    throw error;
  }
  io.err(`Ready: deliveries of account ${account} come to ${receiverUrl} and are forwarded to ${target.href} (Ctrl-C to stop and restore the subscription).`);

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  server.close();
  await restore();
  io.err(`${signal}: the subscription is ${previous ? `back to ${previous.url}` : 'removed (there was none before)'}.`);
  return 0;
}

const GUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

async function storedCard(session: Session, cardNumber: string): Promise<string> {
  // A far expiry: the sandbox clock may stand years ahead of the wall clock.
  return (await session.call('POST', '/gateway/v1/vaults/cards', { cardNumber, expirationMonth: '12', expirationYear: '2045', cardholderName: 'MARIA SILVA' })).vaultId;
}

async function pay(session: Session, cardNumber: string, reference: string): Promise<any> {
  const vault = { vaultId: await storedCard(session, cardNumber) };
  return session.call('POST', '/gateway/v1/payments', {
    payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
    sellerInfo: { codeAntiFraud: GUID },
    cardInfo: { vaultId: vault.vaultId, cardholderName: 'MARIA SILVA' },
    customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'maria@example.com' },
    referenceTransaction: reference,
  });
}

const reference = () => `trigger-${randomUUID().slice(0, 8)}`;

/** A monthly plan of the trigger's own (first charge after a day's trial). */
async function plan(session: Session): Promise<string> {
  return session.call('POST', '/gateway/v1/recurrences/plans', { ...EXAMPLES.createPlan, name: `Trigger ${randomUUID().slice(0, 8)}`, trialDays: 1 });
}

async function subscribe(session: Session): Promise<{ planId: string; subscriptionId: string }> {
  const planId = await plan(session);
  const subscriptionId = await session.call('POST', '/gateway/v1/recurrences/subscriptions', { planId, vaultId: await storedCard(session, '4111111111111111'), orderNumber: `T-${randomUUID().slice(0, 8)}` });
  return { planId, subscriptionId };
}

async function issueSlip(session: Session): Promise<any> {
  const account = (await session.call('GET', '/integration/api/me')).accountNumber;
  return session.call('POST', `/integration/api/billissuer/issue?accountNumber=${account}`, { ...EXAMPLES.issueBankSlip, pix: false, referenceCode: reference() });
}

/** Each event `trigger` makes, by the sandbox's own API calls (the events are the real ones). */
const TRIGGERS: Record<string, (session: Session) => Promise<Record<string, unknown>>> = {
  'payment.authorized': async (s) => {
    const p = await pay(s, '4111111111111111', reference());
    return { paymentId: p.paymentId, status: p.status };
  },
  'payment.denied': async (s) => {
    const p = await pay(s, '4000000000009995', reference());
    return { paymentId: p.paymentId, status: p.status, returnCode: p.returnCode };
  },
  'subscription.active': async (s) => subscribe(s),
  'billing.opened': async (s) => subscribe(s),
  'subscription.canceled': async (s) => {
    const created = await subscribe(s);
    await s.call('POST', `/gateway/v1/recurrences/subscriptions/${created.subscriptionId}/status`, { status: 'Canceled' });
    return created;
  },
  'plan.status_changed': async (s) => {
    const planId = await plan(s);
    await s.call('POST', `/gateway/v1/recurrences/plans/${planId}/status`, { status: 'Inactive' });
    return { planId, status: 'Inactive' };
  },
  'payment_link.deactivated': async (s) => {
    const link = await s.call('POST', '/gateway/v1/paymentlink', EXAMPLES.createPaymentLink);
    await s.call('POST', `/gateway/v1/paymentlink/${link.id}/deactivate`);
    return { paymentLinkId: link.id };
  },
  'bank_slip.issued': async (s) => {
    const slip = await issueSlip(s);
    return { bankSlipId: slip.id, status: slip.status };
  },
  'bank_slip.paid': async (s) => {
    const slip = await issueSlip(s);
    // The sandbox bank registers a new slip a moment after it is issued; until then it cannot be paid (409).
    for (let tries = 1; ; tries++) {
      try {
        const paid = await s.sandbox('POST', `/sandbox/bankslips/${slip.id}/pay`, {});
        return { bankSlipId: slip.id, status: paid.status };
      } catch (error) {
        const notYet = error instanceof GatewayAnswer && error.status === 409 && tries < 50;
        if (!notYet) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  },
  'pix_charge.paid': async (s) => {
    const charge = await s.call('POST', '/gateway/v1/pix/charges', { ...EXAMPLES.createPixCharge, referenceTransaction: reference() });
    const paid = await s.sandbox('POST', `/sandbox/pix/${charge.id}/pay`, {});
    return { pixChargeId: charge.id, status: paid.status };
  },
  'payment.canceled': async (s) => {
    const p = await pay(s, '4111111111111111', reference());
    const canceled = await s.call('POST', `/gateway/v1/payments/${p.paymentId}/cancel`);
    return { paymentId: p.paymentId, status: canceled?.status ?? 'Canceled' };
  },
};

async function trigger({ values, positionals, print }: Run): Promise<number> {
  const event = positionals[0];
  const known = Object.keys(TRIGGERS);
  if (!event) throw invalid('EVENT', `the event type is required: gateway trigger EVENT, one of ${known.join(', ')}.`);
  if (!TRIGGERS[event]) throw invalid('EVENT', `gateway trigger makes ${known.join(', ')}; not "${event}".`);
  const session = Session.from(values);
  print({ event, ...(await TRIGGERS[event](session)) });
  return 0;
}

export const LISTEN_COMMANDS: Command[] = [
  {
    name: 'listen',
    summary: "receive the merchant's webhook deliveries here, verify them and forward each to --forward-to, printing `<time> <type> -> <status>`; the subscription is restored on Ctrl-C (sandbox)",
    options: {
      'forward-to': { type: 'string', help: 'where each delivery is POSTed, headers and signature included (http://localhost:3000/hooks)', required: true },
      port: { type: 'string', help: 'local port of the receiver the gateway delivers to (default: any free one)', integer: [0, 65535] },
      ...SERVER_OPTIONS,
    },
    needsSecrets: false,
    run: listen,
  },
  {
    name: 'trigger',
    args: 'EVENT',
    summary: `make the sandbox produce a real event through its API: ${Object.keys(TRIGGERS).join(', ')}`,
    positionals: 1,
    options: { ...SERVER_OPTIONS },
    needsSecrets: false,
    run: trigger,
  },
];
