import type { Selectable } from 'kysely';
import type { PixChargesTable, PixDueChargesTable } from '../../db/schema.js';
import { formatFixed } from '../../domain/money.js';

/** The API Pix status of a charge, as a bank app reads it at the location. */
const STATUS = { Pending: 'ATIVA', Paid: 'CONCLUIDA', Expired: 'REMOVIDA_PELO_PSP' } as const;

/**
 * The "payload de cobrança imediata" the sandbox PSP serves at a charge's location (API Pix
 * v2, `PayloadLocation`/`cob`): what the payer's bank app shows and checks before paying. The
 * amount is the code's own, as the decimal string the API Pix writes; `expiracao` counts
 * seconds from `criacao`; `apresentacao` is when this answer was made.
 */
export function chargePayload(row: Selectable<PixChargesTable>, pixKey: string, presentedAt: Date) {
  return {
    revisao: 0,
    calendario: {
      criacao: row.created_at,
      apresentacao: presentedAt.toISOString(),
      expiracao: Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 1000),
    },
    txid: row.txid,
    valor: { original: formatFixed(BigInt(row.amount), 2) },
    chave: pixKey,
    ...(row.description ? { solicitacaoPagador: row.description } : {}),
    status: STATUS[row.status],
  };
}

/**
 * The "payload de cobrança com vencimento" (API Pix v2, `cobv`) at a slip code's location:
 * the due date, the days it stays payable after it, the payer and the receiver.
 */
export function dueChargePayload(row: Selectable<PixDueChargesTable>, receiver: { name: string; document: string }, presentedAt: Date) {
  const person = (document: string, nome: string) => (document.length === 11 ? { cpf: document, nome } : { cnpj: document, nome });
  const valor = formatFixed(BigInt(row.amount), 2);
  return {
    revisao: 0,
    calendario: { criacao: row.created_at, apresentacao: presentedAt.toISOString(), dataDeVencimento: row.due_date, validadeAposVencimento: row.days_after_due },
    devedor: person(row.payer_document, row.payer_name),
    recebedor: person(receiver.document, receiver.name),
    txid: row.txid,
    valor: { original: valor, final: valor },
    chave: receiver.document,
    status: row.status === 'Paid' ? 'CONCLUIDA' : 'ATIVA',
  };
}
