import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, toIsoDate } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { emitEvents } from '../webhooks/support.js';
import { HAVE_CHROMIUM, PHONE, launchDashboardBrowser, loginMerchant, screenshot, seriousViolations, type DashboardBrowser } from './browser.js';
import { advance, bankSlip, forceOutcome, fullMerchant, pixCharge, subscription, type FullMerchant } from './merchant-pages-support.js';

describe.skipIf(!HAVE_CHROMIUM)(`dashboard merchant pages in chromium (${testDialect})`, () => {
  let t: TestApp;
  let m: FullMerchant;
  let b: DashboardBrowser;
  let ids: { subscriptionId: string; slipId: string; pixId: string };
  beforeAll(async () => {
    t = await testApp();
    m = await fullMerchant(t);
    // Real data of every kind, made through the APIs.
    const s = await subscription(t, m, { name: 'Plano Ouro', order: 'PED-1001' });
    await subscription(t, m, { name: 'Plano Prata', order: 'PED-1002' });
    await advance(t, { days: 1, minutes: 1 }); // billing 1 of each is charged
    const slipId = await bankSlip(t, m, addDays(toIsoDate(t.ctx.clock.now()), 10), 'Ana Souza');
    await bankSlip(t, m, addDays(toIsoDate(t.ctx.clock.now()), 20), 'Bruno Lima');
    const pix = await pixCharge(t, m, 4590, 'Tênis de corrida');
    await t.inject({ method: 'POST', url: '/gateway/v1/paymentlink', headers: m.headers, payload: { description: 'Curso de violão', value: 300, qttyInstallments: 3, expirationDate: new Date(t.ctx.clock.now().getTime() + 5 * 86_400_000).toISOString() } });
    const hook = await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { url: 'http://127.0.0.1:9/hooks', types: ['*'] } });
    expect(hook.statusCode, hook.body).toBe(200);
    await emitEvents(t.ctx, m, 3);
    await advance(t, { minutes: 0 }); // one failed attempt each (nothing listens on port 9)
    ids = { subscriptionId: s.subscriptionId, slipId, pixId: pix.id };
    b = await launchDashboardBrowser(t);
    const page = await b.context.newPage();
    await loginMerchant(page, b.base, m);
    await page.close();
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  /** Opens a page at both sizes: its h1, axe with no serious violation, no console problem, screenshots. */
  async function check(path: string, h1: string | RegExp, shot: string | null, content: string) {
    for (const [viewport, size] of [[undefined, 'desktop'], [PHONE, 'phone']] as const) {
      const { page, problems } = await b.open(path, viewport);
      expect(await page.locator('h1').textContent()).toMatch(h1);
      expect(await page.locator('main').textContent()).toContain(content);
      expect(await seriousViolations(page)).toEqual([]);
      if (shot) await screenshot(page, `${shot}-${size}.png`);
      expect(problems).toEqual([]);
      await page.close();
    }
  }

  it('every page opens with real data, passes axe at desktop and phone sizes, with screenshots', async () => {
    await check('/dashboard/subscriptions', 'Planos e assinaturas', 'subscriptions', 'PED-1001');
    await check(`/dashboard/subscriptions/${ids.subscriptionId}`, /^Assinatura PED-1001$/, 'subscription-detail', 'Cobrança 1');
    await check('/dashboard/bankslips', 'Boletos', 'bankslips', 'Ana Souza');
    await check(`/dashboard/bankslips/${ids.slipId}`, /Ana Souza/, 'bankslip-detail', 'Linha digitável');
    await check('/dashboard/pix', 'Cobranças Pix', 'pix', 'Tênis de corrida');
    await check(`/dashboard/pix/${ids.pixId}`, /Cobrança Pix/, 'pix-detail', 'Pix copia e cola');
    await check('/dashboard/links', 'Links de pagamento', 'links', 'Curso de violão');
    await check('/dashboard/webhooks', 'Webhooks', 'webhooks', 'TransactionStatus');
  }, 60_000);

  it('creates a payment link with the form and deactivates it after confirming', async () => {
    const { page, problems } = await b.open('/dashboard/links');
    const expires = new Date(t.ctx.clock.now().getTime() + 2 * 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 16);
    await page.getByLabel('Descrição').fill('Camiseta do navegador');
    await page.getByLabel('Valor (R$)').fill('79,90');
    await page.getByLabel('Parcelas: até (1 a 12)').fill('2');
    await page.getByLabel('Expira em (horário de Brasília)').fill(expires);
    await page.getByRole('button', { name: 'Criar link' }).click();
    await page.waitForURL(/created=/);
    const id = /created=([0-9a-f-]{36})/.exec(page.url())![1];
    expect(await page.getByRole('status').textContent()).toContain('Link criado');
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/paymentlink/information?id=${id}`, headers: m.headers });
    expect(api.json()).toMatchObject({ description: 'Camiseta do navegador', value: 79.9, status: 1 });

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Desativar: Camiseta do navegador' }).click();
    await page.waitForURL(/done=deactivated/);
    expect((await t.inject({ method: 'GET', url: `/gateway/v1/paymentlink/information?id=${id}`, headers: m.headers })).json().status).toBe(9);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('redelivers a delivery from the log', async () => {
    const { page, problems } = await b.open('/dashboard/webhooks?type=TransactionStatus');
    const first = page.locator('tbody tr').first();
    const movementId = (await first.locator('td').first().textContent())!.trim();
    await first.getByRole('button', { name: `Reenviar ${movementId}` }).click();
    await page.waitForURL(/done=/);
    expect(await page.getByRole('status').textContent()).toContain(`Notificação ${movementId} reenviada`);
    const log = await t.inject({ method: 'GET', url: `/integration/api/webhooks/deliveries?accountNumber=${m.accountNumber}&limit=100`, headers: m.integration });
    expect(log.json().items.find((d: { movementId: number }) => d.movementId === Number(movementId)).status).toBe('Pending');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a declined first charge (51) and its retry, moved by the sandbox clock, show on the subscription page', async () => {
    const s = await subscription(t, m, { name: 'Plano Retentativa', order: 'PED-RETRY', attempts: 2 });
    await forceOutcome(t, s.vaultId, '51');
    await advance(t, { days: 1, minutes: 1 });
    const { page, problems } = await b.open(`/dashboard/subscriptions/${s.subscriptionId}`);
    const billing = page.locator('section', { hasText: 'Cobrança 1' });
    expect(await billing.textContent()).toContain('Recusada');
    expect(await billing.textContent()).toMatch(/código 51/);
    expect(await billing.textContent()).toMatch(/Próxima tentativa\s*\d\d\/\d\d\/\d{4}/);
    const retryAt = /nova tentativa em (\d\d\/\d\d\/\d{4} \d\d:\d\d)/.exec((await billing.textContent())!)![1];

    await forceOutcome(t, s.vaultId, null); // the card pays again
    await advance(t, { days: 2, minutes: 1 });
    await page.reload();
    const after = (await page.locator('section', { hasText: 'Cobrança 1' }).textContent())!;
    expect(after).toContain('Aprovada');
    expect(after).toContain(`nova tentativa feita em ${retryAt}`);
    expect(after).toContain('Paga');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'subscription-retry-desktop.png');
    expect(problems).toEqual([]);
    await page.close();
  });
});

