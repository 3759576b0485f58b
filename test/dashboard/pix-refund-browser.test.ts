import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { HAVE_CHROMIUM, PHONE, launchDashboardBrowser, loginMerchant, screenshot, seriousViolations, type DashboardBrowser } from './browser.js';

const CHARGES = '/gateway/v1/pix/charges';

describe.skipIf(!HAVE_CHROMIUM)(`dashboard Pix refund form in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let b: DashboardBrowser;
  let chargeId: string;
  let disputeId: string;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    chargeId = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount: 8_000, description: 'Jaqueta' } })).json().id;
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${chargeId}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
    const claim = await t.inject({ method: 'POST', url: `/sandbox/pix/${chargeId}/infraction`, headers: t.adminHeaders, payload: { amount: 2_000 } });
    expect(claim.statusCode, claim.body).toBe(201);
    disputeId = claim.json().disputeId;
    b = await launchDashboardBrowser(t);
    const page = await b.context.newPage();
    await loginMerchant(page, b.base, m);
    await page.close();
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it('refunds after confirming, shows the refund and the MED claim link; a dismissed confirmation sends nothing; axe at both sizes', async () => {
    const { page, problems } = await b.open(`/dashboard/pix/${chargeId}`);
    expect(await page.locator('#med-held').textContent()).toMatch(/R\$\s20,00/);
    expect(await page.locator(`#med-claims a[href="/dashboard/disputes/${disputeId}"]`).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel(/Valor a devolver/).fill('15,00');
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('button', { name: 'Devolver' }).click();
    await page.waitForTimeout(300);
    expect(page.url()).toBe(`${b.base}/dashboard/pix/${chargeId}`);
    expect((await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}/refunds`, headers: m.headers })).json().items).toEqual([]);

    await page.getByLabel('Mensagem ao pagador (opcional)').fill('Produto com defeito');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Devolver' }).click();
    await page.waitForURL(/done=refundReturned/);
    expect(await page.getByRole('status').textContent()).toBe('Devolução feita.');
    expect(await page.locator('#pix-refunds tbody').textContent()).toContain('Produto com defeito');
    expect(await page.locator('#refunded-amount').textContent()).toMatch(/R\$\s15,00/);
    const items = (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}/refunds`, headers: m.headers })).json().items;
    expect(items).toEqual([expect.objectContaining({ amount: 1_500, reason: 'Produto com defeito', status: 'Returned' })]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'pix-refund-desktop.png');
    expect(problems).toEqual([]);
    await page.close();

    const phone = await b.open(`/dashboard/pix/${chargeId}`, PHONE);
    expect(await seriousViolations(phone.page)).toEqual([]);
    await screenshot(phone.page, 'pix-refund-phone.png');
    expect(phone.problems).toEqual([]);
    await phone.page.close();
  });
});
