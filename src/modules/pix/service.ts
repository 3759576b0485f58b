import { randomUUID } from 'node:crypto';
import { randomCode, randomNsu, toPixCharge } from './charge-row.js';
export { toPixCharge } from './charge-row.js';
import { recordEvents } from '../webhooks/outbox.js';
import { EXPIRABLE, pixChargeEvent } from './charge-paid.js';
import type { Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import { readDatabase, type Database } from '../../db/connection.js';
import type { PixChargesTable } from '../../db/schema.js';
import { buildBrCode } from '../../domain/pix.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { conflict, notFound, unavailable, upstreamFailed } from '../../domain/errors.js';
import { shownAddress, type MerchantService } from '../merchants/service.js';
import type { SettlementService } from '../settlement/service.js';
import { MAX_LOCATION_LENGTH } from '../../pix-provider/config.js';
import { PixProviderRefused, type PixProvider, type PixReceipt } from '../../pix-provider/types.js';
import { PixReceipts, type ReceiptSource, type ReceiptSummary } from './receipts.js';
import { settleCharge } from './charge-paid.js';
import { signedLocationPayload, type LocationSigner } from './location-payload.js';
import type { LocationQuery } from './location-query.js';
import { DueCharges, type DueChargeOwner, type NewDueCharge } from './due-charges.js';
import { amountDueOn, dayOf, dueExpiry, dueTermsOf, dueColumnsOf, providerDueCharge, type DueChargeFields, type DueTermsColumns } from './due-terms.js';
import { brasiliaDate } from '../../domain/brasilia.js';
import { PixRefunds } from './refunds.js';
import { sandboxPayDue, type DuePayment } from './sandbox-due-pay.js';
import { PixMedClaims } from './med.js';
import { PixRecurrences } from './automatico/recurrences.js';
import { PixReconciliation, type ReconcileSummary } from './reconciliation.js';
import { pixRefundsRepository } from './refund-repository.js';
import { refundableOf } from '../../domain/pix-refunds.js';
import { cobvRemoveRule } from '../../domain/pix-cancel.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

export const EXPIRE_JOB = 'pix.expire';
export const RECONCILE_JOB = 'pix.reconcile';
/** A slip's Pix code's status (`pix_due_charges.status`) as the API Pix names its cobv's. */
const COBV_STATUS = { Pending: 'ATIVA', Paid: 'CONCLUIDA', Removed: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } as const;

export type PixChargeRow = Selectable<PixChargesTable>;

export interface NewPixCharge extends DueChargeFields {
  description?: string;
  referenceTransaction?: string;
}

/**
 * Pix charges (contract section 9, extension): a dynamic BR Code per charge, expired by a job,
 * paid through the sandbox; a paid charge is an "instant payment" sale for conciliation.
 */
export class PixService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly queue: JobQueue,
    private readonly settlement: SettlementService,
    private readonly merchants: MerchantService,
    private readonly provider: PixProvider,
    private readonly reconcileEvery: { intervalSeconds: number; windowSeconds: number },
  ) {
    this.receipts = new PixReceipts({ database, clock, queue, settlement, dueChargePaid: (sourceId, paidAt, amountCents) => this.dueChargeOwner.paid(sourceId, paidAt, amountCents) });
    this.dueCharges = new DueCharges({ database, clock, provider, locate: (call) => this.providerLocation(call) });
    this.refunds = new PixRefunds({ database, clock, queue, settlement, provider });
    this.medClaims = new PixMedClaims({ database, clock, queue, settlement, refunds: this.refunds, provider });
    this.recurrences = new PixRecurrences({ database, clock, queue, settlement, merchants, provider });
    this.reconciliation = new PixReconciliation({ database, clock, provider, windowSeconds: reconcileEvery.windowSeconds, receive: (receipts, source) => this.receive(receipts, source), reports: this.recurrences.reports });
  }

  /** Pix Automático, the receiving side: ./automatico/recurrences.ts. */
  readonly recurrences: PixRecurrences;

  /** The Pix side of MED claims (the disputes module's pix_med disputes): ./med.ts. */
  readonly medClaims: PixMedClaims;

  /** Refunds (devoluções) of paid charges: ./refunds.ts. */
  readonly refunds: PixRefunds;

  private readonly receipts: PixReceipts;
  private readonly reconciliation: PixReconciliation;
  private readonly dueCharges: DueCharges;
  private dueChargeOwner: DueChargeOwner = {
    paid: async () => {
      throw new Error('no owner of due charges is listening');
    },
    isOpen: async () => false,
  };

  /**
   * The dynamic Pix code of a bank slip (a `cobv` at the PSP, or the sandbox's), the same on
   * every call for the same slip. Throws upstream_failed / unavailable when the PSP refuses or is down.
   */
  dueChargeCode(input: NewDueCharge): Promise<string> {
    return this.dueCharges.code(input);
  }

  /**
   * A slip's Pix code withdrawn (its slip was cancelled): removed at the PSP (`PATCH /cobv`)
   * while the API Pix allows it (the cobv ATIVA: neither paid nor removed; nothing is sent
   * otherwise), then marked Removed. A PSP that refuses (the code was paid or removed meanwhile)
   * ends it too: a payment that arrives is refused by the slip and kept unapplied. A PSP that
   * does not answer throws, for the caller's job to retry.
   */
  async removeDueCharge(sourceId: string): Promise<void> {
    const due = await this.database.db.selectFrom('pix_due_charges').select(['txid', 'status']).where('source_id', '=', sourceId).executeTakeFirst();
    if (!due || !cobvRemoveRule({ status: COBV_STATUS[due.status] }).ok) return;
    try {
      await this.provider.removeDueCharge(due.txid);
    } catch (error) {
      if (!(error instanceof PixProviderRefused)) throw error;
    }
    await this.database.db.updateTable('pix_due_charges').set({ status: 'Removed' }).where('txid', '=', due.txid).where('status', '=', 'Pending').execute();
  }

  /** The owner of the slips' Pix codes (the bank slips module: src/root/context.ts wires it). */
  ownDueCharges(owner: DueChargeOwner): void {
    this.dueChargeOwner = owner;
  }

  /**
   * The charge at the PSP (`PUT /cob/{txid}`, idempotent by txid) before the local record: the
   * code needs the PSP's location. A crash in between leaves an unused cob that expires at the
   * PSP; nobody holds its code, so nobody can pay it. The location must fit the BR Code whole.
   */
  private async providerLocation(call: () => Promise<{ location: string }>): Promise<string> {
    let location: string;
    try {
      ({ location } = await call());
    } catch (error) {
      if (error instanceof PixProviderRefused) throw upstreamFailed('pix_provider_refused', error.message);
      throw unavailable('pix_provider_unavailable', 'The Pix provider did not answer. Retry the request (an Idempotency-Key makes the retry safe).');
    }
    if (location.length > MAX_LOCATION_LENGTH) throw upstreamFailed('pix_provider_location', `The Pix provider's location is ${location.length} characters; a BR Code holds ${MAX_LOCATION_LENGTH}.`);
    return location;
  }

  /**
   * An immediate charge (`cob`, expiring after `expiresIn`) or one with a due date (`cobv`,
   * payable with its day's amount until `validAfterDueDays` after it): checked, then created at
   * the PSP, then recorded.
   */
  async create(payer: { merchantId: string; accountNumber: number }, body: NewPixCharge) {
    const id = randomUUID();
    const txid = id.replace(/-/g, ''); // 32 of [0-9a-f]: an API-Pix cob txid (26..35 alphanumerics)
    const now = this.clock.now();
    const due = dueTermsOf(body, brasiliaDate(now));
    const expiresAt = due ? dueExpiry(due) : new Date(now.getTime() + (body.expiresIn ?? 3600) * 1000);
    // The receiver's name for the code, read before the transaction (the merchants service reads through its own connection).
    const merchant = await this.merchants.get(payer.merchantId);
    const locationUrl = await this.providerLocation(() =>
      due
        ? this.provider.createDueCharge(providerDueCharge(txid, { amount: body.amount, ...due }, body.description))
        : this.provider.createCharge({ txid, amountCents: BigInt(body.amount), expiresInSeconds: body.expiresIn ?? 3600, description: body.description }),
    );
    return this.database.db.transaction().execute(async (trx) => {
      const row: PixChargeRow = {
        id,
        merchant_id: payer.merchantId,
        account_number: payer.accountNumber,
        txid,
        amount: body.amount,
        description: body.description ?? null,
        reference_transaction: body.referenceTransaction ?? null,
        status: 'Pending',
        // A charge with a due date carries no amount in its code: the payer's bank reads the day's amount at the location.
        pix_emv: buildBrCode({ locationUrl, amountCents: due ? undefined : body.amount, merchantName: merchant.name, merchantCity: shownAddress(merchant.address).city, txid, description: body.description }),
        nsu: randomNsu(),
        cod_auth: randomCode(),
        expires_at: expiresAt.toISOString(),
        paid_at: null,
        created_at: now.toISOString(),
        refunded_amount: 0,
        med_dispute_id: null,
        med_blocked_amount: 0,
        paid_amount: null,
        due_date: null,
        days_after_due: null,
        payer_document: null,
        payer_name: null,
        penalty_percent: 0,
        interest_percent: 0,
        discount_amount: 0,
        discount_until: null,
        ...due,
      };
      await trx.insertInto('pix_charges').values(row).execute();
      await this.queue.enqueue(trx, { kind: EXPIRE_JOB, payload: { id }, runAt: expiresAt, dedupeKey: `${EXPIRE_JOB}:${id}` });
      return toPixCharge(row);
    });
  }

  async get(merchantId: string, id: string) {
    const row = await this.database.db.selectFrom('pix_charges').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
    if (!row) throw notFound('Pix charge');
    return toPixCharge(row);
  }

  /**
   * The dashboard's view of one charge (read method; the API's charge has no MED fields): the
   * charge, the cents an open MED claim holds and its dispute, and what a refund may take now
   * (the refunds' own rule, refundableOf; whether the charge may be refunded at all is theirs too).
   */
  async detail(merchantId: string, id: string) {
    const db = this.database.db;
    const row = await db.selectFrom('pix_charges').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
    if (!row) throw notFound('Pix charge');
    const medHeldAmount = row.med_dispute_id ? Number(row.med_blocked_amount) : 0;
    const inProcess = await pixRefundsRepository.inProcessOf(db, id);
    const refundable = refundableOf({ status: row.status, amount: BigInt(row.paid_amount ?? row.amount), refunded: BigInt(row.refunded_amount), inProcess, blocked: BigInt(medHeldAmount) });
    return { ...toPixCharge(row), medDisputeId: row.med_dispute_id, medHeldAmount, refundable: Number(refundable) };
  }

  /**
   * The dashboard's list of charges (read method; the API has none): newest first, keyset-paged
   * on (created_at, id) over the (merchant_id, created_at) index, whatever the account's size.
   */
  async list(merchantId: string, limit: number, after?: { createdAt: string; id: string }) {
    // A list decides nothing: the replica when one is usable (DATABASE_READ_URL).
    let query = readDatabase(this.database).db.selectFrom('pix_charges').selectAll().where('merchant_id', '=', merchantId);
    if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(toPixCharge), ...(rows.length > limit && last ? { next: { createdAt: last.created_at, id: last.id } } : {}) };
  }

  /**
   * Sandbox: the payer pays. Pending and not past its expiry -> Paid, with its D+0 receivable;
   * a charge with a due date is paid its amount due on the sandbox's day.
   */
  async pay(id: string) {
    const now = this.clock.now();
    const at = now.toISOString();
    return this.database.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('pix_charges').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Pix charge');
      if (row.status !== 'Pending' || row.expires_at <= at) throw conflict(`Only a Pending charge can be paid; this one is ${row.status === 'Pending' ? 'Expired' : row.status}.`);
      const due = dueColumnsOf(row);
      const paid = due ? dueToday(due, now) : BigInt(row.amount);
      await settleCharge(trx, { queue: this.queue, settlement: this.settlement }, row, at, paid);
      return toPixCharge({ ...row, status: 'Paid', paid_at: at, paid_amount: Number(paid) });
    });
  }

  /** The sandbox PSP: the signed payload at a charge's location (./location-payload.ts). */
  signedLocationPayload(txid: string, query: LocationQuery, signer: LocationSigner, jku: string): Promise<string> {
    return signedLocationPayload({ database: this.database, clock: this.clock, merchants: this.merchants, isOpen: (sourceId) => this.dueChargeOwner.isOpen(sourceId) }, txid, query, signer, jku);
  }

  /** Sandbox: a charge with a due date (a bolecode's code too) paid its day's amount (./sandbox-due-pay.ts). */
  payDue(txid: string): Promise<DuePayment> {
    return sandboxPayDue({ database: this.database, clock: this.clock, owner: this.dueChargeOwner, receive: (receipts, source) => this.receive(receipts, source) }, txid);
  }

  /** Payments a PSP reports (webhook or reconciliation), each applied once by its endToEndId. */
  receive(receipts: PixReceipt[], source: ReceiptSource): Promise<ReceiptSummary> {
    return this.receipts.receive(receipts, source);
  }

  /**
   * The devoluções a PSP reported with its Pix (webhook or reconciliation): the final status of
   * ours, and the MED returns it made itself. Answers how many it recorded.
   */
  async returnsReported(receipts: PixReceipt[]): Promise<number> {
    const ours = await this.refunds.reported(receipts.flatMap((r) => r.returns ?? []));
    return ours + (await this.medClaims.reported(receipts));
  }

  /**
   * Reads the PSP's received Pix (`GET /pix`) between two instants and applies what no webhook
   * brought, payments and devoluções; then the Pix that MED claims still hold (`GET
   * /pix/{e2eid}`), whose returns come long after the window.
   */
  async reconcile(from: Date, to: Date): Promise<ReceiptSummary> {
    const receipts = await this.provider.listReceived(from, to);
    const summary = await this.receive(receipts, 'reconciliation');
    await this.returnsReported(receipts);
    await this.medClaims.reconcileHeld();
    return summary;
  }

  /** One reconciliation run: `GET /pix`, `GET /rec` and `GET /cobr` by window, from where the last run read to (./reconciliation.ts). */
  runReconciliation(): Promise<ReconcileSummary> {
    return this.reconciliation.run();
  }

  /** With a PSP, the reconciliation runs every PIX_RECONCILE_INTERVAL_SECONDS (src/root/context.ts starts it). */
  async startReconciliation(): Promise<void> {
    if (this.provider.kind === 'sandbox') return;
    await this.scheduleReconciliation(this.clock.now());
  }

  /** The run after `after`, on a grid of the interval: every instance schedules the same one (its dedupe key). */
  private async scheduleReconciliation(after: Date): Promise<void> {
    const step = this.reconcileEvery.intervalSeconds * 1000;
    const at = new Date(Math.floor(after.getTime() / step) * step + step);
    await this.queue.enqueue(this.database.db, { kind: RECONCILE_JOB, payload: {}, runAt: at, dedupeKey: `${RECONCILE_JOB}:${at.toISOString()}` });
  }

  /** Ends the PSP's keep-alive connections. */
  close(): void {
    this.provider.close();
  }

  /** The expiry job: an unpaid charge becomes Expired (idempotent). */
  async expire(id: string): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      const expired = await trx.updateTable('pix_charges').set({ status: 'Expired' }).where('id', '=', id).where('status', 'in', EXPIRABLE).returning(['id', 'merchant_id', 'account_number', 'amount', 'expires_at']).executeTakeFirst();
      if (expired) await recordEvents(trx, this.queue, [pixChargeEvent(expired, 'pix_charge.expired', this.clock.now().toISOString(), { expiresAt: expired.expires_at })]);
    });
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return {
      // Children first: a recurring charge names its recurrence.
      pix_recurring_charges: await sandboxDelete(executor, 'pix_recurring_charges', merchantId),
      pix_recurrences: await sandboxDelete(executor, 'pix_recurrences', merchantId),
      pix_refunds: await sandboxDelete(executor, 'pix_refunds', merchantId),
      pix_payments: await sandboxDelete(executor, 'pix_payments', merchantId),
      pix_due_charges: await sandboxDelete(executor, 'pix_due_charges', merchantId),
      pix_charges: await sandboxDelete(executor, 'pix_charges', merchantId),
    };
  }

  /** The expiry, reconciliation and refund recovery jobs (src/root/context.ts registers them). */
  jobs(): JobDefinition[] {
    return [
      ...this.refunds.jobs(),
      ...this.medClaims.jobs(),
      ...this.recurrences.jobs(),
      { kind: EXPIRE_JOB, handler: async ({ id }: { id: string }) => this.expire(id) },
      {
        kind: RECONCILE_JOB,
        handler: async () => {
          const now = this.clock.now();
          await this.reconciliation.run();
          await this.scheduleReconciliation(now);
        },
      },
    ];
  }
}

/** What a charge with a due date asks on `now`'s day; 409 when it cannot be paid that day. */
function dueToday(row: DueTermsColumns, now: Date): bigint {
  const due = amountDueOn(row, dayOf(now));
  if (!due.ok) throw conflict(`This charge could be paid up to ${brasiliaDate(new Date(dueExpiry(row).getTime() - 1))}.`);
  return due.total;
}
