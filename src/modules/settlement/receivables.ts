import type { Insertable } from 'kysely';
import type { ReceivablesTable } from '../../db/schema.js';
import { addDays, businessDayAfter, daysBetween, nextBusinessDay } from '../../domain/calendar.js';
import { creditMdr, installmentAmounts, prepaymentCost, type Pricing } from '../../domain/fees.js';

/** A split as the receivable keeps it: the amounts are computed on read (liquido follows prepayment). */
export interface SplitConfig {
  beneficiario: string;
  tipoSplit: 'bruto' | 'liquido';
  /** Hundredths of a percent: 12.5% = 1250. */
  pct: number;
}

/** What a sale (Authorized card payment or paid Pix charge) tells conciliation. */
export interface Sale {
  sourceType: 'card' | 'pix';
  sourceId: string;
  merchantId: string;
  accountNumber: number;
  transactionAt: string;
  cardNumber: string | null;
  cardName: string;
  codAuth: string;
  nsu: string;
  reference: string | null;
  amountCents: bigint;
  installments: number;
  splits: SplitConfig[];
  /** A for an Authorized payment or a paid Pix charge, B for a Blocked one. */
  status: 'A' | 'B';
}

export const CARD_TYPE = { card: 'credit', pix: 'instant payment' } as const;

/** The merchant's e-commerce terminal id (the seed's "terminal serial number", 30 chars max). */
export const terminalOf = (accountNumber: number): string => `EC${accountNumber}`;

/** Conciliation cardNumber from the stored 6+4 mask: first 4 + 7 '*' + last 4 (15 chars). */
export const conciliationCardNumber = (masked: string): string => `${masked.slice(0, 4)}*******${masked.slice(-4)}`;

/** Expected receipt: credit D+30 x n, Pix D+0, moved to the next business day (UTC dates). */
export function expectedDate(sale: Pick<Sale, 'sourceType'>, saleDate: string, installmentNumber: number): string {
  return nextBusinessDay(sale.sourceType === 'pix' ? saleDate : addDays(saleDate, 30 * installmentNumber));
}

/**
 * One receivable per installment, priced with the merchant's pricing at the time of the sale.
 * With automatic prepayment every installment due after the next business day is anticipated
 * to it (type E). Pix pays no anti-fraud fee: no anti-fraud analysis runs on it.
 */
export function buildReceivables(sale: Sale, pricing: Pricing): Insertable<ReceivablesTable>[] {
  const pix = sale.sourceType === 'pix';
  const mdr = pix ? pricing.mdr.pix : creditMdr(pricing, sale.installments);
  const afFee = pix ? 0n : pricing.antifraudFee;
  const saleDate = sale.transactionAt.slice(0, 10);
  const anticipateTo = businessDayAfter(saleDate);
  const amounts = installmentAmounts(sale.amountCents, sale.installments, mdr, pricing.transactionFee, afFee);
  return amounts.map((a, i) => {
    const regular = expectedDate(sale, saleDate, i + 1);
    const days = pricing.prepayment.automatic ? daysBetween(anticipateTo, regular) : 0;
    const anticipated = days > 0;
    const cost = anticipated ? prepaymentCost(a.net, pricing.prepayment.monthlyRate, days) : 0n;
    const expected = anticipated ? anticipateTo : regular;
    return {
      merchant_id: sale.merchantId,
      account_number: sale.accountNumber,
      source_type: sale.sourceType,
      source_id: sale.sourceId,
      transaction_at: sale.transactionAt,
      terminal: terminalOf(sale.accountNumber),
      card_number: sale.cardNumber,
      card_type: CARD_TYPE[sale.sourceType],
      card_name: sale.cardName,
      cod_auth: sale.codAuth,
      nsu: sale.nsu,
      installment_number: i + 1,
      installments_count: sale.installments,
      installment_value: Number(a.installmentValue),
      transaction_total_value: Number(sale.amountCents * 100n),
      installment_status: sale.status,
      mdr_value: Number(a.mdrValue),
      mdr_tax: Number(mdr),
      trn_fee_installment: Number(a.trnFee),
      trn_fee_transaction: Number(pricing.transactionFee * 100n),
      af_fee_installment: Number(a.antifraudFee),
      af_fee_transaction: Number(afFee * 100n),
      prepayment_value: Number(cost),
      prepayment_tax: anticipated ? Number(pricing.prepayment.monthlyRate) : 0,
      received_value: Number(a.net - cost),
      expected_date: expected,
      effective_date: null,
      receipt_date: expected,
      received_type: anticipated ? 'E' : 'R',
      received_status: 'A',
      reference: sale.reference,
      splits: sale.splits.length > 0 ? JSON.stringify(sale.splits) : null,
    };
  });
}

/** What an installment nets before any prepayment: value - MDR - fees (never below 0). */
export function netOf(row: Pick<ReceivablesTable, 'installment_value' | 'mdr_value' | 'trn_fee_installment' | 'af_fee_installment'>): bigint {
  const net = BigInt(row.installment_value) - BigInt(row.mdr_value) - BigInt(row.trn_fee_installment) - BigInt(row.af_fee_installment);
  return net > 0n ? net : 0n;
}
