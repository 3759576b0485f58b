import { randomInt } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import type { SandboxAcquirerLedgerTable } from '../../db/schema.js';
import type { Acquirer, AuthorizeRequest, AuthorizeResult, CallContext, CancelRequest, CancelResult, LookupRequest, RefundRequest, RefundResult, ReturnCode, ZeroAuthRequest, ZeroAuthResult } from '../types.js';
import { RETURN_MESSAGES } from '../types.js';
import { NsuSequence } from './nsu.js';
import { declineCategoryOf } from '../../domain/decline-category.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

/**
 * The sandbox acquirer: decides by card number (contract section 5, the first match decides),
 * or by a stored card's forced outcome. It stands for a remote system, so it keeps its own
 * ledger of what it answered per idempotency key: a repeated call returns the same answer and
 * never authorizes twice. The ledger is a table of its own in the gateway's database, written
 * before the answer is returned, so a lookup after `kill -9` sees exactly what the dead process
 * was told, as a real acquirer's query would; nothing can be in flight (settle window 0). It
 * is called exactly as Cielo is, outside the payment's transaction, so the sandbox runs the
 * payment path (and the recovery) that production runs.
 */
export const SANDBOX_TEST_CARDS: Record<string, ReturnCode> = {
  '4000000000009995': '51',
  '4000000000000002': '05',
  '4000000000000069': '54',
  '4000000000009987': '46',
  '4000000000000119': '96',
};

/**
 * The sandbox's account updater (Cielo's Renova Fácil): a recurring, merchant-initiated charge of
 * this card is declined (54, expired) with its replacement, which expires three years after the
 * business date. A cardholder's charge of it is approved like any card.
 */
export const SANDBOX_REPLACED_CARD = '4000000000000101';
export const SANDBOX_REPLACEMENT_CARD = '4000000000000135';

/** The network reference the sandbox hands out on an approved or verified card (Cielo's IssuerTransactionId is 15 characters). */
const networkReferenceOf = (seed: string) => `SBX${seed.replace(/[^0-9A-Za-z]/g, '').slice(-12).toUpperCase()}`;

const AUTH_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
/** Marks references this connector issued, so a cancel finds its way back here after ACQUIRER changes. */
export const SANDBOX_REFERENCE_PREFIX = 'sbx_';

function authorizationCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += AUTH_CODE_ALPHABET[randomInt(AUTH_CODE_ALPHABET.length)];
  return code;
}

type LedgerRow = Selectable<SandboxAcquirerLedgerTable>;
type LedgerAnswer = Pick<LedgerRow, 'outcome' | 'return_code' | 'return_message'>;

export class SandboxAcquirer implements Acquirer {
  async settleWindowMs(): Promise<number> {
    return 0;
  }

  /** New authorizations this process recorded, for tests that prove a recovery does not authorize twice. */
  authorizeCalls = 0;

