import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { newMerchant, randomFingerprint } from './support.js';

describe(`anti-fraud IP countries (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const get = (headers = t.adminHeaders) => t.inject({ method: 'GET', url: '/admin/antifraud/ip-countries', headers });
  const put = (payload: object, headers = t.adminHeaders) => t.inject({ method: 'PUT', url: '/admin/antifraud/ip-countries', headers, payload });
  const assess = async (customer: { ipAddress?: string; country?: string }, merchantId?: string) =>
    t.ctx.antifraud.assess(t.ctx.database.db, {
      merchantId: merchantId ?? (await newMerchant(t.ctx)).merchantId,
      amount: 1000,
      cardFingerprint: randomFingerprint(),
      customer,
    });

  it('requires the admin key', async () => {
    expect((await get({})).statusCode).toBe(401);
    expect((await put({ ranges: [] }, {})).statusCode).toBe(401);
  });

  it('starts empty: no IP has a known country, so the rule never fires', async () => {
    expect((await get()).json()).toEqual({ ranges: [] });
    expect(await assess({ ipAddress: '200.160.2.3', country: 'AR' })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
  });

  it('replaces the whole table, in canonical form', async () => {
    const first = await put({ ranges: [{ cidr: '200.160.7.9/16', country: 'br' }, { cidr: '2800:3f0::/32', country: 'AR' }] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ranges: [{ cidr: '200.160.0.0/16', country: 'BR' }, { cidr: '2800:3f0::/32', country: 'AR' }] });
    expect((await get()).json()).toEqual(first.json());
    const second = await put({ ranges: [{ cidr: '192.0.2.1', country: 'US' }] });
    expect(second.json()).toEqual({ ranges: [{ cidr: '192.0.2.1', country: 'US' }] });
    expect((await get()).json()).toEqual(second.json());
  });

  it('rejects bad ranges and countries, each tagged with its index', async () => {
    const res = await put({
      ranges: [
        { cidr: '10.0.0.0/8', country: 'BR' },
        { cidr: '10.0.0.0/33', country: 'ZZ' },
        { cidr: '10.1.2.3/8', country: 'AR' },
        { cidr: 'nope', country: 'BRA' },
      ],
    });
    expect(res.statusCode).toBe(400);
    const tags = res.json().map((e: { tag: string }) => e.tag).sort();
    // ranges[3].country fails the schema (length 2) before the service sees the body.
    expect(tags).toEqual(['ranges[3].country']);
    const semantic = await put({
      ranges: [
        { cidr: '10.0.0.0/8', country: 'BR' },
        { cidr: '10.0.0.0/33', country: 'ZZ' },
        { cidr: '10.1.2.3/8', country: 'AR' },
      ],
    });
    expect(semantic.statusCode).toBe(400);
    expect(semantic.json().map((e: { tag: string }) => e.tag)).toEqual(['ranges[1].cidr', 'ranges[1].country', 'ranges[2].cidr']);
    expect((await put({})).json()[0].tag).toBe('ranges');
    // The table is unchanged.
    expect((await get()).json()).toEqual({ ranges: [{ cidr: '192.0.2.1', country: 'US' }] });
  });

  it('scores ip_country_mismatch only when the IP country is known and differs', async () => {
    await put({
      ranges: [
        { cidr: '200.160.0.0/16', country: 'BR' },
        { cidr: '200.160.99.0/24', country: 'AR' },
        { cidr: '2800:3f0::/32', country: 'AR' },
      ],
    });
    expect(await assess({ ipAddress: '200.160.2.3', country: 'AR' })).toEqual({ decision: 'Accept', score: 30, reasons: ['ip_country_mismatch'] });
    expect(await assess({ ipAddress: '200.160.2.3', country: 'BR' })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    expect((await assess({ ipAddress: '200.160.2.3', country: 'br' })).reasons).toEqual([]);
    // The most specific range wins.
    expect((await assess({ ipAddress: '200.160.99.1', country: 'AR' })).reasons).toEqual([]);
    expect((await assess({ ipAddress: '200.160.99.1', country: 'BR' })).reasons).toEqual(['ip_country_mismatch']);
    expect((await assess({ ipAddress: '2800:3f0:4001::1', country: 'BR' })).reasons).toEqual(['ip_country_mismatch']);
    // Unknown IP, no country or no IP: the rule does not fire.
    expect((await assess({ ipAddress: '8.8.8.8', country: 'BR' })).reasons).toEqual([]);
    expect((await assess({ ipAddress: '200.160.2.3' })).reasons).toEqual([]);
    expect((await assess({ country: 'AR' })).reasons).toEqual([]);
    expect((await assess({ ipAddress: 'not-an-ip', country: 'AR' })).reasons).toEqual([]);
  });

  it('adds to the other rules, and is off when the merchant turns checkIpCountry off', async () => {
    const m = await newMerchant(t.ctx);
    const over = { merchantId: m.merchantId, amount: 5_000_001, cardFingerprint: randomFingerprint(), customer: { ipAddress: '200.160.2.3', country: 'US' } };
    expect(await t.ctx.antifraud.assess(t.ctx.database.db, over)).toEqual({ decision: 'Reject', score: 80, reasons: ['amount_limit', 'ip_country_mismatch'] });
    await t.ctx.antifraud.settings.put(m.merchantId, { checkIpCountry: false });
    expect(await t.ctx.antifraud.assess(t.ctx.database.db, over)).toEqual({ decision: 'Review', score: 50, reasons: ['amount_limit'] });
  });
});
