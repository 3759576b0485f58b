import type { ThreeDsState } from './three-ds-state.js';
import { AcquirerUnavailable, type Acquirer, type AuthorizeAuthentication, type AuthorizeRequest, type AuthorizeResult, type Initiator, type ReplacementCard, type ReturnCode } from '../../acquirer/types.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../db/unavailable.js';
import { unavailable, upstreamFailed, type DomainError } from '../../domain/errors.js';
import { errorMessage } from '../../jobs/queue.js';
import { RetryLater } from '../../jobs/registry.js';
import type { ChargeableCard } from '../cards/service.js';
import { declineCategoryOf } from '../../domain/decline-category.js';
import { paymentsRepository, type AnswerFields, type PaymentRow } from './repository.js';
import type { PaymentDeps } from './deps.js';

/** A Pending payment's recovery is due this long after its settle window (our own answer normally comes first). */
const RECOVER_MARGIN_MS = 15_000;
/** "At once" lookups after an ambiguous answer, before the caller is answered: the delays between tries. */
const LOOKUP_DELAYS_MS = [0, 250, 1000];
/** A sale the acquirer holds as undecided (Cielo's Pending) is asked about again after this. */
const UNDECIDED_RECHECK_MS = 30_000;
/**
 * A recovery or a billing's job that must wait out the rest of a settle window this short waits
 * in place (its claim or lease keeps it) rather than rescheduling: the window runs on the wall
 * clock, and a sandbox advance that reschedules in business time would otherwise ask again at
 * once, in a loop.
 */
const MAX_WAIT_IN_JOB_MS = 30_000;

/** A sent authorization: its outcome recorded, or not known yet (the payment stays Pending). */
export type Sent = { row: PaymentRow; known: true; newCard?: ReplacementCard } | { row: PaymentRow; known: false; why: string };

/** What is known of a Pending payment after asking the acquirer. */
export type Resolution =
  | { kind: 'settled'; row: PaymentRow }
  /** No answer yet (acquirer silent, sale undecided, or a send may still be in flight): ask again after `retryInMs`. */
  | { kind: 'unknown'; retryInMs: number; why: string; inFlight?: boolean }
  /** The acquirer has no record of it and nothing sent can still arrive: nothing was charged. */
  | { kind: 'not_received'; row: PaymentRow };

const failed = (returnMessage: string): AuthorizeResult => ({ outcome: 'failed', returnCode: '96', returnMessage });

/**
 * Who started a payment (stored-credential indicators): a billing's charge is the merchant's,
 * recurring (M1), with the network reference of the card's first charge; any other is the
 * cardholder's (C1). A caller whose charge stores the card says so (`Payments.create`'s initiator).
 */
export function initiatorOf(row: Pick<PaymentRow, 'billing_id'>, card: ChargeableCard): Initiator {
  if (row.billing_id !== null) return { by: 'merchant', recurring: true, ...(card.networkReference ? { networkReference: card.networkReference } : {}) };
  // A payment by vaultId uses a card stored before; the charge that stores a card says so itself (the card update page's).
  return { by: 'cardholder', storesCard: false, storedCard: card.source === 'vault' };
}

/** What is sent to the acquirer for a payment. */
function requestOf(row: PaymentRow, card: ChargeableCard, initiator?: Initiator): AuthorizeRequest {
  return {
    initiator: initiator ?? initiatorOf(row, card),
    merchantId: row.merchant_id,
    amount: Number(row.amount),
    installments: row.installments,
    productType: row.product_type as 'avista' | 'lojista',
    card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv, holderName: row.cardholder_name },
    forcedReturnCode: (card.forcedReturnCode ?? undefined) as ReturnCode | undefined,
    ...(row.three_ds ? { authentication: authenticationOf(JSON.parse(row.three_ds) as ThreeDsState) } : {}),
  };
}

/** What the acquirer receives of a payment's 3-D Secure. */
function authenticationOf(s: ThreeDsState): AuthorizeAuthentication {
  if (s.dataOnly) return { dataOnly: true, ...(s.eci ? { eci: s.eci } : {}), ...(s.version ? { version: s.version } : {}) };
  return {
    dataOnly: false,
    ...(s.eci ? { eci: s.eci } : {}),
    ...(s.cavv ? { cavv: s.cavv } : {}),
    ...(s.version ? { version: s.version } : {}),
    ...(s.xid ? { xid: s.xid } : {}),
    ...(s.transactionId || s.dsTransactionId ? { referenceId: s.transactionId ?? s.dsTransactionId } : {}),
    ...(s.dsTransactionId ? { dsTransactionId: s.dsTransactionId } : {}),
  };
}

