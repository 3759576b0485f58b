import { conflict, invalid, notFound, upstreamFailed } from '../../domain/errors.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import { errorMessage } from '../../jobs/queue.js';
import { ChallengeRefused, ThreeDsUnavailable, type AuthenticateResult } from '../../threeds/types.js';
import { reportOutcome, type Authorizations } from './authorization.js';
import type { ChargeableCard } from '../cards/service.js';
import type { PaymentDeps } from './deps.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { authenticated, failedState, notAuthenticatedMessage, type ThreeDsPlan, type ThreeDsState } from './three-ds-state.js';

/** A payment that failed authentication is Denied with this code: not authorized (the acquirer never saw it). */
const NOT_AUTHENTICATED_CODE = '05';
/** Expired challenges one pass ends at once. */
const EXPIRY_BATCH = 100;
/** How long a claimed expiry is left to its sweeper. */
const EXPIRY_CLAIM_MS = 60_000;

/** What the 3DS step left of a payment: send it to the acquirer, or it is settled for now (Denied, or waiting for its challenge). */
export type AuthenticationStep = { kind: 'send'; row: PaymentRow } | { kind: 'done'; row: PaymentRow };

/**
 * The 3-D Secure step of a card payment, between its insert and the acquirer. The payment is
 * recorded first (Pending); the 3DS server is called outside any transaction; then either the
 * authentication is written with its `payment.authenticated` event and the acquirer is called
 * with it, or the payment waits for its buyer's challenge (PendingAuthentication, its card
 * sealed, its deadline in `recover_at`), or it is Denied with nothing sent. A crash anywhere
 * leaves a Pending payment the recovery settles from the acquirer's record (which has none of
 * it when we died before the send: nothing was charged), or a PendingAuthentication one whose
 * challenge still completes, from any instance, or expires.
 */
export class PaymentAuthentication {
  constructor(
    private readonly ctx: PaymentDeps,
    private readonly authorizations: Authorizations,
    private readonly onRecorded: () => void,
  ) {}

