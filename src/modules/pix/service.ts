import { randomInt, randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { PixChargesTable } from '../../db/schema.js';
import { buildBrCode } from '../../domain/pix.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { conflict, notFound } from '../../http/errors.js';
import type { MerchantService } from '../merchants/service.js';
import type { SettlementService } from '../settlement/service.js';
import { recordNotifications } from '../webhooks/outbox.js';

export const EXPIRE_JOB = 'pix.expire';
/** Merchants have no city on record yet; the BR Code requires one (field 60). */
const MERCHANT_CITY = 'SAO PAULO';
/** What a dynamic code's location URL may take: field 26 holds 99 characters with the GUI. */
const MAX_LOCATION = 77;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

export type PixChargeRow = Selectable<PixChargesTable>;

export interface NewPixCharge {
  amount: number;
  description?: string;
  expiresIn?: number;
  referenceTransaction?: string;
}

export function toPixCharge(row: PixChargeRow) {
  return {
    id: row.id,
    txid: row.txid,
    pixEmv: row.pix_emv,
    status: row.status,
    amount: Number(row.amount),
    description: row.description,
    referenceTransaction: row.reference_transaction,
    expiresAt: row.expires_at,
    paidAt: row.paid_at,
    createdAt: row.created_at,
  };
}

const randomCode = (): string => Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
/** 18 random digits like the card NSUs; the column is unique anyway. */
const randomNsu = (): string => `${randomInt(1, 10)}${String(randomInt(0, 1e8)).padStart(8, '0')}${String(randomInt(0, 1e9)).padStart(9, '0')}`;

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
    private readonly publicUrl: string,
  ) {}

  private locationUrl(txid: string): string {
    const location = `${new URL(this.publicUrl).host}/pix/v2/${txid}`;
    // A very long PUBLIC_URL host cannot fit the code; the location then names only the txid.
    return location.length <= MAX_LOCATION ? location : `pix/v2/${txid}`;
  }

  async create(payer: { merchantId: string; accountNumber: number }, body: NewPixCharge) {
    const id = randomUUID();
    const txid = id.replace(/-/g, ''); // 32 of [0-9a-f]: an API-Pix cob txid (26..35 alphanumerics)
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + (body.expiresIn ?? 3600) * 1000);
    // The receiver's name for the code, read before the transaction (the merchants service reads through its own connection).
    const merchant = await this.merchants.get(payer.merchantId);
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
        pix_emv: buildBrCode({ locationUrl: this.locationUrl(txid), amountCents: body.amount, merchantName: merchant.name, merchantCity: MERCHANT_CITY, txid, description: body.description }),
        nsu: randomNsu(),
        cod_auth: randomCode(),
        expires_at: expiresAt.toISOString(),
        paid_at: null,
        created_at: now.toISOString(),
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

  /** Sandbox: the payer pays. Pending and not past its expiry -> Paid, with its D+0 receivable. */
  async pay(id: string) {
    const now = this.clock.now();
    const at = now.toISOString();
    return this.database.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('pix_charges').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Pix charge');
      if (row.status !== 'Pending' || row.expires_at <= at) throw conflict(`Only a Pending charge can be paid; this one is ${row.status === 'Pending' ? 'Expired' : row.status}.`);
      const moved = await trx.updateTable('pix_charges').set({ status: 'Paid', paid_at: at }).where('id', '=', id).where('status', '=', 'Pending').executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw conflict('The charge changed status meanwhile.');
      // A Pix sale is new and complete at once: "" -> Paid. Its installment's own notification
      // (received the same day) follows from the settlement below.
      await recordNotifications(trx, this.queue, [
        { merchantId: row.merchant_id, accountNumber: Number(row.account_number), type: 'TransactionStatus', nsu: row.nsu, codAuth: row.cod_auth, installmentNumber: 0, oldValue: '', newValue: 'Paid', at },
      ]);
      await this.settlement.recordSale(trx, {
        sourceType: 'pix',
        sourceId: row.id,
        merchantId: row.merchant_id,
        accountNumber: Number(row.account_number),
        transactionAt: at,
        cardNumber: null,
        cardName: 'PIX',
        codAuth: row.cod_auth,
        nsu: row.nsu,
        reference: row.reference_transaction,
        amountCents: BigInt(row.amount),
        installments: 1,
        splits: [],
        status: 'A',
      });
      return toPixCharge({ ...row, status: 'Paid', paid_at: at });
    });
  }

  /** The expiry job: an unpaid charge becomes Expired (idempotent). */
  async expire(id: string): Promise<void> {
    await this.database.db.updateTable('pix_charges').set({ status: 'Expired' }).where('id', '=', id).where('status', '=', 'Pending').execute();
  }

  /** The expiry job (src/context.ts registers it). */
  jobs(): JobDefinition[] {
    return [{ kind: EXPIRE_JOB, handler: async ({ id }: { id: string }) => this.expire(id) }];
  }
}
