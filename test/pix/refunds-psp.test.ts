import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RetryLater } from '../../src/jobs/registry.js';
import type { PixStandIn } from '../standins/pix-psp.js';
import { testDialect } from '../support/database.js';
import type { TestApp } from '../support/harness.js';
import { pspGateway, type PspGateway } from './psp-support.js';

const CHARGES = '/gateway/v1/pix/charges';

/** Pix refunds through a PSP speaking the API Pix (the stand-in, over mutual TLS): PUT devolucao, its webhook, and GET devolucao when the answer is lost. */
describe(`Pix refunds through the API Pix (${testDialect})`, () => {
  let g: PspGateway;
  let psp: PixStandIn;
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    g = await pspGateway();
    ({ psp, t, headers } = g);
  });
  afterAll(() => g?.close());
  beforeEach(() => {
    psp.devolucaoAnswer = 'DEVOLVIDO';
    psp.dropNextDevolucao = null;
    psp.unavailable = false;
  });

  const paid = async (amount: number) => {
    const charge = (await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount } })).json();
    const pix = await psp.pay(charge.txid);
    expect((await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers })).json().status).toBe('Paid');
    return { charge, pix };
  };
  const refund = async (chargeId: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url: `${CHARGES}/${chargeId}/refunds`, headers, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const list = async (chargeId: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}/refunds`, headers })).json().items;
  const refunded = async (chargeId: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}`, headers })).json().refundedAmount;
  const puts = (e2e: string) => psp.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(`/pix/${e2e}/devolucao/`));
  const devolucoes = (e2e: string) => psp.received.find((p) => p.endToEndId === e2e)!.devolucoes;

  it('PUT /pix/{e2eid}/devolucao/{refundId} with valor, natureza ORIGINAL and descricao; DEVOLVIDO is Returned', async () => {
    const { charge, pix } = await paid(5000);
    const r = await refund(charge.id, { amount: 1234, reason: 'Troca do produto' });
    expect(r).toMatchObject({ status: 'Returned', amount: 1234 });
    expect(puts(pix.endToEndId)).toEqual([{ method: 'PUT', path: `/pix/${pix.endToEndId}/devolucao/${r.refundId}`, body: { valor: '12.34', natureza: 'ORIGINAL', descricao: 'Troca do produto' } }]);
    expect(await refunded(charge.id)).toBe(1234);
  });

  it('EM_PROCESSAMENTO stays InProcess (its amount held) until the webhook of returns says DEVOLVIDO; a repeated webhook records nothing twice', async () => {
    const { charge, pix } = await paid(3000);
    psp.devolucaoAnswer = 'EM_PROCESSAMENTO';
    const r = await refund(charge.id, { amount: 2000 });
    expect(r.status).toBe('InProcess');
    expect(await refunded(charge.id)).toBe(0);
    // What is in flight counts as taken.
    const over = await t.inject({ method: 'POST', url: `${CHARGES}/${charge.id}/refunds`, headers, payload: { amount: 1001 } });
    expect(over.statusCode).toBe(400);
    await psp.settleDevolucao(pix.endToEndId, r.refundId, 'DEVOLVIDO');
    expect(psp.webhookCalls.at(-1)?.status).toBe(200);
    expect((await list(charge.id))[0]).toMatchObject({ refundId: r.refundId, status: 'Returned' });
    expect(await refunded(charge.id)).toBe(2000);
    await psp.notify([psp.received.find((p) => p.endToEndId === pix.endToEndId)!]);
    expect(await refunded(charge.id)).toBe(2000);
    // Returned once: a debit when the Pix was already received (a business day), else its open
    // installment reduced (a Pix paid on a weekend or holiday is received on the next business day).
    const rows = await t.ctx.database.db.selectFrom('receivables').select(['installment_number', 'received_status']).where('source_id', '=', charge.id).execute();
    const received = rows.some((r) => r.installment_number === 1 && r.received_status === 'P');
    expect(rows.filter((r) => r.installment_number === 0)).toHaveLength(received ? 1 : 0);
  });

  it('NAO_REALIZADO from the webhook is NotDone with its motivo; nothing returned', async () => {
    const { charge, pix } = await paid(3000);
    psp.devolucaoAnswer = 'EM_PROCESSAMENTO';
    const r = await refund(charge.id, {});
    await psp.settleDevolucao(pix.endToEndId, r.refundId, 'NAO_REALIZADO', { motivo: 'Conta do pagador encerrada' });
    expect((await list(charge.id))[0]).toMatchObject({ status: 'NotDone', statusReason: 'Conta do pagador encerrada' });
    expect(await refunded(charge.id)).toBe(0);
  });

  it('no webhook: the job reads GET /pix/{e2eid}/devolucao/{id} (still in process: later; final: recorded)', async () => {
    const { charge, pix } = await paid(3000);
    psp.devolucaoAnswer = 'EM_PROCESSAMENTO';
    const r = await refund(charge.id, { amount: 500 });
    await expect(t.ctx.pix.refunds.recover(r.refundId)).rejects.toBeInstanceOf(RetryLater);
    await psp.settleDevolucao(pix.endToEndId, r.refundId, 'DEVOLVIDO', { webhook: 'lose' });
    // A PSP that cannot be asked is no answer: read again later, never concluded.
    psp.unavailable = true;
    await expect(t.ctx.pix.refunds.recover(r.refundId)).rejects.toBeInstanceOf(RetryLater);
    psp.unavailable = false;
    expect((await list(charge.id))[0].status).toBe('InProcess');
    await t.ctx.pix.refunds.recover(r.refundId);
    expect((await list(charge.id))[0].status).toBe('Returned');
    expect(await refunded(charge.id)).toBe(500);
    expect(puts(pix.endToEndId)).toHaveLength(1);
  });

  it('an answer lost after the PSP recorded it: read at once, Returned, sent once', async () => {
    const { charge, pix } = await paid(3000);
    psp.dropNextDevolucao = 'after';
    const r = await refund(charge.id, { amount: 700 });
    expect(r.status).toBe('Returned');
    expect(puts(pix.endToEndId)).toHaveLength(1);
    expect(devolucoes(pix.endToEndId)).toHaveLength(1);
    expect(await refunded(charge.id)).toBe(700);
  });

  it('a request that never arrived stays InProcess, then, unknown to the PSP past the window, NotDone: never sent again', async () => {
    const { charge, pix } = await paid(3000);
    psp.dropNextDevolucao = 'before';
    const r = await refund(charge.id, { amount: 900 });
    expect(r.status).toBe('InProcess');
    await expect(t.ctx.pix.refunds.recover(r.refundId)).rejects.toBeInstanceOf(RetryLater);
    await t.ctx.database.db.updateTable('pix_refunds').set({ sent_at: new Date(Date.now() - 10 * 60_000).toISOString() }).where('refund_id', '=', r.refundId).execute();
    await t.ctx.pix.refunds.recover(r.refundId);
    expect((await list(charge.id))[0]).toMatchObject({ status: 'NotDone', statusReason: expect.stringMatching(/no record/) });
    expect(devolucoes(pix.endToEndId)).toHaveLength(0);
    expect(await refunded(charge.id)).toBe(0);
  });

  it('a devolução request names natureza ORIGINAL; the PSP refuses a MED natureza (MED returns are its own to make)', async () => {
    const { pix } = await paid(1000);
    const provider = (t.ctx.pix as unknown as { provider: { refund(r: object): Promise<unknown> } }).provider;
    await expect(provider.refund({ endToEndId: pix.endToEndId, refundId: 'medattempt1', amountCents: 100n, nature: 'MED_FRAUDE' })).rejects.toThrow(/natureza must be ORIGINAL or RETIRADA/);
    expect(devolucoes(pix.endToEndId)).toEqual([]);
  });

  it("the PSP's refusal is NotDone with its detail", async () => {
    const { charge, pix } = await paid(3000);
    // The PSP's own cap: a devolução beyond the Pix (played by a smaller Pix than the charge).
    psp.received.find((p) => p.endToEndId === pix.endToEndId)!.valor = '10.00';
    const r = await refund(charge.id, { amount: 2000 });
    expect(r).toMatchObject({ status: 'NotDone', statusReason: expect.stringMatching(/exceed/) });
  });
});