  /** Runs the gateway's authentication of a freshly recorded Pending payment. */
  async authenticate(row: PaymentRow, card: ChargeableCard, plan: Extract<ThreeDsPlan, { kind: 'authenticate' }>): Promise<AuthenticationStep> {
    const { ctx } = this;
    const server = ctx.threeDs.server!;
    const state = plan.state;
    let result: AuthenticateResult;
    try {
      result = await server.authenticate(
        {
          merchantId: row.merchant_id,
          amount: Number(row.amount),
          card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, holderName: row.cardholder_name },
          authenticationType: state.authenticationType,
          device: plan.device,
          notificationUrl: ctx.threeDs.notificationUrl,
          purchaseDate: ctx.clock.now(),
        },
        { idempotencyKey: row.payment_id },
      );
    } catch (error) {
      if (!(error instanceof ThreeDsUnavailable)) throw error;
      ctx.logger.warn({ paymentId: row.payment_id, err: errorMessage(error) }, '3DS server unavailable: the sale is not authenticated');
      result = { kind: 'failed', reason: 'the 3DS server did not answer' };
    }
    const at = ctx.clock.now().toISOString();
    if (result.kind === 'failed') {
      return { kind: 'done', row: await this.deny(row, 'Pending', failedState(state, result.reason, result), at) };
    }
    if (result.kind === 'challenge') {
      const open: ThreeDsState = {
        ...state,
        status: 'Challenge',
        version: result.version,
        transactionId: result.transactionId,
        acsUrl: result.acsUrl,
        creq: result.creq,
        sealedCard: ctx.cards.sealForChallenge(row.payment_id, card),
      };
      const fields = { three_ds: JSON.stringify(open), threeds_transaction_id: result.transactionId, recover_at: new Date(ctx.clock.now().getTime() + ctx.threeDs.challengeTimeoutMs).toISOString() };
      if (!(await paymentsRepository.changeWithEvent(ctx.database, row.payment_id, 'Pending', 'PendingAuthentication', at, fields))) return { kind: 'done', row: await this.reread(row) };
      this.onRecorded();
      return { kind: 'done', row: { ...row, ...fields, status: 'PendingAuthentication', updated_at: at } };
    }
    const done = JSON.stringify(authenticated(state, card.brand, result.data, result.attempt ? 'Attempt' : 'Silent'));
    if (!(await paymentsRepository.changeWithEvent(ctx.database, row.payment_id, 'Pending', 'Pending', at, { three_ds: done }, 'Authenticated'))) return { kind: 'done', row: await this.reread(row) };
    this.onRecorded();
    return { kind: 'send', row: { ...row, three_ds: done } };
  }

  /**
   * The challenge's result, posted by the buyer's browser from the ACS (`cres`, with our
   * `threeDSSessionData`: the payment id). Only an open challenge of this payment, vouched for
   * by the 3DS server, moves it: anything else is refused and changes nothing. A passed
   * challenge moves the payment back to Pending (compare-and-set: of two posts one wins) and
   * sends the authorization; a failed one denies it.
   */
  async complete(cres: string): Promise<PaymentRow> {
    const { ctx } = this;
    const server = ctx.threeDs.server;
    if (!server) throw notFound('3-D Secure transaction');
    let result;
    try {
      result = await server.challengeResult(cres);
    } catch (error) {
      if (error instanceof ChallengeRefused) throw invalid('cres', `The challenge result is refused: ${error.message}. Nothing was changed.`);
      if (error instanceof ThreeDsUnavailable) throw upstreamFailed('threeds_unavailable', 'The 3DS server could not be asked about the challenge; post it again.');
      throw error;
    }
    const transactionId = result.kind === 'authenticated' ? result.data.transactionId : result.transactionId;
    const row = await paymentsRepository.findByThreeDsTransaction(ctx.database.db, transactionId);
    if (!row || !row.three_ds) throw notFound('3-D Secure transaction');
    const paymentId = row.payment_id;
    if (row.status !== 'PendingAuthentication') throw conflict(`The 3-D Secure challenge of payment ${paymentId} is finished (the payment is ${row.status}); nothing was changed.`);
    const state = JSON.parse(row.three_ds) as ThreeDsState;
    if (!state.sealedCard) throw conflict('This payment has no open 3-D Secure challenge.');
    const at = ctx.clock.now().toISOString();
    if (result.kind === 'failed') return this.deny(row, 'PendingAuthentication', failedState(state, result.reason, { transactionId: state.transactionId, ...(state.version ? { version: state.version } : {}), ...(result.eci ? { eci: result.eci } : {}) }), at);
    const card = { ...ctx.cards.openForChallenge(paymentId, state.sealedCard), source: row.card_source as ChargeableCard['source'], ...(row.vault_id ? { vaultId: row.vault_id } : {}) };
    const done = JSON.stringify({ ...authenticated(state, card.brand, result.data, 'Challenge') });
    const sentAt = ctx.clock.wallNow().toISOString();
    const fields = { three_ds: done, acquirer_sent_at: sentAt, recover_at: (await this.authorizations.recoverAt(row.merchant_id, ctx.clock.now())).toISOString() };
    if (!(await paymentsRepository.changeWithEvent(ctx.database, paymentId, 'PendingAuthentication', 'Pending', at, fields, 'Authenticated'))) {
      throw conflict(`The 3-D Secure challenge of payment ${paymentId} is finished; nothing was changed.`);
    }
    this.onRecorded();
    const sent = await this.authorizations.send({ ...row, ...fields, status: 'Pending', updated_at: at }, card);
    return sent.row;
  }

  /** Ends the challenges past their deadline (business time `dueBy`): Denied, nothing charged. True when the batch was full. */
  async expire(dueBy: Date = this.ctx.clock.now()): Promise<boolean> {
    const { ctx } = this;
    const until = new Date(ctx.clock.now().getTime() + EXPIRY_CLAIM_MS).toISOString();
    const ids = await paymentsRepository.claimExpiredChallenges(ctx.database.db, ctx.database.dialect, dueBy.toISOString(), until, EXPIRY_BATCH);
    for (const id of ids) {
      const row = await paymentsRepository.find(ctx.database.db, id);
      if (row?.status !== 'PendingAuthentication' || !row.three_ds) continue;
      const minutes = Math.round(ctx.threeDs.challengeTimeoutMs / 60_000);
      const state = JSON.parse(row.three_ds) as ThreeDsState;
      await this.deny(row, 'PendingAuthentication', failedState(state, `the buyer did not complete the challenge within ${minutes} minutes`, { ...(state.transactionId ? { transactionId: state.transactionId } : {}), ...(state.version ? { version: state.version } : {}) }), ctx.clock.now().toISOString());
    }
    return ids.length === EXPIRY_BATCH;
  }

  /** Denies a payment that was not authenticated: nothing was sent to the acquirer. */
  private async deny(row: PaymentRow, from: PaymentStatus, state: ThreeDsState, at: string): Promise<PaymentRow> {
    const fields = { three_ds: JSON.stringify(state), return_code: NOT_AUTHENTICATED_CODE, return_message: notAuthenticatedMessage(state.reason ?? 'not authenticated'), recover_at: null, acquirer_sent_at: null };
    if (!(await paymentsRepository.changeWithEvent(this.ctx.database, row.payment_id, from, 'Denied', at, fields))) return this.reread(row);
    this.onRecorded();
    const denied: PaymentRow = { ...row, ...fields, status: 'Denied', updated_at: at };
    reportOutcome(this.ctx, denied);
    return denied;
  }

  private async reread(row: PaymentRow): Promise<PaymentRow> {
    return (await paymentsRepository.find(this.ctx.database.db, row.payment_id))!;
  }
}
