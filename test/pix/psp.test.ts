import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SystemClock } from '../../src/clock.js';
import { addDays } from '../../src/domain/calendar.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { BcbPixProvider } from '../../src/pix-provider/bcb/provider.js';
import { makePixTestCerts, type PixTestCerts } from '../standins/pix-certs.js';
import { basicClient, PixStandIn, STANDIN_PIX_CLIENT_SECRET, STANDIN_PIX_KEY } from '../standins/pix-psp.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { information, issued, slipBody } from '../bankslips/support.js';
import { pspEnv, pspGateway, WEBHOOK_PATH, WEBHOOK_SECRET, type PspGateway } from './psp-support.js';

/** The received Pix list is read every minute of the sandbox clock (default: five). */
const RECONCILE_EVERY_MINUTE = { PIX_RECONCILE_INTERVAL_SECONDS: '60' };
const CHARGES = '/gateway/v1/pix/charges';

describe(`Pix through a PSP speaking the API Pix, over mutual TLS (${testDialect})`, () => {
  let g: PspGateway;
  let certs: PixTestCerts;
  let psp: PixStandIn;
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    g = await pspGateway({ standIn: { pageSize: 2 }, env: RECONCILE_EVERY_MINUTE });
    ({ certs, psp, t, headers } = g);
  });
  afterAll(() => g?.close());

  const create = async (amount: number, description?: string) => {
    const res = await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount, description } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const getCharge = async (id: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${id}`, headers })).json();
  const receivables = (id: string) => t.ctx.database.db.selectFrom('receivables').selectAll().where('source_id', '=', id).execute();
  const payments = (txid: string) => t.ctx.database.db.selectFrom('pix_payments').selectAll().where('txid', '=', txid).execute();

  it('creates the charge at the PSP (PUT /cob/{txid}) and puts its location in the BR Code', async () => {
    const charge = await create(12345, 'Pedido 77');
    const cob = psp.charges.get(charge.txid);
    expect(cob?.kind).toBe('cob');
    expect(cob?.body).toEqual({ calendario: { expiracao: 3600 }, valor: { original: '123.45' }, chave: STANDIN_PIX_KEY, solicitacaoPagador: 'Pedido 77' });
    const code = parseBrCode(charge.pixEmv);
    expect(code.ok).toBe(true);
    expect(code.ok && code.value).toMatchObject({ dynamic: true, locationUrl: cob?.location, amountCents: 12345n, txid: charge.txid });
  });

  it("a payment reported by the PSP's webhook pays the charge: Paid at the Pix's time, one D+0 receivable", async () => {
    const charge = await create(2500);
    const pix = await psp.pay(charge.txid);
    expect(psp.webhookCalls.at(-1)?.status).toBe(200);
    const paid = await getCharge(charge.id);
    expect(paid).toMatchObject({ status: 'Paid', paidAt: pix.horario });
    expect(await receivables(charge.id)).toHaveLength(1);
    expect(await payments(charge.txid)).toMatchObject([{ end_to_end_id: pix.endToEndId, source: 'webhook', outcome: 'applied', charge_id: charge.id }]);
  });

  it('a duplicated webhook is applied once', async () => {
    const charge = await create(700);
    const pix = await psp.pay(charge.txid);
    for (let i = 0; i < 3; i++) expect(await psp.notify([pix])).toBe(200);
    const answer = await t.inject({ method: 'POST', url: `${WEBHOOK_PATH}/pix`, headers: { authorization: `Bearer ${WEBHOOK_SECRET}` }, payload: { pix: [pix, pix] } });
    expect(answer.json()).toEqual({ applied: 0, duplicates: 2, unmatched: 0, returns: 0 });
    expect(await receivables(charge.id)).toHaveLength(1);
    expect(await payments(charge.txid)).toHaveLength(1);
    expect((await getCharge(charge.id)).paidAt).toBe(pix.horario);
  });

  it('refuses unauthenticated webhooks (no secret, a wrong one, an address outside the list) and bad bodies, changing nothing', async () => {
    const charge = await create(900);
    const pix = { endToEndId: `E12345678202701011200${'a'.repeat(11)}`, txid: charge.txid, valor: '9.00', horario: '2027-01-01T12:00:00Z' };
    const post = (headers: Record<string, string>, payload: unknown = { pix: [pix] }, remoteAddress?: string) =>
      t.inject({ method: 'POST', url: WEBHOOK_PATH, headers, payload: payload as object, ...(remoteAddress ? { remoteAddress } : {}) });
    const noSecret = await post({});
    expect(noSecret.statusCode).toBe(401);
    expect(noSecret.json()[0].tag).toBe('unauthorized');
    expect((await post({ authorization: 'Bearer wrong-secret-0123456789abcdef' })).statusCode).toBe(401);
    expect((await post({ authorization: `Basic ${Buffer.from(`psp:${WEBHOOK_SECRET}x`).toString('base64')}` })).statusCode).toBe(401);
    const outside = await post({ authorization: `Bearer ${WEBHOOK_SECRET}` }, undefined, '203.0.113.9');
    expect(outside.statusCode).toBe(403);
    expect(outside.json()[0].tag).toBe('ip_not_allowed');
    // Over real HTTP, from the PSP but without its secret.
    expect(await psp.notify([{ ...pix, chave: STANDIN_PIX_KEY, devolucoes: [] }], { secret: null })).toBe(401);
    const bad = await post({ authorization: `Bearer ${WEBHOOK_SECRET}` }, { pix: [{ ...pix, valor: 9 }, { ...pix, endToEndId: 'short' }] });
    expect(bad.statusCode).toBe(400);
    expect(Array.isArray(bad.json())).toBe(true);
    expect((await getCharge(charge.id)).status).toBe('Pending');
    expect(await payments(charge.txid)).toHaveLength(0);
    // The same payment with the secret as Basic's password (a webhook URL with user:secret@) is accepted.
    const ok = await post({ authorization: `Basic ${Buffer.from(`psp:${WEBHOOK_SECRET}`).toString('base64')}` });
    expect(ok.json()).toEqual({ applied: 1, duplicates: 0, unmatched: 0, returns: 0 });
    expect((await getCharge(charge.id)).status).toBe('Paid');
  });

  it('a payment whose webhook was lost is recovered by the reconciliation (GET /pix, every page), and only once', async () => {
    const lost = await create(4321);
    const pix = await psp.pay(lost.txid, { webhook: 'lose' });
    expect((await getCharge(lost.id)).status).toBe('Pending');
    // A Pix with another amount is recorded, never a sale.
    const other = await create(1000);
    await psp.pay(other.txid, { webhook: 'lose', valor: '9.99' });
    expect(psp.received.length).toBeGreaterThanOrEqual(4); // two pages of 2 at least
    const from = new Date(Date.parse(pix.horario) - 3_600_000);
    const to = new Date(Date.parse(pix.horario) + 60_000);
    const summary = await t.ctx.pix.reconcile(from, to);
    expect(summary.applied).toBe(1);
    expect(summary.unmatched).toBe(1);
    expect(summary.duplicates).toBe(psp.received.length - 2);
    expect(await getCharge(lost.id)).toMatchObject({ status: 'Paid', paidAt: pix.horario });
    expect(await payments(lost.txid)).toMatchObject([{ source: 'reconciliation', outcome: 'applied' }]);
    expect(await payments(other.txid)).toMatchObject([{ outcome: 'amount_mismatch', charge_id: other.id }]);
    expect((await getCharge(other.id)).status).toBe('Pending');
    expect(await t.ctx.pix.reconcile(from, to)).toEqual({ applied: 0, duplicates: psp.received.length, unmatched: 0 });
    expect(await receivables(lost.id)).toHaveLength(1);
    // The webhook arriving late after all changes nothing.
    expect(await psp.notify([pix])).toBe(200);
    expect(await receivables(lost.id)).toHaveLength(1);
  });

  it("a bank slip's Pix code is a cobv at the PSP (PUT /cobv/{txid}); paid there, the slip is paid, once", async () => {
    const m = await t.merchant({ api: 'integration' });
    const body = slipBody({ value: 150.75, pix: true });
    const slip = await issued(t, m, body);
    const code = parseBrCode(slip.pixEmv);
    if (!code.ok) throw new Error(code.error);
    const cobv = psp.charges.get(code.value.txid);
    expect(cobv?.kind).toBe('cobv');
    expect(cobv?.body).toEqual({
      calendario: { dataDeVencimento: body.dueDate, validadeAposVencimento: 0 },
      devedor: { cpf: '52998224725', nome: 'Maria da Silva' },
      valor: { original: '150.75' },
      chave: STANDIN_PIX_KEY,
    });
    expect(code.value.locationUrl).toBe(cobv?.location);
    const pix = await psp.pay(code.value.txid);
    expect(psp.webhookCalls.at(-1)?.status).toBe(200);
    const paid = await information(t, m, slip.id);
    expect(paid.statusBill).toBe(3);
    expect(await psp.notify([pix])).toBe(200);
    expect((await information(t, m, slip.id)).statusBill).toBe(3);
    expect(await payments(code.value.txid)).toMatchObject([{ end_to_end_id: pix.endToEndId, outcome: 'applied', charge_id: slip.id }]);
  });

  it('a charge with a due date is a cobv with its terms (multa, juros, desconto as the API Pix writes them); paid at the PSP its day\'s amount, that amount is the sale', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const dueDate = addDays(today, 15);
    const payload = { amount: 10_000, dueDate, validAfterDueDays: 5, payer: { documentNumber: '11222333000181', name: 'Cliente SA' }, fine: 2.5, interest: 1, discount: { amount: 500, until: addDays(today, 3) } };
    const res = await t.inject({ method: 'POST', url: CHARGES, headers, payload });
    expect(res.statusCode, res.body).toBe(201);
    const charge = res.json();
    expect(psp.charges.get(charge.txid)?.body).toEqual({
      calendario: { dataDeVencimento: dueDate, validadeAposVencimento: 5 },
      devedor: { cnpj: '11222333000181', nome: 'Cliente SA' },
      valor: {
        original: '100.00',
        multa: { modalidade: 2, valorPerc: '2.50' },
        juros: { modalidade: 3, valorPerc: '1.00' },
        desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(today, 3), valorPerc: '5.00' }] },
      },
      chave: STANDIN_PIX_KEY,
    });
    // Paid today, within the discount: 95.00 is the sale; the face value would not be what was asked.
    const other = (await t.inject({ method: 'POST', url: CHARGES, headers, payload })).json();
    expect(await psp.notify([await psp.pay(other.txid, { valor: '100.00', webhook: 'lose' })])).toBe(200);
    expect(await payments(other.txid)).toMatchObject([{ outcome: 'amount_mismatch' }]);
    await psp.pay(charge.txid, { valor: '95.00' });
    expect(await getCharge(charge.id)).toMatchObject({ status: 'Paid', amount: 10_000, paidAmount: 9_500 });
    expect((await receivables(charge.id)).map((r) => Number(r.transaction_total_value))).toEqual([95_0000]); // 4 decimals
  });

  it("a cancelled bolecode's cobv is removed at the PSP (PATCH /cobv/{txid}), retried while the PSP is down", async () => {
    const m = await t.merchant({ api: 'integration' });
    const slip = await issued(t, m, slipBody({ value: 80, pix: true }));
    const code = parseBrCode(slip.pixEmv);
    if (!code.ok) throw new Error(code.error);
    psp.unavailable = true;
    const cancel = await t.inject({ method: 'POST', url: `/integration/api/billissuer/${slip.id}/cancel?accountNumber=${m.accountNumber}`, headers: m.headers, payload: { reason: 'pedido desfeito' } });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });
    expect(psp.charges.get(code.value.txid)?.status).toBe('ATIVA'); // the PSP did not answer: the job retries
    psp.unavailable = false;
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 10 } });
    expect(psp.charges.get(code.value.txid)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(psp.requests.filter((r) => r.method === 'PATCH' && r.path === `/cobv/${code.value.txid}`).at(-1)?.body).toEqual({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect((await t.ctx.database.db.selectFrom('pix_due_charges').select('status').where('txid', '=', code.value.txid).executeTakeFirstOrThrow()).status).toBe('Removed');
    // Removed (no longer ATIVA at the PSP), it is not sent again: the API Pix would refuse it.
    const patches = () => psp.requests.filter((r) => r.method === 'PATCH' && r.path === `/cobv/${code.value.txid}`).length;
    const sent = patches();
    await t.ctx.pix.removeDueCharge(slip.id);
    expect(patches()).toBe(sent);
  });

  // Last of the tests that pay: it moves the sandbox clock ahead of the PSP's (real) time, and a
  // slip refuses a payment dated before its registration.
  it('the reconciliation job runs on its own as business time passes', async () => {
    const charge = await create(1111);
    await psp.pay(charge.txid, { webhook: 'lose' });
    const advance = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 2 } });
    expect(advance.statusCode, advance.body).toBe(200);
    expect((await getCharge(charge.id)).status).toBe('Paid');
  });

  it('a charge that expired meanwhile is still paid by a Pix the PSP settled before the expiry (the report came late)', async () => {
    const charge = await create(800);
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { hours: 2 } })).statusCode).toBe(200);
    expect((await getCharge(charge.id)).status).toBe('Expired');
    const pix = { endToEndId: `E12345678202701011200${'b'.repeat(11)}`, txid: charge.txid, valor: '8.00', horario: charge.createdAt };
    const answer = await t.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { authorization: `Bearer ${WEBHOOK_SECRET}` }, payload: { pix: [pix] } });
    expect(answer.json()).toEqual({ applied: 1, duplicates: 0, unmatched: 0, returns: 0 });
    expect(await getCharge(charge.id)).toMatchObject({ status: 'Paid', paidAt: charge.createdAt });
    expect(await receivables(charge.id)).toHaveLength(1);
  });

  it('never writes the client secret, the access token or the webhook secret to a log', async () => {
    const tokens = psp.requests.length;
    expect(tokens).toBeGreaterThan(0);
    expect(t.logs.text).not.toContain(STANDIN_PIX_CLIENT_SECRET);
    expect(t.logs.text).not.toContain(WEBHOOK_SECRET);
    expect(t.logs.text).not.toMatch(/Bearer [0-9a-f-]{36}/);
  });

  it('the connector refunds a received Pix (PUT /pix/{e2eid}/devolucao/{id}), idempotent by id, never beyond the Pix', async () => {
    const charge = await create(3000);
    const pix = await psp.pay(charge.txid);
    const provider = new BcbPixProvider(t.config.pix, new SystemClock());
    try {
      const first = { endToEndId: pix.endToEndId, refundId: 'D1' + charge.txid.slice(0, 20), amountCents: 1000n, nature: 'ORIGINAL' as const };
      expect(await provider.refund({ ...first, description: 'Troca' })).toEqual({ status: 'Refunded' });
      expect(await provider.refund(first)).toEqual({ status: 'Refunded' });
      expect(psp.received.find((p) => p.endToEndId === pix.endToEndId)?.devolucoes.map((d) => d.valor)).toEqual(['10.00']);
      await expect(provider.refund({ ...first, refundId: 'D2' + charge.txid.slice(0, 20), amountCents: 2001n })).rejects.toThrow(/refused the devolucao/);
    } finally {
      provider.close();
    }
  });

  it('form-encodes the client id and secret before Basic (RFC 6749 2.3.1): a secret with + / = % and a space reaches a strict server intact', async () => {
    const seen: (string | undefined)[] = [];
    psp.onTokenRequest = (authorization) => seen.push(authorization);
    const provider = new BcbPixProvider(loadConfig(pspEnv(psp, certs, RECONCILE_EVERY_MINUTE)).pix, new SystemClock());
    try {
      await provider.createCharge({ txid: 'f'.repeat(32), amountCents: 100n, expiresInSeconds: 60 });
    } finally {
      provider.close();
      psp.onTokenRequest = undefined;
    }
    expect(seen).toHaveLength(1);
    expect(Buffer.from(seen[0]!.slice('Basic '.length), 'base64').toString('utf8')).toBe('standin-pix-client:standin%2Bpix%2Fsecret%3Dfor%25tests+only');
    expect(basicClient(seen[0])).toEqual({ id: 'standin-pix-client', secret: STANDIN_PIX_CLIENT_SECRET });
    // Raw, as before: a strict server reads another secret (or none).
    const raw = `Basic ${Buffer.from(`standin-pix-client:${STANDIN_PIX_CLIENT_SECRET}`).toString('base64')}`;
    expect(basicClient(raw)?.secret).not.toBe(STANDIN_PIX_CLIENT_SECRET);
  });

  it('the PSP refuses a client without the certificate its CA signed (mutual TLS)', async () => {
    for (const env of [pspEnv(psp, certs, { ...RECONCILE_EVERY_MINUTE, PIX_CERT_FILE: '', PIX_KEY_FILE: '' }), pspEnv(psp, certs, { ...RECONCILE_EVERY_MINUTE, PIX_CERT_FILE: certs.strangerCertFile, PIX_KEY_FILE: certs.strangerKeyFile })]) {
      const provider = new BcbPixProvider(loadConfig(env).pix, new SystemClock());
      try {
        await expect(provider.createCharge({ txid: 'a'.repeat(32), amountCents: 100n, expiresInSeconds: 60 })).rejects.toThrow(/PSP POST \/oauth\/token/);
      } finally {
        provider.close();
      }
    }
  });
});

describe(`a PSP that refuses or does not answer (${testDialect})`, () => {
  it('answers 502 when the PSP refuses the charge and 503 when it is down, writing nothing', async () => {
    const certs = makePixTestCerts();
    const psp = await new PixStandIn({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, caFile: certs.caFile } }).start();
    const t = await testApp({ env: pspEnv(psp, certs, { ...RECONCILE_EVERY_MINUTE, PIX_KEY: 'not-a-key-of-this-account' }) });
    try {
      const { headers } = await t.merchant();
      const refused = await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount: 100 } });
      expect(refused.statusCode).toBe(502);
      expect(refused.json()[0]).toMatchObject({ tag: 'pix_provider_refused' });
      // A location that would not fit the BR Code is refused, never cut.
      const longLocation = await new PixStandIn({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, caFile: certs.caFile }, locationHost: 'qr-codes.a-very-long-psp-host-name.example.com.br' }).start();
      const t2 = await testApp({ env: pspEnv(longLocation, certs, RECONCILE_EVERY_MINUTE) });
      try {
        const tooLong = await t2.inject({ method: 'POST', url: CHARGES, headers: (await t2.merchant()).headers, payload: { amount: 100 } });
        expect(tooLong.statusCode).toBe(502);
        expect(tooLong.json()[0].tag).toBe('pix_provider_location');
        expect(await t2.ctx.database.db.selectFrom('pix_charges').select('id').execute()).toEqual([]);
      } finally {
        await t2.close();
        await longLocation.stop();
      }
      await psp.stop();
      const down = await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount: 100 } });
      expect(down.statusCode).toBe(503);
      expect(down.json()[0].tag).toBe('pix_provider_unavailable');
      expect(await t.ctx.database.db.selectFrom('pix_charges').select('id').execute()).toEqual([]);
    } finally {
      await t.close();
      certs.remove();
    }
  });
});
