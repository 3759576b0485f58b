import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Type } from '@sinclair/typebox';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { gatewayAuth } from '../../src/http/guards.js';

describe(`Idempotency-Key (${testDialect})`, () => {
  let t: TestApp;
  let calls = 0;
  beforeAll(async () => {
    t = await testApp({
      routes: (app, ctx) => {
        // A merchant-owned creating route, to show keys are per merchant.
        app.post('/gateway/test/things', {
          config: { idempotent: true },
          onRequest: gatewayAuth(ctx, 'payments'),
          schema: { body: Type.Object({ n: Type.Integer() }) },
          handler: async (request, reply) => reply.code(201).send({ thing: ++calls, n: request.body.n }),
        });
      },
    });
  });
  afterAll(() => t.close());
  afterEach(() => vi.useRealTimers());

  const createMerchant = (key: string | undefined, name = 'Loja') =>
    t.inject({
      method: 'POST',
      url: '/admin/merchants',
      headers: { ...t.adminHeaders, ...(key !== undefined ? { 'idempotency-key': key } : {}) },
      payload: { name, documentNumber: '11222333000181' },
    });

  async function merchantCount() {
    const { n } = await t.ctx.database.db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(n);
  }

  it('replays the first response for the same key and body, creating once', async () => {
    const before = await merchantCount();
    const first = await createMerchant('key-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await createMerchant('key-1');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(second.headers['content-type']).toMatch(/application\/json/);
    expect(await merchantCount()).toBe(before + 1);
  });

  it('answers the same key with a different body with 409', async () => {
    await createMerchant('key-2', 'First');
    const other = await createMerchant('key-2', 'Second');
    expect(other.statusCode).toBe(409);
    expect(other.json()[0].tag).toBe('idempotency_key_reused');
  });

  it('stores error responses too: a replay of a 400 is the same 400', async () => {
    const bad = () => t.inject({ method: 'POST', url: '/admin/merchants', headers: { ...t.adminHeaders, 'idempotency-key': 'key-3' }, payload: { name: 'X', documentNumber: '00000000000' } });
    const first = await bad();
    expect(first.statusCode).toBe(400);
    const second = await bad();
    expect(second.statusCode).toBe(400);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
  });

  it('works without the header (no replay), and refuses keys over 255 characters', async () => {
    const a = await createMerchant(undefined);
    const b = await createMerchant(undefined);
    expect(a.json().merchantId).not.toBe(b.json().merchantId);
    const long = await createMerchant('k'.repeat(256));
    expect(long.statusCode).toBe(400);
    expect(long.json()[0].tag).toBe('header.Idempotency-Key');
    expect((await createMerchant('k'.repeat(255))).statusCode).toBe(201);
  });

  it('keeps keys per merchant', async () => {
    const m1 = await t.merchant();
    const m2 = await t.merchant();
    const post = (headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/gateway/test/things', headers: { ...headers, 'idempotency-key': 'shared' }, payload: { n: 1 } });
    const a = await post(m1.headers);
    const b = await post(m2.headers);
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().thing).not.toBe(a.json().thing);
    const again = await post(m1.headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(a.json());
  });

  it('forgets a key after 24 hours (wall clock)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const first = await createMerchant('key-expiring');
    vi.setSystemTime(Date.now() + 24 * 60 * 60 * 1000 + 1000);
    const later = await createMerchant('key-expiring');
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().merchantId).not.toBe(first.json().merchantId);
  });

  it('answers a concurrent duplicate while the first is in flight with 409, never running twice', async () => {
    const m = await t.merchant();
    const post = () => t.inject({ method: 'POST', url: '/gateway/test/things', headers: { ...m.headers, 'idempotency-key': 'race' }, payload: { n: 7 } });
    const before = calls;
    const results = await Promise.all([post(), post(), post()]);
    const statuses = results.map((r) => r.statusCode).sort();
    expect(calls - before).toBe(1);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    for (const r of results) {
      if (r.statusCode === 409) expect(r.json()[0].tag).toBe('idempotency_in_progress');
      else expect(r.json()).toEqual({ thing: calls, n: 7 });
    }
  });
});
