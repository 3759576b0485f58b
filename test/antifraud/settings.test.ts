import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/modules/antifraud/settings.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { insertPayments, newMerchant, randomFingerprint } from './support.js';

describe(`anti-fraud settings API (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const url = (merchantId: string) => `/admin/merchants/${merchantId}/antifraud`;
  const get = (merchantId: string, headers = t.adminHeaders) => t.inject({ method: 'GET', url: url(merchantId), headers });
  const put = (merchantId: string, payload: object, headers = t.adminHeaders) => t.inject({ method: 'PUT', url: url(merchantId), headers, payload });
  const tags = (res: { json(): unknown }) => (res.json() as { tag: string }[]).map((e) => e.tag).sort();

  it('requires the admin key', async () => {
    const m = await t.merchant();
    expect((await get(m.merchantId, {})).statusCode).toBe(401);
    expect((await get(m.merchantId, m.headers)).statusCode).toBe(401);
    expect((await put(m.merchantId, {}, m.headers)).statusCode).toBe(401);
  });

  it('answers 404 for an unknown merchant', async () => {
    for (const res of [await get('mer_unknown'), await put('mer_unknown', { amountLimit: 10 })]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual([{ tag: 'not_found', description: 'Merchant not found.' }]);
    }
    expect((await get('x'.repeat(21))).json()[0].tag).toBe('path.merchantId');
  });

  it('answers the defaults for a merchant that never changed them', async () => {
    const m = await newMerchant(t.ctx);
    const res = await get(m.merchantId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(DEFAULT_SETTINGS);
  });

  it('deep-merges a partial PUT and keeps earlier changes', async () => {
    const m = await newMerchant(t.ctx);
    const first = await put(m.merchantId, { velocity: { maxPerCard: 3 } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ...DEFAULT_SETTINGS, velocity: { ...DEFAULT_SETTINGS.velocity, maxPerCard: 3 } });
    const second = await put(m.merchantId, { amountLimit: 100_000, checkIpCountry: false });
    const expected = { ...DEFAULT_SETTINGS, velocity: { ...DEFAULT_SETTINGS.velocity, maxPerCard: 3 }, amountLimit: 100_000, checkIpCountry: false };
    expect(second.json()).toEqual(expected);
    expect((await get(m.merchantId)).json()).toEqual(expected);
    // Another merchant keeps the defaults.
    expect((await get((await newMerchant(t.ctx)).merchantId)).json()).toEqual(DEFAULT_SETTINGS);
  });

  it('takes the whole object, and ignores unknown fields', async () => {
    const m = await newMerchant(t.ctx);
    const whole = {
      velocity: { windowMinutes: 1440, maxPerCard: 5, maxPerDocument: 6, maxPerIp: 7 },
      amountLimit: 123_456,
      reviewScore: 30,
      rejectScore: 90,
      checkIpCountry: false,
      challengeAmount: 100_000,
      challengeScore: 40,
    };
    const res = await put(m.merchantId, { ...whole, extra: 1, velocity: { ...whole.velocity, other: 2 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(whole);
    expect((await get(m.merchantId)).json()).toEqual(whole);
  });

  it('rejects non-integers and out-of-range values with one tag per field', async () => {
    const m = await newMerchant(t.ctx);
    const res = await put(m.merchantId, {
      velocity: { windowMinutes: 1.5, maxPerCard: 0, maxPerIp: '3' },
      amountLimit: -1,
      reviewScore: 101,
      checkIpCountry: 'yes',
    });
    expect(res.statusCode).toBe(400);
    expect(tags(res)).toEqual(['amountLimit', 'checkIpCountry', 'reviewScore', 'velocity.maxPerCard', 'velocity.maxPerIp', 'velocity.windowMinutes']);
    expect((await put(m.merchantId, { velocity: 5 })).json()[0].tag).toBe('velocity');
    // Nothing was stored.
    expect((await get(m.merchantId)).json()).toEqual(DEFAULT_SETTINGS);
  });

  it('requires reviewScore below rejectScore, after the merge', async () => {
    const m = await newMerchant(t.ctx);
    const equal = await put(m.merchantId, { reviewScore: 80 });
    expect(equal.statusCode).toBe(400);
    expect(equal.json()).toEqual([{ tag: 'reviewScore', description: expect.stringContaining('less than rejectScore') }]);
    const lower = await put(m.merchantId, { rejectScore: 40 });
    expect(lower.statusCode).toBe(400);
    expect(tags(lower)).toEqual(['rejectScore']);
    expect((await put(m.merchantId, { reviewScore: 80, rejectScore: 81 })).statusCode).toBe(200);
    expect((await get(m.merchantId)).json()).toMatchObject({ reviewScore: 80, rejectScore: 81 });
  });

  it("a PUT changes the merchant's next decision at once", async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    await insertPayments(t.ctx, 2, { ...m, cardFingerprint: card });
    const assess = () => t.ctx.antifraud.assess(t.ctx.database.db, { merchantId: m.merchantId, amount: 1000, cardFingerprint: card });
    expect((await assess()).decision).toBe('Accept');
    expect((await put(m.merchantId, { velocity: { maxPerCard: 2 } })).statusCode).toBe(200);
    expect(await assess()).toEqual({ decision: 'Review', score: 60, reasons: ['velocity_card'] });
    expect((await put(m.merchantId, { reviewScore: 10, rejectScore: 60 })).statusCode).toBe(200);
    expect((await assess()).decision).toBe('Reject');
    // A shorter window leaves the two payments (one minute old) out.
    expect((await put(m.merchantId, { velocity: { windowMinutes: 1 } })).statusCode).toBe(200);
    expect((await assess()).decision).toBe('Accept');
  });

  it('concurrent partial PUTs both survive', async () => {
    const m = await newMerchant(t.ctx);
    const [a, b] = await Promise.all([put(m.merchantId, { velocity: { maxPerCard: 4 } }), put(m.merchantId, { amountLimit: 777 })]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect((await get(m.merchantId)).json()).toMatchObject({ velocity: { maxPerCard: 4 }, amountLimit: 777 });
  });

  it('documents the anti-fraud admin routes in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p: string) => p.includes('antifraud')).sort()).toEqual([
      '/admin/antifraud/blocklist',
      '/admin/antifraud/blocklist/{id}',
      '/admin/antifraud/ip-countries',
      '/admin/merchants/{merchantId}/antifraud',
    ]);
    const put = doc.paths['/admin/merchants/{merchantId}/antifraud'].put;
    expect(put.security).toEqual([{ adminKey: [] }]);
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '404']);
  });
});
