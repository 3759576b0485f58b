import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

describe(`error model (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({
      routes: (app) => {
        app.get('/test/boom', async () => {
          throw new Error('secret detail: 4111111111111111 at db.ts:42');
        });
        app.post('/test/nested', {
          schema: {
            body: Type.Object({
              payment: Type.Object({ amount: Type.Integer({ minimum: 1, maximum: 9999999999 }), installments: Type.Integer() }),
              configSplit: Type.Optional(Type.Array(Type.Object({ percent: Type.Number({ maximum: 100 }) }))),
            }),
            querystring: Type.Object({ startDate: Type.Optional(Type.String({ format: 'date' })) }),
          },
          handler: async () => ({ ok: true }),
        });
      },
    });
  });
  afterAll(() => t.close());

  it('answers schema violations with one entry per field, tagged with the field path', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/test/nested?startDate=31-01-2026',
      payload: { payment: { amount: '100' }, configSplit: [{ percent: 101 }] },
    });
    expect(res.statusCode).toBe(400);
    const tags = res.json().map((e: { tag: string }) => e.tag).sort();
    expect(tags).toEqual(['configSplit[0].percent', 'payment.amount', 'payment.installments']);
    for (const e of res.json()) expect(e.description).toMatch(/\S/);
  });

  it('tags query string problems as query.<name>', async () => {
    const res = await t.inject({ method: 'POST', url: '/test/nested?startDate=31-01-2026', payload: { payment: { amount: 1, installments: 1 } } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ tag: 'query.startDate', description: expect.stringContaining('query.startDate') }]);
  });

  it('does not coerce body strings into numbers, but does coerce query strings', async () => {
    const ok = await t.inject({ method: 'GET', url: '/admin/merchants?limit=5', headers: t.adminHeaders });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().limit).toBe(5);
    const bad = await t.inject({ method: 'GET', url: '/admin/merchants?limit=500', headers: t.adminHeaders });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()[0].tag).toBe('query.limit');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.inject({ method: 'POST', url: '/test/nested', headers: { 'content-type': 'application/json' }, payload: '{"payment": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ tag: 'body', description: 'The request body is not valid JSON.' }]);
  });

  it('answers an unknown route with 404 in the error shape', async () => {
    const res = await t.inject({ method: 'GET', url: '/gateway/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual([{ tag: 'not_found', description: 'No route for GET /gateway/v1/nothing-here.' }]);
  });

  it('does not echo a card number typed into an unknown URL', async () => {
    const res = await t.inject({ method: 'GET', url: '/gateway/cards/4111111111111111' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('4111111111111111');
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/test/nested',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual([{ tag: 'payload_too_large', description: expect.any(String) }]);
  });

  it('answers a non-JSON content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.inject({ method: 'POST', url: '/test/nested', headers: { 'content-type': type }, payload: 'a=1' });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()[0].tag).toBe('unsupported_media_type');
    }
  });

  it('answers a malformed URL with 400', async () => {
    const res = await t.inject({ method: 'GET', url: '/gateway/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(Array.isArray(res.json())).toBe(true);
  });

  it('answers an unexpected failure with a generic 500 that leaks nothing', async () => {
    const res = await t.inject({ method: 'GET', url: '/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual([{ tag: 'internal', description: 'Internal server error.' }]);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('4111');
  });

  it('puts X-Request-Id on every response, keeping the caller\'s', async () => {
    const mine = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers['x-request-id']).toBe('abc-123');
    const generated = await t.inject({ method: 'GET', url: '/nope' });
    expect(generated.statusCode).toBe(404);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\nwith newline'.replace('\n', ' ') } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
