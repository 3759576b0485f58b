import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { HAVE_CHROMIUM, PHONE, launchDashboardBrowser, loginMerchant, screenshot, seriousViolations, type DashboardBrowser } from './browser.js';

describe.skipIf(!HAVE_CHROMIUM)(`dashboard login in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let b: DashboardBrowser;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    b = await launchDashboardBrowser(t);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it('the login page has no serious accessibility violation, at desktop and phone sizes, and runs no blocked script', async () => {
    for (const [viewport, name] of [[undefined, 'login-desktop.png'], [PHONE, 'login-phone.png']] as const) {
      const { page, problems } = await b.open('/dashboard/login', viewport);
      expect(await page.locator('h1').textContent()).toBe('Entrar');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, name);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('six wrong passwords in the browser: the sixth attempt says the login is locked', async () => {
    const victim = await t.merchant();
    const { page } = await b.open('/dashboard/login');
    for (let i = 0; i < 6; i++) {
      await page.getByLabel('Usuário (userName)').fill(victim.userName);
      await page.getByLabel('Senha').fill(`wrong-${i}`);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.waitForLoadState();
    }
    expect(await page.getByRole('alert').textContent()).toContain('Muitas tentativas sem sucesso');
    await page.close();
  });

  it('a merchant logs in with the keyboard and lands on its home, which passes axe', async () => {
    const { page, problems } = await b.open('/dashboard/login');
    await page.keyboard.press('Tab'); // the skip link
    await page.getByLabel('Usuário (userName)').focus();
    await page.keyboard.type(m.userName);
    await page.keyboard.press('Tab');
    await page.keyboard.type(m.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${b.base}/dashboard`);
    expect(await page.locator('.who strong').textContent()).toBe(m.userName);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('loginMerchant helper works (used by every other dashboard browser suite)', async () => {
    const page = await b.context.newPage();
    await loginMerchant(page, b.base, m);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await page.close();
  });
});
