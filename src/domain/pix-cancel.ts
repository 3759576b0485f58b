/**
 * When the Central Bank's API Pix lets the receiver cancel what it created, as its openapi.yaml
 * states the violations of each `PATCH` (`CobROperacaoInvalida`, `RecOperacaoInvalida`,
 * `CobVOperacaoInvalida`). Dates are Brasília calendar dates (./brasilia.ts): the PSP counts
 * its days in `America/Sao_Paulo`, whatever the gateway's own zone.
 */
export type CancelRule = { ok: true } | { ok: false; reason: string };

const OK: CancelRule = { ok: true };

/** `cobr.status` values from which `PATCH /cobr/{txid}` may still set CANCELADA. */
const OPEN_COBR = ['CRIADA', 'ATIVA'];

/**
 * `PATCH /cobr/{txid}` to CANCELADA: "Não é possível cancelar uma cobrança em uma data igual ou
 * maior que a data prevista da primeira tentativa de liquidação". The first tentative is the
 * cobr's `dataDeVencimento` (the gateway sends `ajusteDiaUtil` false, so it is not moved), so the
 * last day a cycle can be cancelled is the day before it; from that day on the settlement
 * decides. `today` is the Brasília date of now.
 */
export function cobrCancelRule(cobr: { status: string; firstAttemptDate: string }, today: string): CancelRule {
  if (!OPEN_COBR.includes(cobr.status)) return { ok: false, reason: `The cycle's Pix charge (cobr) is ${cobr.status}: only an open one can be cancelled.` };
  if (today >= cobr.firstAttemptDate) {
    return {
      ok: false,
      reason: `The cycle's Pix charge (cobr) is settled from ${cobr.firstAttemptDate} (Brasília) and today is ${today}: the API Pix cancels a cobr only before the date of its first settlement attempt, so its outcome decides.`,
    };
  }
  return OK;
}

/** `PATCH /rec/{idRec}` to CANCELADA: refused once "a recorrência encontra-se expirada, cancelada ou rejeitada". */
export function recCancelRule(rec: { status: string }): CancelRule {
  if (rec.status === 'CRIADA' || rec.status === 'APROVADA') return OK;
  return { ok: false, reason: `The Pix recurrence is ${rec.status}: it has ended and cannot be cancelled.` };
}

/**
 * `PATCH /cobv/{txid}` to REMOVIDA_PELO_USUARIO_RECEBEDOR: only while the cobv is ATIVA ("A
 * cobrança não está ATIVA, e a presente requisição busca alterá-la"), whatever its dates: ATIVA
 * is the record's status, not whether it is past its due date. The request carries the status
 * alone (removing it together with other changes is refused too).
 */
export function cobvRemoveRule(cobv: { status: string }): CancelRule {
  if (cobv.status === 'ATIVA') return OK;
  return { ok: false, reason: `The Pix charge with a due date (cobv) is ${cobv.status}: only an ATIVA one can be removed.` };
}
