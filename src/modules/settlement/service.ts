import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { businessDayAfter, daysBetween, startOfDay, toIsoDate } from '../../domain/calendar.js';
import { prepaymentCost } from '../../domain/fees.js';
import { toJsonNumber } from '../../domain/money.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { conflict, DomainError, invalid } from '../../domain/errors.js';
import type { Insertable, Selectable } from 'kysely';
import type { PaymentsTable, ReceivablesTable } from '../../db/schema.js';
import type { PricingStore } from './pricing.js';
import { buildReceivables, conciliationCardNumber, netOf, type Sale, type SplitConfig } from './receivables.js';
import { installmentRecord, type ReceivableRow } from './conciliation-json.js';
import { receivablesRepository, type InstallmentChange } from './repository.js';
import { recordEvents, recordNotifications, type AccountEvent, type BusinessEvent } from '../webhooks/outbox.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import { outlookReads, type ExpectedDay, type PrepaymentQuote } from './receivables-forecast.js';
import { disputeMoney } from './disputes.js';
import { creditRefundBack, refundReceivables, type RefundMoneyDeps } from './refunds.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';

export const SWEEP_JOB = 'settlement.sweep';
/** Installments settled per transaction: bounded transactions whatever the day's volume. */
const SWEEP_BATCH = 500;
/** Receivables of a relayed batch per insert: about 30 columns each stay far below PostgreSQL's 65,535 parameters. */
const RECEIVABLES_PER_INSERT = 1000;

/** A card payment as settlement reads it (the payments module hands it over on each transition). */
type PaymentRow = Selectable<PaymentsTable>;

/** What settlement asks of the payment service: moving a fully received payment to Paid, in the sweep's transaction. */
export interface PaymentsOfSettlement {
  recordPaid(trx: Executor, paymentId: string, at: string): Promise<boolean>;
  /** PostgreSQL: locks these payments' rows, in id order (see `settle`). */
  lockPayments(trx: Executor, paymentIds: string[]): Promise<void>;
}

export type PrepaymentRequest = { items: { nsu: string; installmentNumber: number }[] } | { all: true };

interface StoredPaymentSplit {
  documentNumberBeneficiary: string;
  type: 'bruto' | 'liquido';
  percent: number;
}

/** The conciliation side of a card payment (its stored splits carry the percent as a number with 2 decimals). */
export function saleOfPayment(p: PaymentRow, status: 'A' | 'B'): Sale {
  const splits: SplitConfig[] = (JSON.parse(p.splits) as StoredPaymentSplit[]).map((s) => ({
    beneficiario: s.documentNumberBeneficiary,
    tipoSplit: s.type,
    pct: Math.round(s.percent * 100),
  }));
  return {
    sourceType: 'card',
    sourceId: p.payment_id,
    merchantId: p.merchant_id,
    accountNumber: Number(p.account_number),
    transactionAt: p.created_at,
    cardNumber: conciliationCardNumber(p.masked_card_number),
    cardName: p.brand.toUpperCase(),
    codAuth: p.authorization_code ?? '',
    nsu: p.nsu ?? '',
    reference: p.reference_transaction,
    amountCents: BigInt(p.amount),
    installments: p.installments,
    splits,
    status,
  };
}

/** The InstallmentStatus notification of one installment received or canceled. */
function installmentEvent(r: InstallmentChange, oldValue: string, newValue: string, at: string): AccountEvent {
  return {
    merchantId: r.merchant_id,
    accountNumber: Number(r.account_number),
    type: 'InstallmentStatus',
    nsu: r.nsu,
    codAuth: r.cod_auth,
    installmentNumber: r.installment_number,
    oldValue,
    newValue,
    at,
  };
}

/** The catalogue's event of the same installment change (docs/events.md). */
function installmentBusinessEvent(r: InstallmentChange, oldStatus: PaymentStatus, status: 'Paid' | 'Canceled', at: string): BusinessEvent {
  return {
    merchantId: r.merchant_id,
    accountNumber: Number(r.account_number),
    type: status === 'Paid' ? 'payment.installment_paid' : 'payment.installment_canceled',
    at,
    data: { source: r.source_type, sourceId: r.source_id, nsu: r.nsu, authorizationCode: r.cod_auth, installmentNumber: r.installment_number, oldStatus, status },
  };
}

