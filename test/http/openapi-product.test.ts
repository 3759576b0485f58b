import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_TAGS } from '../../src/http/openapi.js';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

type Operation = { operationId?: string; summary?: string; description?: string; tags?: string[]; security?: unknown[]; requestBody?: unknown };

/** The OpenAPI document as a product (SDK names, descriptions, tags, servers, CORS). */
describe(`OpenAPI document as a product (${testDialect})`, () => {
  let t: TestApp;
  let operations: { method: string; path: string; op: Operation }[];
  beforeAll(async () => {
    t = await testApp();
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  afterAll(() => t.close());

  it('every operation has a unique camelCase operationId named for an SDK method', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(operations.filter((o) => !o.op.operationId || !/^[a-z][A-Za-z0-9]+$/.test(o.op.operationId)).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = Object.fromEntries(operations.map((o) => [o.op.operationId, `${o.method} ${o.path}`]));
    expect(byId).toMatchObject({
      createPayment: 'POST /gateway/v1/payments',
      searchConciliationByCode: 'POST /integration/api/transaction/concil/search-by-code',
      createGatewayToken: 'POST /gateway/api/auth/token',
      resetSandbox: 'POST /sandbox/reset',
    });
  });

  it('every operation has a summary, a description and exactly one resource tag', () => {
    const names = new Set(RESOURCE_TAGS.map(([name]) => name));
    const offences = operations.filter(({ op }) => !op.summary || !op.description || op.description.length < 20 || op.tags?.length !== 1 || !names.has(op.tags[0]));
    expect(offences.map((o) => `${o.method} ${o.path} ${JSON.stringify(o.op.tags)}`)).toEqual([]);
    // Every tag groups something.
    const used = new Set(operations.map((o) => o.op.tags![0]));
    expect([...names].filter((n) => !used.has(n))).toEqual([]);
  });

  it('public operations say security: [] and answer without credentials; the others declare a scheme', async () => {
    const isPublic = operations.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0).map((o) => `${o.method} ${o.path}`);
    expect(isPublic.sort()).toEqual(
      [
        'GET /healthz',
        'GET /readyz',
        'POST /gateway/api/auth/token',
        'POST /integration/api/authentication/login',
        'GET /gateway/cards/public-key',
        'POST /pay/{id}/payments',
        'GET /pix/v2/{txid}',
        'GET /pix/v2/rec/{id}',
        'GET /pix/jwks',
      ].sort(),
    );
    expect(operations.filter((o) => !Array.isArray(o.op.security)).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    for (const url of ['/healthz', '/gateway/cards/public-key', '/pix/jwks']) expect((await t.inject({ method: 'GET', url })).statusCode, url).toBe(200);
  });

  it('the server is relative, so "Try it out" calls the host the docs were opened at', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json', headers: { host: '127.0.0.1:9' } })).json();
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('answers a preflight OPTIONS: 204 with CORS headers for the origins CORS_ORIGINS allows; 405 with Allow and no CORS header otherwise', async () => {
    const preflight = { method: 'OPTIONS' as const, url: '/gateway/v1/payments', headers: { origin: 'https://docs.example.com', 'access-control-request-method': 'POST' } };
    const off = await t.inject(preflight);
    expect(off.statusCode).toBe(405);
    expect(off.headers.allow).toContain('POST');
    expect(off.headers['access-control-allow-origin']).toBeUndefined();

    const on = await testApp({ env: { CORS_ORIGINS: 'https://docs.example.com,http://127.0.0.1:8080' } });
    try {
      const res = await on.inject({ ...preflight, headers: { ...preflight.headers, 'access-control-request-headers': 'authorization,content-type,idempotency-key' } });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://docs.example.com');
      expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
      const other = await on.inject({ ...preflight, headers: { ...preflight.headers, origin: 'https://evil.example' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      // The actual call carries the header too (here a 401: no token).
      const call = await on.inject({ method: 'GET', url: '/gateway/v1/me', headers: { origin: 'http://127.0.0.1:8080' } });
      expect(call.statusCode).toBe(401);
      expect(call.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8080');
    } finally {
      await on.close();
    }
  });

  it('CORS_ORIGINS is validated at start', async () => {
    await expect(testApp({ env: { CORS_ORIGINS: 'docs.example.com/path' } })).rejects.toThrow(/CORS_ORIGINS/);
  });
});
