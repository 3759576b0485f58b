import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayClient, GatewayAuthError, verifyWebhook, WebhookVerificationError, type GatewayClient } from '../../sdk/src/index.js';
import { testDialect } from '../support/database.js';
import { Receiver } from '../webhooks/receiver.js';
import { runningGateway, until, type RunningGateway } from './server.js';

/** The SDK (sdk/) against the real server over HTTP: every call below is typed from schema.d.ts. */
describe(`TypeScript SDK against a running gateway (${testDialect})`, () => {
  let g: RunningGateway;
  let sdk: GatewayClient;
  const requests: Request[] = [];
  // Every request the SDK sends, seen on its way out (what the server receives).
  const recordingFetch = (request: Request) => {
    requests.push(request.clone());
    return fetch(request);
  };

  beforeAll(async () => {
    g = await runningGateway();
    sdk = createGatewayClient({ baseUrl: g.baseUrl, userName: g.merchant.userName, password: g.merchant.password, adminKey: g.t.ctx.adminApiKey, fetch: recordingFetch as typeof fetch });
  });
  afterAll(() => g.close());
  beforeEach(() => {
    requests.length = 0;
  });

  const paymentBody = (vaultId: string, referenceTransaction: string) => ({
    payment: { transactionType: 'credit' as const, amount: 2500, productType: 'avista' as const, installments: 1 },
    sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    cardInfo: { vaultId, cardholderName: 'MARIA SILVA' },
    customer: { documentType: 'cpf' as const, documentNumber: '52998224725', email: 'maria@example.com' },
    referenceTransaction,
  });

  async function vaultCard(): Promise<string> {
    const { data, error, response } = await sdk.POST('/gateway/v1/vaults/cards', {
      body: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA SILVA' },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(201);
    return data!.vaultId;
  }

  it('logs in with userName/password on first use and sends the token (GET /gateway/v1/me)', async () => {
    const { data, error } = await sdk.GET('/gateway/v1/me');
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ merchantId: g.merchant.merchantId, userName: g.merchant.userName });
    expect(requests.map((r) => new URL(r.url).pathname)).toEqual(['/gateway/api/auth/token', '/gateway/v1/me']);
    expect(requests[1].headers.get('authorization')).toMatch(/^Bearer ey/);
    // The integration API has its own login, made when first needed.
    const me = await sdk.GET('/integration/api/me');
    expect(me.data).toMatchObject({ merchantId: g.merchant.merchantId });
    expect(sdk.tokens.integration.logins).toBe(1);
  });

  it('creates a vault card and a payment, and reads the payment back', async () => {
    const vaultId = await vaultCard();
    const created = await sdk.POST('/gateway/v1/payments', { body: paymentBody(vaultId, 'sdk-order-1') });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ status: 'Authorized', returnCode: '00', maskedCardNumber: '411111******1111' });
    const paymentId = created.data!.paymentId;
    const read = await sdk.GET('/gateway/v1/payments/{paymentId}', { params: { path: { paymentId } } });
    expect(read.data).toMatchObject({ paymentId, status: 'Authorized', amount: 2500 });
    // Each mutating call got its own Idempotency-Key; reads got none.
    const keys = requests.filter((r) => r.method === 'POST').map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys.every((k) => /^[0-9a-f-]{36}$/.test(k ?? ''))).toBe(true);
    expect(new Set(keys).size).toBe(2);
    expect(requests.find((r) => r.method === 'GET')!.headers.has('idempotency-key')).toBe(false);
  });

  it('a retry with the same Idempotency-Key answers the first payment; without one, each call is a new payment', async () => {
    const vaultId = await vaultCard();
    const body = paymentBody(vaultId, 'sdk-order-2');
    const first = await sdk.POST('/gateway/v1/payments', { body, headers: { 'Idempotency-Key': 'sdk-retry-1' } });
    const retry = await sdk.POST('/gateway/v1/payments', { body, headers: { 'Idempotency-Key': 'sdk-retry-1' } });
    expect(first.response.status).toBe(201);
    expect(retry.data!.paymentId).toBe(first.data!.paymentId);
    expect(requests.filter((r) => r.url.endsWith('/payments')).map((r) => r.headers.get('idempotency-key'))).toEqual(['sdk-retry-1', 'sdk-retry-1']);
    const other = await sdk.POST('/gateway/v1/payments', { body });
    expect(other.data!.paymentId).not.toBe(first.data!.paymentId);
  });

  it('logs in again before the token expires, and once more when a token is refused (401)', async () => {
    let clock = Date.now();
    const logins = () => requests.filter((r) => r.url.endsWith('/api/auth/token')).length;
    let spoil = false;
    const client = createGatewayClient({
      baseUrl: g.baseUrl,
      userName: g.merchant.userName,
      password: g.merchant.password,
      now: () => clock,
      fetch: ((request: Request) => {
        if (spoil && !request.url.endsWith('/token')) {
          spoil = false;
          request.headers.set('authorization', 'Bearer not-a-token');
        }
        return recordingFetch(request);
      }) as typeof fetch,
    });
    expect((await client.GET('/gateway/v1/me')).response.status).toBe(200);
    expect((await client.GET('/gateway/v1/me')).response.status).toBe(200);
    expect(logins()).toBe(1); // the token is reused
    const expiry = client.tokens.gateway.expiry!;
    expect(expiry - Date.now()).toBeGreaterThan(3000_000); // an hour, the server's TOKEN_TTL_SECONDS
    clock = expiry - 30_000; // within the default 60 s margin: renewed before the server would refuse it
    expect((await client.GET('/gateway/v1/me')).response.status).toBe(200);
    expect(logins()).toBe(2);
    const sent = requests.filter((r) => r.url.endsWith('/v1/me')).map((r) => r.headers.get('authorization'));
    expect(sent[2]).not.toBe(sent[1]);

    // A refused token (here spoiled on the way) is dropped: one new login, the call sent again, body and key kept.
    clock = Date.now();
    spoil = true;
    const { data, response } = await client.POST('/gateway/v1/vaults/cards', {
      body: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA SILVA' },
      headers: { 'Idempotency-Key': 'sdk-401-retry' },
    });
    expect(response.status).toBe(201);
    expect(data!.vaultId).toBeTruthy();
    expect(logins()).toBe(3);
    const vaultCalls = requests.filter((r) => r.url.endsWith('/vaults/cards'));
    expect(vaultCalls.map((r) => r.headers.get('idempotency-key'))).toEqual(['sdk-401-retry', 'sdk-401-retry']);
  });

  it('a wrong password is a GatewayAuthError, and the password never appears in it', async () => {
    const client = createGatewayClient({ baseUrl: g.baseUrl, userName: g.merchant.userName, password: 'wrong-password-123' });
    const failure = await client.GET('/gateway/v1/me').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayAuthError);
    expect((failure as GatewayAuthError).status).toBe(401);
    expect(String((failure as Error).message)).not.toContain('wrong-password-123');
  });

  it('verifies a real webhook delivery, and refuses a tampered body or another secret', async () => {
    const receiver = await new Receiver().start();
    try {
      const subscription = await sdk.POST('/integration/api/webhooks/subscriptions', {
        params: { query: { accountNumber: String(g.merchant.accountNumber) } },
        body: { url: receiver.url('/hooks') },
      });
      expect(subscription.response.status).toBe(200);
      const secret = subscription.data!.secret;
      const vaultId = await vaultCard();
      const payment = await sdk.POST('/gateway/v1/payments', { body: paymentBody(vaultId, 'sdk-order-3') });
      const delivery = await until('the webhook delivery', () => receiver.received.find((r) => r.json?.nsu === payment.data!.nsu));
      const notification = verifyWebhook(secret, delivery.headers, delivery.body);
      expect(notification).toMatchObject({ type: 'TransactionStatus', newValue: 'Authorized', nsu: payment.data!.nsu });
      expect(() => verifyWebhook(secret, delivery.headers, delivery.body.replace('Authorized', 'Canceled'))).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, delivery.headers, delivery.body)).toThrow(WebhookVerificationError);
      // fetch's Headers work as well as Node's header object.
      const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
      expect(verifyWebhook(secret, headers, delivery.body).nsu).toBe(payment.data!.nsu);
    } finally {
      await sdk.DELETE('/integration/api/webhooks/subscriptions', { params: { query: { accountNumber: String(g.merchant.accountNumber) } } });
      await receiver.stop();
    }
  });

  it('sends the operator key to /sandbox operations', async () => {
    const { data, response } = await sdk.GET('/sandbox/clock');
    expect(response.status).toBe(200);
    expect(data).toHaveProperty('now');
    expect(requests.at(-1)!.headers.get('authorization')).toBe(`Bearer ${g.t.ctx.adminApiKey}`);
  });

  it('examples/sdk-quickstart.ts (the README\'s SDK walkthrough) runs against the server', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/sdk-quickstart.ts'], {
      env: { ...process.env, GATEWAY_URL: g.baseUrl, USER: g.merchant.userName, PASS: g.merchant.password, ADMIN: g.t.ctx.adminApiKey },
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toContain('payments');
    expect(lines[1]).toMatch(/ Authorized 00$/);
    expect(lines[2]).toBe('Authorized');
    expect(lines[3]).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