/**
 * Receivables (contract section 9): created with the sale in the same transaction, settled by a
 * daily sweep. One sweep job per business day that has something due (dedupe key
 * `settlement:<date>`), not one job per installment: a million installments are a few hundred
 * job rows. Work already due when it is recorded (Pix D+0, a release after the date) is settled
 * in the recording transaction itself.
 */
export class SettlementService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly queue: JobQueue,
    readonly pricing: PricingStore,
    /** Resolved at use: the payment service is built after settlement, which it calls on every transition. */
    private readonly payments: () => PaymentsOfSettlement,
  ) {}

  private today(): string {
    return toIsoDate(this.clock.now());
  }

  /** Called beside every payments transition, in its transaction. */
  async onPaymentTransition(trx: Executor, payment: PaymentRow, from: PaymentStatus, to: PaymentStatus): Promise<void> {
    if (from === 'Blocked' && to === 'Authorized') {
      await receivablesRepository.release(trx, payment.payment_id);
      await this.settleDue(trx, this.today(), payment.payment_id);
    } else if (to === 'Canceled') {
      const canceled = await receivablesRepository.cancel(trx, payment.payment_id);
      // An installment already received reads Paid before; an open one, its A or B status.
      const before = (r: InstallmentChange): PaymentStatus => (r.received_status === 'P' ? 'Paid' : r.installment_status === 'B' ? 'Blocked' : 'Authorized');
      const at = this.clock.now().toISOString();
      await recordNotifications(
        trx,
        this.queue,
        canceled.map((r) => installmentEvent(r, before(r), 'Canceled', at)),
        [],
        canceled.map((r) => installmentBusinessEvent(r, before(r), 'Canceled', at)),
      );
    }
  }

  /**
   * A card payment's refund that the acquirer made, in the transaction that records it: its
   * receivables are reduced, or debited beyond what is left open (./refunds.ts). Called before
   * the payment moves to Canceled when the refund completes it (whose cancel keeps the debits).
   */
  async onPaymentRefund(trx: Executor, payment: Pick<PaymentRow, 'payment_id' | 'account_number'>, amountCents: number): Promise<void> {
    await refundReceivables(trx, this.moneyDeps(), payment, BigInt(amountCents));
  }

  /**
   * A Pix returned to its payer (a devolução made), in the transaction that records it: the
   * charge's receivable is reduced, or what was received already debited, as for a card refund.
   */
  async onPixRefund(trx: Executor, charge: { chargeId: string; accountNumber: number }, amountCents: bigint): Promise<void> {
    await refundReceivables(trx, this.moneyDeps(), { payment_id: charge.chargeId, account_number: charge.accountNumber }, amountCents);
  }

  /** A Pix return recorded made and then reported not made (the sandbox): what it took is credited back. */
  async onPixRefundUndone(trx: Executor, chargeId: string, amountCents: bigint): Promise<void> {
    await creditRefundBack(trx, this.moneyDeps(), chargeId, amountCents);
  }

  /** A dispute opened on a card payment, in its transaction: its installments are held (B). */
  holdForDispute(trx: Executor, paymentId: string): Promise<void> {
    return disputeMoney.hold(trx, paymentId);
  }

  /** A dispute won: the installments are approved again, and those already due are received now. */
  async releaseDispute(trx: Executor, paymentId: string): Promise<void> {
    await disputeMoney.release(trx, paymentId);
    await this.settleDue(trx, this.today(), paymentId);
  }

  /**
   * A dispute lost or accepted (settlement/disputes.ts): `whole` when it takes what is left of
   * the sale (the payment is then cancelled, its installments with it), else the installments
   * are released; the disputed amount is debited less what the cancelled installments forgo.
   */
  async chargeBack(trx: Executor, paymentId: string, amountCents: number, whole: boolean): Promise<void> {
    await disputeMoney.lose(trx, this.moneyDeps(), paymentId, amountCents, whole);
    if (!whole) await this.settleDue(trx, this.today(), paymentId);
  }

  private moneyDeps(): RefundMoneyDeps {
    return { lock: this.database.dialect === 'postgres', today: this.today(), scheduleSweep: (t: Executor, date: string) => this.scheduleSweep(t, date) };
  }

  recordSale(trx: Executor, sale: Sale): Promise<void> {
    return this.recordSales(trx, [sale]);
  }

  /**
   * Card sales the acquirer authorized (A) or that anti-fraud holds (B), in the payments relay's
   * transaction: their receivables in one insert per thousand rows, one sweep job per date.
   */
  onPaymentsAuthorized(trx: Executor, payments: PaymentRow[]): Promise<void> {
    return this.recordSales(trx, payments.map((p) => saleOfPayment(p, p.status === 'Authorized' ? 'A' : 'B')));
  }

  private async scheduleSweep(trx: Executor, date: string): Promise<void> {
    await this.queue.enqueue(trx, { kind: SWEEP_JOB, payload: { date }, runAt: startOfDay(date), dedupeKey: `settlement:${date}` });
  }

  private async recordSales(trx: Executor, sales: Sale[]): Promise<void> {
    const rows: Insertable<ReceivablesTable>[] = [];
    for (const sale of sales) rows.push(...buildReceivables(sale, await this.pricing.get(trx, sale.merchantId)));
    for (let i = 0; i < rows.length; i += RECEIVABLES_PER_INSERT) await receivablesRepository.insert(trx, rows.slice(i, i + RECEIVABLES_PER_INSERT));
    const today = this.today();
    const dates = [...new Set(rows.map((r) => r.expected_date))].filter((date) => date > today).sort();
    if (dates.length > 0) await this.queue.enqueueMany(trx, dates.map((date) => ({ kind: SWEEP_JOB, payload: { date }, runAt: startOfDay(date), dedupeKey: `settlement:${date}` })));
    // Only a sale with an installment due today (Pix, or a late recording) can settle at once;
    // a card sale's first receipt is 30 days out, so the common path skips the query.
    const dueToday = new Set(rows.filter((r) => r.expected_date <= today).map((r) => r.source_id));
    for (const sale of sales) {
      if (sale.status === 'A' && dueToday.has(sale.sourceId)) await this.settleDue(trx, today, sale.sourceId);
    }
  }

  /** Settles a sale's installments already due (they would otherwise wait for a sweep that has run). */
  private async settleDue(trx: Executor, today: string, sourceId: string): Promise<void> {
    const ids = await receivablesRepository.dueIds(trx, today, 100, sourceId);
    if (ids.length > 0) await this.settle(trx, ids, today);
  }

  /** Marks installments received; a card payment whose installments are all received becomes Paid (event row). */
  private async settle(trx: Executor, ids: number[], today: string): Promise<void> {
    // Refunds, cancels and disputes lock a payment, then its installments; the sweep would lock
    // installments, then (recordPaid) payments. Two transactions taking the same two rows in
    // opposite orders deadlock on PostgreSQL, and one of them fails: the sweep takes the
    // payments first too.
    if (this.database.dialect === 'postgres') await this.payments().lockPayments(trx, await receivablesRepository.cardSourcesOf(trx, ids));
    const all = await receivablesRepository.markReceived(trx, ids, today);
    // A refund's debit (installment 0) is settled with the day's receipts but is no installment: no InstallmentStatus of its own.
    const received = all.filter((r) => r.installment_number > 0);
    const at = this.clock.now().toISOString();
    // Each installment's InstallmentStatus first, then the payment's Paid when it was the last one.
    await recordNotifications(
      trx,
      this.queue,
      received.map((r) => installmentEvent(r, 'Authorized', 'Paid', at)),
      [],
      received.map((r) => installmentBusinessEvent(r, 'Authorized', 'Paid', at)),
    );
    for (const p of await receivablesRepository.fullyReceivedPayments(trx, ids)) {
      await this.payments().recordPaid(trx, p.source_id, at);
    }
  }

  /** The sweep job: everything open and due by today, in batches (idempotent: settled rows are skipped). */
  async sweep(): Promise<number> {
    const today = this.today();
    let settled = 0;
    for (;;) {
      const ids = await receivablesRepository.dueIds(this.database.db, today, SWEEP_BATCH);
      if (ids.length === 0) return settled;
      await this.database.db.transaction().execute((trx) => this.settle(trx, ids, today));
      settled += ids.length;
    }
  }

  /**
   * One-off prepayment (type A): open regular installments move to the next business day, at
   * monthlyRate / 30 per day anticipated on the net value. All or nothing.
   */
  async prepay(merchantId: string, account: number, request: PrepaymentRequest) {
    const today = this.today();
    const target = businessDayAfter(today);
    return this.database.db.transaction().execute(async (trx) => {
      const { monthlyRate } = (await this.pricing.get(trx, merchantId)).prepayment;
      const candidates = await receivablesRepository.forPrepayment(trx, account, 'all' in request ? 'all' : request.items);
      let chosen: ReceivableRow[];
      if ('all' in request) {
        chosen = candidates.filter((r) => r.expected_date > target);
      } else {
        chosen = request.items.map((item, i) => {
          const row = candidates.find((r) => r.nsu === item.nsu && r.installment_number === item.installmentNumber);
          if (!row) throw new DomainError('not_found', 'not_found', `items[${i}]: no installment ${item.installmentNumber} of nsu ${item.nsu} in this account.`);
          const open = row.installment_status === 'A' && row.received_status === 'A' && row.received_type === 'R' && row.expected_date > target;
          if (!open) throw conflict(`items[${i}]: installment ${item.installmentNumber} of nsu ${item.nsu} is not an open regular installment due after ${target}.`);
          return row;
        });
        if (new Set(chosen.map((r) => r.id)).size !== chosen.length) throw invalid('items', 'items must not repeat an installment.');
      }
      const done: ReceivableRow[] = [];
      for (const row of chosen) {
        const net = netOf(row);
        const cost = prepaymentCost(net, monthlyRate, daysBetween(target, row.expected_date));
        const fields = { prepayment_value: Number(cost), prepayment_tax: Number(monthlyRate), received_value: Number(net - cost), expected_date: target };
        if (!(await receivablesRepository.anticipate(trx, row.id, fields))) throw conflict('An installment changed meanwhile; nothing was anticipated.');
        done.push({ ...row, ...fields, receipt_date: target, received_type: 'A' });
      }
      if (done.length > 0) await this.scheduleSweep(trx, target);
      const sum = (f: (r: ReceivableRow) => number) => done.reduce((acc, r) => acc + BigInt(f(r)), 0n);
      const totals = { receivedDate: target, count: done.length, totalReceivedValue: toJsonNumber(sum((r) => r.received_value), 4), totalDiscount: toJsonNumber(sum((r) => r.prepayment_value), 4) };
      if (done.length > 0) {
        const items = done.map((r) => ({ nsu: r.nsu, installmentNumber: r.installment_number }));
        await recordEvents(trx, this.queue, [{ merchantId, accountNumber: account, type: 'prepayment.made', at: this.clock.now().toISOString(), data: { ...totals, items } }]);
      }
      return { ...totals, items: done.map(installmentRecord) };
    });
  }

  /** The dashboard's receivables chart: open approved installments per expected day in [from, to]. */
  expectedPerDay(account: number, from: string, to: string): Promise<ExpectedDay[]> {
    return outlookReads.expectedPerDay(this.database.db, account, from, to);
  }

  /**
   * The dashboard's "prepayment available": what prepay(..., {all: true}) would
   * anticipate now, to the same date and at the same price, without anticipating anything.
   */
  async prepaymentQuote(merchantId: string, account: number): Promise<PrepaymentQuote> {
    const db = this.database.db;
    const { monthlyRate } = (await this.pricing.get(db, merchantId)).prepayment;
    return outlookReads.prepaymentQuote(db, account, businessDayAfter(this.today()), monthlyRate);
  }

  /** The dashboard's payment page: a sale's installments as the conciliation records show them; [] for another account's. */
  async installmentsOf(account: number, sourceId: string) {
    return (await outlookReads.ofSource(this.database.db, account, sourceId)).map(installmentRecord);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  // Pricing is the merchant's configuration and stays.
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return { receivables: await sandboxDelete(executor, 'receivables', merchantId) };
  }

  /** The sweep job (src/root/context.ts registers it). */
  jobs(): JobDefinition[] {
    return [{ kind: SWEEP_JOB, handler: async () => void (await this.sweep()) }];
  }
}
