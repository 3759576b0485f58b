import { randomInt } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { conflict, notFound } from '../../domain/errors.js';
import type { PixReceipt } from '../../pix-provider/types.js';
import type { DueChargeOwner } from './due-charges.js';
import { amountDueOn, dayOf, dueColumnsOf, type DueTermsColumns } from './due-terms.js';
import type { ReceiptSource, ReceiptSummary } from './receipts.js';

const E2E_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** An endToEndId as the SPI writes it: E, the payer's ISPB, yyyyMMddHHmm, 11 characters. */
export function sandboxEndToEndId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `E00000000${stamp}${Array.from({ length: 11 }, () => E2E_ALPHABET[randomInt(E2E_ALPHABET.length)]).join('')}`;
}

export interface DuePayment {
  txid: string;
  endToEndId: string;
  amount: number;
  paidAt: string;
  /** The Pix charge paid, or the bank slip whose Pix code it was. */
  chargeId: string | null;
  bankSlipId: string | null;
}

/**
 * Sandbox: a payer pays a charge with a due date (a bolecode's Pix code included) the amount
 * it asks on the sandbox's day, reported as a PSP reports a received Pix, so it takes the path
 * a real payment takes (applied once by its endToEndId, a slip paid through its own module).
 * 409, and nothing recorded, when the charge cannot be paid that day.
 */
export async function sandboxPayDue(
  deps: { database: Database; clock: Clock; owner: DueChargeOwner; receive: (receipts: PixReceipt[], source: ReceiptSource) => Promise<ReceiptSummary> },
  txid: string,
): Promise<DuePayment> {
  const db = deps.database.db;
  const now = deps.clock.now();
  const charge = await db.selectFrom('pix_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
  const chargeTerms = charge ? dueColumnsOf(charge) : null;
  let terms: DueTermsColumns;
  let target: Pick<DuePayment, 'chargeId' | 'bankSlipId'>;
  if (charge) {
    if (!chargeTerms) throw conflict('This charge has no due date: pay it with POST /sandbox/pix/{id}/pay.');
    if (charge.status !== 'Pending') throw conflict(`Only a Pending charge can be paid; this one is ${charge.status}.`);
    terms = chargeTerms;
    target = { chargeId: charge.id, bankSlipId: null };
  } else {
    const slipCode = await db.selectFrom('pix_due_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
    if (!slipCode) throw notFound('Pix charge with a due date');
    if (slipCode.status !== 'Pending' || !(await deps.owner.isOpen(slipCode.source_id))) throw conflict('The bank slip of this Pix code is paid, cancelled or not payable.');
    terms = slipCode;
    target = { chargeId: null, bankSlipId: slipCode.source_id };
  }
  const owed = amountDueOn(terms, dayOf(now));
  if (!owed.ok) throw conflict(`This charge cannot be paid on ${dayOf(now)}: its last day has passed.`);
  const receipt: PixReceipt = { endToEndId: sandboxEndToEndId(now), txid, amountCents: owed.total, paidAt: now.toISOString() };
  const summary = await deps.receive([receipt], 'sandbox');
  if (summary.applied !== 1) throw conflict('The charge changed meanwhile and the payment was not applied.');
  return { txid, endToEndId: receipt.endToEndId, amount: Number(owed.total), paidAt: receipt.paidAt, ...target };
}
