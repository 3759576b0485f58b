import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installmentPlan } from '../../src/domain/installments.js';
import { formatFixed } from '../../src/domain/money.js';
import { brl } from '../../src/domain/format-br.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { createLink, information } from './support.js';

/**
 * The hosted checkout in a real browser: Debian's chromium driven by playwright-core, against
 * the real app listening on 127.0.0.1. Skipped (not failed) where chromium is not installed;
 * CI installs it (.ci/run). Screenshots go to test-output/.
 */
/** Debian's chromium; CHROMIUM_PATH points elsewhere (or at nothing, to see the suite skip these). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = join(import.meta.dirname, '../../test-output');
const PAN = '4111111111111111';

describe.skipIf(!existsSync(CHROMIUM))(`hosted checkout in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let base: string;
  let browser: BrowserContext;
  let userDataDir: string;

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    userDataDir = mkdtempSync(join(tmpdir(), 'checkout-chromium-'));
    mkdirSync(OUT, { recursive: true });
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

  /** Opens a link's page, collecting console errors (a CSP violation is one) and script errors. */
  async function open(id: string, viewport?: { width: number; height: number }) {
    const page = await browser.newPage();
    if (viewport) await page.setViewportSize(viewport);
    const problems: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const response = await page.goto(`${base}/pay/${id}`);
    return { page, problems, response: response! };
  }

  async function fillCard(page: Page, card: { number: string; name?: string; expiry?: string; cvv?: string }) {
    await page.getByLabel('Número do cartão').fill(card.number);
    await page.getByLabel('Nome impresso no cartão').fill(card.name ?? 'MARIA SILVA');
    await page.getByLabel('Validade (MM/AA)').fill(card.expiry ?? '12/35');
    await page.getByLabel('Código de segurança (CVV)').fill(card.cvv ?? '123');
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(OUT, name), fullPage: true });

  it('pays 3 installments with 4111 1111 1111 1111: success view, link Pago, no clear card number on the wire', async () => {
    const link = await createLink(t, m, { description: 'Curso de fotografia', value: 150, qttyInstallments: 6, qttyInstallmentsIntFree: 2, installmentsFee: 1.99, message: 'Obrigado pela compra!' });
    const { page, problems, response } = await open(link.id);
    expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.locator('.seller-name').textContent()).toBe('Loja Teste');
    expect(await page.locator('.seller-document').textContent()).toBe('CNPJ 11.222.333/0001-81');
    expect(await page.locator('h1').textContent()).toBe('Curso de fotografia');

    const sent: { url: string; body: string }[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST') sent.push({ url: req.url(), body: req.postData() ?? '' });
    });
    const total = brl(installmentPlan(15000n, 3, 2, 19900n).total);
    await page.getByLabel('Parcelas').selectOption('3');
    await fillCard(page, { number: '4111 1111 1111 1111' });
    expect(await page.locator('#card-brand').textContent()).toBe('VISA');
    await expect.poll(() => page.locator('#pay-button').textContent()).toBe(`Pagar ${total}`);
    await page.locator('#pay-button').click();

    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await page.locator('#result h2').textContent()).toBe('Pagamento aprovado');
    expect(await page.locator('#result-amount').textContent()).toBe(total);
    expect(await page.locator('#result-installments').textContent()).toBe('3x');
    await shot(page, 'checkout-paid.png');

    // Exactly one request carried the payment, and it holds only the ciphertext.
    expect(sent.map((r) => new URL(r.url).pathname)).toEqual([`/pay/${link.id}/payments`]);
    const body = sent[0].body;
    expect(body).not.toContain(PAN);
    expect(body).not.toContain('4111 1111');
    expect(body).not.toMatch(/\d{12,19}/);
    const payload = JSON.parse(body);
    // Beside the ciphertext only the browser's data for 3-D Secure (screen, language, time zone, user agent).
    expect(Object.keys(payload).sort()).toEqual(['cardholderName', 'deviceInfo', 'encryptedCard', 'installments']);
    expect(Object.keys(payload.deviceInfo).sort()).toEqual(['browserColorDepth', 'browserJavaEnabled', 'browserLanguage', 'browserScreenHeight', 'browserScreenWidth', 'browserTimeZone', 'browserUserAgent']);
    expect(payload).toMatchObject({ cardholderName: 'MARIA SILVA', installments: 3 });
    expect(Buffer.from(payload.encryptedCard, 'base64')).toHaveLength(256);
    expect(t.logs.text).not.toContain(PAN);

    const info = await information(t, m, link.id);
    expect(info).toMatchObject({ status: 2, statusFormat: 'Pago', paymentQttyInstallments: 3, paymentAuthorizationCode: expect.any(String) });
    const payment = (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${info.paymentResultId}`, headers: m.headers })).json();
    expect(payment).toMatchObject({ status: 'Authorized', installments: 3, productType: 'lojista', maskedCardNumber: '411111******1111' });
    expect(brl(BigInt(payment.amount))).toBe(total);

    // Coming back to the page: it says the link was paid.
    await page.reload();
    expect(await page.locator('.notice h2').textContent()).toBe('Este link já foi pago');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a clear message for a declined card (4000 0000 0000 0002) and the link stays open', async () => {
    const link = await createLink(t, m, { value: 80.5, qttyInstallments: 3 });
    const { page, problems } = await open(link.id);
    await fillCard(page, { number: '4000000000000002' });
    await page.locator('#pay-button').click();
    const message = page.locator('#form-message');
    await message.waitFor({ state: 'visible' });
    expect(await message.textContent()).toContain('não autorizado');
    expect(await page.locator('#result').isHidden()).toBe(true);
    expect(await page.locator('#pay-button').isEnabled()).toBe(true);
    await shot(page, 'checkout-declined.png');
    expect(await information(t, m, link.id)).toMatchObject({ status: 1, statusFormat: 'Em Aberto' });

    // The payer may try again with another card.
    await fillCard(page, { number: '5555 5555 5555 4444' });
    await page.locator('#pay-button').click();
    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await information(t, m, link.id)).toMatchObject({ status: 2, statusFormat: 'Pago' });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('validates inline (Luhn, expiry, CVV per brand) before anything is sent', async () => {
    const link = await createLink(t, m);
    const { page, problems } = await open(link.id);
    let posts = 0;
    page.on('request', (req) => void (req.method() === 'POST' && posts++));
    await fillCard(page, { number: '4111 1111 1111 1112', expiry: '13/30', cvv: '12' });
    await page.locator('#pay-button').click();
    expect(await page.locator('#card-number-error').textContent()).toContain('Número de cartão inválido');
    expect(await page.locator('#card-expiry-error').textContent()).toContain('Validade inválida');
    expect(await page.locator('#card-cvv-error').textContent()).toContain('3 dígitos');
    expect(await page.getByLabel('Número do cartão').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement.id')).toBe('card-number');

    await page.getByLabel('Número do cartão').fill('3782 822463 10005');
    expect(await page.locator('#card-brand').textContent()).toBe('AMEX');
    await page.getByLabel('Validade (MM/AA)').fill('01/20');
    await page.locator('#pay-button').click();
    expect(await page.locator('#card-expiry-error').textContent()).toBe('Cartão vencido.');
    expect(await page.locator('#card-cvv-error').textContent()).toContain('4 dígitos');
    expect(posts).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an expired link (sandbox clock past expirationDate) shows why it cannot be paid', async () => {
    const link = await createLink(t, m, { description: 'Ingresso', expirationDate: new Date(t.ctx.clock.now().getTime() + 3_600_000).toISOString() });
    // A payer who opened the page before the expiry and pays after it is told, too.
    const { page, problems } = await open(link.id);
    const advanced = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { hours: 2 } });
    expect(advanced.statusCode).toBe(200);
    await fillCard(page, { number: PAN });
    await page.locator('#pay-button').click();
    await expect.poll(() => page.locator('#form-message').textContent()).toContain('Este link expirou');

    await page.reload();
    expect(await page.locator('.notice h2').textContent()).toBe('Este link expirou');
    expect(await page.locator('.notice p').textContent()).toContain('O prazo para pagamento terminou em');
    expect(await page.locator('form').count()).toBe(0);
    await shot(page, 'checkout-expired.png');
    const info = await information(t, m, link.id);
    expect(info).toMatchObject({ status: 3, statusFormat: 'Expirado' });
    expect(info.history.at(-1)).toMatchObject({ status: 3, statusFormat: 'Expirado', historyDate: link.expirationDate });
    expect(problems.filter((p) => !p.includes('409'))).toEqual([]);
    await page.close();
  });

  it('works on a phone-sized screen (375x667): labelled fields, no sideways scrolling, pays', async () => {
    const link = await createLink(t, m, {
      description: 'Assinatura anual do clube de vinhos com entrega mensal',
      value: 1234.56,
      qttyInstallments: undefined,
      qttyInstallmentsCustom: [1, 3, 10],
      qttyInstallmentsIntFree: 3,
      installmentsFee: 2.49,
      message: 'Pagamento referente ao pedido 98765. Dúvidas? Responda este e-mail.',
    });
    const { page, problems } = await open(link.id, { width: 375, height: 667 });
    await shot(page, 'checkout-phone.png');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    for (const label of ['Parcelas', 'Número do cartão', 'Nome impresso no cartão', 'Validade (MM/AA)', 'Código de segurança (CVV)', 'E-mail para o comprovante', 'CPF ou CNPJ']) {
      const box = await page.getByLabel(label).boundingBox();
      expect(box, label).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, label).toBeLessThanOrEqual(375);
      expect(box!.height, label).toBeGreaterThanOrEqual(44); // a finger-sized target
    }
    expect(await page.locator('#installments option').allTextContents()).toHaveLength(3);

    await page.getByLabel('Parcelas').selectOption('10');
    await fillCard(page, { number: '5555555555554444' });
    await page.getByLabel('E-mail para o comprovante').fill('maria@example.com');
    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await page.locator('#pay-button').click();
    await page.locator('#result').waitFor({ state: 'visible' });
    await shot(page, 'checkout-phone-paid.png');
    const info = await information(t, m, link.id);
    expect(info).toMatchObject({ status: 2, paymentQttyInstallments: 10, paymentValue: Number(formatFixed(installmentPlan(123456n, 10, 3, 24900n).total, 2)) });
    expect(problems).toEqual([]);
    await page.close();
  });
});
