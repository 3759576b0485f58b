import { randomInt } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { PixChargesTable } from '../../db/schema.js';
import { percentNumber } from './due-terms.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

export const randomCode = (): string => Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
/** 18 random digits like the card NSUs; the column is unique anyway. */
export const randomNsu = (): string => `${randomInt(1, 10)}${String(randomInt(0, 1e8)).padStart(8, '0')}${String(randomInt(0, 1e9)).padStart(9, '0')}`;

/** A Pending immediate charge's row (the terms of a charge with a due date left empty). */
export function pendingChargeRow(fields: Pick<Selectable<PixChargesTable>, 'id' | 'merchant_id' | 'account_number' | 'txid' | 'amount' | 'description' | 'reference_transaction' | 'pix_emv' | 'expires_at' | 'created_at'>): Selectable<PixChargesTable> {
  return {
    ...fields,
    status: 'Pending',
    nsu: randomNsu(),
    cod_auth: randomCode(),
    paid_at: null,
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
  };
}

export function toPixCharge(row: Selectable<PixChargesTable>) {
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
    refundedAmount: Number(row.refunded_amount),
    paidAmount: row.paid_amount === null ? null : Number(row.paid_amount),
    ...dueFieldsOf(row),
    createdAt: row.created_at,
  };
}

/** A charge's due date and terms as the API shows them (all null for an immediate charge). */
function dueFieldsOf(row: Selectable<PixChargesTable>) {
  if (row.due_date === null) return { dueDate: null, validAfterDueDays: null, payer: null, fine: null, interest: null, discount: null };
  return {
    dueDate: row.due_date,
    validAfterDueDays: row.days_after_due,
    payer: { documentNumber: row.payer_document ?? '', name: row.payer_name ?? '' },
    fine: percentNumber(row.penalty_percent),
    interest: percentNumber(row.interest_percent),
    discount: row.discount_until === null ? null : { amount: Number(row.discount_amount), until: row.discount_until },
  };
}
