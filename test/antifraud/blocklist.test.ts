import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardFingerprint } from '../../src/modules/cards/card-data.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { newMerchant, randomFingerprint } from './support.js';

const PAN = '4111111111111111';
const OTHER_PAN = '5555555555554444';

describe(`anti-fraud blocklist (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const add = (payload: object, headers = t.adminHeaders) => t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers, payload });
  const list = (query = '') => t.inject({ method: 'GET', url: `/admin/antifraud/blocklist${query}`, headers: t.adminHeaders });
  const remove = (id: number | string) => t.inject({ method: 'DELETE', url: `/admin/antifraud/blocklist/${id}`, headers: t.adminHeaders });
  const assess = async (customer: object, card = randomFingerprint()) => {
    const m = await newMerchant(t.ctx);
    return t.ctx.antifraud.assess(t.ctx.database.db, { merchantId: m.merchantId, amount: 1000, cardFingerprint: card, customer });
  };

  it('requires the admin key', async () => {
    const merchant = await t.merchant();
    for (const headers of [{}, merchant.headers]) {
      expect((await add({ kind: 'email', value: 'x@y.test' }, headers)).statusCode).toBe(401);
      expect((await t.inject({ method: 'GET', url: '/admin/antifraud/blocklist', headers })).statusCode).toBe(401);
      expect((await t.inject({ method: 'DELETE', url: '/admin/antifraud/blocklist/1', headers })).statusCode).toBe(401);
    }
  });

  it('stores a card number only as its fingerprint, and never echoes, stores or logs it', async () => {
    const res = await add({ kind: 'card', value: PAN, reason: 'chargeback' });
    expect(res.statusCode).toBe(201);
    const fingerprint = cardFingerprint(t.ctx.cipher, PAN);
    expect(res.json()).toEqual({ id: expect.any(Number), kind: 'card', value: fingerprint, reason: 'chargeback', createdDate: expect.stringMatching(/Z$/) });
    expect(res.body).not.toContain(PAN);

    // The same card typed with spaces is the same entry: 409, and the error does not repeat it.
    const again = await add({ kind: 'card', value: '4111 1111 1111 1111' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual([{ tag: 'duplicate', description: expect.any(String) }]);
    expect(again.body).not.toMatch(/4111/);

    // A card number failing Luhn is a 400 on `value` that does not repeat it.
    const bad = await add({ kind: 'card', value: '4111111111111112' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual([{ tag: 'value', description: expect.stringContaining('Luhn') }]);
    expect(bad.body).not.toContain('4111111111111112');

    const rows = await t.ctx.database.db.selectFrom('antifraud_blocklist').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(PAN);
    expect((await list('?kind=card')).body).not.toContain(PAN);
    expect(t.logs.text).not.toContain(PAN);
    expect(t.logs.text).not.toContain('4111111111111112');
  });

  it('accepts a card fingerprint as given (lower-cased)', async () => {
    const fingerprint = cardFingerprint(t.ctx.cipher, OTHER_PAN);
    const res = await add({ kind: 'card', value: fingerprint.toUpperCase() });
    expect(res.statusCode).toBe(201);
    expect(res.json().value).toBe(fingerprint);
    expect((await add({ kind: 'card', value: OTHER_PAN })).statusCode).toBe(409);
  });

  it('normalises documents, emails and IPs, and rejects malformed values with tag value', async () => {
    const doc = await add({ kind: 'document', value: '529.982.247-25' });
    expect(doc.statusCode).toBe(201);
    expect(doc.json()).toMatchObject({ kind: 'document', value: '52998224725', reason: null });
    expect((await add({ kind: 'document', value: '12ABC34501DE35' })).json().value).toBe('12ABC34501DE35');
    const email = await add({ kind: 'email', value: ' Fraudster@Example.COM ' });
    expect(email.json()).toMatchObject({ kind: 'email', value: 'fraudster@example.com' });
    const range = await add({ kind: 'ip', value: '203.0.113.77/24' });
    expect(range.json()).toMatchObject({ kind: 'ip', value: '203.0.113.0/24' });
    expect((await add({ kind: 'ip', value: '2001:DB8:0::1' })).json().value).toBe('2001:db8::1');

    for (const [kind, value] of [
      ['document', '52998224724'],
      ['document', '11111111111'],
      ['email', 'not an email'],
      ['ip', '10.0.0.0/33'],
      ['ip', '010.1.1.1'],
      ['ip', '1.2.3'],
    ]) {
      const res = await add({ kind, value });
      expect(res.statusCode, `${kind} ${value}`).toBe(400);
      expect(res.json()).toEqual([{ tag: 'value', description: expect.any(String) }]);
    }
    // Same range spelled differently: a duplicate.
    expect((await add({ kind: 'ip', value: '203.0.113.0/24' })).statusCode).toBe(409);
    expect((await add({ kind: 'email', value: 'FRAUDSTER@example.com' })).statusCode).toBe(409);
  });

  it('validates the body with field tags', async () => {
    const res = await add({ kind: 'phone', value: '', reason: 'x'.repeat(256) });
    expect(res.statusCode).toBe(400);
    expect(res.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['kind', 'reason', 'value']);
    const missing = await add({});
    expect(missing.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['kind', 'value']);
  });

  it('lists in the envelope with a kind filter and paging, and removes entries', async () => {
    const fresh = await testApp();
    try {
      const post = (payload: object) => fresh.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: fresh.adminHeaders, payload });
      const get = (q: string) => fresh.inject({ method: 'GET', url: `/admin/antifraud/blocklist${q}`, headers: fresh.adminHeaders });
      const a = (await post({ kind: 'email', value: 'a@x.test' })).json();
      const b = (await post({ kind: 'email', value: 'b@x.test' })).json();
      const c = (await post({ kind: 'ip', value: '192.0.2.1' })).json();
      const all = await get('');
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual({ items: [c, b, a], page: 1, limit: 20, total: 3 });
      expect((await get('?kind=email&orderBy=value:asc&limit=1&page=2')).json()).toEqual({ items: [b], page: 2, limit: 1, total: 2 });
      expect((await get('?kind=card')).json()).toEqual({ items: [], page: 1, limit: 20, total: 0 });
      const badKind = await get('?kind=phone');
      expect(badKind.statusCode).toBe(400);
      expect(badKind.json()[0].tag).toBe('query.kind');
      expect((await get('?orderBy=reason')).json()[0].tag).toBe('query.orderBy');

      const del = (id: number | string) => fresh.inject({ method: 'DELETE', url: `/admin/antifraud/blocklist/${id}`, headers: fresh.adminHeaders });
      const deleted = await del(b.id);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual(b);
      const gone = await del(b.id);
      expect(gone.statusCode).toBe(404);
      expect(gone.json()[0].tag).toBe('not_found');
      expect((await del('abc')).json()[0].tag).toBe('path.id');
      expect((await get('')).json().total).toBe(2);
    } finally {
      await fresh.close();
    }
  });

  it('rejects payments matching any blocklisted card, document, email or IP, outright', async () => {
    const card = randomFingerprint();
    await add({ kind: 'card', value: card });
    await add({ kind: 'document', value: '11144477735' });
    await add({ kind: 'email', value: 'banned@shop.test' });
    await add({ kind: 'ip', value: '198.51.100.7' });

    expect(await assess({}, card)).toEqual({ decision: 'Reject', score: 100, reasons: ['blocklist_card'] });
    expect(await assess({ documentNumber: '11144477735' })).toEqual({ decision: 'Reject', score: 100, reasons: ['blocklist_document'] });
    expect(await assess({ email: 'Banned@Shop.TEST' })).toEqual({ decision: 'Reject', score: 100, reasons: ['blocklist_email'] });
    expect(await assess({ ipAddress: '198.51.100.7' })).toEqual({ decision: 'Reject', score: 100, reasons: ['blocklist_ip'] });
    // A dual-stack socket's spelling of the same IPv4 address.
    expect((await assess({ ipAddress: '::ffff:198.51.100.7' })).reasons).toEqual(['blocklist_ip']);
    expect(await assess({ documentNumber: '11144477735', email: 'banned@shop.test' }, card)).toEqual({
      decision: 'Reject',
      score: 100,
      reasons: ['blocklist_card', 'blocklist_document', 'blocklist_email'],
    });
    // Neighbours are not listed.
    expect(await assess({ documentNumber: '39053344705', email: 'ok@shop.test', ipAddress: '198.51.100.8' })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
  });

  it('a blocklisted card number matches the fingerprint the card module stores', async () => {
    await add({ kind: 'card', value: '378282246310005' });
    expect((await assess({}, cardFingerprint(t.ctx.cipher, '378282246310005'))).reasons).toEqual(['blocklist_card']);
  });

  it('an IP inside a blocklisted CIDR range is rejected, one just outside is not (IPv4 and IPv6)', async () => {
    await add({ kind: 'ip', value: '100.64.8.0/22' });
    await add({ kind: 'ip', value: '2001:db8:abcd::/48' });
    for (const ip of ['100.64.8.0', '100.64.11.255', '2001:db8:abcd:ffff::1']) {
      expect((await assess({ ipAddress: ip })).reasons, ip).toEqual(['blocklist_ip']);
    }
    for (const ip of ['100.64.7.255', '100.64.12.0', '2001:db8:abce::1']) {
      expect((await assess({ ipAddress: ip })).decision, ip).toBe('Accept');
    }
  });

  it('an entry written by another instance counts at once when it is an address, a card, a document or an email', async () => {
    const at = new Date().toISOString();
    await t.ctx.database.db
      .insertInto('antifraud_blocklist')
      .values([
        { kind: 'ip', value: '192.0.2.200', reason: null, created_at: at },
        { kind: 'email', value: 'elsewhere@shop.test', reason: null, created_at: at },
      ])
      .execute();
    expect((await assess({ ipAddress: '192.0.2.200' })).reasons).toEqual(['blocklist_ip']);
    expect((await assess({ email: 'elsewhere@shop.test' })).reasons).toEqual(['blocklist_email']);
  });

  it('a removed entry stops rejecting at once', async () => {
    const entry = (await add({ kind: 'email', value: 'pardoned@shop.test' })).json();
    expect((await assess({ email: 'pardoned@shop.test' })).decision).toBe('Reject');
    expect((await remove(entry.id)).statusCode).toBe(200);
    expect((await assess({ email: 'pardoned@shop.test' })).decision).toBe('Accept');
  });

  it('is answered with an Idempotency-Key replay', async () => {
    const headers = { ...t.adminHeaders, 'idempotency-key': 'block-1' };
    const first = await add({ kind: 'email', value: 'idem@shop.test' }, headers);
    const second = await add({ kind: 'email', value: 'idem@shop.test' }, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
  });
});