  private readonly nsus: NsuSequence;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {
    this.nsus = new NsuSequence(clock);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): the answers recorded for the removed payments. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return { sandbox_acquirer_ledger: await sandboxDelete(executor, 'sandbox_acquirer_ledger', merchantId) };
  }

  /**
   * Records the answer in the ledger, in a statement of its own (what a remote acquirer's own
   * database does), before answering. Insert first and read only on a conflict: a key seen
   * before (a retried call, a recovery) keeps its first answer and never authorizes twice.
   */
  async authorize(request: AuthorizeRequest, { idempotencyKey }: CallContext): Promise<AuthorizeResult> {
    const replaced = request.card.pan === SANDBOX_REPLACED_CARD && request.initiator?.by === 'merchant' && !request.forcedReturnCode;
    const code = replaced ? '54' : (request.forcedReturnCode ?? SANDBOX_TEST_CARDS[request.card.pan] ?? '00');
    const result = resultFor(code, idempotencyKey, () => this.nsus.next());
    if (result.outcome === 'approved') result.networkReference = networkReferenceOf(result.nsu);
    // The replacement is the answer's only: the ledger keeps no card number.
    if (replaced && result.outcome === 'declined') result.newCard = { pan: SANDBOX_REPLACEMENT_CARD, expMonth: '12', expYear: String(this.clock.now().getUTCFullYear() + 3) };
    const kept = await this.keepFirst(idempotencyKey, request.merchantId, request.amount, result);
    if (kept === result) this.authorizeCalls += 1;
    return kept;
  }

  /** Zero auth: the test cards decide as they do a charge; nothing is charged or recorded. */
  async zeroAuth(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    const code = request.forcedReturnCode ?? SANDBOX_TEST_CARDS[request.card.pan] ?? '00';
    if (code !== '00') return { valid: false, returnCode: code, returnMessage: RETURN_MESSAGES[code] };
    return { valid: true, returnCode: '00', returnMessage: 'Card verified', networkReference: networkReferenceOf(this.nsus.next()) };
  }

  /** A key closed unanswered: a later send under it finds this failure instead of authorizing. */
  async closeKey({ merchantId, idempotencyKey }: LookupRequest, returnMessage: string): Promise<AuthorizeResult> {
    return this.keepFirst(idempotencyKey, merchantId, 0, { outcome: 'failed', returnCode: '96', returnMessage });
  }

  /**
   * Records `result` under the key unless an answer is recorded there already, and answers the
   * one that stands: insert first, read only on a conflict (two concurrent calls with one key:
   * the first answer recorded is the answer).
   */
  private async keepFirst(key: string, merchantId: string, amount: number, result: AuthorizeResult): Promise<AuthorizeResult> {
    const inserted = await this.insertFirst(key, merchantId, amount, {
      outcome: result.outcome,
      return_code: result.returnCode,
      return_message: result.returnMessage,
      authorization_code: result.outcome === 'approved' ? result.authorizationCode : null,
      nsu: result.outcome === 'failed' ? null : result.nsu,
      acquirer_reference: result.outcome === 'failed' ? null : result.acquirerReference,
    });
    return inserted ? result : toResult((await this.find(key))!);
  }

  /** The ledger's insert-if-absent under a key: true when this answer is the one recorded. */
  private async insertFirst(
    key: string,
    merchantId: string,
    amount: number,
    answer: Pick<LedgerRow, 'outcome' | 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference'>,
    executor: Executor = this.database.db,
  ): Promise<boolean> {
    const inserted = await executor
      .insertInto('sandbox_acquirer_ledger')
      .values({ idempotency_key: key, merchant_id: merchantId, amount, ...answer, canceled_at: null, created_at: this.clock.wallNow().toISOString() })
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .returning('idempotency_key')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async cancel(request: CancelRequest, _context: CallContext): Promise<CancelResult> {
    const key = request.acquirerReference.slice(SANDBOX_REFERENCE_PREFIX.length);
    const row = await this.find(key);
    // A reference this acquirer never approved cannot be cancelled; a second cancel is harmless.
    if (!row || row.outcome !== 'approved') return { outcome: 'failed', returnMessage: 'Not an approved authorization' };
    await this.database.db
      .updateTable('sandbox_acquirer_ledger')
      .set({ canceled_at: this.clock.wallNow().toISOString() })
      .where('idempotency_key', '=', key)
      .where('canceled_at', 'is', null)
      .execute();
    return { outcome: 'canceled' };
  }

  async lookup({ idempotencyKey }: LookupRequest): Promise<AuthorizeResult | null> {
    const row = await this.find(idempotencyKey);
    return row ? toResult(row) : null;
  }

  /**
   * A refund of a sale this acquirer approved, recorded under the refund's own key like an
   * authorization: the first answer under a key stands, so a refund sent again (a retry, a
   * recovery) is never made twice. In one transaction of the sandbox's own (what a remote
   * acquirer's database does): the key is taken, then the refund is added to the sale's refunded
   * total by compare-and-set (never past its amount, never on a cancelled sale), or the key
   * records why not.
   */
  async refund(request: RefundRequest, { idempotencyKey }: CallContext): Promise<RefundResult> {
    const key = refundKey(request, idempotencyKey);
    const saleKey = request.acquirerReference.slice(SANDBOX_REFERENCE_PREFIX.length);
    return this.database.db.transaction().execute(async (trx) => {
      const refunded: LedgerAnswer = { outcome: 'refunded', return_code: '00', return_message: 'Refunded' };
      if (!(await this.insertFirst(key, request.merchantId, request.amount, { ...refunded, authorization_code: null, nsu: null, acquirer_reference: request.acquirerReference }, trx))) {
        return toRefundResult((await this.find(key, trx))!);
      }
      const taken = request.acquirerReference.startsWith(SANDBOX_REFERENCE_PREFIX)
        ? await trx
            .updateTable('sandbox_acquirer_ledger')
            .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', request.amount) }))
            .where('idempotency_key', '=', saleKey)
            .where('outcome', '=', 'approved')
            .where('canceled_at', 'is', null)
            .where((eb) => eb(eb('refunded_amount', '+', request.amount), '<=', eb.ref('amount')))
            .returning('idempotency_key')
            .executeTakeFirst()
        : undefined;
      if (taken) return toRefundResult(refunded);
      const refusal = await this.refusalOf(trx, saleKey, request.amount);
      await trx.updateTable('sandbox_acquirer_ledger').set({ outcome: 'failed', return_code: '96', return_message: refusal }).where('idempotency_key', '=', key).execute();
      return { outcome: 'failed', returnMessage: refusal };
    });
  }

  async lookupRefund(request: RefundRequest, { idempotencyKey }: CallContext): Promise<RefundResult | null> {
    const row = await this.find(refundKey(request, idempotencyKey));
    return row ? toRefundResult(row) : null;
  }

  /** A refund key closed unanswered: a refund arriving later under it is refused. */
  async closeRefund(request: RefundRequest, { idempotencyKey }: CallContext, returnMessage: string): Promise<RefundResult> {
    const key = refundKey(request, idempotencyKey);
    const failed: LedgerAnswer & Pick<LedgerRow, 'authorization_code' | 'nsu' | 'acquirer_reference'> = { outcome: 'failed', return_code: '96', return_message: returnMessage, authorization_code: null, nsu: null, acquirer_reference: request.acquirerReference };
    if (await this.insertFirst(key, request.merchantId, request.amount, failed)) return toRefundResult(failed);
    return toRefundResult((await this.find(key))!);
  }

  /** Why the sale could not give back `amount`. */
  private async refusalOf(executor: Executor, saleKey: string, amount: number): Promise<string> {
    const sale = await this.find(saleKey, executor);
    if (!sale || sale.outcome !== 'approved') return 'Not an approved authorization';
    if (sale.canceled_at !== null) return 'The sale was cancelled';
    return `The refund (${amount}) is more than what is left of the sale (${Number(sale.amount) - Number(sale.refunded_amount)})`;
  }

  /** Authorizations recorded under a key (0 or 1), for tests and the crash soak. */
  async ledgerCount(idempotencyKey: string): Promise<number> {
    return (await this.find(idempotencyKey)) ? 1 : 0;
  }

  private find(key: string, executor: Executor = this.database.db): Promise<LedgerRow | undefined> {
    return executor.selectFrom('sandbox_acquirer_ledger').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
  }
}

