import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_CSP } from '../../src/modules/paymentlinks/routes/checkout-page.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { createLink, payLink } from './support.js';

/** GET /pay/{id} as HTML (the browser behaviour is in checkout-browser.test.ts). */
describe(`checkout page (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t.close());

  const page = (id: string) => t.inject({ method: 'GET', url: `/pay/${id}` });

  it('serves the page with a strict CSP and no inline script, style or handler', async () => {
    const link = await createLink(t, m);
    const res = await page(link.id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self' https:; frame-src 'self' https:; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(CHECKOUT_CSP).toBe(res.headers['content-security-policy']);
    expect(res.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    const html = res.body;
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html.match(/<script\b[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="\/pay\/assets\/card-checks\.js\?v=[0-9a-f]{12}" defer>$/),
      expect.stringMatching(/^<script src="\/pay\/assets\/checkout\.js\?v=[0-9a-f]{12}" defer>$/),
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
    expect(html).not.toMatch(/https?:\/\//); // nothing from anywhere else
  });

  it('labels every field and gives card inputs no name (nothing to submit without the script)', async () => {
    const html = (await page((await createLink(t, m)).id)).body;
    const ids = [...html.matchAll(/<(?:input|select)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[1]);
    expect(ids).toEqual(['installments', 'card-number', 'card-name', 'card-expiry', 'card-cvv', 'payer-email', 'payer-document']);
    for (const id of ids) expect(html, id).toContain(`<label for="${id}">`);
    expect(html).not.toMatch(/<(input|select)\b[^>]*\bname=/);
  });

  it('shows seller, description, message and value, escaped', async () => {
    const link = await createLink(t, m, { description: '<script>alert(1)</script> & "aspas"', message: '<img src=x onerror=alert(1)>', value: 1234.5 });
    const html = (await page(link.id)).body;
    expect(html).toContain('<p class="seller-name">Loja Teste</p>');
    expect(html).toContain('CNPJ 11.222.333/0001-81');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;aspas&quot;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('R$ 1.234,50');
  });

  it('offers the link\'s installment options, each with its total', async () => {
    const link = await createLink(t, m, { value: 100, qttyInstallments: undefined, qttyInstallmentsCustom: [4, 1, 3], qttyInstallmentsIntFree: 3, installmentsFee: 2.99 });
    const options = [...(await page(link.id)).body.matchAll(/<option value="(\d+)" data-total="([^"]+)">([^<]+)<\/option>/g)].map((o) => [o[1], o[2], o[3]]);
    expect(options).toEqual([
      ['1', 'R$ 100,00', '1x R$ 100,00 à vista'],
      ['3', 'R$ 100,00', '3x sem juros: 1ª R$ 33,34, demais R$ 33,33 (total R$ 100,00)'],
      ['4', 'R$ 107,60', '4x R$ 26,90 com juros (total R$ 107,60)'],
    ]);
    expect((await page(link.id)).body).toContain('Sem juros até 3x; acima disso, juros de 2,99% ao mês (Tabela Price).');
  });

  it('a paid link says so instead of showing the form', async () => {
    const link = await createLink(t, m);
    expect((await payLink(t, link.id, '4111111111111111')).json().paid).toBe(true);
    const res = await page(link.id);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Este link já foi pago');
    expect(res.body).not.toContain('<form');
  });

  it('answers an HTML 404 for an unknown or malformed link', async () => {
    for (const id of [randomUUID(), 'nao-existe']) {
      const res = await page(id);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(CHECKOUT_CSP);
      expect(res.body).toContain('Link de pagamento não encontrado');
    }
  });

  it('serves its scripts and stylesheet as files', async () => {
    const js = await t.inject({ method: 'GET', url: '/pay/assets/checkout.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(js.body).toContain("name: 'RSA-OAEP', hash: 'SHA-256'");
    const checks = await t.inject({ method: 'GET', url: '/pay/assets/card-checks.js' });
    expect(checks.statusCode).toBe(200);
    expect(checks.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(checks.body).toContain('window.checkoutCardChecks');
    const css = await t.inject({ method: 'GET', url: '/pay/assets/checkout.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });
});
