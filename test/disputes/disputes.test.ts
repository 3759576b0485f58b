import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from '../settlement/support.js';
import { AcquirerUnavailable } from '../../src/acquirer/types.js';
import { PaymentService } from '../../src/modules/payments/service.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;
const DISPUTES = '/gateway/v1/disputes';

/**
 * Chargebacks: registered by the operator (or the sandbox), seen by their merchant only,
 * answered with evidence or accepted, decided won or lost; the payment's installments B while
 * open, A again when won, C (and the money taken back) when lost.
 */
describe(`disputes (${testDialect})`, () => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await testApp();
    await advanceTo(t, '2027-01-04T12:00:00.000Z');
    m = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  const register = (body: object) => t.inject({ method: 'POST', url: '/admin/disputes', headers: t.adminHeaders, payload: body });
  const resolve = (disputeId: string, outcome: 'won' | 'lost') => t.inject({ method: 'POST', url: `/admin/disputes/${disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome } });
  const get = (disputeId: string, who: Merchant = m) => t.inject({ method: 'GET', url: `${DISPUTES}/${disputeId}`, headers: who.headers });
  const list = async (query = '', who: Merchant = m) => (await t.inject({ method: 'GET', url: `${DISPUTES}${query}`, headers: who.headers })).json();
  const installments = async (p: { nsu: string }, who: Merchant = m) =>
    (await search(t, who.integration, 'search-by-code', { accountNumber: who.accountNumber, nsu: p.nsu })).json() as { installmentNumber: number; installmentStatus: string; receivedValue: number; receivedType: string; splits?: { valorSplit: number }[] }[];
  const payment = async (paymentId: string, who: Merchant = m) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: who.headers })).json();
  const notifications = async (who: Merchant) =>
    (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('account_number', '=', who.accountNumber).orderBy('id').execute()).map((n) => ({ type: n.type, body: JSON.parse(n.payload) }));
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString('base64');
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]).toString('base64');

  it('the operator registers a chargeback: its merchant alone sees it, the installments are blocked and the webhook says so', async () => {
    const listener = await settlementMerchant(t);
    await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${listener.accountNumber}`, headers: listener.integration, payload: { url: 'http://127.0.0.1:9/hooks', types: ['*'] } });
    const p = await pay(t, listener, { amount: 9000, installments: 3 });
    const res = await register({ paymentId: p.paymentId, reasonCode: '104' });
    expect(res.statusCode, res.body).toBe(201);
    const dispute = res.json();
    expect(dispute).toMatchObject({ paymentId: p.paymentId, status: 'NeedsResponse', reasonCode: '104', reasonMessage: 'Outras fraudes - cartão ausente', amount: 9000, respondBy: '2027-01-14', closedAt: null, evidence: [] });
    expect((await get(dispute.disputeId, listener)).json()).toEqual(dispute);
    expect((await list('', listener)).items).toEqual([{ ...dispute, evidence: undefined }].map(({ evidence: _, ...rest }) => rest));
    // Another merchant: not found, and not listed.
    expect((await get(dispute.disputeId, m)).statusCode).toBe(404);
    expect((await list('', m)).items.find((d: { disputeId: string }) => d.disputeId === dispute.disputeId)).toBeUndefined();

    expect((await installments(p, listener)).map((r) => r.installmentStatus)).toEqual(['B', 'B', 'B']);
    const sent = await notifications(listener);
    expect(sent.filter((n) => n.type === 'TransactionStatus').at(-1)!.body).toMatchObject({ nsu: p.nsu, installmentNumber: 0, oldValue: 'Authorized', newValue: 'Blocked' });
    expect(sent.at(-1)!.body).toMatchObject({ type: 'dispute.created', data: { disputeId: dispute.disputeId, paymentId: p.paymentId, status: 'NeedsResponse', reasonCode: '104', amount: 9000, respondBy: '2027-01-14' } });

    // Won: approved again.
    const won = await resolve(dispute.disputeId, 'won');
    expect(won.json()).toMatchObject({ status: 'Won', closedAt: expect.any(String) });
    expect((await installments(p, listener)).map((r) => r.installmentStatus)).toEqual(['A', 'A', 'A']);
    const after = await notifications(listener);
    expect(after.filter((n) => n.type === 'TransactionStatus').at(-1)!.body).toMatchObject({ oldValue: 'Blocked', newValue: 'Authorized' });
    expect(after.at(-1)!.body).toMatchObject({ type: 'dispute.closed', data: { disputeId: dispute.disputeId, oldStatus: 'NeedsResponse', status: 'Won' } });
    expect((await resolve(dispute.disputeId, 'lost')).statusCode).toBe(409);
    expect(await payment(p.paymentId, listener)).toMatchObject({ status: 'Authorized', refundedAmount: 0 });
  });

  it('refuses what cannot be disputed, and holds refunds and cancels while a dispute is open', async () => {
    expect((await register({ paymentId: 'nope', reasonCode: '104' })).statusCode).toBe(404);
    const denied = await pay(t, m, { amount: 1000, installments: 1, card: '4000000000000002' });
    expect((await register({ paymentId: denied.paymentId, reasonCode: '104' })).json()).toEqual([{ tag: 'status', description: expect.stringContaining('Denied') }]);
    const p = await pay(t, m, { amount: 5000, installments: 1 });
    expect((await register({ paymentId: p.paymentId, reasonCode: '4837' })).json()).toEqual([{ tag: 'reasonCode', description: '4837 is not a visa chargeback reason code.' }]);
    expect((await register({ paymentId: p.paymentId, reasonCode: '104', amount: 5001 })).json()[0].tag).toBe('amount');
    expect((await register({ paymentId: p.paymentId, reasonCode: '104', respondBy: '2026-12-31' })).json()[0].tag).toBe('respondBy');
    const open = (await register({ paymentId: p.paymentId, reasonCode: '131', amount: 2000 })).json();
    expect(open.status).toBe('NeedsResponse');
    expect((await register({ paymentId: p.paymentId, reasonCode: '104' })).statusCode).toBe(409);
    const refund = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/refunds`, headers: m.headers, payload: { amount: 100 } });
    expect(refund.statusCode).toBe(409);
    expect(refund.json()[0]).toMatchObject({ tag: 'status', description: expect.stringContaining(open.disputeId) });
    expect((await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/cancel`, headers: m.headers })).statusCode).toBe(409);
    // Accepted, partly (20.00 of 50.00): the rest of the sale stands, and only it can still be refunded.
    const accepted = await t.inject({ method: 'POST', url: `${DISPUTES}/${open.disputeId}/accept`, headers: m.headers });
    expect(accepted.json()).toMatchObject({ status: 'Accepted' });
    expect((await t.inject({ method: 'POST', url: `${DISPUTES}/${open.disputeId}/accept`, headers: m.headers })).statusCode).toBe(409);
    expect(await payment(p.paymentId)).toMatchObject({ status: 'Authorized' });
    const rows = await installments(p);
    expect(rows.map((r) => [r.installmentNumber, r.installmentStatus, r.receivedType, r.receivedValue])).toEqual([
      [0, 'A', 'D', -20],
      [1, 'A', 'R', 48.255],
    ]);
    const over = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/refunds`, headers: m.headers, payload: { amount: 3001 } });
    expect(over.json()[0].description).toContain('3000 cents');
    expect((await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/refunds`, headers: m.headers, payload: {} })).json()).toMatchObject({ amount: 3000, status: 'Succeeded' });
    expect(await payment(p.paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 3000 });
  });

  it('waits for a refund still in flight before it registers a chargeback of the same payment', async () => {
    const p = await pay(t, m, { amount: 3000, installments: 1 });
    const sandbox = t.ctx.acquirer.sandbox;
    // The refund's answer is lost and cannot be looked up at once: it stays Pending.
    const lossy = new PaymentService(t.ctx, {
      authorize: (request, context) => sandbox.authorize(request, context),
      cancel: (request, context) => sandbox.cancel(request, context),
      lookup: (request) => sandbox.lookup(request),
      refund: async () => {
        throw new AcquirerUnavailable(true, 'socket hang up');
      },
      lookupRefund: async () => {
        throw new AcquirerUnavailable(true, 'query down');
      },
      settleWindowMs: async () => 0,
    });
    const refund = await lossy.refunds.create(m.merchantId, p.paymentId, { amount: 1000 });
    expect(refund.status).toBe('Pending');
    const res = await register({ paymentId: p.paymentId, reasonCode: '104' });
    expect(res.statusCode).toBe(409);
    expect(res.json()[0]).toMatchObject({ tag: 'status', description: expect.stringContaining(refund.refundId) });
    expect(await t.ctx.database.db.selectFrom('disputes').select('dispute_id').where('payment_id', '=', p.paymentId).execute()).toEqual([]);
  });

  it('takes PDF, PNG and JPEG evidence (sealed at rest) and refuses anything else, storing nothing', async () => {
    const p = await pay(t, m, { amount: 4000, installments: 1, card: '5555555555554444' });
    const dispute = (await register({ paymentId: p.paymentId, reasonCode: '4853' })).json();
    expect(dispute.reasonMessage).toBe('Desacordo comercial');
    const send = (body: object) => t.inject({ method: 'POST', url: `${DISPUTES}/${dispute.disputeId}/evidence`, headers: m.headers, payload: body });

    const refused = await send({
      text: 'Entregue em 05/01',
      files: [
        { fileName: 'nota.pdf', contentType: 'application/pdf', contentBase64: png },
        { fileName: 'notes.txt', contentType: 'text/plain', contentBase64: Buffer.from('hello').toString('base64') },
        { fileName: 'broken.png', contentType: 'image/png', contentBase64: 'not base64!' },
        { fileName: '../etc/passwd.pdf', contentType: 'application/pdf', contentBase64: pdf },
        { fileName: 'huge.pdf', contentType: 'application/pdf', contentBase64: Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(2 * 1024 * 1024)]).toString('base64') },
      ],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().map((e: { tag: string }) => e.tag)).toEqual(['files[0].contentBase64', 'files[1].contentType', 'files[2].contentBase64', 'files[3].fileName', 'files[4].contentBase64']);
    expect((await send({})).json()).toEqual([{ tag: 'text', description: 'Send a text, files, or both.' }]);
    expect((await get(dispute.disputeId)).json()).toMatchObject({ status: 'NeedsResponse', evidence: [] });
    expect(await t.ctx.database.db.selectFrom('dispute_files').select('file_id').where('dispute_id', '=', dispute.disputeId).execute()).toEqual([]);

    const accepted = await send({
      text: 'Produto entregue; rastreio em anexo.',
      files: [
        { fileName: 'nota.pdf', contentType: 'application/pdf', contentBase64: pdf },
        { fileName: 'foto.png', contentType: 'image/png', contentBase64: png },
        { fileName: 'recibo.jpg', contentType: 'image/jpeg', contentBase64: jpeg },
      ],
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const body = accepted.json();
    expect(body.status).toBe('UnderReview');
    expect(body.evidence).toHaveLength(1);
    expect(body.evidence[0]).toMatchObject({ text: 'Produto entregue; rastreio em anexo.' });
    expect(body.evidence[0].files.map((f: { fileName: string; contentType: string; size: number }) => [f.fileName, f.contentType, f.size])).toEqual([
      ['nota.pdf', 'application/pdf', Buffer.from(pdf, 'base64').length],
      ['foto.png', 'image/png', 12],
      ['recibo.jpg', 'image/jpeg', 10],
    ]);
    // At rest: sealed under DATA_KEY, bound to its row; never the bytes sent.
    const stored = await t.ctx.database.db.selectFrom('dispute_files').select(['file_id', 'content_sealed']).where('dispute_id', '=', dispute.disputeId).orderBy('position').execute();
    expect(stored[0].content_sealed).toMatch(/^v1\./);
    expect(stored[0].content_sealed).not.toContain(pdf.slice(0, 12));
    expect(t.ctx.cipher.decrypt(stored[0].content_sealed, `dispute_file:${stored[0].file_id}`)).toBe(pdf);
    expect(() => t.ctx.cipher.decrypt(stored[0].content_sealed, `dispute_file:${stored[1].file_id}`)).toThrow();

    // More evidence until respondBy; none after it, nor on a closed dispute.
    expect((await send({ text: 'Mais um comprovante.' })).json().evidence).toHaveLength(2);
    await advanceTo(t, `${dispute.respondBy}T23:00:00.000Z`);
    expect((await send({ text: 'No último dia.' })).statusCode).toBe(200);
    await advanceTo(t, `${dispute.respondBy}T23:59:59.999Z`);
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 1 } });
    const late = await send({ text: 'Tarde demais.' });
    expect(late.statusCode).toBe(409);
    expect(late.json()[0].tag).toBe('respondBy');
    expect((await resolve(dispute.disputeId, 'won')).json().status).toBe('Won');
    const closed = await send({ text: 'Depois do fim.' });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()[0]).toMatchObject({ tag: 'status', description: expect.stringContaining('Won') });
  });

  it('lost in full: the payment is Canceled, its installments C, and what was already received is debited (splits in proportion)', async () => {
    const p = await pay(t, m, { amount: 10000, installments: 2, splits: [{ documentNumberBeneficiary: '52998224725', percent: 10, type: 'bruto' }] });
    // Installment 1 received (D+30), installment 2 open.
    await advanceTo(t, new Date(Date.parse(p.createdAt) + 31 * 86_400_000).toISOString());
    const dispute = (await t.inject({ method: 'POST', url: `/sandbox/payments/${p.paymentId}/dispute`, headers: t.adminHeaders, payload: { reasonCode: '104' } })).json();
    expect(dispute).toMatchObject({ status: 'NeedsResponse', amount: 10000 });
    expect((await installments(p)).map((r) => r.installmentStatus)).toEqual(['B', 'B']);
    expect((await resolve(dispute.disputeId, 'lost')).json()).toMatchObject({ status: 'Lost' });
    expect(await payment(p.paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 0 });
    const rows = await installments(p);
    // 100.00 taken back: installment 2 (net 48.13) is not paid, the other 51.87 is debited; no MDR or fee returned.
    expect(rows.map((r) => [r.installmentNumber, r.installmentStatus, r.receivedType, r.receivedValue])).toEqual([
      [0, 'A', 'D', -51.87],
      [1, 'C', 'R', 48.13],
      [2, 'C', 'R', 48.13],
    ]);
    expect(rows[0].splits!.map((s) => s.valorSplit)).toEqual([-5.187]);
  });

  it('lists with filters (status, dates), orders, and refuses a bad range', async () => {
    const all = await list('?limit=100');
    expect(all.total).toBeGreaterThanOrEqual(3);
    expect(all.items.every((d: { createdAt: string }, i: number, a: { createdAt: string }[]) => i === 0 || a[i - 1].createdAt >= d.createdAt)).toBe(true);
    const lost = await list('?status=Lost');
    expect(lost.items.map((d: { status: string }) => d.status)).toEqual(['Lost']);
    expect((await list('?startDate=2030-01-01')).items).toEqual([]);
    expect((await list('?startDate=2027-01-04&endDate=2027-01-04')).items.length).toBeGreaterThan(0);
    expect((await t.inject({ method: 'GET', url: `${DISPUTES}?startDate=2027-02-01&endDate=2027-01-01`, headers: m.headers })).statusCode).toBe(400);
    expect((await t.inject({ method: 'GET', url: `${DISPUTES}?orderBy=nope`, headers: m.headers })).statusCode).toBe(400);
    expect((await list('?orderBy=amount:asc')).items.map((d: { amount: number }) => d.amount)).toEqual([...all.items.map((d: { amount: number }) => d.amount)].sort((a, b) => a - b));
  });
});
