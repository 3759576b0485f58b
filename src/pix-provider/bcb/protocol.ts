import { Type } from '@sinclair/typebox';
import { formatFixed } from '../../domain/money.js';
import type { PixReceipt, RefundOutcome } from '../types.js';

/**
 * The Central Bank's API Pix field names and values, and their mapping to the gateway's terms.
 * Amounts travel as decimal strings with two decimals (`"123.45"`), never as numbers.
 */
export const VALOR = /^\d{1,10}\.\d{2}$/;
/** An endToEndId: E + the payer's PSP ISPB (8) + date and time + a sequence, 32 alphanumerics. */
export const END_TO_END_ID = /^[A-Za-z0-9]{32}$/;

export const toValor = (cents: bigint): string => formatFixed(cents, 2);
export const fromValor = (valor: string): bigint => BigInt(valor.replace('.', ''));

/** One `pix` item as the webhook body and `GET /pix` carry it (the fields the gateway reads; others pass). */
export const PixItem = Type.Object(
  {
    endToEndId: Type.String({ pattern: END_TO_END_ID.source }),
    txid: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{1,35}$' })),
    valor: Type.String({ pattern: VALOR.source, description: 'Decimal string, 2 decimals' }),
    horario: Type.String({ format: 'date-time' }),
    chave: Type.Optional(Type.String()),
    infoPagador: Type.Optional(Type.String()),
    /** The Pix's devoluções: the PSP calls the webhook again when one reaches DEVOLVIDO or NAO_REALIZADO. */
    devolucoes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' }),
            valor: Type.String({ pattern: VALOR.source }),
            status: Type.String({ enum: ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] }),
            motivo: Type.Optional(Type.String({ maxLength: 140 })),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true },
);

/** The webhook body the PSP POSTs: `{pix: [...]}`. */
export const PixWebhookBody = Type.Object({ pix: Type.Array(PixItem, { minItems: 1, maxItems: 1000 }) }, { additionalProperties: true });

export interface PixItemValue {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
}

export function toReceipt(item: PixItemValue): PixReceipt {
  return { endToEndId: item.endToEndId, txid: item.txid ?? null, amountCents: fromValor(item.valor), paidAt: new Date(item.horario).toISOString() };
}

/** A `GET /pix` item read defensively (the list is not validated by a route schema). */
export function receiptOf(item: unknown): PixReceipt | null {
  const i = item as Partial<PixItemValue> | null;
  if (!i || typeof i.endToEndId !== 'string' || !END_TO_END_ID.test(i.endToEndId)) return null;
  if (typeof i.valor !== 'string' || !VALOR.test(i.valor) || typeof i.horario !== 'string' || Number.isNaN(Date.parse(i.horario))) return null;
  return toReceipt({ endToEndId: i.endToEndId, txid: typeof i.txid === 'string' && i.txid !== '' ? i.txid : undefined, valor: i.valor, horario: i.horario });
}

/** A devolução's `status`. */
export const REFUND_STATUS: Record<string, RefundOutcome['status']> = {
  EM_PROCESSAMENTO: 'Processing',
  DEVOLVIDO: 'Refunded',
  NAO_REALIZADO: 'Failed',
};
