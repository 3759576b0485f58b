import { formatFixed } from '../../../domain/money.js';
import type { RecurrenceRow } from './repository.js';

const person = (document: string, nome: string) => (document.length === 11 ? { cpf: document, nome } : { cnpj: document, nome });

/**
 * The "payload da recorrência" (API Pix `RecPayload`) the sandbox PSP serves at a recurrence's
 * locrec: what the payer's bank app shows before authorizing. Journey 3: the composite code also
 * carries the immediate charge's own location, where the bank reads that charge's payload; the
 * recurrence names it (`ativacao.dadosJornada.txid`).
 */
export function recurrencePayload(rec: RecurrenceRow, receiver: { name: string; document: string }) {
  const history = [{ status: 'CRIADA', data: rec.created_at }];
  if (rec.status !== 'CRIADA') history.push({ status: rec.status, data: rec.updated_at });
  return {
    idRec: rec.recurrence_id,
    vinculo: { objeto: rec.contract.slice(0, 35), contrato: rec.contract.slice(0, 35), devedor: person(rec.payer_document, rec.payer_name.slice(0, 140)) },
    calendario: { dataInicial: rec.first_due_date, ...(rec.final_date ? { dataFinal: rec.final_date } : {}), periodicidade: rec.periodicity },
    valor: { valorRec: formatFixed(BigInt(rec.amount), 2) },
    politicaRetentativa: rec.retry_policy,
    recebedor: { ...person(receiver.document, receiver.name), ispbParticipante: rec.recurrence_id.slice(2, 10) },
    ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid: rec.first_txid } },
    status: rec.status,
    atualizacao: history,
  };
}
