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

  describe("the merchant's address (the receiver's a payer's bank reads at a Pix charge's location)", () => {
    const address = { street: 'Rua Augusta, 1500, Consolação', city: 'São Paulo', state: 'SP', zipCode: '01304001' };
    const merchantCount = async () => Number((await t.ctx.database.db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const getMerchant = async (id: string) => (await t.inject({ method: 'GET', url: `/admin/merchants/${id}`, headers: t.adminHeaders })).json();
    const putAddress = (id: string, payload: object, headers = t.adminHeaders) => t.inject({ method: 'PUT', url: `/admin/merchants/${id}/address`, headers, payload });
    /** Each address problem with the tag it is answered with (street, city: API Pix maxLength 200; uf a real UF in upper case; cep 8 digits). */
    const BAD: [object, string][] = [
      [{ ...address, state: 'sp' }, 'state'],
      [{ ...address, state: 'XX' }, 'state'],
      [{ ...address, zipCode: '01304-001' }, 'zipCode'],
      [{ ...address, zipCode: '0130400' }, 'zipCode'],
      [{ ...address, zipCode: 1304001 }, 'zipCode'],
      [{ ...address, street: 'x'.repeat(201) }, 'street'],
      [{ ...address, street: '   ' }, 'street'],
      [{ ...address, city: '' }, 'city'],
      [{ ...address, city: 'c'.repeat(201) }, 'city'],
      [{ street: address.street, city: address.city, state: 'SP' }, 'zipCode'],
    ];

    it('is taken at registration, trimmed, shown by GET; a merchant registered without one has null', async () => {
      const res = await create({ name: 'E', documentNumber: '11222333000181', address: { ...address, street: `  ${address.street} `, city: 'c'.repeat(200) } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().address).toEqual({ ...address, city: 'c'.repeat(200) });
      expect((await getMerchant(res.json().merchantId)).address).toEqual({ ...address, city: 'c'.repeat(200) });
      const without = (await create({ name: 'F', documentNumber: '11222333000181' })).json();
      expect(without.address).toBeNull();
      expect((await getMerchant(without.merchantId)).address).toBeNull();
    });

    it('refuses an address off the API Pix patterns at registration with 400 and the field tag, and registers nothing', async () => {
      const before = await merchantCount();
      for (const [bad, field] of BAD) {
        const res = await create({ name: 'G', documentNumber: '11222333000181', address: bad });
        expect(res.statusCode, JSON.stringify(bad)).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag), JSON.stringify(bad)).toEqual([`address.${field}`]);
      }
      // Every problem at once: the document and the address.
      const both = await create({ name: 'G', documentNumber: '11222333000182', address: { ...address, street: ' ' } });
      expect(both.json().map((e: { tag: string }) => e.tag)).toEqual(['documentNumber', 'address.street']);
      expect(await merchantCount()).toBe(before);
    });

    it('is set or replaced with PUT /admin/merchants/{id}/address; a bad one changes nothing; an unknown merchant is 404; the operator key is required', async () => {
      const merchant = (await create({ name: 'H', documentNumber: '11222333000181' })).json();
      const set = await putAddress(merchant.merchantId, address);
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json()).toEqual({ ...merchant, address });
      for (const [bad, field] of BAD) {
        const res = await putAddress(merchant.merchantId, bad);
        expect(res.statusCode, JSON.stringify(bad)).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag), JSON.stringify(bad)).toEqual([field]);
      }
      expect((await getMerchant(merchant.merchantId)).address).toEqual(address);
      const moved = { street: 'Avenida Afonso Pena, 1212, Centro', city: 'Belo Horizonte', state: 'MG', zipCode: '30130003' };
      expect((await putAddress(merchant.merchantId, moved)).json().address).toEqual(moved);
      expect((await getMerchant(merchant.merchantId)).address).toEqual(moved);
      const unknown = await putAddress('mer_unknown', address);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()[0].tag).toBe('not_found');
      expect((await putAddress(merchant.merchantId, address, {})).statusCode).toBe(401);
      // The service checks too (the dashboard and the CLI call it without the route's schema).
      await expect(t.ctx.merchants.setAddress(merchant.merchantId, { ...address, state: 'sp' })).rejects.toMatchObject({ kind: 'invalid', errors: [{ tag: 'state' }] });
      expect((await getMerchant(merchant.merchantId)).address).toEqual(moved);
    });
  });
});
