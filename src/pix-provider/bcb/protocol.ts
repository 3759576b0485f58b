import { Type } from '@sinclair/typebox';
import { formatFixed } from '../../domain/money.js';
import type { PixReceipt, ProviderReturn, RefundOutcome, ReturnNature } from '../types.js';

/**
 * The Central Bank's API Pix field names and values, and their mapping to the gateway's terms.
 * Amounts travel as decimal strings with two decimals (`"123.45"`), never as numbers.
 */
export const VALOR = /^\d{1,10}\.\d{2}$/;
/** An endToEndId: E + the payer's PSP ISPB (8) + date and time + a sequence, 32 alphanumerics. */
export const END_TO_END_ID = /^[A-Za-z0-9]{32}$/;
/** A devolução's id, the receiver's or the PSP's (API Pix `Devolucao.id`). */
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;

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
    /**
     * The Pix's devoluções: the PSP calls the webhook again when one reaches DEVOLVIDO or
     * NAO_REALIZADO, ours or a MED return it made itself (natureza MED_FRAUDE, MED_OPERACIONAL).
     * rtrId and natureza are read where the gateway needs them, not refused here: a payment in
     * the same call must not be lost to a field the PSP spelled otherwise.
     */
    devolucoes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ pattern: DEVOLUCAO_ID.source }),
            rtrId: Type.Optional(Type.String({ maxLength: 140 })),
            valor: Type.String({ pattern: VALOR.source }),
            natureza: Type.Optional(Type.String({ maxLength: 40 })),
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
  devolucoes?: unknown[];
}

export function toReceipt(item: PixItemValue): PixReceipt {
  const returns = (item.devolucoes ?? []).map(returnOf).filter((r): r is ProviderReturn => r !== null);
  return { endToEndId: item.endToEndId, txid: item.txid ?? null, amountCents: fromValor(item.valor), paidAt: new Date(item.horario).toISOString(), ...(returns.length ? { returns } : {}) };
}

/** A `GET /pix` or `GET /pix/{e2eid}` item read defensively (not validated by a route schema). */
export function receiptOf(item: unknown): PixReceipt | null {
  const i = item as Partial<PixItemValue> | null;
  if (!i || typeof i.endToEndId !== 'string' || !END_TO_END_ID.test(i.endToEndId)) return null;
  if (typeof i.valor !== 'string' || !VALOR.test(i.valor) || typeof i.horario !== 'string' || Number.isNaN(Date.parse(i.horario))) return null;
  return toReceipt({ endToEndId: i.endToEndId, txid: typeof i.txid === 'string' && i.txid !== '' ? i.txid : undefined, valor: i.valor, horario: i.horario, devolucoes: Array.isArray(i.devolucoes) ? i.devolucoes : [] });
}

/** DevolucaoNatureza: what the PSP may report (a receiver requests only ORIGINAL or RETIRADA). */
const NATURES: readonly ReturnNature[] = ['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO'];
/** A devolução's rtrId: the pacs.004 ReturnIdentification, 32 alphanumerics. */
export const RTR_ID = /^[A-Za-z0-9]{32}$/;

/** A `Devolucao` in the gateway's terms; null when it lacks what any reading needs (its id, valor, a known status). */
export function returnOf(value: unknown): ProviderReturn | null {
  const d = value as { id?: unknown; rtrId?: unknown; valor?: unknown; natureza?: unknown; status?: unknown; motivo?: unknown } | null;
  if (!d || typeof d.id !== 'string' || !DEVOLUCAO_ID.test(d.id) || typeof d.valor !== 'string' || !VALOR.test(d.valor)) return null;
  const status = REFUND_STATUS[String(d.status ?? '')];
  if (!status) return null;
  // Absent, the API Pix reads it as ORIGINAL.
  const nature = d.natureza === undefined ? 'ORIGINAL' : (NATURES.find((n) => n === d.natureza) ?? null);
  return {
    id: d.id,
    rtrId: typeof d.rtrId === 'string' && RTR_ID.test(d.rtrId) ? d.rtrId : null,
    amountCents: fromValor(d.valor),
    nature,
    status,
    ...(typeof d.motivo === 'string' && d.motivo ? { reason: d.motivo.slice(0, 140) } : {}),
  };
}

/** A devolução's `status`. */
export const REFUND_STATUS: Record<string, RefundOutcome['status']> = {
  EM_PROCESSAMENTO: 'Processing',
  DEVOLVIDO: 'Refunded',
  NAO_REALIZADO: 'Failed',
};