/** The status an answer moves a Pending payment to, and the answer's fields. Approved + anti-fraud Review = Blocked (authorized, held for the operator's review). */
function answerOf(row: Pick<PaymentRow, 'antifraud_decision'>, result: AuthorizeResult): { status: 'Authorized' | 'Blocked' | 'Denied'; fields: AnswerFields } {
  return {
    status: result.outcome === 'approved' ? (row.antifraud_decision === 'Review' ? 'Blocked' : 'Authorized') : 'Denied',
    fields: {
      return_code: result.returnCode,
      return_message: result.returnMessage,
      authorization_code: result.outcome === 'approved' ? result.authorizationCode : null,
      nsu: result.outcome === 'failed' ? null : result.nsu,
      acquirer_reference: result.outcome === 'failed' ? null : result.acquirerReference,
      decline_category: result.outcome === 'approved' ? null : (result.declineCategory ?? declineCategoryOf(result.returnCode)),
      network_reference: result.outcome === 'approved' ? (result.networkReference ?? null) : null,
    },
  };
}

/**
 * The acquirer side of a payment: send the authorization under the payment id (the acquirer's
 * idempotency key, Cielo's MerchantOrderId), resolve an ambiguous answer by looking the sale
 * up, record the outcome. An answer that did not come is never read as a decline: only the
 * acquirer's own record, or its certainty that it has none once nothing can be in flight,
 * settles a payment.
 */