/** Refunds share the ledger with authorizations under keys of their own, `refund:<sale key>:<refund id>`. */
const refundKey = (request: RefundRequest, refundId: string) => `refund:${request.acquirerReference.slice(SANDBOX_REFERENCE_PREFIX.length)}:${refundId}`;

function toRefundResult(row: Pick<LedgerRow, 'outcome' | 'return_message'>): RefundResult {
  return row.outcome === 'refunded' ? { outcome: 'refunded' } : { outcome: 'failed', returnMessage: row.return_message };
}

/** The sandbox answers ABECS codes: its decline categories are the ABECS table itself (src/domain/decline-category.ts). */
function resultFor(code: ReturnCode, key: string, nsu: () => string): AuthorizeResult {
  const returnMessage = RETURN_MESSAGES[code];
  const acquirerReference = `${SANDBOX_REFERENCE_PREFIX}${key}`;
  if (code === '00') return { outcome: 'approved', returnCode: '00', returnMessage, authorizationCode: authorizationCode(), nsu: nsu(), acquirerReference };
  if (code === '96') return { outcome: 'failed', returnCode: '96', returnMessage, declineCategory: 'retryable' };
  return { outcome: 'declined', returnCode: code, returnMessage, nsu: nsu(), acquirerReference, declineCategory: declineCategoryOf(code) ?? 'final' };
}

function toResult(row: LedgerRow): AuthorizeResult {
  if (row.outcome === 'approved') {
    return { outcome: 'approved', returnCode: '00', returnMessage: row.return_message, authorizationCode: row.authorization_code!, nsu: row.nsu!, acquirerReference: row.acquirer_reference! };
  }
  if (row.outcome === 'failed') return { outcome: 'failed', returnCode: '96', returnMessage: row.return_message };
  return { outcome: 'declined', returnCode: row.return_code as Exclude<ReturnCode, '00' | '96'>, returnMessage: row.return_message, nsu: row.nsu!, acquirerReference: row.acquirer_reference! };
}
