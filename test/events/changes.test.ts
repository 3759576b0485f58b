import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { issue, pay as paySlip, slipBody, today } from '../bankslips/support.js';
import { returnFile } from '../bankslips/cnab-files.js';
import { createLink, LINKS, payLink } from '../paymentlinks/support.js';
import { Receiver } from '../webhooks/receiver.js';
import { advance } from '../webhooks/support.js';
import { expectEventShape, expectLogged, expectSigned, listening, received, type EventMerchant } from './support.js';

/**
 * Payment, installment, bank slip, Pix, payment link and prepayment events (docs/events.md),
 * each produced by its real flow and delivered over HTTP: signed, in the delivery log; a
 * subscription without a type list hears none of them.
 */
describe(`state change events (${testDialect})`, () => {
  let t: TestApp;
  let m: EventMerchant;
  let secret: string;
  let plain: EventMerchant;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
    ({ m, secret } = await listening(t, receiver, '/all', ['*']));
    ({ m: plain } = await listening(t, receiver, '/plain'));
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  /** Runs what is due, twice: what a job records at the ticking clock falls due a moment after the first run's target. */
  const settle = async () => {
    await advance(t, { minutes: 0 });
    await advance(t, { minutes: 0 });
  };
  /** The data of the events of `type` the catalogue subscription received, oldest first. */
  const of = (type: string) => received(receiver, '/all').filter((r) => r.json.type === type).map((r) => r.json.data);
  const types = () => received(receiver, '/all').map((r) => r.json.type as string);

  async function pay(who: EventMerchant, o: { card?: string; installments?: number; email?: string; amount?: number } = {}) {
    const numberToken = await tokenize(t, who, o.card ?? '4111111111111111');
    const installments = o.installments ?? 1;
    const body = paymentBody({ numberToken }, { payment: { transactionType: 'credit', amount: o.amount ?? 10000, productType: installments === 1 ? 'avista' : 'lojista', installments } });
    if (o.email) body.customer.email = o.email;
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: who.headers, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  it('payments: authorized, denied, blocked then canceled (each installment too), with the urlCallBack-like data', async () => {
    const approved = await pay(m);
    const denied = await pay(m, { card: '4000000000000002' });
    const held = await pay(m, { email: 'buyer@review.test', installments: 2 });
    expect(held.status).toBe('Blocked');
    expect((await t.inject({ method: 'POST', url: `/gateway/v1/payments/${held.paymentId}/cancel`, headers: m.headers })).statusCode).toBe(200);
    await settle();
    expect(of('payment.authorized')).toEqual([
      { paymentId: approved.paymentId, oldStatus: '', status: 'Authorized', amount: 10000, referenceTransaction: 'order-1', nsu: approved.nsu, authorizationCode: approved.authorizationCode },
    ]);
    expect(of('payment.denied')).toEqual([expect.objectContaining({ paymentId: denied.paymentId, oldStatus: '', status: 'Denied', amount: 10000 })]);
    expect(of('payment.blocked')).toEqual([expect.objectContaining({ paymentId: held.paymentId, oldStatus: '', status: 'Blocked' })]);
    expect(of('payment.canceled')).toEqual([expect.objectContaining({ paymentId: held.paymentId, oldStatus: 'Blocked', status: 'Canceled' })]);
    expect(of('payment.installment_canceled')).toEqual(
      [1, 2].map((n) => ({ source: 'card', sourceId: held.paymentId, nsu: held.nsu, authorizationCode: held.authorizationCode, installmentNumber: n, oldStatus: 'Blocked', status: 'Canceled' })),
    );
    for (const got of received(receiver, '/all').filter((r) => r.json.type.includes('.'))) expectEventShape(got);
    // The conciliation notifications go on beside them, unchanged.
    expect(types().filter((x) => x === 'TransactionStatus' || x === 'InstallmentStatus')).toHaveLength(5);
    expectSigned(receiver.on('/all'), secret);
    await expectLogged(t, m, receiver.on('/all'));
  });

  it('a subscription without a type list hears the conciliation notifications only, as before', async () => {
    await pay(plain);
    await pay(plain, { card: '4000000000000002' });
    await settle();
    expect(received(receiver, '/plain').map((r) => [r.json.type, r.json.newValue])).toEqual([['TransactionStatus', 'Authorized']]);
  });

  it('bank slips: issued, registered, paid; overdue; written off and rejected by the bank', async () => {
    const integration = { ...m, headers: m.integration };
    const first = await issue(t, integration, slipBody());
    expect(first.statusCode, first.body).toBe(201);
    const id = first.json().id;
    await settle();
    expect((await paySlip(t, id)).statusCode).toBe(200);
    await settle();
    const ofSlip = (type: string) => of(type).filter((d) => d.bankSlipId === id);
    expect(ofSlip('bank_slip.issued')).toEqual([{ bankSlipId: id, oldStatusBill: null, statusBill: 1 }]);
    expect(ofSlip('bank_slip.registered')).toEqual([{ bankSlipId: id, oldStatusBill: 1, statusBill: 2 }]);
    expect(ofSlip('bank_slip.paid')).toEqual([{ bankSlipId: id, oldStatusBill: 2, statusBill: 3 }]);

    const day = await today(t);
    const late = (await issue(t, integration, slipBody({ dueDate: addDays(day, 2) }))).json().id;
    const writtenOff = (await issue(t, integration, slipBody({ dueDate: addDays(day, 10) }))).json().id;
    const rejected = (await issue(t, integration, slipBody({ dueDate: addDays(day, 10) }))).json().id;
    await settle();
    const info = async (slipId: string) => (await t.inject({ method: 'GET', url: `/integration/api/billissuer/information?accountNumber=${m.accountNumber}&id_bill=${slipId}`, headers: m.integration })).json();
    const [off, bad] = [await info(writtenOff), await info(rejected)];
    const records = [
      { movement: '09', ourNumber: off.ourNumber, dueDate: off.dueDate, valueCents: 15075n, reasons: '09', paymentDate: day },
      { movement: '03', ourNumber: bad.ourNumber, dueDate: bad.dueDate, valueCents: 15075n, reasons: '4846' },
    ];
    const imported = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'text/plain' }, payload: returnFile(records) });
    expect(imported.json()).toMatchObject({ applied: 2 });
    await settle();
    expect(of('bank_slip.written_off')).toEqual([{ bankSlipId: writtenOff, reason: 'Written off by the bank: 09 by the bank' }]);
    expect(of('bank_slip.failed')).toEqual([{ bankSlipId: rejected, oldStatusBill: 2, statusBill: 99 }]);
    await advance(t, { days: 4 });
    await settle();
    expect(of('bank_slip.overdue')).toEqual([{ bankSlipId: late, oldStatusBill: 2, statusBill: 9 }]);
    expectSigned(receiver.on('/all'), secret);
    await expectLogged(t, m, receiver.on('/all'));
  });

  it('Pix charges: paid, and expired when nobody pays', async () => {
    const create = async (amount: number) => {
      const res = await t.inject({ method: 'POST', url: '/gateway/v1/pix/charges', headers: m.headers, payload: { amount } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const paid = await create(4550);
    const unpaid = await create(990);
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${paid.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
    await settle();
    expect(of('pix_charge.paid')).toEqual([expect.objectContaining({ chargeId: paid.id, amount: 4550, oldStatus: 'Pending' })]);
    // (Its installment, received on the next business day at the latest, is the card test's subject below.)
    await advance(t, { days: 2 });
    await settle();
    expect(of('pix_charge.expired')).toEqual([expect.objectContaining({ chargeId: unpaid.id, amount: 990 })]);
    expectSigned(receiver.on('/all'), secret);
    await expectLogged(t, m, receiver.on('/all'));
  });

  it('payment links: paid, deactivated, expired', async () => {
    const paid = await createLink(t, m, { qttyInstallments: 1 });
    const deactivated = await createLink(t, m);
    const expiring = await createLink(t, m, { expirationDate: new Date(t.ctx.clock.now().getTime() + 3_600_000).toISOString() });
    const res = await payLink(t, paid.id, '4111111111111111');
    expect(res.statusCode, res.body).toBe(201);
    expect((await t.inject({ method: 'POST', url: `${LINKS}/${deactivated.id}/deactivate`, headers: m.headers })).statusCode).toBeLessThan(300);
    await settle();
    expect(of('payment_link.paid')).toEqual([{ paymentLinkId: paid.id, paymentId: res.json().paymentId, amount: 10000, installments: 1, paymentStatus: 'Authorized' }]);
    expect(of('payment_link.deactivated')).toEqual([{ paymentLinkId: deactivated.id }]);
    await advance(t, { hours: 2 });
    await settle();
    expect(of('payment_link.expired')).toEqual([{ paymentLinkId: expiring.id, expirationDate: expiring.expirationDate }]);
    expectSigned(receiver.on('/all'), secret);
    await expectLogged(t, m, receiver.on('/all'));
  });

  it('installments received one by one, then the payment paid; a prepayment', async () => {
    const payment = await pay(m, { installments: 2, amount: 20001 });
    const prepaid = await pay(m, { installments: 3, amount: 30000 });
    const prepay = await t.inject({ method: 'POST', url: `/integration/api/prepayments?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { items: [{ nsu: prepaid.nsu, installmentNumber: 3 }] } });
    expect(prepay.statusCode, prepay.body).toBe(200);
    await settle();
    const [made] = of('prepayment.made');
    expect(made).toEqual({
      receivedDate: prepay.json().receivedDate,
      count: 1,
      totalReceivedValue: prepay.json().totalReceivedValue,
      totalDiscount: prepay.json().totalDiscount,
      items: [{ nsu: prepaid.nsu, installmentNumber: 3 }],
    });
    receiver.received.length = 0;
    await advance(t, { days: 65 });
    await settle();
    const ours = received(receiver, '/all').filter((r) => r.json.data?.nsu === payment.nsu || r.json.data?.paymentId === payment.paymentId);
    expect(ours.map((r) => [r.json.type, r.json.data.installmentNumber ?? 0])).toEqual([
      ['payment.installment_paid', 1],
      ['payment.installment_paid', 2],
      ['payment.paid', 0],
    ]);
    expect(ours[2].json.data).toMatchObject({ paymentId: payment.paymentId, oldStatus: 'Authorized', status: 'Paid', amount: 20001 });
    expectSigned(receiver.on('/all'), secret);
    await expectLogged(t, m, receiver.on('/all'));
  });
});