export class Authorizations {
  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
    /** An outcome was recorded: its event waits for the relay. */
    private readonly onRecorded: () => void = () => {},
  ) {}

  /** When a new payment's recovery falls due (business time). */
  async recoverAt(merchantId: string, now: Date): Promise<Date> {
    return new Date(now.getTime() + (await this.acquirer.settleWindowMs(merchantId)) + RECOVER_MARGIN_MS);
  }

  /**
   * Sends the authorization and records what is known: the outcome, or (no answer, and the
   * at-once lookups did not find it) nothing, leaving the payment Pending for its recovery.
   */
  async send(row: PaymentRow, card: ChargeableCard, initiator?: Initiator): Promise<Sent> {
    const [sent] = await this.sendMany([{ row, card, initiator }]);
    if (sent instanceof Error) throw sent;
    return sent;
  }

  /**
   * `send` for a batch: every authorization at once, their outcomes recorded together (one
   * statement on PostgreSQL). Answers each payment's, or the error that payment met.
   */
  async sendMany(items: readonly { row: PaymentRow; card: ChargeableCard; initiator?: Initiator }[]): Promise<(Sent | Error)[]> {
    const answers = await Promise.all(items.map(({ row, card, initiator }) => this.ask(row, card, initiator).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))));
    const known = items.flatMap(({ row }, i) => {
      const answer = answers[i];
      return answer instanceof Error || !answer.known ? [] : [{ row, result: answer.result }];
    });
    let recorded: Map<string, PaymentRow> | Error;
    try {
      recorded = await this.recordMany(known);
    } catch (error) {
      // The acquirer answered and the answers could not be written: the recovery writes them.
      if (!isDatabaseUnavailable(error)) throw error;
      recorded = error as Error;
    }
    return items.map(({ row }, i): Sent | Error => {
      const answer = answers[i];
      if (answer instanceof Error) return answer;
      if (!answer.known) return { row, known: false, why: answer.why };
      if (recorded instanceof Error) return outcomeUnrecorded(row.payment_id);
      // A replacement card (Renova Fácil) goes back to the caller in memory only, never into a row or a log.
      const newCard = answer.result.outcome === 'declined' ? answer.result.newCard : undefined;
      return { row: recorded.get(row.payment_id)!, known: true, ...(newCard ? { newCard } : {}) };
    });
  }

  /** Sends one authorization and resolves an ambiguous answer by looking the sale up; records nothing. */
  private async ask(row: PaymentRow, card: ChargeableCard, initiator?: Initiator): Promise<{ known: true; result: AuthorizeResult } | { known: false; why: string }> {
    try {
      return { known: true, result: await this.acquirer.authorize(requestOf(row, card, initiator), { idempotencyKey: row.payment_id }) };
    } catch (error) {
      // The sandbox acquirer keeps its ledger in our database: our database failing is answered
      // as such; the payment stays Pending and its recovery settles it.
      if (isDatabaseUnavailable(error)) throw outcomeUnrecorded(row.payment_id);
      if (error instanceof AcquirerUnavailable && !error.sent) {
        // Never left this process: the acquirer cannot have acted on it.
        this.ctx.logger.warn({ paymentId: row.payment_id, err: error.message }, 'acquirer unreachable: nothing was sent');
        return { known: true, result: failed('The acquirer could not be reached; nothing was sent or charged') };
      }
      this.ctx.logger.warn({ paymentId: row.payment_id, err: errorMessage(error) }, 'acquirer answer lost: looking the sale up');
      const found = await this.lookupAtOnce(row);
      return found ? { known: true, result: found } : { known: false, why: errorMessage(error) };
    }
  }

  /** A few quick lookups: the sale, if it was made, is usually visible within a second. */
  private async lookupAtOnce(row: PaymentRow): Promise<AuthorizeResult | null> {
    for (const delay of LOOKUP_DELAYS_MS) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const known = await this.acquirer.lookup({ merchantId: row.merchant_id, idempotencyKey: row.payment_id });
        if (known && known !== 'pending') return known;
      } catch {
        // Unanswered: try again, then leave it to the recovery.
      }
    }
    return null;
  }

  /** Asks the acquirer about a Pending payment. Throws AcquirerUnavailable when it cannot be asked. */
  async resolve(paymentId: string): Promise<Resolution> {
    const row = await paymentsRepository.find(this.ctx.database.db, paymentId);
    if (!row) throw new Error(`payment ${paymentId} does not exist`);
    if (row.status !== 'Pending') return { kind: 'settled', row };
    const known = await this.acquirer.lookup({ merchantId: row.merchant_id, idempotencyKey: paymentId });
    if (known === 'pending') return { kind: 'unknown', retryInMs: UNDECIDED_RECHECK_MS, why: 'the acquirer has not decided the sale yet' };
    if (known) return { kind: 'settled', row: await this.record(row, known) };
    const window = await this.acquirer.settleWindowMs(row.merchant_id);
    const age = this.ctx.clock.wallNow().getTime() - Date.parse(row.acquirer_sent_at ?? '1970-01-01T00:00:00Z');
    if (age < window) return { kind: 'unknown', retryInMs: window - age, why: 'a send may still be in flight', inFlight: true };
    return { kind: 'not_received', row };
  }

  /** `resolve`, waiting in place for the rest of a short settle window (for the recovery and billing jobs; see MAX_WAIT_IN_JOB_MS). */
  async resolveWaiting(paymentId: string): Promise<Resolution> {
    const first = await this.resolve(paymentId);
    if (first.kind !== 'unknown' || !first.inFlight || first.retryInMs > MAX_WAIT_IN_JOB_MS) return first;
    await new Promise((resolve) => setTimeout(resolve, first.retryInMs + 10));
    return this.resolve(paymentId);
  }

  /**
   * The recovery of a payment left Pending (a crash, a lost answer; ./recovery.ts). A payment made by a
   * billing is not failed here: the billing engine sends it again (see `resend`); every other
   * payment the acquirer never received failed, and nothing was charged.
   */
  async recover(paymentId: string): Promise<void> {
    const resolution = await this.resolveWaiting(paymentId);
    if (resolution.kind === 'unknown') throw new RetryLater(new Date(this.ctx.clock.now().getTime() + resolution.retryInMs), resolution.why);
    if (resolution.kind === 'not_received' && resolution.row.billing_id === null) {
      await this.recordNotReceived(resolution.row, 'The acquirer has no record of the authorization; nothing was charged');
    }
  }

  /**
   * Records that the acquirer never received a payment. A connector that can (the sandbox) first
   * closes the key, so a send still on its way is refused rather than approved after we wrote
   * "nothing charged"; if the send got there first, its answer is what is recorded.
   */
  async recordNotReceived(row: PaymentRow, returnMessage: string): Promise<PaymentRow> {
    const closed = await this.acquirer.closeKey?.({ merchantId: row.merchant_id, idempotencyKey: row.payment_id }, returnMessage);
    return this.record(row, closed ?? failed(returnMessage));
  }

  /**
   * Sends a Pending payment's authorization again, once the acquirer is known not to have it.
   * The send is claimed first (compare-and-set on `acquirer_sent_at`), so of two resenders one
   * sends and the other finds the claim moved; a resender that dies leaves a fresh send time,
   * and the next one waits out the settle window before it may ask, and send, again.
   */
  async resend(row: PaymentRow, card: ChargeableCard | null): Promise<Resolution> {
    if (!card) return { kind: 'settled', row: await this.record(row, failed('The stored card is no longer in the vault; nothing was charged')) };
    const sentAt = this.ctx.clock.wallNow().toISOString();
    const claimed = await paymentsRepository.claimSend(this.ctx.database.db, row.payment_id, row.acquirer_sent_at, sentAt);
    if (!claimed) return { kind: 'unknown', retryInMs: await this.acquirer.settleWindowMs(row.merchant_id), why: 'another run is sending it' };
    const sent = await this.send({ ...row, acquirer_sent_at: sentAt }, card);
    if (sent.known) return { kind: 'settled', row: sent.row };
    return { kind: 'unknown', retryInMs: (await this.acquirer.settleWindowMs(row.merchant_id)) + RECOVER_MARGIN_MS, why: sent.why };
  }

  /**
   * Records the acquirer's answer for a Pending payment (see `answerOf`) with its event: one
   * statement on PostgreSQL. What follows (notifications, receivables) is the relay's.
   */
  async record(row: PaymentRow, result: AuthorizeResult): Promise<PaymentRow> {
    return (await this.recordMany([{ row, result }])).get(row.payment_id)!;
  }

  /** `record` for a batch, in one statement on PostgreSQL: answers each payment as it now is. */
  private async recordMany(items: readonly { row: PaymentRow; result: AuthorizeResult }[]): Promise<Map<string, PaymentRow>> {
    const { ctx } = this;
    if (items.length === 0) return new Map();
    const at = ctx.clock.now().toISOString();
    const answered = items.map(({ row, result }) => ({ row, ...answerOf(row, result) }));
    const moved = await paymentsRepository.recordOutcomes(ctx.database, answered.map(({ row, status, fields }) => ({ paymentId: row.payment_id, to: status, fields })), at);
    if (moved.size > 0) this.onRecorded();
    // The hot path knows the new rows; only a lost race (the recovery got there first) re-reads one.
    const lost = answered.filter(({ row }) => !moved.has(row.payment_id)).map(({ row }) => row.payment_id);
    const current = new Map(lost.length > 0 ? (await paymentsRepository.findAll(ctx.database.db, lost)).map((r) => [r.payment_id, r]) : []);
    return new Map(
      answered.map(({ row, status, fields }) => {
        if (!moved.has(row.payment_id)) return [row.payment_id, current.get(row.payment_id)!];
        const recorded = { ...row, ...fields, status, updated_at: at };
        reportOutcome(ctx, recorded);
        return [row.payment_id, recorded];
      }),
    );
  }
}

