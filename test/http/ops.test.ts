import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

describe(`health, readiness, metrics and API docs (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz', async () => {
    expect((await t.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', acquirer: 'sandbox' });
  });

  it('reports not ready (503) when the database is gone', async () => {
    const other = await testApp();
    await other.ctx.database.close();
    const res = await other.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()[0].tag).toBe('database_unreachable');
    await other.app.close();
  });

  it('exposes Prometheus request counts and latency histograms by route template and status', async () => {
    const m = await t.merchant();
    await t.inject({ method: 'GET', url: '/gateway/v1/me', headers: m.headers });
    await t.inject({ method: 'GET', url: '/admin/merchants/mer_nobody', headers: t.adminHeaders });
    const res = await t.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/gateway\/v1\/me",status_code="200"\} 1/);
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/admin\/merchants\/:merchantId",status_code="404"\} 1/);
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/gateway\/v1\/me",status_code="200"\} 1/);
    expect(res.body).not.toContain('mer_nobody');
  });

  it('serves an OpenAPI 3.1 document of every API, generated from the route schemas', async () => {
    const res = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/gateway/api/auth/token', '/integration/api/authentication/login', '/admin/merchants', '/admin/merchants/{merchantId}/credentials', '/sandbox/clock/advance', '/healthz', '/integration/api/webhooks/subscriptions', '/integration/api/webhooks/deliveries', '/integration/api/webhooks/deliveries/{movementId}/redeliver']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    const tokenBody = doc.paths['/gateway/api/auth/token'].post.requestBody.content['application/json'].schema;
    expect(tokenBody.properties.userName.maxLength).toBe(30);
    expect(doc.components.securitySchemes).toHaveProperty('adminKey');
  });

  it('serves the interactive docs at /docs', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
