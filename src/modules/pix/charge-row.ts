import { randomInt } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { PixChargesTable } from '../../db/schema.js';

/** Merchants have no city on record yet; the BR Code requires one (field 60). */
export const MERCHANT_CITY = 'SAO PAULO';
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
