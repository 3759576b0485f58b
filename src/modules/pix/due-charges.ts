import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { buildBrCode } from '../../domain/pix.js';
import type { PixProvider } from '../../pix-provider/types.js';
import { discountsJson, providerDueCharge } from './due-terms.js';

export interface NewDueCharge {
  /** What the code pays (a bank slip's id): one code per source, the same on every call. */
  sourceId: string;
  merchantId: string;
  merchantName: string;
  /** The city the code names (BR Code field 60): the merchant's, as its charges show it. */
  merchantCity: string;
  amountCents: bigint;
  dueDate: string;
  daysAfterDue: number;
  payer: { document: string; name: string };
  /** The slip's terms, scaled by 10^4: its Pix asks the same amount as the slip on any day. */
  penaltyPercent: bigint;
  interestPercentPerMonth: bigint;
  discounts: { amountCents: bigint; until: string }[];
}

/** Who a slip's Pix code belongs to: told when it is paid (throws to refuse), asked whether it can still be. */
export interface DueChargeOwner {
  /** `same_payment`: the source was already paid by this same payment another way (the bank's return file). */
  paid(sourceId: string, paidAt: string, amountCents: bigint): Promise<'applied' | 'same_payment'>;
  isOpen(sourceId: string): Promise<boolean>;
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
 * it is handed back to that module (see `PixService.ownDueCharges`).
 */
export class DueCharges {
  constructor(private readonly deps: { database: Database; clock: Clock; provider: PixProvider; locate: (call: () => Promise<{ location: string }>) => Promise<string> }) {}

  async code(input: NewDueCharge): Promise<string> {
    const db = this.deps.database.db;
    const txid = dueChargeTxid(input.sourceId);
    const existing = await db.selectFrom('pix_due_charges').select('pix_emv').where('txid', '=', txid).executeTakeFirst();
    if (existing) return existing.pix_emv;
    const row = {
      txid,
      source_id: input.sourceId,
      merchant_id: input.merchantId,
      amount: Number(input.amountCents),
      due_date: input.dueDate,
      days_after_due: input.daysAfterDue,
      payer_document: input.payer.document,
      payer_name: input.payer.name,
      penalty_percent: Number(input.penaltyPercent),
      interest_percent: Number(input.interestPercentPerMonth),
      discounts: discountsJson(input.discounts),
    };
    const locationUrl = await this.deps.locate(() => this.deps.provider.createDueCharge(providerDueCharge(txid, row)));
    // No amount in the code: the payer's bank reads the day's amount at the location.
    const pixEmv = buildBrCode({ locationUrl, merchantName: input.merchantName, merchantCity: input.merchantCity, txid });
    await db
      .insertInto('pix_due_charges')
      .values({ ...row, pix_emv: pixEmv, status: 'Pending', paid_at: null, created_at: this.deps.clock.now().toISOString() })
      .onConflict((oc) => oc.column('txid').doNothing())
      .execute();
    // Two registrations at once: the first row wins, and both answer its code.
    return (await db.selectFrom('pix_due_charges').select('pix_emv').where('txid', '=', txid).executeTakeFirstOrThrow()).pix_emv;
  }
}
