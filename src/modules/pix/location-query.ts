import { isMunicipalityCode } from '../../domain/address.js';
import { isIsoDate } from '../../domain/calendar.js';

/** The API Pix names each error by a URI under this base (RFC 7807 `type`). */
const ERROR_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

/** One problem of a request, as the API Pix lists them (`Violacao`). */
export interface Violation {
  razao: string;
  propriedade: string;
  valor?: string;
}

/**
 * An error of a charge's location, answered as the API Pix answers it: `application/problem+json`
 * with its `Problema` body, not the gateway's error array, because the reader is a payer's bank
 * speaking the API Pix.
 */
export class LocationProblem extends Error {
  constructor(
    readonly status: 400 | 404,
    readonly kind: 'CobPayloadNaoEncontrado' | 'CobPayloadOperacaoInvalida',
    readonly title: string,
    readonly detail: string,
    readonly violacoes: Violation[] = [],
  ) {
    super(detail);
  }

  body() {
    return { type: `${ERROR_BASE}${this.kind}`, title: this.title, status: this.status, detail: this.detail, ...(this.violacoes.length ? { violacoes: this.violacoes } : {}) };
  }
}

/** No charge at this location (an unknown txid, or one no charge can have). */
export const locationNotFound = () => new LocationProblem(404, 'CobPayloadNaoEncontrado', 'Cobrança não encontrada.', 'No charge is served at this location.');

export const invalidLocationRequest = (violacoes: Violation[]) =>
  new LocationProblem(400, 'CobPayloadOperacaoInvalida', 'Operação inválida.', 'The charge exists, but the request is invalid: see violacoes.', violacoes);

/** What a payer's bank adds to a charge with a due date's location (API Pix `GET /cobv/{pixUrlAccessToken}`). */
export interface LocationQuery {
  /** The date the payer intends to pay (YYYY-MM-DD, a Brasília date). */
  DPP?: string;
  /** The payer's municipality, IBGE's 7-digit code. */
  codMun?: string;
}

/**
 * The day a cobv's payload is priced for: the payer's intended date (`DPP`) when sent, else
 * `today` (both Brasília dates). Refused as the API Pix lists (`CobPayloadOperacaoInvalida`), every
 * problem at once: a `codMun` or `DPP` off its schema, a `DPP` before today, a `DPP` on which the
 * charge can no longer be paid (after its last day).
 */
export function pricingDay(query: LocationQuery, today: string, payableOn: (day: string) => boolean): string {
  const violations: Violation[] = [];
  const { DPP: dpp, codMun } = query;
  if (codMun !== undefined && !isMunicipalityCode(codMun)) {
    violations.push({ razao: 'codMun must be a municipality code of IBGE (7 digits, the first two a federative unit).', propriedade: 'codMun', valor: codMun });
  }
  if (dpp !== undefined) {
    if (!isIsoDate(dpp)) violations.push({ razao: 'DPP must be a date (YYYY-MM-DD).', propriedade: 'DPP', valor: dpp });
    else if (dpp < today) violations.push({ razao: `DPP is before today (${today}).`, propriedade: 'DPP', valor: dpp });
    else if (!payableOn(dpp)) violations.push({ razao: 'The charge cannot be paid on DPP: its last payable day is before it.', propriedade: 'DPP', valor: dpp });
  }
  if (violations.length) throw invalidLocationRequest(violations);
  return dpp ?? today;
}
