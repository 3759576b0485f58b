import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

describe(`operator API: merchants and credentials (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const create = (payload: object, headers = t.adminHeaders) => t.inject({ method: 'POST', url: '/admin/merchants', headers, payload });

  it('requires the admin key', async () => {
    expect((await create({ name: 'A', documentNumber: '11222333000181' }, {})).statusCode).toBe(401);
    const wrong = await create({ name: 'A', documentNumber: '11222333000181' }, { authorization: 'Bearer nope' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()[0].tag).toBe('unauthorized');
    const merchant = await t.merchant();
    expect((await t.inject({ method: 'GET', url: '/admin/merchants', headers: merchant.headers })).statusCode).toBe(401);
  });

  it('creates a merchant with a CPF, a CNPJ or an alphanumeric CNPJ', async () => {
    for (const documentNumber of ['52998224725', '11222333000181', '12ABC34501DE35']) {
      const res = await create({ name: 'Loja Central', documentNumber, legalName: 'Loja Central Ltda', email: 'fin@loja.test' });
      expect(res.statusCode, documentNumber).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ name: 'Loja Central', documentNumber, legalName: 'Loja Central Ltda', email: 'fin@loja.test' });
      expect(body.merchantId.length).toBeLessThanOrEqual(20);
      expect(Number.isInteger(body.accountNumber) && body.accountNumber > 0).toBe(true);
      expect(body.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it('rejects an invalid document and missing fields with 400 and field tags', async () => {
    const bad = await create({ name: 'A', documentNumber: '11222333000182' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual([{ tag: 'documentNumber', description: expect.stringContaining('CPF or CNPJ') }]);
    const missing = await create({ email: 'not-an-email' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['documentNumber', 'email', 'name']);
  });

  it('gets a merchant, and answers an unknown one with 404', async () => {
    const created = (await create({ name: 'B', documentNumber: '11144477735' })).json();
    const got = await t.inject({ method: 'GET', url: `/admin/merchants/${created.merchantId}`, headers: t.adminHeaders });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created);
    const missing = await t.inject({ method: 'GET', url: '/admin/merchants/mer_unknown', headers: t.adminHeaders });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()[0].tag).toBe('not_found');
  });

  it('lists merchants in the envelope with paging and orderBy', async () => {
    const fresh = await testApp();
    try {
      const names = ['Charlie', 'Alpha', 'Bravo'];
      for (const name of names) await fresh.inject({ method: 'POST', url: '/admin/merchants', headers: fresh.adminHeaders, payload: { name, documentNumber: '11222333000181' } });
      const byName = await fresh.inject({ method: 'GET', url: '/admin/merchants?orderBy=name:asc&limit=2', headers: fresh.adminHeaders });
      expect(byName.statusCode).toBe(200);
      expect(byName.json()).toMatchObject({ page: 1, limit: 2, total: 3 });
      expect(byName.json().items.map((m: { name: string }) => m.name)).toEqual(['Alpha', 'Bravo']);
      const page2 = await fresh.inject({ method: 'GET', url: '/admin/merchants?orderBy=name&limit=2&page=2', headers: fresh.adminHeaders });
      expect(page2.json().items.map((m: { name: string }) => m.name)).toEqual(['Charlie']);
      const byDefault = await fresh.inject({ method: 'GET', url: '/admin/merchants', headers: fresh.adminHeaders });
      expect(byDefault.json()).toMatchObject({ page: 1, limit: 20, total: 3 });
      const numbers = byDefault.json().items.map((m: { accountNumber: number }) => m.accountNumber);
      expect(numbers).toEqual([...numbers].sort((a, b) => b - a)); // createdDate:desc, ties by account number
      for (const orderBy of ['password', 'name:up', 'name:asc:x', '__proto__']) {
        const bad = await fresh.inject({ method: 'GET', url: `/admin/merchants?orderBy=${orderBy}`, headers: fresh.adminHeaders });
        expect(bad.statusCode, orderBy).toBe(400);
        expect(bad.json()[0].tag).toBe('query.orderBy');
      }
      for (const q of ['page=0', 'limit=0', 'limit=101', 'page=x']) {
        const bad = await fresh.inject({ method: 'GET', url: `/admin/merchants?${q}`, headers: fresh.adminHeaders });
        expect(bad.statusCode, q).toBe(400);
      }
    } finally {
      await fresh.close();
    }
  });

  it('issues credentials whose password is shown once and stored only as a slow hash', async () => {
    const merchant = (await create({ name: 'C', documentNumber: '11222333000181' })).json();
    const res = await t.inject({
      method: 'POST',
      url: `/admin/merchants/${merchant.merchantId}/credentials`,
      headers: t.adminHeaders,
      payload: { scopes: ['payments', 'recurrence'], allowedIps: ['10.0.0.0/8'] },
    });
    expect(res.statusCode).toBe(201);
    const credential = res.json();
    expect(credential).toMatchObject({ merchantId: merchant.merchantId, scopes: ['payments', 'recurrence'], allowedIps: ['10.0.0.0/8'] });
    expect(credential.userName.length).toBeLessThanOrEqual(30);
    expect(credential.password.length).toBeGreaterThanOrEqual(20);
    const row = await t.ctx.database.db.selectFrom('credentials').selectAll().where('user_name', '=', credential.userName).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$\d+\$8\$1\$/);
    expect(row.password_hash).not.toContain(credential.password);
    const token = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', remoteAddress: '10.0.0.1', payload: { userName: credential.userName, password: credential.password } });
    expect(token.statusCode).toBe(200);
  });

  it('validates credential requests', async () => {
    const merchant = (await create({ name: 'D', documentNumber: '11222333000181' })).json();
    const url = `/admin/merchants/${merchant.merchantId}/credentials`;
    const empty = await t.inject({ method: 'POST', url, headers: t.adminHeaders, payload: { scopes: [] } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()[0].tag).toBe('scopes');
    const unknown = await t.inject({ method: 'POST', url, headers: t.adminHeaders, payload: { scopes: ['admin'] } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()[0].tag).toBe('scopes[0]');
    const noMerchant = await t.inject({ method: 'POST', url: '/admin/merchants/mer_nope/credentials', headers: t.adminHeaders, payload: { scopes: ['payments'] } });
    expect(noMerchant.statusCode).toBe(404);
  });
});
