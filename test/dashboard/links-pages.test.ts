import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { textOf } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

/** A datetime-local value (Brasília time) `days` after the sandbox clock. */
function localIn(t: TestApp, days: number): string {
  const at = new Date(t.ctx.clock.now().getTime() + days * 86_400_000 - 3 * 3_600_000);
  return at.toISOString().slice(0, 16);
}

describe(`dashboard: payment links (${testDialect})`, () => {
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

  const information = async (id: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/paymentlink/information?id=${id}`, headers: m.headers })).json();

  it('lists a link made through the API with its URL and a copy button', async () => {
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/paymentlink', headers: m.headers, payload: { description: 'Curso de violão', value: 300, qttyInstallments: 3, expirationDate: new Date(t.ctx.clock.now().getTime() + 86_400_000).toISOString() } });
    expect(res.statusCode, res.body).toBe(201);
    const page = await c.get('/dashboard/links');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Curso de violão');
    expect(textOf(page.body)).toContain('R$ 300,00');
    expect(textOf(page.body)).toContain('Em Aberto');
    expect(page.body).toContain(`data-copy="${res.json().link}"`);
  });

  it('the form creates a link through the same service: it is there through the API afterwards', async () => {
    await c.get('/dashboard/links');
    const created = await c.post('/dashboard/links', { description: 'Camiseta azul', value: '89,90', qttyInstallments: '2', expirationDate: localIn(t, 3), message: 'Obrigado!' });
    expect(created.statusCode, created.body).toBe(303);
    const id = /created=([0-9a-f-]{36})/.exec(created.headers.location as string)![1];
    const api = await information(id);
    expect(api).toMatchObject({ description: 'Camiseta azul', value: 89.9, qttyInstallments: 2, message: 'Obrigado!', status: 1 });
    const page = await c.get(created.headers.location as string);
    expect(textOf(page.body)).toContain(`Link criado: ${api.link}`);
  });

  it('bad input re-renders the form with the messages (400), as typed, and creates nothing', async () => {
    await c.get('/dashboard/links');
    const before = (await c.get('/dashboard/links')).body.match(/data-copy=/g)?.length ?? 0;
    const missing = await c.post('/dashboard/links', { description: '', value: '', expirationDate: '' });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body)).toContain('Informe a descrição.');
    expect(textOf(missing.body)).toContain('Informe a data e a hora de expiração.');
    const rules = await c.post('/dashboard/links', { description: 'Boné', value: '0', qttyInstallments: '2', expirationDate: localIn(t, -1) });
    expect(rules.statusCode).toBe(400);
    expect(rules.body).toContain('value must be greater than 0');
    expect(rules.body).toContain('expirationDate must be after');
    expect(rules.body).toContain('value="Boné"');
    // Over a length limit is no typing mistake: the request is refused as malformed, in the API's words.
    const long = await c.post('/dashboard/links', { description: 'd'.repeat(256), value: '10', expirationDate: localIn(t, 2) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('<code>description</code> description must have at most 255 characters.');
    const after = (await c.get('/dashboard/links')).body.match(/data-copy=/g)?.length ?? 0;
    expect(after).toBe(before);
  });

  it('deactivates with a confirmed POST; a second time is a 409 message; CSRF-less posts change nothing', async () => {
    await c.get('/dashboard/links');
    const created = await c.post('/dashboard/links', { description: 'Aula avulsa', value: '50', expirationDate: localIn(t, 2) });
    const id = /created=([0-9a-f-]{36})/.exec(created.headers.location as string)![1];
    const page = await c.get('/dashboard/links');
    expect(page.body).toMatch(new RegExp(`action="/dashboard/links/${id}/deactivate" class="inline" data-confirm="[^"]+"`));

    const forged = await c.post(`/dashboard/links/${id}/deactivate`, {}, { csrf: null });
    expect(forged.statusCode).toBe(403);
    const noToken = await c.post('/dashboard/links', { description: 'Sem token', value: '10', expirationDate: localIn(t, 2) }, { csrf: 'wrong' });
    expect(noToken.statusCode).toBe(403);
    expect((await information(id)).status).toBe(1);
    expect((await c.get('/dashboard/links')).body).not.toContain('Sem token');

    const done = await c.post(`/dashboard/links/${id}/deactivate`, {});
    expect(done.statusCode).toBe(303);
    expect((await information(id)).status).toBe(9);
    expect(textOf((await c.get(done.headers.location as string)).body)).toContain('Link desativado.');
    const again = await c.post(`/dashboard/links/${id}/deactivate`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('Only an open link can be deactivated');
  });

  it('every page of this area speaks English on request', async () => {
    const en = new DashboardClient(t);
    await en.loginMerchant(m);
    expect((await en.get('/dashboard/lang/en?back=/dashboard/links')).statusCode).toBe(303);
    const pages: [string, string][] = [
      ['/dashboard/links', 'Create a link'],
      ['/dashboard/subscriptions', 'Plans and subscriptions'],
      ['/dashboard/bankslips', 'List by'],
      ['/dashboard/pix', 'Pix charges'],
      ['/dashboard/webhooks', 'Register or replace the URL'],
    ];
    for (const [url, words] of pages) {
      const res = await en.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<html lang="en">');
      expect(res.body, url).toContain(words);
    }
  });

  it("another merchant's link: 404 on deactivate, absent from its list", async () => {
    await c.get('/dashboard/links');
    const created = await c.post('/dashboard/links', { description: 'Só meu', value: '20', expirationDate: localIn(t, 2) });
    const id = /created=([0-9a-f-]{36})/.exec(created.headers.location as string)![1];
    const other = await t.merchant();
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    const list = await oc.get('/dashboard/links');
    expect(list.body).not.toContain(id);
    expect((await oc.post(`/dashboard/links/${id}/deactivate`, {})).statusCode).toBe(404);
    expect((await oc.get(`/dashboard/links?created=${id}`)).statusCode).toBe(404);
    expect((await information(id)).status).toBe(1);
  });
});
