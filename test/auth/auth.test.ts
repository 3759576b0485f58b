import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { gatewayAuth } from '../../src/http/guards.js';

const GW_TOKEN = '/gateway/api/auth/token';
const INT_LOGIN = '/integration/api/authentication/login';

describe(`authentication (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  async function credential(scopes: ('payments' | 'recurrence' | 'integration')[], allowedIps?: string[]) {
    const merchant = await t.ctx.merchants.create({ name: 'Loja', documentNumber: '52998224725' });
    return t.ctx.merchants.createCredential(merchant.merchantId, { scopes, allowedIps });
  }

  it('issues a gateway token in the seed shape', async () => {
    const c = await credential(['payments']);
    const res = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ authenticated: true, message: 'OK' });
    expect(body.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(Date.parse(body.expiration) - Date.parse(body.created)).toBe(3600 * 1000);
    expect(body.created).toMatch(/Z$/);
    const me = await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: { authorization: `Bearer ${body.accessToken}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ userName: c.userName, merchantId: c.merchantId, scopes: ['payments'] });
  });

  it('answers a wrong password with 401 in the token shape', async () => {
    const c = await credential(['payments']);
    const res = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'wrong' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ authenticated: false, created: null, expiration: null, accessToken: null, message: 'Invalid userName or password.' });
  });

  it('validates the login body sizes (userName <= 30, password <= 256)', async () => {
    const res = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: 'u'.repeat(31), password: 'p'.repeat(257) } });
    expect(res.statusCode).toBe(400);
    expect(res.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['password', 'userName']);
  });

  it('accepts a token only at the API that issued it', async () => {
    const gw = await t.merchant({ api: 'gateway' });
    const int = await t.merchant({ api: 'integration' });
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: gw.headers })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/integration/api/me', headers: int.headers })).statusCode).toBe(200);
    const crossed = await t.inject({ method: 'GET', url: '/integration/api/me', headers: gw.headers });
    expect(crossed.statusCode).toBe(401);
    expect(crossed.json()[0].tag).toBe('unauthorized');
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: int.headers })).statusCode).toBe(401);
  });

  it('refuses missing, malformed and tampered tokens with 401', async () => {
    const m = await t.merchant();
    for (const authorization of [undefined, 'Basic abc', 'Bearer', `Bearer ${m.token}x`, `Bearer ${m.token.split('.').slice(0, 2).join('.')}.AAAA`]) {
      const res = await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: authorization ? { authorization } : {} });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()[0].tag).toBe('unauthorized');
    }
  });

  it('refuses the integration login without the integration scope (403, token shape)', async () => {
    const c = await credential(['payments', 'recurrence']);
    const res = await t.inject({ method: 'POST', url: INT_LOGIN, payload: { userName: c.userName, password: c.password } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ authenticated: false, accessToken: null });
  });

  it('enforces scopes on gateway calls (403 outside the token scopes)', async () => {
    const t2 = await testApp({
      routes: (app, ctx) => {
        app.get('/gateway/test/payments-only', { onRequest: gatewayAuth(ctx, 'payments') }, async () => ({ ok: true }));
      },
    });
    try {
      const m = await t2.merchant({ scopes: ['recurrence'] });
      const res = await t2.inject({ method: 'GET', url: '/gateway/test/payments-only', headers: m.headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()[0].tag).toBe('insufficient_scope');
      const full = await t2.merchant({ scopes: ['payments'] });
      expect((await t2.inject({ method: 'GET', url: '/gateway/test/payments-only', headers: full.headers })).statusCode).toBe(200);
    } finally {
      await t2.close();
    }
  });

  it('expires tokens after TOKEN_TTL_SECONDS of wall-clock time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const m = await t.merchant();
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers })).statusCode).toBe(200);
    vi.setSystemTime(Date.now() + 3601 * 1000);
    const res = await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers });
    expect(res.statusCode).toBe(401);
    expect(res.json()[0].description).toBe('Token expired.');
  });

  it('does not let the sandbox clock expire tokens (security timers use the wall clock)', async () => {
    const m = await t.merchant();
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 2 } });
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers })).statusCode).toBe(200);
  });

  it('revokes a credential at once: its issued tokens stop working', async () => {
    const m = await t.merchant();
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers })).statusCode).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/admin/credentials/${m.userName}`, headers: t.adminHeaders });
    expect(del.statusCode).toBe(200);
    expect(del.json().userName).toBe(m.userName);
    const after = await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers });
    expect(after.statusCode).toBe(401);
    const relogin = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: m.userName, password: m.password } });
    expect(relogin.statusCode).toBe(401);
    expect((await t.inject({ method: 'DELETE', url: `/admin/credentials/${m.userName}`, headers: t.adminHeaders })).statusCode).toBe(404);
  });

  describe('lockout', () => {
    it('locks a userName for 15 minutes after 5 failures within 15 minutes (429 + Retry-After)', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const c = await credential(['payments']);
      for (let i = 0; i < 5; i++) {
        const res = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: `bad${i}` } });
        expect(res.statusCode).toBe(401);
      }
      const locked = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } });
      expect(locked.statusCode).toBe(429);
      expect(locked.json()).toMatchObject({ authenticated: false, accessToken: null });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(890);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(900);
      // The lock applies to the integration login as well: it is per userName.
      expect((await t.inject({ method: 'POST', url: INT_LOGIN, payload: { userName: c.userName, password: c.password } })).statusCode).toBe(429);

      vi.setSystemTime(Date.now() + 15 * 60 * 1000 + 1000);
      const unlocked = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } });
      expect(unlocked.statusCode).toBe(200);
    });

    it('starts a new window when failures are more than 15 minutes apart', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const c = await credential(['payments']);
      for (let i = 0; i < 4; i++) await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'bad' } });
      vi.setSystemTime(Date.now() + 16 * 60 * 1000);
      await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'bad' } });
      const res = await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } });
      expect(res.statusCode).toBe(200);
    });

    it('a success resets the failure count', async () => {
      const c = await credential(['payments']);
      for (let i = 0; i < 4; i++) await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'bad' } });
      expect((await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } })).statusCode).toBe(200);
      for (let i = 0; i < 4; i++) await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'bad' } });
      expect((await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: c.password } })).statusCode).toBe(200);
    });

    it('locks unknown userNames too, so the answer does not reveal which exist', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: 'usr_nobody', password: 'x' } })).statusCode).toBe(401);
      }
      expect((await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: 'usr_nobody', password: 'x' } })).statusCode).toBe(429);
    });
  });

  it('runs one password hash for unknown userNames, as for known ones (same response time)', async () => {
    const c = await credential(['payments']);
    const hashes: string[] = [];
    const verify = vi.spyOn(t.ctx.auth as unknown as { verify: (p: string, h: string) => Promise<boolean> }, 'verify');
    verify.mockImplementation(async (_p, h) => {
      hashes.push(h);
      return false;
    });
    await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: c.userName, password: 'bad' } });
    await t.inject({ method: 'POST', url: GW_TOKEN, payload: { userName: 'usr_does_not_exist', password: 'bad' } });
    expect(hashes).toHaveLength(2);
    // Both are real scrypt hashes with the same cost parameters.
    expect(hashes[0].split('$').slice(0, 4)).toEqual(hashes[1].split('$').slice(0, 4));
    expect(hashes[1]).toMatch(/^scrypt\$/);
  });

  describe('allowedIps', () => {
    it('refuses logins and calls from addresses outside the list (CIDR), 403', async () => {
      const c = await credential(['payments'], ['10.0.0.0/8', '2001:db8::/32']);
      const outside = await t.inject({ method: 'POST', url: GW_TOKEN, remoteAddress: '192.0.2.7', payload: { userName: c.userName, password: c.password } });
      expect(outside.statusCode).toBe(403);
      expect(outside.json()).toMatchObject({ authenticated: false, accessToken: null });
      const inside = await t.inject({ method: 'POST', url: GW_TOKEN, remoteAddress: '10.20.30.40', payload: { userName: c.userName, password: c.password } });
      expect(inside.statusCode).toBe(200);
      const headers = { authorization: `Bearer ${inside.json().accessToken}` };
      expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', remoteAddress: '10.1.1.1', headers })).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', remoteAddress: '::ffff:10.1.1.1', headers })).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: '/gateway/v1/me', remoteAddress: '2001:db8::5', headers })).statusCode).toBe(200);
      const denied = await t.inject({ method: 'GET', url: '/gateway/v1/me', remoteAddress: '11.0.0.1', headers });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()[0].tag).toBe('ip_not_allowed');
    });

    it('rejects malformed entries when the credential is created', async () => {
      const merchant = await t.ctx.merchants.create({ name: 'Loja', documentNumber: '52998224725' });
      const res = await t.inject({
        method: 'POST',
        url: `/admin/merchants/${merchant.merchantId}/credentials`,
        headers: t.adminHeaders,
        payload: { scopes: ['payments'], allowedIps: ['10.0.0.1', '300.1.1.1/8'] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()[0].tag).toBe('allowedIps[1]');
    });

    it('uses X-Forwarded-For only from the proxies TRUST_PROXY names', async () => {
      const trusting = await testApp({ env: { TRUST_PROXY: '127.0.0.1' } });
      try {
        const merchant = await trusting.ctx.merchants.create({ name: 'Loja', documentNumber: '52998224725' });
        const c = await trusting.ctx.merchants.createCredential(merchant.merchantId, { scopes: ['payments'], allowedIps: ['203.0.113.9'] });
        const viaProxy = await trusting.inject({
          method: 'POST',
          url: GW_TOKEN,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': '203.0.113.9' },
          payload: { userName: c.userName, password: c.password },
        });
        expect(viaProxy.statusCode).toBe(200);
        const untrustedHop = await trusting.inject({
          method: 'POST',
          url: GW_TOKEN,
          remoteAddress: '198.51.100.1',
          headers: { 'x-forwarded-for': '203.0.113.9' },
          payload: { userName: c.userName, password: c.password },
        });
        expect(untrustedHop.statusCode).toBe(403);
      } finally {
        await trusting.close();
      }
      // Without TRUST_PROXY the header is ignored.
      const c = await credential(['payments'], ['203.0.113.9']);
      const spoofed = await t.inject({
        method: 'POST',
        url: GW_TOKEN,
        headers: { 'x-forwarded-for': '203.0.113.9' },
        payload: { userName: c.userName, password: c.password },
      });
      expect(spoofed.statusCode).toBe(403);
    });
  });
});
