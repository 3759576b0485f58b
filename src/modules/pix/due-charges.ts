import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { buildBrCode } from '../../domain/pix.js';
import type { PixProvider } from '../../pix-provider/types.js';

/** Merchants have no city on record yet; the BR Code requires one (field 60). */
const MERCHANT_CITY = 'SAO PAULO';

export interface NewDueCharge {
  /** What the code pays (a bank slip's id): one code per source, the same on every call. */
  sourceId: string;
  merchantId: string;
  merchantName: string;
  amountCents: bigint;
  dueDate: string;
  daysAfterDue: number;
  payer: { document: string; name: string };
}

/**
 * The txid of a source's due charge: 32 hex digits derived from its id, so a registration job
 * retried after a crash asks the PSP for the same cobv (`PUT` is idempotent by txid) and
 * prints the same code.
 */
export const dueChargeTxid = (sourceId: string): string => createHash('sha256').update(`pix-due-charge:${sourceId}`).digest('hex').slice(0, 32);

/**
 * Charges with a due date (API Pix `cobv`): the dynamic Pix code printed on a bank slip. The
 * bank slips module asks for the code when it registers a slip; a payment the PSP reports for
 * it is handed back to that module (see `PixService.onDueChargePaid`).
 */
export class DueCharges {
  constructor(private readonly deps: { database: Database; clock: Clock; provider: PixProvider; locate: (call: () => Promise<{ location: string }>) => Promise<string> }) {}

  async code(input: NewDueCharge): Promise<string> {
    const db = this.deps.database.db;
    const txid = dueChargeTxid(input.sourceId);
    const existing = await db.selectFrom('pix_due_charges').select('pix_emv').where('txid', '=', txid).executeTakeFirst();
    if (existing) return existing.pix_emv;
    const { amountCents, dueDate, daysAfterDue, payer } = input;
    const locationUrl = await this.deps.locate(() => this.deps.provider.createDueCharge({ txid, amountCents, dueDate, daysAfterDue, payer }));
    const pixEmv = buildBrCode({ locationUrl, amountCents, merchantName: input.merchantName, merchantCity: MERCHANT_CITY, txid });
    await db
      .insertInto('pix_due_charges')
      .values({
        txid,
        source_id: input.sourceId,
        merchant_id: input.merchantId,
        amount: Number(amountCents),
        due_date: dueDate,
        days_after_due: daysAfterDue,
        payer_document: payer.document,
        payer_name: payer.name,
        pix_emv: pixEmv,
        status: 'Pending',
        paid_at: null,
        created_at: this.deps.clock.now().toISOString(),
      })
      .onConflict((oc) => oc.column('txid').doNothing())
      .execute();
    // Two registrations at once: the first row wins, and both answer its code.
    return (await db.selectFrom('pix_due_charges').select('pix_emv').where('txid', '=', txid).executeTakeFirstOrThrow()).pix_emv;
  }
}
