import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { HAVE_CHROMIUM, launchDashboardBrowser, loginMerchant, seriousViolations, type DashboardBrowser } from './browser.js';

describe.skipIf(!HAVE_CHROMIUM)(`dashboard dispute evidence in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let b: DashboardBrowser;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    b = await launchDashboardBrowser(t);
    const page = await b.context.newPage();
    await loginMerchant(page, b.base, m);
    await page.close();
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it("the page's script sends the chosen file as base64 with the text; the evidence is stored as the API's", async () => {
    const p = await pay(t, m, { amount: 6_000, installments: 1, reference: 'browser-dispute' });
    const opened = await t.inject({ method: 'POST', url: `/sandbox/payments/${p.paymentId}/dispute`, headers: t.adminHeaders, payload: { reasonCode: '104' } });
    expect(opened.statusCode, opened.body).toBe(201);
    const disputeId = opened.json().disputeId as string;

    const { page, problems } = await b.open('/dashboard/disputes');
    await page.locator(`a[href="/dashboard/disputes/${disputeId}"]`).click();
    await page.waitForURL(new RegExp(`/dashboard/disputes/${disputeId}$`));
    expect(await seriousViolations(page)).toEqual([]);
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    await page.getByLabel('Relato da venda (entrega, contato com o cliente...)').fill('Entregue em 02/12, assinado.');
    await page.locator('#evidence-file').setInputFiles({ name: 'comprovante.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.waitForURL(/done=evidence/);
    expect(await page.locator('#evidence').textContent()).toContain('comprovante.pdf');

    const api = (await t.inject({ method: 'GET', url: `/gateway/v1/disputes/${disputeId}`, headers: m.headers })).json();
    expect(api.status).toBe('UnderReview');
    expect(api.evidence[0]).toMatchObject({ text: 'Entregue em 02/12, assinado.', files: [{ fileName: 'comprovante.pdf', contentType: 'application/pdf', size: pdf.length }] });
    expect(problems).toEqual([]);
    await page.close();
  });
});
