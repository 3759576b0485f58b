import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

describe(`logs (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({
      routes: (app) => {
        // A careless handler that logs what it received: redaction must still hold.
        app.post('/gateway/test/careless', async (request) => {
          request.log.info({ body: request.body, headers: request.headers }, 'careless log');
          request.log.info({ cardInfo: (request.body as { cardInfo: unknown }).cardInfo }, 'card info');
          return { ok: true };
        });
      },
    });
  });
  afterAll(() => t.close());

  it('writes one line per request with route, status and duration', async () => {
    const before = t.logs.lines.length;
    await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-one-line' } });
    const lines = t.logs.lines.slice(before).map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.reqId === 'req-one-line');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ msg: 'request', method: 'GET', route: '/healthz', statusCode: 200 });
    expect(typeof mine[0].durationMs).toBe('number');
  });

  it('never writes passwords, tokens or card data', async () => {
    const m = await t.merchant();
    const card = { cardNumber: '4111111111111111', securityCode: '737', encryptedCard: 'RSA-OAEP-BLOB-xyz', numberToken: 'tok_secret_123' };
    await t.inject({ method: 'POST', url: '/gateway/test/careless', headers: m.headers, payload: { cardInfo: card, password: m.password } });
    await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName: m.userName, password: `${m.password}-wrong` } });
    await t.inject({ method: 'GET', url: '/gateway/v1/cards/4111111111111111' });
    const text = t.logs.text;
    expect(text).toContain('careless log'); // the lines were written...
    expect(text).toContain('[redacted]'); // ...with the fields censored
    for (const secret of [m.password, m.token, '4111111111111111', 'RSA-OAEP-BLOB-xyz', 'tok_secret_123', '"737"', t.ctx.adminApiKey]) {
      expect(text, secret).not.toContain(secret);
    }
  });
});
