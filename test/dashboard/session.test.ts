import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DashboardClient, cookieHeader } from './support.js';

describe(`dashboard sessions, CSRF and roles (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t?.close());

  it('without a session every page sends to the login, remembering where it was going', async () => {
    const res = await new DashboardClient(t).get('/dashboard/payments?status=2');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fpayments%3Fstatus%3D2');
  });

  it('a merchant logs in with its API credential: HttpOnly, SameSite=Strict cookie scoped to /dashboard; the home shows its userName', async () => {
    const c = new DashboardClient(t);
    const login = await c.loginMerchant(m);
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/dashboard');
    const cookie = (login.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean }[]).find((x) => x.name === 'gw_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(cookie.secure).toBeFalsy();
    const home = await c.get('/dashboard');
    expect(home.statusCode).toBe(200);
    expect(home.headers['content-security-policy']).toContain("script-src 'self'");
    expect(home.headers['cache-control']).toBe('no-store');
    expect(home.body).toContain(m.userName);
    // Only the SHA-256 of the cookie is stored.
    const rows = await t.ctx.database.db.selectFrom('dashboard_sessions').select(['id_hash', 'merchant_id']).execute();
    expect(rows.some((r) => r.merchant_id === m.merchantId)).toBe(true);
    expect(rows.map((r) => r.id_hash)).not.toContain(c.jar.gw_session);
  });

  it('a wrong password is 401 on the page; the sixth try of a locked userName is 429 even with the right password', async () => {
    const victim = await t.merchant();
    const c = new DashboardClient(t);
    for (let i = 0; i < 5; i++) {
      await c.get('/dashboard/login');
      const res = await c.post('/dashboard/login', { userName: victim.userName, password: 'wrong' });
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('Usuário ou senha inválidos.');
    }
    await c.get('/dashboard/login');
    const locked = await c.post('/dashboard/login', { userName: victim.userName, password: victim.password });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // The API shares the lock: the token endpoint refuses too.
    const api = await t.inject({ method: 'POST', url: `${t.config.gatewayBasePath}/api/auth/token`, payload: { userName: victim.userName, password: victim.password } });
    expect(api.statusCode).toBe(429);
  });

  it('a form without its CSRF token is refused (403) and changes nothing; the login form checks its own token', async () => {
    const c = new DashboardClient(t);
    await c.get('/dashboard/login');
    const noToken = await c.post('/dashboard/login', { userName: m.userName, password: m.password }, { csrf: null });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.cookies.find((x: { name: string }) => x.name === 'gw_session')).toBeUndefined();
    await c.loginMerchant(m);
    const logout = await c.post('/dashboard/logout', {}, { csrf: 'forged' });
    expect(logout.statusCode).toBe(403);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    const real = await c.post('/dashboard/logout', {});
    expect(real.statusCode).toBe(303);
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });

  it('a revoked credential ends its dashboard session on the next request', async () => {
    const other = await t.merchant();
    const c = new DashboardClient(t);
    await c.loginMerchant(other);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    await t.ctx.merchants.revokeCredential(other.userName);
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });

  it("a request from an address the credential does not allow ends its dashboard session", async () => {
    const narrow = await t.merchant({ allowedIps: ['127.0.0.1'] });
    const c = new DashboardClient(t);
    await c.loginMerchant(narrow);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    const elsewhere = await t.inject({ method: 'GET', url: '/dashboard', remoteAddress: '10.9.9.9', headers: { cookie: cookieHeader(c.jar) } });
    expect(elsewhere.statusCode).toBe(303);
    // Ended, not only refused there: back at the allowed address the session is gone too.
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });

  it('an idle session ends after DASHBOARD_IDLE_MINUTES (wall clock)', async () => {
    const idle = await testApp({ env: { DASHBOARD_IDLE_MINUTES: '1' } });
    try {
      const who = await idle.merchant();
      const c = new DashboardClient(idle);
      await c.loginMerchant(who);
      expect((await c.get('/dashboard')).statusCode).toBe(200);
      await idle.ctx.database.db.updateTable('dashboard_sessions').set({ last_seen_at: new Date(Date.now() - 61_000).toISOString() }).execute();
      expect((await c.get('/dashboard')).statusCode).toBe(303);
    } finally {
      await idle.close();
    }
  });

  it('the operator logs in with ADMIN_API_KEY; a merchant cannot open operator pages nor the operator merchant pages (404)', async () => {
    const op = new DashboardClient(t);
    const bad = await (async () => {
      await op.get('/dashboard/login/operator');
      return op.post('/dashboard/login/operator', { adminKey: 'not-the-key' });
    })();
    expect(bad.statusCode).toBe(401);
    const login = await op.loginOperator();
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/dashboard/operator/merchants');
    expect((await op.get('/dashboard')).headers.location).toBe('/dashboard/operator/merchants');

    const merchant = new DashboardClient(t);
    await merchant.loginMerchant(m);
    expect((await merchant.get('/dashboard/operator/merchants')).statusCode).toBe(404);
  });

  it('the login never redirects off the dashboard', async () => {
    const c = new DashboardClient(t);
    await c.get('/dashboard/login');
    const res = await c.post('/dashboard/login', { userName: m.userName, password: m.password, next: '//evil.example/x' });
    expect(res.headers.location).toBe('/dashboard');
  });

  it('English on request: the switch sets a cookie and returns to the page', async () => {
    const c = new DashboardClient(t);
    const sw = await c.get('/dashboard/lang/en?back=%2Fdashboard%2Flogin');
    expect(sw.statusCode).toBe(303);
    expect(sw.headers.location).toBe('/dashboard/login');
    const page = await c.get('/dashboard/login');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('Sign in');
  });
});

describe(`dashboard cookies in production (${testDialect})`, () => {
  it('the session cookie is Secure in production', async () => {
    const t = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 5).toString('base64') } });
    try {
      const m = await t.merchant();
      const c = new DashboardClient(t);
      const login = await c.loginMerchant(m);
      expect(login.statusCode).toBe(303);
      const cookie = (login.cookies as { name: string; secure?: boolean; httpOnly?: boolean; sameSite?: string }[]).find((x) => x.name === 'gw_session')!;
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });
    } finally {
      await t.close();
    }
  });
});
