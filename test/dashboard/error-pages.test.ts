import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DashboardClient } from './support.js';

describe(`dashboard error pages: the API's answers, as pages (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('a database outage is the 503 with Retry-After, telling a person to try again', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const spy = vi.spyOn(t.ctx.payments.reads, 'dayFigures').mockRejectedValueOnce(outage);
    try {
      const res = await c.get('/dashboard');
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<code>database_unavailable</code> The database is not reachable right now. Try again in a moment.');
      expect(res.body).not.toContain('Idempotency-Key');
    } finally {
      spy.mockRestore();
    }
  });

  it('an unexpected failure is the 500 page, its detail kept for the log', async () => {
    const spy = vi.spyOn(t.ctx.payments.reads, 'dayFigures').mockRejectedValueOnce(new Error('secret detail of the failure'));
    try {
      const res = await c.get('/dashboard');
      expect(res.statusCode).toBe(500);
      expect(res.body).toContain('<code>internal</code> Internal server error.');
      expect(res.body).not.toContain('secret detail');
    } finally {
      spy.mockRestore();
    }
  });

  it('a refused request lists the API validator\'s [{tag, description}]; an unknown page is a 404 page', async () => {
    const bad = await c.get('/dashboard/subscriptions?status=Bogus');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<code>query.status</code>');
    const missing = await c.get('/dashboard/nowhere');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('<code>not_found</code> Página não encontrada.');
  });
});
