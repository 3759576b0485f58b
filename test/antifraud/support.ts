import { randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../../src/root/context.js';

/** A fresh merchant (no credential: the engine only needs its id). */
export async function newMerchant(ctx: AppContext): Promise<{ merchantId: string; accountNumber: number }> {
  const merchant = await ctx.merchants.create({ name: 'Loja Antifraude', documentNumber: '11222333000181' });
  return { merchantId: merchant.merchantId, accountNumber: merchant.accountNumber };
}

/** A random card fingerprint, so each test's card has no history but its own. */
export const randomFingerprint = () => randomBytes(32).toString('hex');

export interface PastPayment {
  merchantId: string;
  accountNumber: number;
  cardFingerprint: string;
  document?: string | null;
  ip?: string | null;
  /** Default: one minute before business "now". */
  createdAt?: string;
}

/** Simulates payment history: `count` rows of `payments` with plausible values in every NOT NULL column. */
export async function insertPayments(ctx: AppContext, count: number, p: PastPayment): Promise<void> {
  if (count === 0) return;
  const at = p.createdAt ?? new Date(ctx.clock.now().getTime() - 60_000).toISOString();
  const rows = Array.from({ length: count }, () => ({
    payment_id: randomUUID(),
    merchant_id: p.merchantId,
    account_number: p.accountNumber,
    status: 'Authorized' as const,
    amount: 1000,
    installments: 1,
    product_type: 'avista',
    transaction_type: 'credito',
    brand: 'visa',
    masked_card_number: '411111******1111',
    card_fingerprint: p.cardFingerprint,
    card_source: 'vault',
    vault_id: null,
    cardholder_name: 'MARIA SILVA',
    reference_transaction: null,
    url_callback: null,
    code_anti_fraud: randomUUID(),
    customer: null,
    customer_document: p.document ?? null,
    customer_email: null,
    customer_ip: p.ip ?? null,
    antifraud_decision: 'Accept',
    antifraud_score: 0,
    antifraud_reasons: '[]',
    return_code: '00',
    return_message: 'Approved',
    authorization_code: '123456',
    nsu: randomBytes(8).toString('hex'),
    acquirer_reference: null,
    splits: '[]',
    billing_id: null,
    created_at: at,
    updated_at: at,
  }));
  await ctx.database.db.insertInto('payments').values(rows).execute();
}

export const minutesAgo = (ctx: AppContext, minutes: number) => new Date(ctx.clock.now().getTime() - minutes * 60_000).toISOString();
