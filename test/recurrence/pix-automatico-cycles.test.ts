import { afterEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { brasiliaDate, brasiliaStart } from '../../src/domain/brasilia.js';
import { addDays, iso, R } from './support.js';
import { world, type World } from './world.js';
import { pixAuto } from './pix-automatico-support.js';

/**
 * Pix Automático cycles on the sandbox clock: each billing's cobr is sent 10 days before its due
 * date, settled on it; a refused one is retried at D+2, D+4, D+6 (PERMITE_3R_7D), then Denied;
 * the payer's or the merchant's cancel stops the next cycle.
 */
describe(`Pix Automático: cycles (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  const cobrs = (billingId: string) => w.t.ctx.database.db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', billingId).execute();
  const byInstallment = async () => new Map((await w.api.billings()).map((b) => [b.installment as number, b]));

  async function activeSubscription() {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const { subscriptionId, recurrenceId } = await pix.active(planId);
    const second = (await byInstallment()).get(2)!;
    return { pix, subscriptionId, recurrenceId, due: new Date(second.expireAt), billingId: second.id as string };
  }

  it('cycles paid as the clock moves: the cobr goes out 10 days before the due date, is paid on it, with its conciliation record', async () => {
    const { pix, due, billingId } = await activeSubscription();
    await w.clk.to(addDays(due, -10.5));
    expect(await cobrs(billingId)).toHaveLength(0);
    await w.clk.to(addDays(due, -9.9));
    const [cobr] = await cobrs(billingId);
    expect(cobr).toMatchObject({ status: 'ATIVA', due_date: brasiliaDate(due), amount: 4990 });
    expect((await w.api.billing(billingId)).status).toBe('Opened');
    await w.clk.to(due);
    const paid = await w.api.billing(billingId);
    expect(paid.status).toBe('Paid');
    expect(paid.attemptsHistory).toEqual([{ date: iso(due), returnCode: '00', returnMessage: 'Paid by Pix Automático', paymentId: cobr.charge_id }]);
    expect(await pix.receivablesOf(cobr.charge_id)).toHaveLength(1);
    const charge = await w.t.inject({ method: 'GET', url: `/gateway/v1/pix/charges/${cobr.charge_id}`, headers: w.m.headers });
    expect(charge.json()).toMatchObject({ status: 'Paid', amount: 4990, referenceTransaction: billingId });
    // The next cycle follows.
    await w.clk.to(addDays(due, 30));
    const third = (await byInstallment()).get(3)!;
    expect(third.status).toBe('Paid');
    expect((await byInstallment()).get(4)).toMatchObject({ status: 'Opened', expireAt: iso(addDays(due, 60)) });
  });

  it('insufficient funds: retried 2 days after the due date, then paid; the plan attempts do not apply', async () => {
    const { pix, recurrenceId, due, billingId } = await activeSubscription();
    await pix.outcome(recurrenceId, 'insufficient_funds');
    await w.clk.to(due);
    const failed = await w.api.billing(billingId);
    expect(failed.status).toBe('Opened');
    expect(failed.attemptsHistory).toEqual([expect.objectContaining({ date: iso(due), returnCode: 'AM04' })]);
    await pix.outcome(recurrenceId, 'paid');
    await w.clk.to(addDays(due, 1.9));
    expect((await w.api.billing(billingId)).attemptsHistory).toHaveLength(1);
    await w.clk.to(addDays(due, 2));
    const paid = await w.api.billing(billingId);
    expect(paid.status).toBe('Paid');
    expect(paid.attemptsHistory.map((a: { date: string; returnCode: string }) => [a.date, a.returnCode])).toEqual([[iso(due), 'AM04'], [iso(addDays(due, 2)), '00']]);
    const [cobr] = await cobrs(billingId);
    expect(cobr.status).toBe('CONCLUIDA');
    expect(JSON.parse(cobr.attempts).map((a: { status: string }) => a.status)).toEqual(['REJEITADA', 'PAGA']);
  });

  it('insufficient funds on every try: D, D+2, D+4, D+6 (three retries within 7 days), then Denied; the next cycle still comes', async () => {
    const { pix, recurrenceId, due, billingId } = await activeSubscription();
    await pix.outcome(recurrenceId, 'insufficient_funds');
    await w.clk.to(addDays(due, 5.9));
    expect((await w.api.billing(billingId)).status).toBe('Opened');
    await w.clk.to(addDays(due, 8));
    const denied = await w.api.billing(billingId);
    expect(denied.status).toBe('Denied');
    expect(denied.attemptsHistory.map((a: { date: string }) => a.date)).toEqual([0, 2, 4, 6].map((d) => iso(addDays(due, d))));
    const [cobr] = await cobrs(billingId);
    expect(cobr.status).toBe('REJEITADA');
    expect((await byInstallment()).get(3)).toMatchObject({ status: 'Opened', expireAt: iso(addDays(due, 30)) });
    expect((await pix.subscription((await byInstallment()).get(3)!.subscription.id)).status).toBe('Active');
  });

  it('the payer cancels: the subscription and its open billing are Canceled, no further cobr is sent', async () => {
    const { pix, subscriptionId, recurrenceId, due, billingId } = await activeSubscription();
    await pix.payer(recurrenceId, 'cancel');
    const sub = await pix.subscription(subscriptionId);
    expect(sub).toMatchObject({ status: 'Canceled', canceledReason: expect.stringContaining('payer'), pixAuthorization: { status: 'CANCELADA', canceledBy: 'payer' } });
    expect((await w.api.billing(billingId)).status).toBe('Canceled');
    await w.clk.to(addDays(due, 40));
    expect(await cobrs(billingId)).toHaveLength(0);
    expect((await w.api.billings()).map((b) => b.status)).toEqual(['Paid', 'Canceled']);
  });

  it('the payer cancels after the cobr was sent: it is not settled', async () => {
    const { pix, recurrenceId, due, billingId } = await activeSubscription();
    await w.clk.to(addDays(due, -5));
    expect(await cobrs(billingId)).toHaveLength(1);
    await pix.payer(recurrenceId, 'cancel');
    await w.clk.to(addDays(due, 1));
    expect((await cobrs(billingId))[0].status).toBe('CANCELADA');
    expect((await w.api.billing(billingId)).status).toBe('Canceled');
  });

  it('the merchant cancels: the recurrence is cancelled at the PSP, the subscription Canceled by the merchant; a Pix subscription is not reactivated', async () => {
    const { pix, subscriptionId, due, billingId } = await activeSubscription();
    const res = await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Canceled' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await pix.subscription(subscriptionId)).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'CANCELADA', canceledBy: 'merchant' } });
    expect((await w.api.billing(billingId)).status).toBe('Canceled');
    await w.clk.to(addDays(due, 1));
    expect(await cobrs(billingId)).toHaveLength(0);
    expect((await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Actived' })).statusCode).toBe(409);
  });
});

describe(`Pix Automático: a cycle cancelled by the merchant (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  it("cancels its cobr before the due date (never settled), the next cycle follows; billing 1 is the authorization's (409)", async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const pending = await pix.subscribe(planId, 'PIX-0');
    const [first] = await w.api.billings();
    expect((await w.api.post(`${R}/billing/${first.id}/cancel`)).statusCode).toBe(409);
    await pix.payer((await pix.subscription(pending)).pixAuthorization.recurrenceId, 'authorize');
    const second = (await w.api.billings()).find((b) => b.installment === 2);
    await w.clk.to(addDays(second.expireAt, -5));
    const res = await w.api.post(`${R}/billing/${second.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    const [cobr] = await w.t.ctx.database.db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', second.id).execute();
    expect(cobr.status).toBe('CANCELADA');
    await w.clk.to(addDays(second.expireAt, 1));
    expect((await w.api.billing(second.id)).status).toBe('Canceled');
    expect((await w.api.billings()).find((b) => b.installment === 3)).toMatchObject({ status: 'Opened', expireAt: iso(addDays(second.expireAt, 30)) });
  });
});

describe(`Pix Automático: a cycle's cancel in Brasília dates (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());
  const cobrOf = async (billingId: string) => (await w.t.ctx.database.db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', billingId).execute())[0];
  /** 00:00 in Brasília (03:00Z) on the API Pix date of a billing's due date. */
  const midnightOf = (expireAt: string) => new Date(brasiliaStart(brasiliaDate(new Date(expireAt))));

  it('cancelled at 23:59 in Brasília on the day before its due date (02:59Z); at 00:00 there on it (03:00Z) it is 409 naming expireAt, and the cycle is settled', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    await pix.active(await pix.plan());
    const second = (await w.api.billings()).find((b) => b.installment === 2);
    await w.clk.to(new Date(midnightOf(second.expireAt).getTime() - 60_000));
    const res = await w.api.post(`${R}/billing/${second.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect((await cobrOf(second.id)).status).toBe('CANCELADA');

    const third = (await w.api.billings()).find((b) => b.installment === 3);
    const thirdDate = brasiliaDate(new Date(third.expireAt));
    await w.clk.to(midnightOf(third.expireAt));
    // The sandbox clock runs on from there: still the first minute of the day in Brasília.
    expect(w.clk.now().getTime() - Date.parse(`${thirdDate}T03:00:00.000Z`)).toBeLessThan(60_000);
    const refused = await w.api.post(`${R}/billing/${third.id}/cancel`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toEqual([{ tag: 'expireAt', description: expect.stringContaining(`settled from ${thirdDate}`) }]);
    expect((await cobrOf(third.id)).status).toBe('ATIVA');
    expect((await w.api.billing(third.id)).status).toBe('Opened');
    await w.clk.to(third.expireAt);
    expect((await w.api.billing(third.id)).status).toBe('Paid');
  });
});

describe(`Pix Automático: the plan's cancel (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  it('cancels its Pix subscriptions, awaiting or active, and their recurrences at the PSP; a pending one can no longer be authorized', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const { subscriptionId: active } = await pix.active(planId);
    const pending = await pix.subscribe(planId, 'PIX-2');
    const res = await w.api.post(`${R}/plans/${planId}/status`, { status: 'Canceled' });
    expect(res.statusCode, res.body).toBe(200);
    for (const id of [active, pending]) {
      expect(await pix.subscription(id)).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'CANCELADA', canceledBy: 'merchant' } });
    }
    await pix.payer((await pix.subscription(pending)).pixAuthorization.recurrenceId, 'authorize', 409);
    expect((await w.api.billings()).filter((b) => b.status === 'Opened')).toEqual([]);
  });
});

describe(`Pix Automático: a weekly plan (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());
  const cobrs = (billingId: string) => w.t.ctx.database.db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', billingId).execute();
  const byInstallment = async () => new Map((await w.api.billings()).map((b) => [b.installment as number, b]));

  it('Custom of 7 days (SEMANAL) with 3 installments: each cobr goes out in its window, all paid, then Finished', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan({ planType: 'Custom', interval: 7, installments: 3 });
    const { subscriptionId } = await pix.active(planId);
    const second = (await byInstallment()).get(2)!;
    // Issued when billing 1 was paid, 7 days before its due date: inside the window, so sent at once.
    await w.clk.runDue();
    const [cobr] = await cobrs(second.id);
    expect(cobr).toMatchObject({ status: 'ATIVA', due_date: brasiliaDate(new Date(second.expireAt)) });
    await w.clk.to(addDays(second.expireAt, 7));
    const billings = await byInstallment();
    expect([1, 2, 3].map((n) => billings.get(n)!.status)).toEqual(['Paid', 'Paid', 'Paid']);
    expect(billings.get(4)).toBeUndefined();
    expect((await pix.subscription(subscriptionId)).status).toBe('Finished');
  });
});
