import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brasiliaDate, brasiliaStart } from '../../src/domain/brasilia.js';
import { testDialect } from '../support/database.js';
import { pspGateway, WEBHOOK_PATH, WEBHOOK_SECRET, type PspGateway } from '../pix/psp-support.js';
import { buildBrCode } from '../../src/domain/pix.js';
import { decodeJourneyThreeCode } from './composite-code.js';
import { CPF, pixAuto } from './pix-automatico-support.js';
import { addDays, clock, R, recurrence } from './support.js';

/**
 * Pix Automático with PIX_PROVIDER=bcb, against the stand-in PSP over mutual TLS: the journey-3
 * recurrence (`/cob`, `/locrec`, `/rec`), each cycle's `/cobr` in its window, the payer's answers
 * and the settlements told by `/webhookrec` and `/webhookcobr`, the retries asked by
 * `/cobr/{txid}/retentativa/{data}`, the merchant's cancel by `PATCH /rec`, and the
 * reconciliation reading the `GET /rec` and `GET /cobr` lists when a webhook was lost
 * (./pix-automatico-reconcile.test.ts: pages, windows, cursor).
 */
describe(`Pix Automático with PIX_PROVIDER=bcb (${testDialect})`, () => {
  let g: PspGateway;
  beforeAll(async () => {
    g = await pspGateway({
      // The stand-in's dates follow the gateway's sandbox clock (the cobr window, the retries).
      standIn: { now: () => g.t.ctx.clock.now() },
      env: { PIX_RECEIVER_ACCOUNT: '012682', PIX_RECEIVER_AGENCY: '9708', PIX_RECONCILE_INTERVAL_SECONDS: '86400' },
    });
  });
  afterAll(() => g?.close());

  const requests = (method: string, prefix: string) => g.psp.requests.filter((r) => r.method === method && r.path.startsWith(prefix));
  const cobrs = (billingId: string) => g.t.ctx.database.db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', billingId).execute();

  async function setup(orderNumber: string) {
    const m = await g.t.merchant();
    const pix = pixAuto(g.t, m);
    const api = recurrence(g.t, m);
    const clk = clock(g.t);
    const planId = await pix.plan({ name: `Plano ${orderNumber}` });
    const subscriptionId = await pix.subscribe(planId, orderNumber);
    const { pixAuthorization } = await pix.subscription(subscriptionId);
    return { m, pix, api, clk, subscriptionId, recurrenceId: pixAuthorization.recurrenceId as string, pixEmv: pixAuthorization.pixEmv as string };
  }

  async function active(orderNumber: string) {
    const s = await setup(orderNumber);
    await g.psp.automatico.authorize(s.recurrenceId);
    const billings = new Map((await s.api.billings()).map((b) => [b.installment as number, b]));
    return { ...s, billings };
  }

  /** Moves to 9.9 days before a billing's due date: its cobr goes out. */
  async function sent(s: Awaited<ReturnType<typeof active>>, billing: { id: string; expireAt: string }) {
    await s.clk.to(addDays(billing.expireAt, -9.9));
    const [cobr] = await cobrs(billing.id);
    expect(cobr).toMatchObject({ status: 'ATIVA', due_date: brasiliaDate(new Date(billing.expireAt)) });
    return cobr;
  }

  it('subscribing creates the journey-3 charge, the locrec and the recurrence, with the bodies the API Pix asks, and one composite code with both locations; the payer scans it -> Active, billing 1 Paid', async () => {
    const s = await setup('BCB-1');
    const rec = g.psp.automatico.recs.get(s.recurrenceId)!;
    expect(rec).toBeDefined();
    const txid = rec.body.ativacao.dadosJornada.txid;
    expect(requests('PUT', `/cob/${txid}`)).toHaveLength(1);
    expect(requests('POST', '/locrec').at(-1)?.body).toEqual({ tipo: 'rec' });
    const due = (await s.api.billings())[0].expireAt as string;
    expect(requests('POST', '/rec').at(-1)?.body).toEqual({
      vinculo: { contrato: 'BCB-1', devedor: { cpf: CPF, nome: 'Maria da Silva' }, objeto: 'Plano BCB-1' },
      calendario: { dataInicial: brasiliaDate(new Date(due)), periodicidade: 'MENSAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: rec.loc.id,
      ativacao: { dadosJornada: { txid } },
    });
    // One composite code with the PSP's two locations (no scheme): the charge's in 26, the locrec's in 80,
    // where the PSP's own composite code (`dadosQR` of GET /rec/{idRec}?txid=) has them.
    const code = decodeJourneyThreeCode(s.pixEmv);
    expect(code).toEqual({ chargeLocation: g.psp.charges.get(txid)!.location, recurrenceLocation: rec.loc.location });
    expect(decodeJourneyThreeCode(g.psp.automatico.compositeOf(rec))).toEqual(code);
    expect((await s.pix.subscription(s.subscriptionId)).status).toBe('PendingAuthorization');

    // The payer's bank reads the code: the recurrence alone in 26 (no charge to pay) is not journey 3.
    const recurrenceOnly = buildBrCode({ locationUrl: rec.loc.location, merchantName: 'LOJA', merchantCity: 'SAO PAULO', txid: '***' });
    await expect(g.psp.automatico.scan(recurrenceOnly)).rejects.toThrow(/no recurrence location/);
    expect(await g.psp.automatico.scan(s.pixEmv)).toBe(s.recurrenceId);
    const sub = await s.pix.subscription(s.subscriptionId);
    expect(sub.status).toBe('Active');
    expect(sub.pixAuthorization.status).toBe('APROVADA');
    const [first] = await s.api.billings();
    expect(first.status).toBe('Paid');
    // The journey-3 charge's Pix arrived by the payments' webhook: paid once, with its record.
    const charge = await g.t.ctx.database.db.selectFrom('pix_charges').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
    expect(charge.status).toBe('Paid');
    expect(await s.pix.receivablesOf(charge.id)).toHaveLength(1);
    // The same notification again changes nothing.
    const again = await g.t.inject({ method: 'POST', url: `${WEBHOOK_PATH}/rec`, headers: { authorization: `Bearer ${WEBHOOK_SECRET}` }, payload: { recs: [{ idRec: s.recurrenceId, status: 'APROVADA', atualizacao: [] }] } });
    expect(again.json()).toEqual({ applied: 0, unchanged: 1 });
  });

  it('the webhooks of recurrences and cycle charges need the secret', async () => {
    const res = await g.t.inject({ method: 'POST', url: `${WEBHOOK_PATH}/cobr`, headers: { authorization: 'Bearer wrong-secret-0123456789' }, payload: { cobsr: [] } });
    expect(res.statusCode).toBe(401);
    const rec = await g.t.inject({ method: 'POST', url: `${WEBHOOK_PATH}/rec`, payload: { recs: [] } });
    expect(rec.statusCode).toBe(401);
  });

  it("a cycle's cobr goes out in the window with its receiving account, and is settled -> billing Paid with its conciliation record", async () => {
    const s = await active('BCB-2');
    const second = s.billings.get(2)!;
    await s.clk.to(addDays(second.expireAt, -10.5));
    expect(await cobrs(second.id)).toHaveLength(0);
    const cobr = await sent(s, second);
    expect(requests('PUT', `/cobr/${cobr.txid}`).at(-1)?.body).toEqual({
      idRec: s.recurrenceId,
      infoAdicional: 'Billing 2',
      calendario: { dataDeVencimento: brasiliaDate(new Date(second.expireAt)) },
      valor: { original: '49.90' },
      ajusteDiaUtil: false,
      recebedor: { conta: '012682', tipoConta: 'CORRENTE', agencia: '9708' },
    });
    await s.clk.to(second.expireAt);
    expect((await s.api.billing(second.id)).status).toBe('Opened');
    await g.psp.automatico.settle(cobr.txid, 'paid');
    const paid = await s.api.billing(second.id);
    expect(paid.status).toBe('Paid');
    expect(paid.attemptsHistory).toEqual([expect.objectContaining({ returnCode: '00', paymentId: cobr.charge_id })]);
    expect(await s.pix.receivablesOf(cobr.charge_id)).toHaveLength(1);
    expect((await cobrs(second.id))[0].status).toBe('CONCLUIDA');
    // The reconciliation reading it again, and the Pix listed by GET /pix, pay nothing twice.
    await g.t.ctx.pix.runReconciliation();
    const e2e = g.psp.automatico.cobrs.get(cobr.txid)!.pix[0].endToEndId;
    const listed = g.psp.received.find((p) => p.endToEndId === e2e)!;
    expect(await g.t.ctx.pix.receive([{ endToEndId: e2e, txid: cobr.txid, amountCents: 4990n, paidAt: listed.horario }], 'reconciliation')).toEqual({ applied: 0, duplicates: 1, unmatched: 0 });
    expect(await s.pix.receivablesOf(cobr.charge_id)).toHaveLength(1);
  });

  it('a refused cycle is retried by POST /cobr/{txid}/retentativa/{data} and then paid', async () => {
    const s = await active('BCB-3');
    const second = s.billings.get(2)!;
    const cobr = await sent(s, second);
    await s.clk.to(second.expireAt);
    await g.psp.automatico.settle(cobr.txid, 'refused');
    const failed = await s.api.billing(second.id);
    expect(failed.status).toBe('Opened');
    expect(failed.attemptsHistory).toEqual([expect.objectContaining({ returnCode: 'AM02' })]);
    await s.clk.runDue();
    const retryDate = brasiliaDate(addDays(second.expireAt, 2));
    expect(requests('POST', `/cobr/${cobr.txid}/retentativa/`).map((r) => r.path)).toEqual([`/cobr/${cobr.txid}/retentativa/${retryDate}`]);
    await s.clk.to(addDays(second.expireAt, 2));
    await g.psp.automatico.settle(cobr.txid, 'paid');
    const paid = await s.api.billing(second.id);
    expect(paid.status).toBe('Paid');
    expect(paid.attemptsHistory.map((a: { returnCode: string }) => a.returnCode)).toEqual(['AM02', '00']);
    expect(JSON.parse((await cobrs(second.id))[0].attempts).map((a: { status: string }) => a.status)).toEqual(['REJEITADA', 'PAGA']);
  });

  it('refused on every try: retried at D+2, D+4, D+6 (the three retentativas), then Denied, the cobr REJEITADA at the PSP and here', async () => {
    const s = await active('BCB-9');
    const second = s.billings.get(2)!;
    const cobr = await sent(s, second);
    for (const day of [0, 2, 4, 6]) {
      await s.clk.to(addDays(second.expireAt, day));
      await g.psp.automatico.settle(cobr.txid, 'refused');
      await s.clk.runDue();
    }
    const denied = await s.api.billing(second.id);
    expect(denied.status).toBe('Denied');
    expect(denied.attemptsHistory).toHaveLength(4);
    expect(requests('POST', `/cobr/${cobr.txid}/retentativa/`).map((r) => r.path.slice(-10))).toEqual([2, 4, 6].map((d) => brasiliaDate(addDays(second.expireAt, d))));
    expect(g.psp.automatico.cobrs.get(cobr.txid)!.status).toBe('REJEITADA');
    expect((await cobrs(second.id))[0].status).toBe('REJEITADA');
  });

  it('a refusal that ends the cobr at the PSP (AC05) is Denied at once, with no retentativa; a cobr the payer cancels is Denied too', async () => {
    const s = await active('BCB-10');
    const second = s.billings.get(2)!;
    const cobr = await sent(s, second);
    await s.clk.to(second.expireAt);
    await g.psp.automatico.settle(cobr.txid, 'refused_final');
    await s.clk.runDue();
    const denied = await s.api.billing(second.id);
    expect(denied.status).toBe('Denied');
    expect(denied.attemptsHistory).toEqual([expect.objectContaining({ returnCode: 'AC05' })]);
    expect(requests('POST', `/cobr/${cobr.txid}/retentativa/`)).toEqual([]);
    const third = (await s.api.billings()).find((b) => b.installment === 3)!;
    const next = await sent(s, third);
    await g.psp.automatico.cancelCobr(next.txid);
    expect(await s.api.billing(third.id)).toMatchObject({ status: 'Denied', attemptsHistory: [expect.objectContaining({ returnCode: 'CANCELADA' })] });
    expect((await cobrs(third.id))[0].status).toBe('CANCELADA');
    expect((await s.pix.subscription(s.subscriptionId)).status).toBe('Active');
  });

  it('a lost /webhookcobr is recovered by the reconciliation job (the GET /cobr list), once', async () => {
    const s = await active('BCB-4');
    const second = s.billings.get(2)!;
    const cobr = await sent(s, second);
    await s.clk.to(second.expireAt);
    await g.psp.automatico.settle(cobr.txid, 'paid', { webhook: 'lose' });
    expect((await s.api.billing(second.id)).status).toBe('Opened');
    const reads = g.psp.calls('GET', '/cobr');
    // The job runs daily here (PIX_RECONCILE_INTERVAL_SECONDS=86400).
    await s.clk.days(1);
    expect(g.psp.calls('GET', '/cobr')).toBeGreaterThan(reads);
    expect(requests('GET', `/cobr/${cobr.txid}`)).toEqual([]);
    const paid = await s.api.billing(second.id);
    expect(paid.status).toBe('Paid');
    expect(await s.pix.receivablesOf(cobr.charge_id)).toHaveLength(1);
    expect(await g.t.ctx.database.db.selectFrom('pix_payments').select(['source', 'outcome']).where('txid', '=', cobr.txid).execute()).toEqual([{ source: 'reconciliation', outcome: 'applied' }]);
  });

  it('a lost /webhookrec (the authorization) is recovered by the reconciliation (the GET /rec list)', async () => {
    const s = await setup('BCB-5');
    await g.psp.automatico.authorize(s.recurrenceId, { webhook: 'lose' });
    expect((await s.pix.subscription(s.subscriptionId)).status).toBe('PendingAuthorization');
    const other = await setup('BCB-5b');
    expect(await g.t.ctx.pix.runReconciliation()).toMatchObject({ recurrences: 1 });
    expect((await s.pix.subscription(s.subscriptionId)).status).toBe('Active');
    expect((await other.pix.subscription(other.subscriptionId)).status).toBe('PendingAuthorization');
    expect(requests('GET', '/rec/')).toEqual([]);
  });

  it('the payer cancels in their bank app (webhookrec CANCELADA) -> Canceled, its open billing Canceled, no further cobr', async () => {
    const s = await active('BCB-6');
    const second = s.billings.get(2)!;
    await g.psp.automatico.cancel(s.recurrenceId);
    const sub = await s.pix.subscription(s.subscriptionId);
    expect(sub).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'CANCELADA', canceledBy: 'payer' } });
    await s.clk.to(addDays(second.expireAt, -9.9));
    expect(await cobrs(second.id)).toHaveLength(0);
    expect((await s.api.billing(second.id)).status).toBe('Canceled');
  });

  it('the payer refuses (webhookrec REJEITADA) -> Canceled with the reason', async () => {
    const s = await setup('BCB-7');
    await g.psp.automatico.reject(s.recurrenceId);
    const sub = await s.pix.subscription(s.subscriptionId);
    expect(sub).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'REJEITADA' } });
    expect(sub.pixAuthorization.reason).toContain('AP13');
  });

  it('the merchant cancels -> PATCH /rec/{idRec} CANCELADA; the PSP\'s notification of it changes nothing more', async () => {
    const s = await active('BCB-8');
    const res = await s.api.post(`${R}/subscriptions/${s.subscriptionId}/status`, { status: 'Canceled' });
    expect(res.statusCode, res.body).toBe(200);
    expect(requests('PATCH', `/rec/${s.recurrenceId}`).map((r) => r.body)).toEqual([{ status: 'CANCELADA' }]);
    expect(g.psp.automatico.recs.get(s.recurrenceId)!.status).toBe('CANCELADA');
    const sub = await s.pix.subscription(s.subscriptionId);
    expect(sub).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'CANCELADA', canceledBy: 'merchant' } });
  });

  it("a cycle's cancel: PATCH /cobr CANCELADA up to 23:59 in Brasília on the day before its due date; from 00:00 there (03:00Z) 409 naming expireAt, nothing sent", async () => {
    const s = await active('BCB-12');
    const second = s.billings.get(2)!;
    const dueDate = brasiliaDate(new Date(second.expireAt));
    const cobr = await sent(s, second);
    await s.clk.to(new Date(Date.parse(brasiliaStart(dueDate)) - 60_000));
    const res = await s.api.post(`${R}/billing/${second.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(requests('PATCH', `/cobr/${cobr.txid}`).map((r) => r.body)).toEqual([{ status: 'CANCELADA' }]);
    expect(g.psp.automatico.cobrs.get(cobr.txid)!.status).toBe('CANCELADA');
    expect((await cobrs(second.id))[0].status).toBe('CANCELADA');

    const third = (await s.api.billings()).find((b) => b.installment === 3)!;
    const next = await sent(s, third);
    await s.clk.to(brasiliaStart(brasiliaDate(new Date(third.expireAt))));
    const refused = await s.api.post(`${R}/billing/${third.id}/cancel`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toEqual([{ tag: 'expireAt', description: expect.stringContaining('before the date of its first settlement attempt') }]);
    expect(requests('PATCH', `/cobr/${next.txid}`)).toEqual([]);
    expect(g.psp.automatico.cobrs.get(next.txid)!.status).toBe('ATIVA');
    expect((await s.api.billing(third.id)).status).toBe('Opened');
  });

  it("a cancel the PSP still refuses (it ended what we were not told of yet) is 409 with the PSP's reason, never 502, and nothing changes here", async () => {
    const s = await active('BCB-13');
    const second = s.billings.get(2)!;
    const cobr = await sent(s, second);
    // The payer cancelled this cycle at their bank; that notification was lost.
    await g.psp.automatico.cancelCobr(cobr.txid, { webhook: 'lose' });
    const billing = await s.api.post(`${R}/billing/${second.id}/cancel`);
    expect(billing.statusCode, billing.body).toBe(409);
    expect(billing.json()).toEqual([{ tag: 'pix_provider_refused', description: expect.stringContaining('CANCELADA') }]);
    expect((await s.api.billing(second.id)).status).toBe('Opened');
    expect((await cobrs(second.id))[0].status).toBe('ATIVA');

    // The payer cancelled the recurrence itself; that notification was lost too.
    await g.psp.automatico.cancel(s.recurrenceId, { webhook: 'lose' });
    const sub = await s.api.post(`${R}/subscriptions/${s.subscriptionId}/status`, { status: 'Canceled' });
    expect(sub.statusCode, sub.body).toBe(409);
    expect(sub.json()).toEqual([{ tag: 'pix_provider_refused', description: expect.stringContaining('expirada, cancelada ou rejeitada') }]);
    expect(await s.pix.subscription(s.subscriptionId)).toMatchObject({ status: 'Active', pixAuthorization: { status: 'APROVADA' } });
  });

  it('without PIX_RECEIVER_ACCOUNT a Pix plan\'s subscription is 502 naming it, and nothing is created at the PSP', async () => {
    const other = await pspGateway();
    try {
      const m = await other.t.merchant();
      const planId = await pixAuto(other.t, m).plan();
      const res = await other.t.inject({ method: 'POST', url: `${R}/subscriptions`, headers: m.headers, payload: { planId, orderNumber: 'B-1', payer: { documentNumber: CPF, name: 'M' } } });
      expect(res.statusCode, res.body).toBe(502);
      expect(res.body).toContain('PIX_RECEIVER_ACCOUNT');
      expect(other.psp.requests).toEqual([]);
      expect(await other.t.ctx.database.db.selectFrom('pix_recurrences').select('recurrence_id').execute()).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
