import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DashboardClient } from './support.js';

describe(`operator dashboard: merchants, credentials, pricing, anti-fraud, acquirer (${testDialect})`, () => {
  let t: TestApp;
  let op: DashboardClient;
  let m: TestMerchant;
  const admin = (method: 'GET' | 'POST', url: string, payload?: object) => t.inject({ method, url, headers: t.adminHeaders, payload });

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    op = new DashboardClient(t);
    await op.loginOperator();
  });
  afterAll(() => t?.close());

  async function createMerchant(name: string): Promise<string> {
    await op.get('/dashboard/operator/merchants');
    const res = await op.post('/dashboard/operator/merchants', { name, documentNumber: '11222333000181', legalName: '', email: 'loja@example.com' });
    expect(res.statusCode).toBe(303);
    const id = /\/dashboard\/operator\/merchants\/(mer_[a-z0-9]+)\?done=created$/.exec(res.headers.location as string)![1];
    return id;
  }

  it('lists the merchants and creates one through the form (seen through the admin API)', async () => {
    const list = await op.get('/dashboard/operator/merchants');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(m.merchantId);
    expect(list.body).toContain('Cadastrar lojista');
    const id = await createMerchant('Loja <Nova>');
    const api = await admin('GET', `/admin/merchants/${id}`);
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ name: 'Loja <Nova>', documentNumber: '11222333000181', email: 'loja@example.com', legalName: null });
    const page = await op.get(`/dashboard/operator/merchants/${id}?done=created`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Loja &lt;Nova&gt;');
    expect(page.body).toContain('Lojista cadastrado.');
    expect((await op.get('/dashboard/operator/merchants')).body).toContain(id);
  });

  it('bad input: a 400 page with the messages, nothing written', async () => {
    const before = (await admin('GET', '/admin/merchants?limit=100')).json().total;
    await op.get('/dashboard/operator/merchants');
    const bad = await op.post('/dashboard/operator/merchants', { name: 'X', documentNumber: '11111111111' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('documentNumber must be a valid CPF or CNPJ');
    const short = await op.post('/dashboard/operator/merchants', { name: '', documentNumber: '123' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('name must not be empty.');
    expect(short.body).toContain('documentNumber must have at least 11 characters.');
    expect((await admin('GET', '/admin/merchants?limit=100')).json().total).toBe(before);
  });

  it('a form without the CSRF token is refused and changes nothing', async () => {
    const before = (await admin('GET', '/admin/merchants?limit=100')).json().total;
    const res = await op.post('/dashboard/operator/merchants', { name: 'Sem token', documentNumber: '11222333000181' }, { csrf: null });
    expect(res.statusCode).toBe(403);
    expect((await admin('GET', '/admin/merchants?limit=100')).json().total).toBe(before);
    const pricing = await op.post(`/dashboard/operator/merchants/${m.merchantId}/pricing`, { credit1x: '9.9' }, { csrf: 'forged' });
    expect(pricing.statusCode).toBe(403);
    expect((await admin('GET', `/admin/merchants/${m.merchantId}/pricing`)).json().mdr.credit1x).not.toBe(9.9);
  });

  it('issues a credential (password shown once), which logs in; revoking it ends its use', async () => {
    const id = await createMerchant('Loja Credencial');
    await op.get(`/dashboard/operator/merchants/${id}`);
    const issued = await op.post(`/dashboard/operator/merchants/${id}/credentials`, { scopes: 'payments', allowedIps: '' });
    expect(issued.statusCode).toBe(201);
    const userName = /id="issued-user">([^<]+)</.exec(issued.body)![1];
    const password = /id="issued-password">([^<]+)</.exec(issued.body)![1];
    const login = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName, password } });
    expect(login.statusCode).toBe(200);
    // Shown once: the page read again lists the credential, never its password.
    const again = await op.get(`/dashboard/operator/merchants/${id}`);
    expect(again.body).toContain(userName);
    expect(again.body).not.toContain(password);
    expect(again.body).not.toContain('scrypt');
    // Another merchant's page cannot revoke it (404), its own can.
    expect((await op.post(`/dashboard/operator/merchants/${m.merchantId}/credentials/${userName}/revoke`, {})).statusCode).toBe(404);
    const revoked = await op.post(`/dashboard/operator/merchants/${id}/credentials/${userName}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe(`/dashboard/operator/merchants/${id}?done=revoked`);
    const refused = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName, password } });
    expect(refused.statusCode).toBe(401);
    expect((await op.get(`/dashboard/operator/merchants/${id}`)).body).not.toContain(userName);
  });

  it('credential issue refuses no scope and a bad IP (400, nothing issued)', async () => {
    const id = await createMerchant('Loja Escopo');
    await op.get(`/dashboard/operator/merchants/${id}`);
    const none = await op.post(`/dashboard/operator/merchants/${id}/credentials`, { allowedIps: '' });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('scopes must hold at least one');
    const ip = await op.post(`/dashboard/operator/merchants/${id}/credentials`, { scopes: 'payments', allowedIps: 'not-an-ip' });
    expect(ip.statusCode).toBe(400);
    expect(ip.body).toContain('allowedIps entries must be IP addresses or CIDR ranges.');
    expect(await t.ctx.merchants.credentials(id)).toEqual([]);
  });

  it('sets pricing and anti-fraud as the admin API does; bad values are a 400 with nothing written', async () => {
    const page = await op.get(`/dashboard/operator/merchants/${m.merchantId}`);
    expect(page.body).toContain('MDR crédito à vista');
    const set = await op.post(`/dashboard/operator/merchants/${m.merchantId}/pricing`, { credit1x: '2,5', transactionFee: '0.35', automatic: 'true' });
    expect(set.statusCode).toBe(303);
    const pricing = (await admin('GET', `/admin/merchants/${m.merchantId}/pricing`)).json();
    expect(pricing).toMatchObject({ mdr: { credit1x: 2.5 }, transactionFee: 0.35, prepayment: { automatic: true } });
    const bad = await op.post(`/dashboard/operator/merchants/${m.merchantId}/pricing`, { credit1x: '101', credit2to6: '1.123456', transactionFee: 'abc' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('transactionFee must be a number');
    const bad2 = await op.post(`/dashboard/operator/merchants/${m.merchantId}/pricing`, { credit1x: '101', credit2to6: '1.123456' });
    expect(bad2.statusCode).toBe(400);
    expect(bad2.body).toContain('mdr.credit1x');
    expect(bad2.body).toContain('mdr.credit2to6');
    expect((await admin('GET', `/admin/merchants/${m.merchantId}/pricing`)).json()).toEqual(pricing);

    const af = await op.post(`/dashboard/operator/merchants/${m.merchantId}/antifraud`, { maxPerCard: '3', reviewScore: '40', rejectScore: '70', checkIpCountry: 'false' });
    expect(af.statusCode).toBe(303);
    const settings = (await admin('GET', `/admin/merchants/${m.merchantId}/antifraud`)).json();
    expect(settings).toMatchObject({ velocity: { maxPerCard: 3 }, reviewScore: 40, rejectScore: 70, checkIpCountry: false });
    const afBad = await op.post(`/dashboard/operator/merchants/${m.merchantId}/antifraud`, { reviewScore: '90', rejectScore: '80' });
    expect(afBad.statusCode).toBe(400);
    expect(afBad.body).toContain('reviewScore (90) must be less than rejectScore (80).');
    const afRange = await op.post(`/dashboard/operator/merchants/${m.merchantId}/antifraud`, { windowMinutes: '0', maxPerIp: 'x' });
    expect(afRange.statusCode).toBe(400);
    expect(afRange.body).toContain('velocity.maxPerIp must be a whole number.');
    // Tagged as the field of the API body it fills, as the API would tag it.
    expect(afRange.body).toContain('<code>velocity.maxPerIp</code>');
    expect((await admin('GET', `/admin/merchants/${m.merchantId}/antifraud`)).json()).toEqual(settings);
    expect((await op.get(`/dashboard/operator/merchants/${m.merchantId}?done=antifraud`)).body).toContain('Antifraude salvo.');
  });

  it('sets the acquirer connection (only the key last 4 shown, never the key), then removes it', async () => {
    const id = await createMerchant('Loja Cielo');
    await op.get(`/dashboard/operator/merchants/${id}`);
    const key = 'SECRETKEYabcdefghij0123456789WXYZ';
    const bad = await op.post(`/dashboard/operator/merchants/${id}/acquirer`, { provider: 'cielo', merchantId: '', merchantKey: key, apiUrl: 'ftp://x' });
    expect(bad.statusCode).toBe(400);
    expect((await admin('GET', `/admin/merchants/${id}/acquirer`)).statusCode).toBe(404);
    const set = await op.post(`/dashboard/operator/merchants/${id}/acquirer`, { provider: 'cielo', merchantId: 'cielo-mid-1', merchantKey: key, apiUrl: '', queryUrl: '', environment: 'sandbox' });
    expect(set.statusCode).toBe(303);
    expect((await admin('GET', `/admin/merchants/${id}/acquirer`)).json()).toMatchObject({ merchantId: 'cielo-mid-1', merchantKeyLast4: 'WXYZ', environment: 'sandbox' });
    const page = await op.get(`/dashboard/operator/merchants/${id}?done=acquirer`);
    expect(page.body).toContain('cielo-mid-1');
    expect(page.body).toContain('WXYZ');
    expect(page.body).not.toContain(key);
    expect(page.body).not.toContain('SECRETKEY');
    const removed = await op.post(`/dashboard/operator/merchants/${id}/acquirer/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await admin('GET', `/admin/merchants/${id}/acquirer`)).statusCode).toBe(404);
    expect((await op.post(`/dashboard/operator/merchants/${id}/acquirer/remove`, {})).statusCode).toBe(404);
  });

  it('every operator page speaks English on request', async () => {
    const en = new DashboardClient(t);
    await en.get('/dashboard/lang/en');
    await en.loginOperator();
    const titles: [string, string][] = [
      ['/dashboard/operator/merchants', '<h1>Merchants</h1>'],
      [`/dashboard/operator/merchants/${m.merchantId}`, 'API credentials'],
      ['/dashboard/operator/review', '<h1>Review queue</h1>'],
      ['/dashboard/operator/jobs', '<h1>Job queue health</h1>'],
      ['/dashboard/operator/sandbox', 'Advance the clock'],
    ];
    for (const [url, text] of titles) {
      const res = await en.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<html lang="en">');
      expect(res.body, url).toContain(text);
    }
  });

  it('an unknown merchant is a 404 page; a merchant session gets 404 on every operator page and form', async () => {
    expect((await op.get('/dashboard/operator/merchants/mer_doesnotexist00')).statusCode).toBe(404);
    const merchant = new DashboardClient(t);
    await merchant.loginMerchant(m);
    await merchant.get('/dashboard');
    for (const url of ['/dashboard/operator/merchants', `/dashboard/operator/merchants/${m.merchantId}`, '/dashboard/operator/review', '/dashboard/operator/jobs', '/dashboard/operator/sandbox']) {
      expect((await merchant.get(url)).statusCode, url).toBe(404);
    }
    const before = (await admin('GET', `/admin/merchants/${m.merchantId}/pricing`)).json();
    expect((await merchant.post(`/dashboard/operator/merchants/${m.merchantId}/pricing`, { credit1x: '7' })).statusCode).toBe(404);
    expect((await merchant.post('/dashboard/operator/merchants', { name: 'Intrusa', documentNumber: '11222333000181' })).statusCode).toBe(404);
    expect((await admin('GET', `/admin/merchants/${m.merchantId}/pricing`)).json()).toEqual(before);
  });
});
