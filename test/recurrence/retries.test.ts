import { afterEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { addDays, iso, outcome } from './support.js';
import { world, type World } from './world.js';

/**
 * The seed's retry policy, literally: retries only after insufficient funds (51), at D+2, D+4,
 * D+8, D+16 from the due date D, at most `attempts` of them; the billing stays Opened meanwhile.
 */
describe(`recurrence retries (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  /** A subscription whose billing 1 is due exactly at D = the next 1 January, 00:00 UTC. */
  async function dueOnNewYear(attempts: number) {
    w = await world();
    const D = w.clk.nextNewYear();
    const planId = await w.api.plan({ attempts, trialDays: 1 });
    // Subscribed at D - 1 day with a 1-day trial: billing 1 is due on D's date, at the time of
    // day the clock had ticked to (a few ms past midnight), read back as `due`.
    await w.clk.to(addDays(D, -1));
    await outcome(w.t, w.vaultId, '51');
    await w.api.subscribe(planId, w.vaultId);
    const [billing] = await w.api.billings();
    const due = new Date(billing.expireAt);
    expect(billing.expireAt.slice(0, 10)).toBe(iso(D).slice(0, 10));
    return { billingId: billing.id as string, due };
  }

  /** A minute before: the virtual clock keeps ticking after an advance, so the next `to` must stay ahead of it. */
  const justBefore = (at: Date) => new Date(at.getTime() - 60_000);
  const history = async (billingId: string) => (await w.api.billing(billingId)).attemptsHistory as { date: string; returnCode: string }[];

  it('attempts 1: a failed first attempt is retried 2 days later, then Denied', async () => {
    const { billingId, due } = await dueOnNewYear(1);
    await w.clk.to(due);
    expect(await w.api.billing(billingId)).toMatchObject({ status: 'Opened' });
    expect(await history(billingId)).toEqual([{ date: iso(due), returnCode: '51', returnMessage: 'Insufficient funds', paymentId: expect.any(String), declineCategory: 'retryable' }]);

    await w.clk.to(justBefore(addDays(due, 2)));
    expect(await history(billingId)).toHaveLength(1);
    await w.clk.to(addDays(due, 2));
    const billing = await w.api.billing(billingId);
    expect(billing.status).toBe('Denied');
    expect(billing.attemptsHistory.map((a: { date: string }) => a.date)).toEqual([iso(due), iso(addDays(due, 2))]);
    expect(await w.api.payments(billingId)).toHaveLength(2);
  });

  it('attempts 4: due 01/01 retries on 03/01, 05/01, 09/01 (4 days after the 3rd failure) and 17/01 (8 days after the 4th), then nothing', async () => {
    const { billingId, due } = await dueOnNewYear(4);
    const year = due.getUTCFullYear();
    await w.clk.to(due);
    await w.clk.to(addDays(due, 2));
    await w.clk.to(addDays(due, 4));
    expect(await history(billingId)).toHaveLength(3);

    // Three failures so far, the last on 05/01: the next retry is 4 days after it, not before.
    await w.clk.to(justBefore(addDays(due, 8)));
    expect(await history(billingId)).toHaveLength(3);
    expect((await w.api.billing(billingId)).status).toBe('Opened');
    await w.clk.to(addDays(due, 8));
    expect(await history(billingId)).toHaveLength(4);

    // Four failures, the last on 09/01: one final retry 8 days later.
    await w.clk.to(justBefore(addDays(due, 16)));
    expect(await history(billingId)).toHaveLength(4);
    expect((await w.api.billing(billingId)).status).toBe('Opened');
    await w.clk.to(addDays(due, 16));

    await w.clk.to(addDays(due, 29));
    const billing = await w.api.billing(billingId);
    expect(billing.status).toBe('Denied');
    expect(billing.attemptsHistory.map((a: { date: string }) => a.date.slice(0, 10))).toEqual(
      [`${year}-01-01`, `${year}-01-03`, `${year}-01-05`, `${year}-01-09`, `${year}-01-17`],
    );
    expect(billing.attemptsHistory.map((a: { date: string }) => a.date)).toEqual([0, 2, 4, 8, 16].map((d) => iso(addDays(due, d))));
    expect(billing.attemptsHistory.every((a: { returnCode: string }) => a.returnCode === '51')).toBe(true);
    const payments = await w.api.payments(billingId);
    expect(payments).toHaveLength(5);
    expect(new Set(payments.map((p) => p.payment_id)).size).toBe(5);
    expect(payments.every((p) => p.status === 'Denied' && p.return_code === '51')).toBe(true);
  });

  it('attempts 0: no retry at all', async () => {
    const { billingId, due } = await dueOnNewYear(0);
    await w.clk.to(addDays(due, 20));
    expect(await w.api.billing(billingId)).toMatchObject({ status: 'Denied', attemptsHistory: [{ date: iso(due), returnCode: '51' }] });
  });

  it('recovers: 51 then 00 is Paid on the first retry, and billing 2 is still due 30 days after D', async () => {
    const { billingId, due } = await dueOnNewYear(4);
    await w.clk.to(due);
    await outcome(w.t, w.vaultId, null);
    await w.clk.to(addDays(due, 2));
    const billing = await w.api.billing(billingId);
    expect(billing.status).toBe('Paid');
    expect(billing.attemptsHistory.map((a: { returnCode: string }) => a.returnCode)).toEqual(['51', '00']);
    const payments = await w.api.payments(billingId);
    expect(payments.map((p) => p.status)).toEqual(['Denied', 'Authorized']);
    expect(billing.attemptsHistory[1].paymentId).toBe(payments[1].payment_id);
    const billings = await w.api.billings();
    expect(billings.map((b) => [b.installment, b.status, b.expireAt])).toEqual([
      [1, 'Paid', iso(due)],
      [2, 'Opened', iso(addDays(due, 30))],
    ]);
  });

  it('does not retry other declines (05, 54 from the acquirer): Denied at once', async () => {
    for (const code of ['05', '54']) {
      const { billingId, due } = await dueOnNewYear(4);
      await outcome(w.t, w.vaultId, code);
      await w.clk.to(addDays(due, 20));
      expect(await w.api.billing(billingId)).toMatchObject({ status: 'Denied', attemptsHistory: [{ returnCode: code }] });
      expect((await w.api.subscription((await w.api.billing(billingId)).subscription.id)).status).toBe('Active');
      await w.t.close();
    }
    w = await world(); // for afterEach
  });
});