/**
 * A payment's outcome, reported once: by the writer whose transition moved it out of Pending
 * (or wrote it Denied by anti-fraud), never by one that lost the race. The decline's log line
 * carries ids and the code only: never card data, never the acquirer's message.
 */
export function reportOutcome(ctx: Pick<PaymentDeps, 'logger' | 'metrics'>, row: PaymentRow): void {
  ctx.metrics.paymentRecorded(row.status, row.return_code);
  if (row.status !== 'Denied') return;
  ctx.logger.info(
    {
      event: 'payment.declined',
      paymentId: row.payment_id,
      merchantId: row.merchant_id,
      accountNumber: Number(row.account_number),
      returnCode: row.return_code,
      antiFraud: row.antifraud_decision,
      ...(row.billing_id ? { billingId: row.billing_id } : {}),
    },
    'payment declined',
  );
}

/** The 502 of a payment whose outcome is an acquirer failure (96): nothing was charged. */
export function failureError(row: PaymentRow): DomainError {
  const message = row.return_message ?? 'system failure';
  // Our own 96 messages (and Cielo's) say so already; say it once.
  const charged = /nothing was charged/i.test(message) ? '' : '; nothing was charged.';
  return upstreamFailed('acquirer_failure', `The acquirer could not process payment ${row.payment_id} (returnCode 96): ${message}${charged}`);
}

/**
 * The 503 of a payment sent to the acquirer whose outcome our database could not record: it
 * names the payment, so a caller (and an Idempotency-Key replay) can look it up instead of paying again.
 */
export function outcomeUnrecorded(paymentId: string): DomainError {
  return unavailable(
    'database_unavailable',
    `The database is not reachable right now. Payment ${paymentId} stays Pending and is resolved automatically: GET it (or wait for its webhook) before paying again.`,
  ).retryAfter(DATABASE_RETRY_AFTER_SECONDS);
}

/** The 502 of a payment whose outcome is not known yet. */
export function unknownError(paymentId: string): DomainError {
  return upstreamFailed('acquirer_unavailable', `The acquirer did not answer; payment ${paymentId} stays Pending and is resolved automatically (GET it, or wait for its webhook).`);
}
