import { randomUUID } from 'node:crypto';
import { documentType } from '../../../domain/documents.js';
import { installmentPlan } from '../../../domain/installments.js';
import { toJsonNumber } from '../../../domain/money.js';
import { conflict, type DomainError, invalid, isCallerError, notFound } from '../../../domain/errors.js';
import type { CreateOutcome } from '../../payments/service.js';
import type { PaymentBody } from '../../payments/schemas.js';
import { RateLimiter } from '../rate-limit.js';
import { linkReference, paymentLinksRepository as repo, type PaymentLinkRow } from '../repository.js';
import { offeredCounts } from '../link-terms.js';
import type { CheckoutPaymentBody, CheckoutPaymentResult } from '../schemas.js';
import type { LinkPayment, PaymentLinkDeps } from '../deps.js';
import { CLOSED_TAG, LINK_STATUS, statusFormat } from '../status.js';
import { termsOf } from '../view.js';
import { outcomeMessage } from './messages.js';

/**
 * The public checkout's limits (contract section 2: always on). Card testing tries many cards
 * from one address, or against one link from many: both are counted. Ten minutes of wall time.
 */
export const CHECKOUT_LIMITS = {
  perIp: { max: 20, windowMs: 10 * 60 * 1000 },
  perLink: { max: 10, windowMs: 10 * 60 * 1000 },
};
/** How long one attempt holds a link while it charges; a crashed attempt frees it after this. */
export const HOLD_MS = 5 * 60 * 1000;

const CLOSED_TEXT: Record<number, string> = {
  2: 'This payment link has already been paid.',
  3: 'This payment link has expired.',
  9: 'This payment link was deactivated by the seller.',
};

export function closedError(status: number): DomainError {
  return conflict(CLOSED_TEXT[status] ?? `This payment link is ${statusFormat(status)}.`, CLOSED_TAG[status] ?? 'invalid_state');
}

/**
 * Pays a link from its hosted checkout: through the payment service like any payment (same
 * anti-fraud, events, conciliation, webhooks), as the link's merchant, with a fresh
 * codeAntiFraud and the card only as the browser's encryptedCard.
 *
 * Paid once: the attempt first takes the link with one conditional UPDATE (open, unexpired,
 * not held by another live attempt); the loser of a race gets 409. The holder then looks at
 * the link's earlier payments (a crash may have left one charged or still waiting for the
 * acquirer) before charging. A decline or a refused card gives the link back at once.
 */
/** What the checkout asks of the link service: the link as it stands, and recording who paid it. */
export interface LinkStates {
  current(id: string): Promise<PaymentLinkRow | undefined>;
  settleFromPayments(row: PaymentLinkRow, claimId: string): Promise<'paid' | 'pending' | 'none'>;
  markPaid(id: string, claimId: string, payment: LinkPayment): Promise<boolean>;
}

export class CheckoutPayments {
  readonly limiter: RateLimiter;

  constructor(
    private readonly ctx: PaymentLinkDeps,
    private readonly links: LinkStates,
  ) {
    this.limiter = new RateLimiter(ctx.database, ctx.clock);
  }

  /** Counted before anything else is read, so even malformed attempts use up the allowance. */
  async countAttempt(ip: string, linkId: string): Promise<void> {
    await this.limiter.hit([
      { key: `checkout:ip:${ip}`, ...CHECKOUT_LIMITS.perIp },
      { key: `checkout:link:${linkId.slice(0, 64)}`, ...CHECKOUT_LIMITS.perLink },
    ]);
  }

