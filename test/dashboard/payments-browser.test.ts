import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brl } from '../../src/domain/format-br.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { DESKTOP, HAVE_CHROMIUM, PHONE, launchDashboardBrowser, loginMerchant, screenshot, seriousViolations, type DashboardBrowser } from './browser.js';

describe.skipIf(!HAVE_CHROMIUM)(`dashboard money pages in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let b: DashboardBrowser;
  let todaySum = 0n;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    for (const [amount, installments, card] of [[15_990, 1, '4111111111111111'], [250_000, 6, '5555555555554444'], [4_500, 1, '4000000000000002'], [89_90, 2, '4111111111111111'], [12_000, 1, '4000000000009995']] as const) {
      const p = await pay(t, m, { amount, installments, card, reference: `pedido-${amount}` });
      if (p.status === 'Authorized') todaySum += BigInt(amount);
    }
    // A webhook URL for the account, so the cancellation below has a delivery in the log (nothing listens there).
    const hook = await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { url: 'http://127.0.0.1:9/hook' } });
    expect(hook.statusCode).toBeLessThan(300);
    b = await launchDashboardBrowser(t);
    const page = await b.context.newPage();
    await loginMerchant(page, b.base, m);
    await page.close();
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it('the home draws its charts and its table has today’s real sales; no serious axe violation; screenshots', async () => {
    for (const [viewport, name] of [[DESKTOP, 'home-desktop.png'], [PHONE, 'home-phone.png']] as const) {
      const { page, problems } = await b.open('/dashboard', viewport);
      await page.waitForSelector('#chart-sales[data-drawn="true"]');
      expect(await page.locator('canvas[data-drawn="true"]').count()).toBe(4);
      expect(await page.locator('#kpi-today strong').textContent()).toBe(brl(todaySum));
      const lastRow = page.locator('#table-sales tbody tr').last();
      expect(await lastRow.locator('td').textContent()).toBe(brl(todaySum));
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, name);
      // The chart's data as a table, opened from the keyboard.
      await page.locator('details.data summary').first().focus();
      await page.keyboard.press('Enter');
      expect(await page.locator('#table-sales').isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('finds a payment by reference with the filter form, opens its timeline and cancels it after confirming', async () => {
    const { page, problems } = await b.open('/dashboard/payments');
    expect(await page.locator('#payments tbody tr').count()).toBe(5);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'payments-desktop.png');
    await page.getByLabel('Referência (referenceTransaction)').fill('pedido-250000');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/reference=pedido-250000/);
    const rows = page.locator('#payments tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('R$ 2.500,00');
    await rows.first().getByRole('link').click();
    await page.waitForURL(/\/dashboard\/payments\/[0-9a-f-]{36}$/);
    const paymentId = page.url().split('/').pop()!;
    expect(await page.locator('#timeline').textContent()).toContain('Antifraude: Accept');
    expect(await page.locator('#installments tbody tr').count()).toBe(6);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'payment-detail-desktop.png');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancelar pagamento' }).click();
    await page.waitForURL(/done=canceled/);
    expect(await page.getByRole('status').textContent()).toBe('Pagamento cancelado.');
    expect(await page.locator('#payment-status').textContent()).toBe('Cancelado');
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Canceled');
    expect(problems).toEqual([]);

    // The cancellation's webhook is in the delivery log (the URL was registered after the sales: its only
    // TransactionStatus delivery is this change); redeliver it from there.
    const log = await t.inject({ method: 'GET', url: `/integration/api/webhooks/deliveries?accountNumber=${m.accountNumber}&limit=100`, headers: m.integration });
    const canceled = (log.json().items as { movementId: number; type: string; createdDate: string }[]).filter((d) => d.type === 'TransactionStatus');
    expect(canceled.length).toBeGreaterThan(0);
    await page.goto(`${b.base}/dashboard/webhooks?type=TransactionStatus`);
    const movementId = String(Math.max(...canceled.map((d) => d.movementId)));
    const row = page.locator('tbody tr', { has: page.getByRole('button', { name: `Reenviar ${movementId}` }) });
    expect(await row.textContent()).toContain('TransactionStatus');
    await row.getByRole('button', { name: `Reenviar ${movementId}` }).click();
    await page.waitForURL(/done=/);
    expect(await page.getByRole('status').textContent()).toContain(`Notificação ${movementId} reenviada`);

    const phone = await b.open(`/dashboard/payments/${paymentId}`, PHONE);
    expect(await seriousViolations(phone.page)).toEqual([]);
    await screenshot(phone.page, 'payment-detail-phone.png');
    await phone.page.goto(`${b.base}/dashboard/payments`);
    await screenshot(phone.page, 'payments-phone.png');
    expect(phone.problems).toEqual([]);
    await phone.page.close();
    await page.close();
  });

  it('a dismissed confirmation cancels nothing', async () => {
    const p = await pay(t, m, { amount: 7_700, installments: 1, reference: 'keep-me' });
    const { page } = await b.open(`/dashboard/payments/${p.paymentId}`);
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('button', { name: 'Cancelar pagamento' }).click();
    await page.waitForTimeout(300);
    expect(page.url()).toBe(`${b.base}/dashboard/payments/${p.paymentId}`);
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Authorized');
    await page.close();
  });

  it('the conciliation page passes axe and is keyboard-labelled', async () => {
    for (const [viewport, name] of [[DESKTOP, 'conciliation-desktop.png'], [PHONE, 'conciliation-phone.png']] as const) {
      const { page, problems } = await b.open('/dashboard/conciliation', viewport);
      expect(await page.getByLabel('Tipo de busca').count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, name);
      expect(problems).toEqual([]);
      await page.close();
    }
  });
});
