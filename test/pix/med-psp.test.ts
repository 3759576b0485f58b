import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PixStandIn, StandInPix } from '../standins/pix-psp.js';
import { testDialect } from '../support/database.js';
import type { TestApp } from '../support/harness.js';
import { settlementMerchant } from '../settlement/support.js';
import { subscribe } from '../webhooks/support.js';
import { DashboardClient } from '../dashboard/support.js';
import { pspGateway, WEBHOOK_PATH, WEBHOOK_SECRET, type PspGateway } from './psp-support.js';

const CHARGES = '/gateway/v1/pix/charges';
const DISPUTES = '/gateway/v1/disputes';

/**
 * MED claims through a PSP speaking the API Pix (the stand-in): the PSP blocks the claimed
 * amount and, when the claim is lost, makes the MED return itself. The gateway sends no
 * devolução for it; it reflects the PSP's return, reported by webhook or found by reconciliation,
 * once.
 */
describe(`MED claims through the API Pix (${testDialect})`, () => {
  let g: PspGateway;
  let psp: PixStandIn;
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  beforeAll(async () => {
    g = await pspGateway();
    ({ psp, t } = g);
    m = await settlementMerchant(t);
    expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/hook', types: ['*'] })).statusCode).toBe(200);
  });
  afterAll(() => g?.close());

  const paid = async (amount: number) => {
    const charge = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount } })).json();
    const pix = await psp.pay(charge.txid);
    return { charge, pix };
  };
  /** The payer's PSP opens the claim: the PSP blocks, and the operator registers it. */
  const claim = async (chargeId: string, pix: StandInPix, amount: number, reasonCode = 'FR01') => {
    psp.openMed(pix.endToEndId, (amount / 100).toFixed(2));
    const res = await t.inject({ method: 'POST', url: '/admin/disputes', headers: t.adminHeaders, payload: { pixChargeId: chargeId, reasonCode, amount } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const resolve = (disputeId: string, outcome: 'won' | 'lost') => t.inject({ method: 'POST', url: `/admin/disputes/${disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome } });
  const dispute = async (disputeId: string) => (await t.inject({ method: 'GET', url: `${DISPUTES}/${disputeId}`, headers: m.headers })).json();
  const refunds = async (chargeId: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}/refunds`, headers: m.headers })).json().items;
  const detail = (chargeId: string) => t.ctx.pix.detail(m.merchantId, chargeId);
  const installment = async (id: string) => (await t.ctx.database.db.selectFrom('receivables').select('installment_status').where('source_id', '=', id).where('installment_number', '=', 1).executeTakeFirstOrThrow()).installment_status;
  const events = async (key: string, value: string) =>
    (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('merchant_id', '=', m.merchantId).where('channel', '=', 'webhook').orderBy('id').execute())
      .map((n) => ({ type: n.type, data: JSON.parse(n.payload).data }))
      .filter((e) => e.data?.[key] === value);
  const reconcile = (from: Date, to: Date) => t.ctx.pix.reconcile(from, to);
  const reads = (e2e: string) => psp.requests.filter((r) => r.method === 'GET' && r.path === `/pix/${e2e}`).length;

  it('lost: no devolução is sent; the PSP\'s return by webhook is reflected once (repeated webhook and reconciliation too)', async () => {
    const { charge, pix } = await paid(4000);
    const d = await claim(charge.id, pix, 1500);
    const lost = await resolve(d.disputeId, 'lost');
    expect(lost.statusCode, lost.body).toBe(200);
    // Meanwhile: Lost, not closed, no return; the charge holds the claim, its receivable blocked.
    expect(lost.json()).toMatchObject({ status: 'Lost', closedAt: null, refundId: null });
    expect(await refunds(charge.id)).toEqual([]);
    expect(await detail(charge.id)).toMatchObject({ refundedAmount: 0, medDisputeId: d.disputeId, medHeldAmount: 1500, refundable: 2500 });
    expect(await installment(charge.id)).toBe('B');
    expect(psp.devolucaoRequests(pix.endToEndId)).toBe(0);
    // The merchant's dashboard says what the claim waits for.
    const board = new DashboardClient(t);
    await board.loginMerchant(m);
    const page = async () => /id="med-return">([^<]*)</.exec((await board.get(`/dashboard/disputes/${d.disputeId}`)).body)?.[1];
    expect(await page()).toBe('Aguardando a devolução que o PSP faz do valor bloqueado');

    const made = await psp.loseMed(pix.endToEndId, { natureza: 'MED_FRAUDE' });
    expect(psp.webhookCalls.at(-1)?.status).toBe(200);
    const reflected = async () => {
      expect(await refunds(charge.id)).toMatchObject([{ refundId: made.rtrId, amount: 1500, status: 'Returned', nature: 'MED_FRAUDE' }]);
      expect(await detail(charge.id)).toMatchObject({ refundedAmount: 1500, medDisputeId: null, medHeldAmount: 0, refundable: 2500 });
      expect(await dispute(d.disputeId)).toMatchObject({ status: 'Lost', closedAt: expect.any(String), refundId: made.rtrId });
      expect((await events('disputeId', d.disputeId)).filter((e) => e.type === 'dispute.closed')).toMatchObject([{ data: { refundId: made.rtrId, returnedAmount: 1500 } }]);
      expect((await events('chargeId', charge.id)).filter((e) => e.type === 'pix.refunded')).toMatchObject([{ data: { refundId: made.rtrId, nature: 'MED_FRAUDE', refundedAmount: 1500 } }]);
      expect(await installment(charge.id)).toBe('A');
    };
    await reflected();
    expect(await page()).toBe(made.rtrId);
    // The PSP repeats its webhook; reconciliation reads the same Pix in `GET /pix`.
    const answer = await t.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { authorization: `Bearer ${WEBHOOK_SECRET}` }, payload: { pix: [psp.received.find((p) => p.endToEndId === pix.endToEndId)] } });
    expect(answer.json()).toMatchObject({ duplicates: 1, returns: 0 });
    await reconcile(new Date(Date.now() - 3_600_000), new Date(Date.now() + 60_000));
    await reflected();
    expect(psp.devolucaoRequests(pix.endToEndId)).toBe(0);
    // The rest is the merchant's to refund, as an ordinary devolução (ORIGINAL).
    const rest = await t.inject({ method: 'POST', url: `${CHARGES}/${charge.id}/refunds`, headers: m.headers, payload: {} });
    expect(rest.json()).toMatchObject({ amount: 2500, status: 'Returned', nature: 'ORIGINAL' });
    expect(psp.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(`/pix/${pix.endToEndId}/devolucao/`)).map((r) => r.body)).toEqual([{ valor: '25.00', natureza: 'ORIGINAL' }]);
  });

  it("a lost webhook: reconciliation reads the held charge's Pix (GET /pix/{e2eid}) outside the list's window, and reflects the return once", async () => {
    const { charge, pix } = await paid(3000);
    const d = await claim(charge.id, pix, 3000, 'BE08');
    expect((await resolve(d.disputeId, 'lost')).statusCode).toBe(200);
    const made = await psp.loseMed(pix.endToEndId, { natureza: 'MED_OPERACIONAL', webhook: 'lose' });
    expect(await dispute(d.disputeId)).toMatchObject({ status: 'Lost', closedAt: null });
    // The dashboards' list: decided, it heads the closed ones (by its decision), on both engines.
    expect((await t.ctx.disputes.deadlineFirst(m.merchantId, 1)).map((x) => x.disputeId)).toEqual([d.disputeId]);
    // A window long after the Pix: the list does not carry it, the held charge's read does.
    const later = new Date(Date.now() + 86_400_000);
    await reconcile(later, new Date(later.getTime() + 60_000));
    expect(reads(pix.endToEndId)).toBe(1);
    expect(await refunds(charge.id)).toMatchObject([{ refundId: made.rtrId, amount: 3000, nature: 'MED_OPERACIONAL', status: 'Returned' }]);
    expect(await dispute(d.disputeId)).toMatchObject({ status: 'Lost', refundId: made.rtrId, closedAt: expect.any(String) });
    // Released: the next run reads it no more; the return is still there once.
    await reconcile(later, new Date(later.getTime() + 60_000));
    expect(reads(pix.endToEndId)).toBe(1);
    expect(await detail(charge.id)).toMatchObject({ refundedAmount: 3000, medHeldAmount: 0, refundable: 0 });
    expect(psp.devolucaoRequests(pix.endToEndId)).toBe(0);
  });

  it("a lost webhook within the list's window: the `GET /pix` list's devoluções reflect it", async () => {
    const { charge, pix } = await paid(2000);
    const d = await claim(charge.id, pix, 800);
    expect((await resolve(d.disputeId, 'lost')).statusCode).toBe(200);
    const made = await psp.loseMed(pix.endToEndId, { webhook: 'lose' });
    await reconcile(new Date(Date.now() - 3_600_000), new Date(Date.now() + 60_000));
    expect(await refunds(charge.id)).toMatchObject([{ refundId: made.rtrId, amount: 800 }]);
    expect(reads(pix.endToEndId)).toBe(0);
  });

  it('a return the PSP makes before the operator decides closes the claim as lost; a partial one lifts the whole hold', async () => {
    const { charge, pix } = await paid(5000);
    const d = await claim(charge.id, pix, 4000);
    const made = await psp.loseMed(pix.endToEndId, { valor: '30.00' });
    expect(await dispute(d.disputeId)).toMatchObject({ status: 'Lost', closedAt: expect.any(String), refundId: made.rtrId });
    expect(await detail(charge.id)).toMatchObject({ refundedAmount: 3000, medHeldAmount: 0, refundable: 2000 });
    expect((await events('disputeId', d.disputeId)).map((e) => [e.type, e.data.oldStatus, e.data.status])).toEqual([
      ['dispute.created', undefined, 'NeedsResponse'],
      ['dispute.closed', 'NeedsResponse', 'Lost'],
    ]);
    // Decided by the return: the operator's decision is refused.
    expect((await resolve(d.disputeId, 'won')).statusCode).toBe(409);
    expect(psp.devolucaoRequests(pix.endToEndId)).toBe(0);
  });

  it('won: the PSP lifts its block (which no devolução could take), the gateway its hold; nothing sent', async () => {
    const { charge, pix } = await paid(1000);
    const d = await claim(charge.id, pix, 600);
    // The PSP keeps what it blocked: no devolução may take it (the gateway's own check comes first).
    const provider = (t.ctx.pix as unknown as { provider: { refund(r: object): Promise<unknown> } }).provider;
    await expect(provider.refund({ endToEndId: pix.endToEndId, refundId: 'intoblock1', amountCents: 500n, nature: 'ORIGINAL' })).rejects.toThrow(/blocked by a MED claim/);
    psp.releaseMed(pix.endToEndId);
    expect((await resolve(d.disputeId, 'won')).json()).toMatchObject({ status: 'Won', closedAt: expect.any(String), refundId: null });
    expect(await detail(charge.id)).toMatchObject({ refundedAmount: 0, medHeldAmount: 0, refundable: 1000 });
    await reconcile(new Date(Date.now() - 3_600_000), new Date(Date.now() + 60_000));
    expect(reads(pix.endToEndId)).toBe(0);
    expect(psp.devolucaoRequests(pix.endToEndId)).toBe(1); // the refused one, none for the claim
  });

  it('a MED return still in process, or without its rtrId, is not reflected; a MED one on a Pix that paid no charge changes nothing', async () => {
    const { charge, pix } = await paid(1200);
    const d = await claim(charge.id, pix, 1200);
    const item = { endToEndId: pix.endToEndId, txid: pix.txid, valor: pix.valor, horario: pix.horario };
    const post = (devolucoes: object[], e2e = pix.endToEndId) => t.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { authorization: `Bearer ${WEBHOOK_SECRET}` }, payload: { pix: [{ ...item, endToEndId: e2e, devolucoes }] } });
    const rtrId = `D12345678202601011200${'Q'.repeat(11)}`;
    expect((await post([{ id: 'MED1', rtrId, valor: '12.00', natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO', horario: { solicitacao: pix.horario } }])).statusCode).toBe(200);
    expect((await post([{ id: 'MED1', valor: '12.00', natureza: 'MED_FRAUDE', status: 'DEVOLVIDO' }])).statusCode).toBe(200);
    expect((await post([{ id: 'MED1', rtrId, valor: '12.00', natureza: 'MED_FRAUDE', status: 'DEVOLVIDO' }], `E99999999202601011200${'Z'.repeat(11)}`)).json()).toMatchObject({ returns: 0 });
    expect(await refunds(charge.id)).toEqual([]);
    expect(await dispute(d.disputeId)).toMatchObject({ status: 'NeedsResponse', closedAt: null });
    expect((await post([{ id: 'MED1', rtrId, valor: '12.00', natureza: 'MED_FRAUDE', status: 'DEVOLVIDO' }])).json()).toMatchObject({ returns: 1 });
    expect(await dispute(d.disputeId)).toMatchObject({ status: 'Lost', refundId: rtrId });
  });
});