  async pay(id: string, body: CheckoutPaymentBody, ip: string, acceptHeader = 'text/html'): Promise<CheckoutPaymentResult> {
    const { ctx } = this;
    const row = await this.links.current(id);
    if (!row) throw notFound('Payment link');
    if (row.status !== LINK_STATUS.open) throw closedError(row.status);
    const terms = termsOf(row);
    const counts = offeredCounts(terms);
    if (!counts.includes(body.installments)) throw invalid('installments', `installments must be one of: ${counts.join(', ')}.`);
    const customer = customerOf(body, ip);
    const plan = installmentPlan(terms.value, body.installments, terms.qttyInstallmentsIntFree, terms.installmentsFee);

    const claimId = randomUUID();
    await this.hold(row, claimId);
    const payment: PaymentBody = {
      payment: { transactionType: 'credit', amount: Number(plan.total), productType: plan.count === 1 ? 'avista' : 'lojista', installments: plan.count },
      referenceTransaction: linkReference(id),
      sellerInfo: { codeAntiFraud: randomUUID() },
      cardInfo: { encryptedCard: body.encryptedCard, cardholderName: body.cardholderName },
      customer,
      ...this.authentication(id, body, ip, acceptHeader),
    };
    let outcome: CreateOutcome;
    try {
      outcome = await ctx.payments.create({ merchantId: row.merchant_id, accountNumber: Number(row.account_number) }, payment);
    } catch (error) {
      // A refused input (a bad card) charged nothing. Anything else keeps the hold until it
      // runs out, when the link's payments decide (see PaymentLinkService.current).
      if (isCallerError(error)) await repo.release(ctx.database.db, id, claimId);
      throw error;
    }
    if (outcome.kind !== 'recorded') {
      // 96 was recorded Denied (nothing charged); "no answer" leaves the payment Pending and held.
      if (outcome.kind === 'failed') await repo.release(ctx.database.db, id, claimId);
      throw outcome.error;
    }

    const result = outcome.payment;
    const paid = result.status === 'Authorized' || result.status === 'Blocked';
    // The payer passes the challenge in the page: the hold stays; the return from it settles the link (afterChallenge).
    if (result.status === 'PendingAuthentication') {
      // Nothing: the link stays held by this attempt.
    } else if (paid) {
      await this.links.markPaid(id, claimId, {
        payment_id: result.paymentId,
        status: result.status,
        amount: result.amount,
        installments: result.installments,
        authorization_code: result.authorizationCode,
        brand: result.brand,
        masked_card_number: result.maskedCardNumber,
      });
    } else {
      await repo.release(ctx.database.db, id, claimId);
    }
    return {
      paid,
      paymentId: result.paymentId,
      status: result.status,
      returnCode: result.returnCode,
      message: outcomeMessage(result.status, result.returnCode, result.threeDs?.status === 'Fail'),
      authorizationCode: result.authorizationCode,
      maskedCardNumber: result.maskedCardNumber,
      installments: result.installments,
      amount: toJsonNumber(BigInt(result.amount), 2),
      linkStatus: paid ? LINK_STATUS.paid : LINK_STATUS.open,
      linkStatusFormat: statusFormat(paid ? LINK_STATUS.paid : LINK_STATUS.open),
      ...(result.threeDs ? { threeDs: { status: result.threeDs.status, liabilityShift: result.threeDs.liabilityShift, ...(result.threeDs.acsUrl ? { acsUrl: result.threeDs.acsUrl, creq: result.threeDs.creq } : {}) } } : {}),
    };
  }

  /**
   * With a 3DS server configured and the page's browser data, the payer is authenticated: the
   * address and Accept header are the request's own; after a challenge the browser (the page's
   * frame) comes back to /pay/{id}/authenticated.
   */
  private authentication(id: string, body: CheckoutPaymentBody, ip: string, acceptHeader: string): Pick<PaymentBody, 'threeDs' | 'deviceInfo'> {
    if (!body.deviceInfo || this.ctx.config.threeDs.kind === 'none') return {};
    return {
      threeDs: { returnUrl: `${this.ctx.config.publicUrl}/pay/${id}/authenticated` },
      deviceInfo: { ...body.deviceInfo, browserAcceptHeader: acceptHeader.slice(0, 2048) || 'text/html', httpBrowserIp: ip.slice(0, 45) },
    };
  }

  /**
   * The payer's browser is back from the challenge: the link is decided from its payments now
   * (paid, or given back for another try when the authentication failed).
   */
  async afterChallenge(id: string): Promise<PaymentLinkRow | undefined> {
    const row = await this.links.current(id);
    if (!row || row.status !== LINK_STATUS.open || row.claim_id === null) return row;
    const settled = await this.links.settleFromPayments(row, row.claim_id);
    if (settled === 'none') await repo.release(this.ctx.database.db, id, row.claim_id);
    return this.links.current(id);
  }

  /** Takes the link for this attempt, or answers why it cannot be paid now (409). */
  private async hold(row: PaymentLinkRow, claimId: string): Promise<void> {
    const { ctx } = this;
    const wallNow = ctx.clock.wallNow();
    const until = new Date(wallNow.getTime() + HOLD_MS).toISOString();
    const won = await repo.claim(ctx.database.db, row.id, claimId, until, wallNow.toISOString(), ctx.clock.now().toISOString());
    if (!won) {
      const now = await this.links.current(row.id);
      if (now && now.status !== LINK_STATUS.open) throw closedError(now.status);
      throw conflict('A payment of this link is already being processed; try again in a moment.', 'payment_in_progress');
    }
    const earlier = await this.links.settleFromPayments(row, claimId);
    if (earlier === 'paid') throw closedError(LINK_STATUS.paid);
    // Still waiting for the acquirer: keep the hold; when it runs out the answer decides.
    if (earlier === 'pending') throw conflict('A payment of this link is still being processed; try again in a few minutes.', 'payment_in_progress');
  }
}

/** The payer as anti-fraud sees it: the address the request came from, and what the payer typed. */
function customerOf(body: CheckoutPaymentBody, ip: string): NonNullable<PaymentBody['customer']> {
  const customer: NonNullable<PaymentBody['customer']> = { ipAddress: ip.slice(0, 48) };
  if (body.email !== undefined) customer.email = body.email;
  if (body.documentNumber !== undefined) {
    const kind = documentType(body.documentNumber);
    if (!kind) throw invalid('documentNumber', 'documentNumber must be a valid CPF or CNPJ, without mask.');
    customer.documentNumber = body.documentNumber;
    customer.documentType = kind;
  }
  return customer;
}
