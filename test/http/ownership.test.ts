import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { integrationAuth, gatewayAuth, principalOf } from '../../src/http/guards.js';
import { requireOwnAccount, requireOwnMerchantId } from '../../src/http/ownership.js';

describe(`ownership helpers (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({
      routes: (app, ctx) => {
        app.get('/integration/test/account', {
          onRequest: integrationAuth(ctx),
          schema: { querystring: Type.Object({ accountNumber: Type.Optional(Type.String()) }) },
          handler: async (request) => ({ accountNumber: requireOwnAccount(principalOf(request), request.query.accountNumber) }),
        });
        app.get('/gateway/test/billing', {
          onRequest: gatewayAuth(ctx, 'recurrence'),
          schema: { querystring: Type.Object({ mid: Type.Optional(Type.String()) }) },
          handler: async (request) => ({ mid: requireOwnMerchantId(principalOf(request), request.query.mid, 'query.mid') }),
        });
      },
    });
  });
  afterAll(() => t.close());

  it('accepts the caller\'s accountNumber, 403 for another, 400 when malformed', async () => {
    const me = await t.merchant({ api: 'integration' });
    const other = await t.merchant({ api: 'integration' });
    const ok = await t.inject({ method: 'GET', url: `/integration/test/account?accountNumber=${me.accountNumber}`, headers: me.headers });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ accountNumber: me.accountNumber });
    const foreign = await t.inject({ method: 'GET', url: `/integration/test/account?accountNumber=${other.accountNumber}`, headers: me.headers });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()[0].tag).toBe('forbidden');
    for (const value of ['abc', '-1', '0', '1.5', '']) {
      const bad = await t.inject({ method: 'GET', url: `/integration/test/account?accountNumber=${value}`, headers: me.headers });
      expect(bad.statusCode, value).toBe(400);
      expect(bad.json()[0].tag).toBe('query.accountNumber');
    }
  });

  it('accepts the caller\'s mid, 403 for another merchant, 400 when malformed', async () => {
    const me = await t.merchant();
    const other = await t.merchant();
    expect((await t.inject({ method: 'GET', url: `/gateway/test/billing?mid=${me.merchantId}`, headers: me.headers })).statusCode).toBe(200);
    const foreign = await t.inject({ method: 'GET', url: `/gateway/test/billing?mid=${other.merchantId}`, headers: me.headers });
    expect(foreign.statusCode).toBe(403);
    const bad = await t.inject({ method: 'GET', url: `/gateway/test/billing?mid=${'x'.repeat(21)}`, headers: me.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()[0].tag).toBe('query.mid');
  });
});
