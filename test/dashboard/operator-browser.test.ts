import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DESKTOP, HAVE_CHROMIUM, PHONE, launchDashboardBrowser, loginOperator, screenshot, seriousViolations, type DashboardBrowser } from './browser.js';
import { blockedPayment } from './operator-support.js';

describe.skipIf(!HAVE_CHROMIUM)(`operator dashboard in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let b: DashboardBrowser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    b = await launchDashboardBrowser(t);
    ({ page, problems } = await b.open('/dashboard/login/operator'));
    // The data-confirm forms ask first: the operator says yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await loginOperator(page, b.base, t.ctx.adminApiKey);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  /** axe finds no serious violation at desktop and phone sizes; a screenshot of each. */
  async function checkPage(name: string): Promise<void> {
    for (const [viewport, size] of [[DESKTOP, 'desktop'], [PHONE, 'phone']] as const) {
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${name} ${size}`).toEqual([]);
      await screenshot(page, `${name}-${size}.png`);
    }
    await page.setViewportSize(DESKTOP);
  }

  it('the operator lands on the merchants list, creates a merchant and issues a credential (password shown once)', async () => {
    expect(new URL(page.url()).pathname).toBe('/dashboard/operator/merchants');
    expect(await page.locator('h1').textContent()).toBe('Lojistas');
    expect(await page.locator('table').textContent()).toContain(m.merchantId);
    await checkPage('operator-merchants');

    await page.getByLabel('Nome').fill('Loja do Navegador');
    await page.getByLabel('CPF/CNPJ').fill('11222333000181');
    await page.getByLabel('E-mail (opcional)').fill('navegador@example.com');
    await page.getByRole('button', { name: 'Cadastrar' }).click();
    await page.waitForURL(/\/dashboard\/operator\/merchants\/mer_[a-z0-9]+\?done=created$/);
    expect(await page.locator('h1').textContent()).toBe('Loja do Navegador');
    expect(await page.getByRole('status').first().textContent()).toContain('Lojista cadastrado.');
    const merchantId = /merchants\/(mer_[a-z0-9]+)/.exec(page.url())![1];
    expect((await t.inject({ method: 'GET', url: `/admin/merchants/${merchantId}`, headers: t.adminHeaders })).json().email).toBe('navegador@example.com');

    await page.getByRole('button', { name: 'Emitir', exact: true }).click();
    await page.waitForLoadState();
    const userName = (await page.locator('#issued-user').textContent())!;
    const password = (await page.locator('#issued-password').textContent())!;
    expect(password.length).toBeGreaterThan(10);
    const login = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName, password } });
    expect(login.statusCode).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    // Shown once: the page opened again lists the credential without its password (the screenshots show this one).
    await page.goto(`${b.base}/dashboard/operator/merchants/${merchantId}`);
    expect(await page.locator('table').first().textContent()).toContain(userName);
    expect(await page.content()).not.toContain(password);
    await checkPage('operator-merchant');
  });

  it('the operator approves a Blocked payment in the review queue; the merchant API then says Authorized', async () => {
    const paymentId = await blockedPayment(t, m, 'browser-review');
    await page.getByRole('link', { name: 'Revisão' }).click();
    await page.waitForURL(`${b.base}/dashboard/operator/review`);
    expect(await page.locator('tbody').textContent()).toContain('411111******1111');
    await checkPage('operator-review');
    await page.getByRole('button', { name: `Aprovar ${paymentId}` }).click();
    await page.waitForURL(/done=/);
    expect(await page.getByRole('status').textContent()).toContain(`Pagamento ${paymentId}: agora Authorized.`);
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Authorized');
  });

  it('the operator sees the job queue health', async () => {
    await page.getByRole('link', { name: 'Filas' }).click();
    await page.waitForURL(`${b.base}/dashboard/operator/jobs`);
    expect(await page.locator('h1').textContent()).toBe('Saúde das filas');
    expect(await page.locator('table').first().textContent()).toContain('refund.recover');
    await checkPage('operator-jobs');
  });

  it('the operator advances the sandbox clock by a day', async () => {
    await page.getByRole('link', { name: 'Sandbox' }).click();
    await page.waitForURL(`${b.base}/dashboard/operator/sandbox`);
    const before = Date.parse((await t.inject({ method: 'GET', url: '/sandbox/clock', headers: t.adminHeaders })).json().now);
    await page.getByLabel('Dias').fill('1');
    await page.getByRole('button', { name: 'Avançar' }).click();
    await page.waitForURL(/done=advanced/);
    expect(await page.getByRole('status').textContent()).toContain('Relógio avançado');
    const after = Date.parse((await t.inject({ method: 'GET', url: '/sandbox/clock', headers: t.adminHeaders })).json().now);
    expect(after - before).toBeGreaterThanOrEqual(86_400_000);
    await checkPage('operator-sandbox');
    expect(problems).toEqual([]);
  });
});
