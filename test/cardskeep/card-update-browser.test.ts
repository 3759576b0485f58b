import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { vault } from '../support/cards.js';
import { clock, outcome, R, recurrence } from '../recurrence/support.js';

/** The card update page in Debian's chromium (the checkout's browser pattern): phone-sized, a refused card, then a good one rescuing the billing. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))(`card update page in chromium (${testDialect})`, () => {
  let t: TestApp;
  let base: string;
  let browser: BrowserContext;
  let userDataDir: string;

  beforeAll(async () => {
    t = await testApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    userDataDir = mkdtempSync(join(tmpdir(), 'card-update-chromium-'));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 375, height: 740 },
      locale: 'pt-BR',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('a customer on a phone replaces the card: refused first (old card kept, says why), then accepted and the billing paid; the used link accepts nothing', async () => {
    const m = await t.merchant();
    const r = recurrence(t, m);
    const vaultId = await vault(t, m, '4111111111111111');
    await outcome(t, vaultId, '51');
    const subscriptionId = await r.subscribe(await r.plan({ attempts: 1 }), vaultId);
    await clock(t).runDue();
    const [billing] = await r.billings();
    const { url } = (await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`)).json();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const address = `${base}${new URL(url).pathname}`;
    expect((await page.goto(address))!.status()).toBe(200);
    expect(await page.textContent('.intro')).toContain('Visa •••• 1111');
    // The checkout's stylesheet is the page's look, loaded under the page's CSP.
    expect(await page.evaluate<number>('document.styleSheets.length')).toBe(1);
    // Phone-sized: nothing wider than the screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

    const fill = async (cardNumber: string) => {
      await page.fill('#cardNumber', cardNumber);
      await page.fill('#cardholderName', 'MARIA SILVA');
      await page.fill('#expirationMonth', '12');
      await page.fill('#expirationYear', '2035');
      await page.fill('#securityCode', '123');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    };
    await fill('4000000000000002');
    expect(await page.textContent('#refused')).toContain('cartão anterior continua');
    expect((await r.billing(billing.id)).status).toBe('Opened');

    await fill('5555555555554444');
    expect(await page.textContent('[data-link-state=done]')).toContain('4444');
    expect((await r.billing(billing.id)).status).toBe('Paid');

    await page.goto(`${address}?lang=en`);
    expect(await page.textContent('[data-link-state=used]')).toContain('This link was used');
    expect(await page.$('form')).toBeNull();
    // The page's own 422 and 410 answers (and the browser's favicon request) are logged as failed loads; nothing else may be (a CSP violation would).
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([]);
    await page.close();
  });
});
