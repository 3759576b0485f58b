import { randomUUID } from 'node:crypto';
import type { DashboardServices } from '../../../services.js';
import { DomainError } from '../../../../../domain/errors.js';
import { EXAMPLES } from '../../../../../http/examples.js';
import type { Principal } from '../../../../auth/service.js';
import { SCOPES } from '../../../../merchants/service.js';
import type { PaymentBody } from '../../../../payments/schemas.js';

/**
 * The sandbox's event triggers, as `gateway trigger EVENT` makes them (src/cli/listen-and-trigger.ts), but
 * calling the services its API calls go to, directly: the same bodies, the same service
 * methods, so the events (and their webhooks) are the real ones. The merchant acts as itself;
 * what it creates is recorded as made by `dashboard-trigger`.
 */
const GUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const reference = () => `trigger-${randomUUID().slice(0, 8)}`;
type Trigger = (ctx: DashboardServices, who: Principal) => Promise<Record<string, unknown>>;

async function storedCard(ctx: DashboardServices, who: Principal, cardNumber: string): Promise<string> {
  // A far expiry: the sandbox clock may stand years ahead of the wall clock.
  return (await ctx.cards.createVault(who.merchantId, { cardNumber, expirationMonth: '12', expirationYear: '2045' }, 'MARIA SILVA')).vaultId;
}

async function pay(ctx: DashboardServices, who: Principal, cardNumber: string) {
  const body = {
    payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
    sellerInfo: { codeAntiFraud: GUID },
    cardInfo: { vaultId: await storedCard(ctx, who, cardNumber), cardholderName: 'MARIA SILVA' },
    customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'maria@example.com' },
    referenceTransaction: reference(),
  } as PaymentBody;
  const outcome = await ctx.payments.create(who, body);
  if (outcome.kind !== 'recorded') throw outcome.error;
  return outcome.payment;
}

async function plan(ctx: DashboardServices, who: Principal): Promise<string> {
  return ctx.recurrence.plans.create(who, { ...EXAMPLES.createPlan, name: `Trigger ${randomUUID().slice(0, 8)}`, trialDays: 1 } as never);
}

async function subscribe(ctx: DashboardServices, who: Principal): Promise<{ planId: string; subscriptionId: string }> {
  const planId = await plan(ctx, who);
  const vaultId = await storedCard(ctx, who, '4111111111111111');
  const subscriptionId = await ctx.recurrence.subscriptions.create(who, { planId, vaultId, orderNumber: `T-${randomUUID().slice(0, 8)}` } as never);
  return { planId, subscriptionId };
}

async function issueSlip(ctx: DashboardServices, who: Principal) {
  return ctx.bankSlips.issue({ merchantId: who.merchantId, accountNumber: who.accountNumber }, { ...EXAMPLES.issueBankSlip, pix: false, referenceCode: reference() } as never);
}

const TRIGGERS: Record<string, Trigger> = {
  'payment.authorized': async (ctx, who) => {
    const p = await pay(ctx, who, '4111111111111111');
    return { paymentId: p.paymentId, status: p.status };
  },
  'payment.denied': async (ctx, who) => {
    const p = await pay(ctx, who, '4000000000009995');
    return { paymentId: p.paymentId, status: p.status, returnCode: p.returnCode };
  },
  'subscription.active': subscribe,
  'billing.opened': subscribe,
  'subscription.canceled': async (ctx, who) => {
    const created = await subscribe(ctx, who);
    await ctx.recurrence.subscriptions.setStatus(who, created.subscriptionId, 'Canceled');
    return created;
  },
  'plan.status_changed': async (ctx, who) => {
    const planId = await plan(ctx, who);
    await ctx.recurrence.plans.setStatus(who, planId, 'Inactive');
    return { planId, status: 'Inactive' };
  },
  'payment_link.deactivated': async (ctx, who) => {
    const link = await ctx.paymentLinks.create(who, EXAMPLES.createPaymentLink as never);
    await ctx.paymentLinks.deactivate(who.merchantId, link.id);
    return { paymentLinkId: link.id };
  },
  'bank_slip.issued': async (ctx, who) => {
    const slip = await issueSlip(ctx, who);
    return { bankSlipId: slip.id, status: slip.status };
  },
  'bank_slip.paid': async (ctx, who) => {
    const slip = await issueSlip(ctx, who);
    // The sandbox bank registers a new slip a moment after it is issued; until then it cannot be paid (409).
    for (let tries = 1; ; tries++) {
      try {
        const paid = await ctx.bankSlips.pay(slip.id.toLowerCase(), {});
        return { bankSlipId: slip.id, status: paid.status };
      } catch (error) {
        if (!(error instanceof DomainError && error.kind === 'conflict' && tries < 50)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  },
  'pix_charge.paid': async (ctx, who) => {
    const charge = await ctx.pix.create(who, { ...EXAMPLES.createPixCharge, referenceTransaction: reference() } as never);
    const paid = await ctx.pix.pay(charge.id);
    return { pixChargeId: charge.id, status: paid.status };
  },
  'payment.canceled': async (ctx, who) => {
    const p = await pay(ctx, who, '4111111111111111');
    const canceled = await ctx.payments.cancel(who.merchantId, p.paymentId);
    return { paymentId: p.paymentId, status: canceled.status };
  },
};

export const TRIGGER_EVENTS = Object.keys(TRIGGERS);

/** Runs `event` as the merchant (its own merchantId and account, every scope, as its credential would). */
export async function runTrigger(ctx: DashboardServices, merchantId: string, event: string): Promise<Record<string, unknown>> {
  const merchant = await ctx.merchants.get(merchantId);
  const who: Principal = { userName: 'dashboard-trigger', merchantId, accountNumber: merchant.accountNumber, scopes: [...SCOPES] };
  return TRIGGERS[event](ctx, who);
}
