import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { SANDBOX_OTP } from '../../src/threeds/sandbox/server.js';
import { createLink, information } from './support.js';

/**
 * The hosted checkout authenticates the payer with 3-D Secure (the sandbox 3DS server), in
 * Debian's chromium: frictionless, and a challenge passed or failed in a frame of the page.
 * The app listens on the port its PUBLIC_URL names, so the ACS and the return are where the
 * browser is.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!existsSync(CHROMIUM))(`hosted checkout with 3-D Secure in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let base: string;
  let browser: BrowserContext;
  let userDataDir: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await testApp({ env: { PUBLIC_URL: base } });
    m = await t.merchant();
    await t.app.listen({ port, host: '127.0.0.1' });
    userDataDir = mkdtempSync(join(tmpdir(), 'checkout-3ds-chromium-'));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 1024, height: 900 },
      locale: 'pt-BR',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  async function open(id: string) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${base}/pay/${id}`);
    return { page, problems };
  }

  async function payWith(page: Page, number: string) {
    await page.getByLabel('Número do cartão').fill(number);
    await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
    await page.getByLabel('Validade (MM/AA)').fill('12/35');
    await page.getByLabel('Código de segurança (CVV)').fill('123');
    await page.locator('#pay-button').click();
  }

  const paymentOf = async (paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();
  const lastPaymentOf = async (linkId: string) => {
    const row = await t.ctx.database.db.selectFrom('payments').select('payment_id').where('reference_transaction', 'like', `%${linkId}%`).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    return paymentOf(row.payment_id);
  };

  it('frictionless: paid at once, the payment authenticated (Silent, liability shifted)', async () => {
    const link = await createLink(t, m, { value: 90 });
    const { page, problems } = await open(link.id);
    await payWith(page, '4000000000001000');
    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await page.locator('#result h2').textContent()).toBe('Pagamento aprovado');
    const info = await information(t, m, link.id);
    expect(info.status).toBe(2);
    expect(await paymentOf(info.paymentResultId)).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent', eci: '05', liabilityShift: true } });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('challenge passed in the page: the issuer frame asks the code, then the link is paid', async () => {
    const link = await createLink(t, m, { value: 120 });
    const { page, problems } = await open(link.id);
    await payWith(page, '4000000000001091');
    await page.locator('#challenge').waitFor({ state: 'visible' });
    const frame = page.frameLocator('#challenge-frame');
    await frame.locator('#otp').fill(SANDBOX_OTP);
    await frame.locator('#verify').click();
    // Back from the challenge the page reloads and shows the link paid.
    await expect.poll(async () => page.locator('.notice h2').textContent().catch(() => null), { timeout: 15_000 }).toBe('Este link já foi pago');
    const info = await information(t, m, link.id);
    expect(info).toMatchObject({ status: 2, statusFormat: 'Pago' });
    expect(await paymentOf(info.paymentResultId)).toMatchObject({ status: 'Authorized', threeDs: { status: 'Challenge', eci: '05', liabilityShift: true } });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('challenge failed: nothing charged, the page says so and the link stays open for another try', async () => {
    const link = await createLink(t, m, { value: 75 });
    const { page } = await open(link.id);
    await payWith(page, '4000000000001091');
    await page.locator('#challenge').waitFor({ state: 'visible' });
    const frame = page.frameLocator('#challenge-frame');
    await frame.locator('#otp').fill('000000');
    await frame.locator('#verify').click();
    const message = page.locator('#form-message');
    await message.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await message.textContent()).toContain('não confirmou');
    expect(await page.locator('#checkout').isVisible()).toBe(true);
    expect((await information(t, m, link.id)).status).toBe(1);
    expect(await lastPaymentOf(link.id)).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail' } });
    // Another try, frictionless this time, pays the link.
    await payWith(page, '4000000000001000');
    await page.locator('#result').waitFor({ state: 'visible' });
    expect((await information(t, m, link.id)).status).toBe(2);
    await page.close();
  });
});
