import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { basic, subscribe, WEBHOOKS, webhookMerchant } from './support.js';

type M = Awaited<ReturnType<typeof webhookMerchant>>;

describe(`webhook subscriptions (${testDialect})`, () => {
  let t: TestApp;
  let m: M;
  let other: M;
  beforeAll(async () => {
    t = await testApp();
    m = await webhookMerchant(t);
    other = await webhookMerchant(t);
  });
  afterAll(() => t.close());

  const get = (who: M, account: unknown = who.accountNumber) => t.inject({ method: 'GET', url: `${WEBHOOKS}/subscriptions?accountNumber=${account}`, headers: who.integration });
  const del = (who: M, account: unknown = who.accountNumber) => t.inject({ method: 'DELETE', url: `${WEBHOOKS}/subscriptions?accountNumber=${account}`, headers: who.integration });

  it('answers 404 for GET and DELETE before any URL is registered', async () => {
    expect((await get(m)).statusCode).toBe(404);
    const res = await del(m);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual([{ tag: 'not_found', description: expect.any(String) }]);
  });

  it('registers a URL, answers it with a whsec_ secret, and GET shows it without secrets', async () => {
    const res = await subscribe(t, m, { url: 'http://127.0.0.1:9/hooks', basicAuth: basic('shop', 's3cret') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ url: 'http://127.0.0.1:9/hooks', secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    const shown = await get(m);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({
      url: 'http://127.0.0.1:9/hooks',
      basicAuth: true,
      types: ['TransactionStatus', 'InstallmentStatus', 'BankSlipStatus'],
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
    });
    expect(shown.body).not.toContain('whsec_');
    expect(shown.body).not.toContain(basic('shop', 's3cret'));
  });

  it('replaces the one URL of the account, keeping the secret unless asked to rotate it', async () => {
    const first = (await subscribe(t, m, { url: 'http://127.0.0.1:9/a' })).json();
    const second = (await subscribe(t, m, { url: 'http://127.0.0.1:9/b' })).json();
    expect(second).toEqual({ url: 'http://127.0.0.1:9/b', secret: first.secret });
    expect((await get(m)).json()).toMatchObject({ url: 'http://127.0.0.1:9/b', basicAuth: false });
    const rotated = (await subscribe(t, m, { url: 'http://127.0.0.1:9/b', rotateSecret: true })).json();
    expect(rotated.secret).not.toBe(first.secret);
    const rows = await t.ctx.database.db.selectFrom('webhook_subscriptions').selectAll().where('account_number', '=', m.accountNumber).execute();
    expect(rows).toHaveLength(1);
  });

  it('chooses event types: kept by a re-registration that names none, replaced by one that does; unknown names are 400', async () => {
    expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/a', types: ['billing.denied', 'TransactionStatus', 'billing.denied'] })).statusCode).toBe(200);
    expect((await get(m)).json().types).toEqual(['billing.denied', 'TransactionStatus']);
    expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/b' })).statusCode).toBe(200);
    expect((await get(m)).json().types).toEqual(['billing.denied', 'TransactionStatus']);
    expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/b', types: ['*'] })).statusCode).toBe(200);
    expect((await get(m)).json().types).toEqual(['*']);
    const bad = await subscribe(t, m, { url: 'http://127.0.0.1:9/b', types: ['billing.nope', 'Payment'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual([{ tag: 'types', description: expect.stringContaining('billing.nope, Payment') }]);
    const empty = await subscribe(t, m, { url: 'http://127.0.0.1:9/b', types: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual([{ tag: 'types', description: expect.stringContaining('at least one') }]);
    expect((await get(m)).json().types).toEqual(['*']);
  });

  it('stores the secret and basicAuth only encrypted', async () => {
    const auth = basic('shop', 'pa55word');
    const { secret } = (await subscribe(t, m, { url: 'http://127.0.0.1:9/hooks', basicAuth: auth })).json();
    const row = await t.ctx.database.db.selectFrom('webhook_subscriptions').selectAll().where('account_number', '=', m.accountNumber).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(JSON.stringify(row)).not.toContain(auth);
    expect(row.secret_sealed).toMatch(/^v1\./);
    expect(t.logs.text).not.toContain(auth);
    expect(t.logs.text).not.toContain(secret);
  });

  it('refuses bad URLs and basicAuth with the error array, naming every problem', async () => {
    const cases: [object, string[]][] = [
      [{ url: 'ftp://example.com/x' }, ['url']],
      [{ url: '/relative/path' }, ['url']],
      [{ url: 'https://user:pw@example.com/hooks' }, ['url']],
      [{ url: '' }, ['url']],
      [{ url: 'http://127.0.0.1:9/x', basicAuth: 'user:password' }, ['basicAuth']],
      [{ url: 'http://127.0.0.1:9/x', basicAuth: Buffer.from('nocolon').toString('base64') }, ['basicAuth']],
      [{ url: 'nope', basicAuth: '###' }, ['url', 'basicAuth']],
      [{}, ['url']],
    ];
    for (const [payload, tags] of cases) {
      const res = await subscribe(t, other, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag), JSON.stringify(payload)).toEqual(tags);
    }
    expect((await get(other)).statusCode).toBe(404);
  });

  it('treats an empty basicAuth as none', async () => {
    expect((await subscribe(t, other, { url: 'http://127.0.0.1:9/x', basicAuth: '' })).statusCode).toBe(200);
    expect((await get(other)).json().basicAuth).toBe(false);
  });

  it('keeps each account to its own subscription: another account is 403, a malformed one 400', async () => {
    expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/x' }, other.accountNumber)).statusCode).toBe(403);
    expect((await get(m, other.accountNumber)).statusCode).toBe(403);
    expect((await del(m, other.accountNumber)).statusCode).toBe(403);
    expect((await get(m, 'abc')).statusCode).toBe(400);
    expect((await t.inject({ method: 'GET', url: `${WEBHOOKS}/subscriptions?accountNumber=${m.accountNumber}` })).statusCode).toBe(401);
    // A gateway token is not an integration token.
    expect((await t.inject({ method: 'GET', url: `${WEBHOOKS}/subscriptions?accountNumber=${m.accountNumber}`, headers: m.headers })).statusCode).toBe(401);
  });

  it('DELETE answers the removed URL; afterwards GET is 404', async () => {
    await subscribe(t, m, { url: 'http://127.0.0.1:9/gone' });
    const res = await del(m);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: 'http://127.0.0.1:9/gone' });
    expect((await get(m)).statusCode).toBe(404);
    expect((await del(m)).statusCode).toBe(404);
  });
});

describe(`webhook URLs in production mode (${testDialect})`, () => {
  let t: TestApp;
  let m: M;
  // The test's own DNS: no look-up leaves the machine.
  const dns: Record<string, string[]> = {
    'hooks.shop.example': ['93.184.216.34'],
    'localhost': ['127.0.0.1', '::1'],
    'internal.shop.example': ['10.20.30.40'],
    'mixed.shop.example': ['93.184.216.34', '192.168.0.10'],
    'metadata.shop.example': ['169.254.169.254'],
    'v6private.shop.example': ['fd00::1'],
  };
  beforeAll(async () => {
    t = await testApp({
      env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 7).toString('base64') },
      resolveHost: async (host) => {
        const answer = dns[host];
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return answer;
      },
    });
    m = await webhookMerchant(t);
  });
  afterAll(() => t.close());

  it('accepts https to a host with public addresses only', async () => {
    const res = await subscribe(t, m, { url: 'https://hooks.shop.example/gateway' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it.each([
    ['http (not https)', 'http://hooks.shop.example/gateway', /https/],
    ['a loopback literal', 'https://127.0.0.1/hooks', /not a public address/],
    ['an IPv6 loopback literal', 'https://[::1]/hooks', /not a public address/],
    ['a private literal', 'https://10.0.0.8/hooks', /not a public address/],
    ['the metadata address', 'https://169.254.169.254/latest', /not a public address/],
    ['localhost', 'https://localhost/hooks', /127\.0\.0\.1/],
    ['a name with a private address', 'https://internal.shop.example/hooks', /10\.20\.30\.40/],
    ['a name with one private address among public ones', 'https://mixed.shop.example/hooks', /192\.168\.0\.10/],
    ['a name pointing at the metadata service', 'https://metadata.shop.example/hooks', /169\.254\.169\.254/],
    ['a name with a unique-local IPv6 address', 'https://v6private.shop.example/hooks', /fd00::1/],
    ['a name that does not resolve', 'https://nowhere.shop.example/hooks', /could not be resolved/],
  ])('refuses %s', async (_name, url, why) => {
    const res = await subscribe(t, m, { url });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual([{ tag: 'url', description: expect.stringMatching(why) }]);
  });
});
