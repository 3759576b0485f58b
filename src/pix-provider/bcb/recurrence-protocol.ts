import { Type } from '@sinclair/typebox';
import type { NewProviderRecurrence, NewProviderRecurringCharge, ProviderRecurrenceState, ProviderRecurringChargeState } from '../types.js';
import { END_TO_END_ID, fromValor, toValor, VALOR } from './protocol.js';

/**
 * Pix Automático in the API Pix's terms (`/rec`, `/locrec`, `/cobr` and their webhooks): the
 * request bodies the connector sends, and the statuses it reads back (from `GET` or a webhook),
 * mapped to the gateway's.
 */
export const REC_ID = /^[a-zA-Z0-9]{29}$/;
export const COBR_TXID = /^[a-zA-Z0-9]{26,35}$/;
const REC_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;

/** The receiving account a cobr names (`recebedor`, DadosBancariosRecebedor): PIX_RECEIVER_*. */
export interface ReceiverAccount {
  account: string;
  accountType: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
  agency?: string;
}

const devedorOf = (payer: { document: string; name: string }) => {
  const document = payer.document.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
  return { ...(document.length === 11 ? { cpf: document } : { cnpj: document }), nome: payer.name.slice(0, 140) };
};

/** `POST /rec` (RecSolicitada) for journey 3: the locrec's id and the immediate charge's txid. */
export function recBody(rec: NewProviderRecurrence, locId: number) {
  return {
    vinculo: { contrato: rec.contract.slice(0, 35), devedor: devedorOf(rec.payer), objeto: rec.object.slice(0, 35) },
    calendario: { dataInicial: rec.firstDate, ...(rec.finalDate ? { dataFinal: rec.finalDate } : {}), periodicidade: rec.periodicity },
    valor: { valorRec: toValor(rec.amountCents) },
    politicaRetentativa: rec.retryPolicy,
    loc: locId,
    ativacao: { dadosJornada: { txid: rec.txid } },
  };
}

/**
 * `PUT /cobr/{txid}` (CobRSolicitada). `ajusteDiaUtil` false: the settlement date is the
 * billing's due date, the one the engine and its retries count from.
 */
export function cobrBody(charge: NewProviderRecurringCharge, receiver: ReceiverAccount) {
  return {
    idRec: charge.recurrenceId,
    ...(charge.description ? { infoAdicional: charge.description.slice(0, 140) } : {}),
    calendario: { dataDeVencimento: charge.dueDate },
    valor: { original: toValor(charge.amountCents) },
    ajusteDiaUtil: false,
    recebedor: { conta: receiver.account, tipoConta: receiver.accountType, ...(receiver.agency ? { agencia: receiver.agency } : {}) },
  };
}

/** Who ended a recurrence (`encerramento.cancelamento.solicitante`), in the gateway's terms. */
const CANCELED_BY: Record<string, 'payer' | 'merchant'> = { PSP_PAGADOR: 'payer', USUARIO_PAGADOR: 'payer', PSP_RECEBEDOR: 'merchant', USUARIO_RECEBEDOR: 'merchant' };

type Json = Record<string, any>;

/** A recurrence as a `GET /rec` page or `/webhookrec` tells it; null when it is not one. */
export function recurrenceStateOf(body: Json): (ProviderRecurrenceState & { recurrenceId: string }) | null {
  if (typeof body?.idRec !== 'string' || !REC_ID.test(body.idRec) || !(REC_STATUSES as readonly string[]).includes(body.status)) return null;
  const end = body.encerramento ?? {};
  const ended = end.cancelamento ?? end.rejeicao;
  const reason = typeof ended?.descricao === 'string' && ended.descricao ? `${typeof ended.codigo === 'string' ? `${ended.codigo}: ` : ''}${ended.descricao}`.slice(0, 200) : undefined;
  const canceledBy = CANCELED_BY[String(end.cancelamento?.solicitante ?? '')];
  return { recurrenceId: body.idRec, status: body.status, ...(canceledBy ? { canceledBy } : {}), ...(reason ? { reason } : {}) };
}

/** A cobr as a `GET /cobr` page or `/webhookcobr` tells it: its status, its tentatives and the Pix that paid it. */
export function recurringChargeStateOf(body: Json): (ProviderRecurringChargeState & { txid: string }) | null {
  if (typeof body?.txid !== 'string' || !COBR_TXID.test(body.txid) || !(COBR_STATUSES as readonly string[]).includes(body.status)) return null;
  const attempts = (Array.isArray(body.tentativas) ? body.tentativas : []).map((t: Json) => ({
    date: String(t?.dataLiquidacao ?? ''),
    status: String(t?.status ?? ''),
    ...(typeof t?.endToEndId === 'string' && END_TO_END_ID.test(t.endToEndId) ? { endToEndId: t.endToEndId } : {}),
    ...(typeof t?.rejeicao?.codigo === 'string' ? { code: t.rejeicao.codigo, reason: String(t.rejeicao.descricao ?? '').slice(0, 200) } : {}),
  }));
  const pix = (Array.isArray(body.pix) ? body.pix : []).find((p: Json) => typeof p?.endToEndId === 'string' && END_TO_END_ID.test(p.endToEndId) && VALOR.test(String(p.valor)) && !Number.isNaN(Date.parse(p.horario)));
  return {
    txid: body.txid,
    status: body.status,
    attempts,
    ...(pix ? { paid: { endToEndId: pix.endToEndId, amountCents: fromValor(pix.valor), paidAt: new Date(pix.horario).toISOString() } } : {}),
  };
}

/** `/webhookrec` bodies: `{recs: [RecNotification]}` (the fields read; others pass). */
export const RecWebhookBody = Type.Object(
  {
    recs: Type.Array(
      Type.Object({ idRec: Type.String({ pattern: REC_ID.source }), status: Type.String({ enum: [...REC_STATUSES] }), atualizacao: Type.Array(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true }),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: true },
);

/** `/webhookcobr` bodies: `{cobsr: [CobRNotification]}`. */
export const CobrWebhookBody = Type.Object(
  {
    cobsr: Type.Array(
      Type.Object(
        { idRec: Type.String({ pattern: REC_ID.source }), txid: Type.String({ pattern: COBR_TXID.source }), status: Type.String({ enum: [...COBR_STATUSES] }), atualizacao: Type.Array(Type.Object({}, { additionalProperties: true })) },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: true },
);
