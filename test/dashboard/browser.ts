import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestMerchant } from '../support/harness.js';

/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core against the app
 * listening on 127.0.0.1, like the checkout's tests. Suites use `describe.skipIf(!HAVE_CHROMIUM)`:
 * skipped, never failed, where chromium is missing (CI installs it in .ci/run).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Screenshots: test-output/ always; docs/screenshots/ (committed, shown in the README) with DASHBOARD_SCREENSHOTS=1. */
const OUT = join(import.meta.dirname, '../../test-output/dashboard');
const DOCS = join(import.meta.dirname, '../../docs/screenshots');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface DashboardBrowser {
  base: string;
  context: BrowserContext;
  /** A new page that records console errors (a CSP violation is one) and script errors. */
  open(path: string, viewport?: { width: number; height: number }): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

export async function launchDashboardBrowser(t: TestApp): Promise<DashboardBrowser> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const userDataDir = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
  mkdirSync(OUT, { recursive: true });
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: DESKTOP,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
  });
  return {
    base,
    context,
    async open(path, viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      const problems: string[] = [];
      page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${base}${path}`);
      return { page, problems };
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Logs a page in as the merchant through the form (the browser keeps the cookie for the context). */
export async function loginMerchant(page: Page, base: string, m: Pick<TestMerchant, 'userName' | 'password'>): Promise<void> {
  await page.goto(`${base}/dashboard/login`);
  await page.getByLabel('Usuário (userName)').fill(m.userName);
  await page.getByLabel('Senha').fill(m.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/dashboard/login'));
}

export async function loginOperator(page: Page, base: string, adminKey: string): Promise<void> {
  await page.goto(`${base}/dashboard/login/operator`);
  await page.getByLabel('Chave de operador (ADMIN_API_KEY)').fill(adminKey);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/dashboard/login'));
}

/**
 * axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not
 * govern): the serious and critical violations, as "rule: target" lines (empty is the goal).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // Runs in the page: its globals are the browser's (this project's tsconfig has no DOM types).
    const page = globalThis as unknown as { document: unknown; axe: { run(ctx: unknown, opts: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } };
    return page.axe.run(page.document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/** A full-page screenshot under test-output/dashboard (and docs/screenshots with DASHBOARD_SCREENSHOTS=1). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, name), fullPage: true });
  if (process.env.DASHBOARD_SCREENSHOTS === '1') {
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, name), fullPage: false });
  }
}
