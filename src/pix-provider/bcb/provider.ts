import type { Clock } from '../../clock.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { PERCENT_DECIMALS } from '../../domain/late-payment.js';
import { formatFixed, percentOf } from '../../domain/money.js';
import type { PixConfig } from '../config.js';
import { PixProviderRefused, PixProviderUnavailable, type NewProviderCharge, type NewProviderDueCharge, type NewProviderRecurrence, type NewProviderRecurringCharge, type PixProvider, type PixReceipt, type ProviderPage, type ProviderRecurrenceState, type ProviderRecurringChargeState, type ProviderRefund, type ProviderWindow, type RefundOutcome } from '../types.js';
import { PspHttp, type PspAnswer } from './http.js';
import { receiptOf, REFUND_STATUS, toValor } from './protocol.js';
import { cobrBody, REC_ID, recBody, recurrenceStateOf, recurringChargeStateOf, type ReceiverAccount } from './recurrence-protocol.js';

/** List pages (`GET /pix`, `/rec`, `/cobr`): the API Pix allows up to 1000 items a page, so a run makes as few calls as it can. */
const PAGE_SIZE = 1000;

/**
 * PIX_PROVIDER=bcb: a PSP implementing the Central Bank's API Pix. Charges are `PUT`s by our
 * own txid, so a retry after a lost answer creates nothing twice.
 */
export class BcbPixProvider implements PixProvider {
  readonly kind = 'bcb' as const;
  private readonly http: PspHttp;

  constructor(private readonly config: PixConfig, clock: Clock) {
    this.http = new PspHttp(config, clock);
  }

  async createCharge(charge: NewProviderCharge): Promise<{ location: string }> {
    const body = {
      calendario: { expiracao: charge.expiresInSeconds },
      valor: { original: toValor(charge.amountCents) },
      chave: this.config.pixKey,
      ...(charge.description ? { solicitacaoPagador: charge.description.slice(0, 140) } : {}),
    };
    return { location: locationOf(checked(await this.http.call('PUT', `/cob/${charge.txid}`, body), 'cob')) };
  }

  async createDueCharge(charge: NewProviderDueCharge): Promise<{ location: string }> {
    // Punctuation out; letters stay (the alphanumeric CNPJ).
    const document = charge.payer.document.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    const body = {
      calendario: { dataDeVencimento: charge.dueDate, validadeAposVencimento: charge.daysAfterDue },
      devedor: { ...(document.length === 11 ? { cpf: document } : { cnpj: document }), nome: charge.payer.name.slice(0, 200) },
      valor: cobvValor(charge),
      chave: this.config.pixKey,
      ...(charge.description ? { solicitacaoPagador: charge.description.slice(0, 140) } : {}),
    };
    if (!isValidCpfOrCnpj(document)) throw new PixProviderRefused('the payer document is not a valid CPF or CNPJ');
    return { location: locationOf(checked(await this.http.call('PUT', `/cobv/${charge.txid}`, body), 'cobv')) };
  }

  async removeDueCharge(txid: string): Promise<void> {
    checked(await this.http.call('PATCH', `/cobv/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }), 'cobv');
  }

  async listReceived(from: Date, to: Date): Promise<PixReceipt[]> {
    const receipts: PixReceipt[] = [];
    for (let page = 0; ; page++) {
      const answer = checked(await this.http.call('GET', `/pix?${listQuery({ from, to }, page)}`), 'pix') as { pix?: unknown[]; parametros?: unknown };
      for (const item of answer.pix ?? []) {
        const receipt = receiptOf(item);
        if (receipt) receipts.push(receipt);
      }
      if (page + 1 >= pagesOf(answer, page, (answer.pix ?? []).length)) return receipts;
    }
  }

  /** Items the gateway cannot read (another status, a malformed idRec) are left out; the pages still count them. */
  async listRecurrences(window: ProviderWindow, page: number): Promise<ProviderPage<ProviderRecurrenceState & { recurrenceId: string }>> {
    const answer = checked(await this.http.call('GET', `/rec?${listQuery(window, page)}`), 'rec list');
    const items = listed(answer, 'recs');
    return { items: items.map(recurrenceStateOf).filter((s) => s !== null), pages: pagesOf(answer, page, items.length) };
  }

  async listRecurringCharges(window: ProviderWindow, page: number): Promise<ProviderPage<ProviderRecurringChargeState & { txid: string }>> {
    const answer = checked(await this.http.call('GET', `/cobr?${listQuery(window, page)}`), 'cobr list');
    const items = listed(answer, 'cobsr');
    return { items: items.map(recurringChargeStateOf).filter((s) => s !== null), pages: pagesOf(answer, page, items.length) };
  }

  async readPix(endToEndId: string): Promise<PixReceipt | null> {
    const answer = await this.http.call('GET', `/pix/${endToEndId}`);
    if (answer.status === 404) return null;
    const receipt = receiptOf(checked(answer, 'pix'));
    if (!receipt) throw new PixProviderUnavailable('the PSP answered a Pix without its endToEndId, valor or horario');
    return receipt;
  }

  /**
   * A devolução request (DevolucaoSolicitada): natureza ORIGINAL or RETIRADA, the only two a
   * receiver may ask for. MED returns are the PSP's to make; the type admits no MED natureza.
   */
  async refund(refund: ProviderRefund): Promise<RefundOutcome> {
    const body = {
      valor: toValor(refund.amountCents),
      natureza: refund.nature,
      ...(refund.description ? { descricao: refund.description.slice(0, 140) } : {}),
    };
    return outcomeOf(checked(await this.http.call('PUT', devolucaoPath(refund), body), 'devolucao'));
  }

  async lookupRefund(refund: ProviderRefund): Promise<RefundOutcome | null> {
    const answer = await this.http.call('GET', devolucaoPath(refund));
    if (answer.status === 404) return null;
    return outcomeOf(checked(answer, 'devolucao'));
  }

  /**
   * Journey 3: the immediate charge (`PUT /cob/{txid}`), the recurrence's location (`POST
   * /locrec`), then the recurrence naming both (`POST /rec`); the PSP forms the idRec. The
   * receiving account is checked first, so nothing is created that no cobr could follow.
   */
  async createRecurrence(recurrence: NewProviderRecurrence): Promise<{ recurrenceId: string; location: string; chargeLocation: string }> {
    this.receiver();
    const chargeLocation = (await this.createCharge({ txid: recurrence.txid, amountCents: recurrence.amountCents, expiresInSeconds: recurrence.expiresInSeconds })).location;
    const loc = checked(await this.http.call('POST', '/locrec', { tipo: 'rec' }), 'locrec') as { id?: unknown; location?: unknown };
    if (typeof loc.id !== 'number' || typeof loc.location !== 'string') throw new PixProviderUnavailable('the PSP answered a locrec without its id and location');
    const rec = checked(await this.http.call('POST', '/rec', recBody(recurrence, loc.id)), 'rec') as { idRec?: unknown };
    if (typeof rec.idRec !== 'string' || !REC_ID.test(rec.idRec)) throw new PixProviderUnavailable('the PSP answered a recurrence without its idRec');
    return { recurrenceId: rec.idRec, location: loc.location.replace(/^https?:\/\//i, ''), chargeLocation };
  }

  async sendRecurringCharge(charge: NewProviderRecurringCharge): Promise<void> {
    checked(await this.http.call('PUT', `/cobr/${charge.txid}`, cobrBody(charge, this.receiver())), 'cobr');
  }

  async requestRetry(txid: string, date: string): Promise<void> {
    checked(await this.http.call('POST', `/cobr/${txid}/retentativa/${date}`), 'cobr retry');
  }

  async cancelRecurringCharge(txid: string): Promise<void> {
    checked(await this.http.call('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' }), 'cobr');
  }

  async cancelRecurrence(recurrenceId: string): Promise<void> {
    checked(await this.http.call('PATCH', `/rec/${recurrenceId}`, { status: 'CANCELADA' }), 'rec');
  }

  /** PIX_RECEIVER_*: a cobr names the receiving account (CobRBase.recebedor). */
  private receiver(): ReceiverAccount {
    const { receiverAccount, receiverAccountType, receiverAgency } = this.config;
    if (!receiverAccount) throw new PixProviderRefused('Pix Automático with PIX_PROVIDER=bcb needs PIX_RECEIVER_ACCOUNT (the receiving account its charges name)');
    return { account: receiverAccount, accountType: receiverAccountType, ...(receiverAgency ? { agency: receiverAgency } : {}) };
  }

  close(): void {
    this.http.close();
  }
}

/** 2xx: the body; 4xx: refused, with the PSP's problem detail (RFC 7807, as the API Pix answers); else unavailable. */
function checked(answer: PspAnswer, what: string): Record<string, unknown> {
  if (answer.status >= 200 && answer.status < 300 && answer.body && typeof answer.body === 'object') return answer.body as Record<string, unknown>;
  if (answer.status >= 400 && answer.status < 500) {
    const problem = (answer.body ?? {}) as { detail?: unknown; title?: unknown };
    const reason = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : `answer ${answer.status}`;
    throw new PixProviderRefused(`the PSP refused the ${what}: ${reason.slice(0, 200)}`);
  }
  throw new PixProviderUnavailable(`PSP ${what} answered ${answer.status}`);
}

/** A list's query: the window (`inicio`, `fim`, RFC 3339) and the page (`paginacao.*`). */
function listQuery(window: ProviderWindow, page: number): URLSearchParams {
  return new URLSearchParams({ inicio: window.from.toISOString(), fim: window.to.toISOString(), 'paginacao.paginaAtual': String(page), 'paginacao.itensPorPagina': String(PAGE_SIZE) });
}

/**
 * `parametros.paginacao.quantidadeDePaginas` (1 when the PSP leaves it out), ending at `page`
 * when that page came empty: a count the items do not bear out is not followed.
 */
function pagesOf(answer: { parametros?: unknown }, page: number, items: number): number {
  if (items === 0) return page + 1;
  const pages = (answer.parametros as { paginacao?: { quantidadeDePaginas?: unknown } } | undefined)?.paginacao?.quantidadeDePaginas;
  return typeof pages === 'number' && Number.isInteger(pages) && pages > 0 ? pages : 1;
}

/** A list's items; a page without its array is no answer to read a window by (the cursor must not pass it). */
function listed(answer: Record<string, unknown>, key: 'recs' | 'cobsr'): Record<string, any>[] {
  const items = answer[key];
  if (!Array.isArray(items)) throw new PixProviderUnavailable(`the PSP answered a ${key} page without its list`);
  return items as Record<string, any>[];
}

function devolucaoPath(refund: ProviderRefund): string {
  if (!refund.endToEndId) throw new PixProviderRefused('the Pix to return has no endToEndId');
  return `/pix/${refund.endToEndId}/devolucao/${refund.refundId}`;
}

/** A devolução's status and motivo in the gateway's terms. */
function outcomeOf(answer: { status?: unknown; motivo?: unknown }): RefundOutcome {
  const status = REFUND_STATUS[String(answer.status ?? '')];
  if (!status) throw new PixProviderUnavailable(`PSP devolucao answered an unknown status "${String(answer.status).slice(0, 40)}"`);
  return { status, ...(typeof answer.motivo === 'string' && answer.motivo ? { reason: answer.motivo.slice(0, 140) } : {}) };
}

/** The payload URL the BR Code carries: `location` (API Pix v2), or `loc.location`. */
function locationOf(body: Record<string, unknown>): string {
  const loc = body.loc as { location?: unknown } | undefined;
  const location = typeof body.location === 'string' ? body.location : typeof loc?.location === 'string' ? loc.location : undefined;
  if (!location) throw new PixProviderUnavailable('the PSP answered a charge without its location');
  return location.replace(/^https?:\/\//i, '');
}

/** 10^4-scaled percents as the API Pix's `valorPerc` (two decimals): 2% (20000n) is "2.00". */
const PERCENT_SCALE = 100n;

/**
 * The `valor` of a `cobv`: the penalty as a percent (modalidade 2), or as its fixed amount
 * (modalidade 1) when the percent has more decimals than `valorPerc` holds (the amount is the
 * same, to the cent); interest as a percent a month over calendar days (modalidade 3); the
 * discounts as fixed amounts until their dates (modalidade 1, up to three).
 */
function cobvValor(charge: NewProviderDueCharge) {
  const valor: Record<string, unknown> = { original: toValor(charge.amountCents) };
  if (charge.penaltyPercent > 0n) {
    valor.multa = charge.penaltyPercent % PERCENT_SCALE === 0n
      ? { modalidade: 2, valorPerc: formatFixed(charge.penaltyPercent / PERCENT_SCALE, 2) }
      : { modalidade: 1, valorPerc: toValor(percentOf(charge.amountCents, charge.penaltyPercent, PERCENT_DECIMALS)) };
  }
  if (charge.interestPercentPerMonth > 0n) {
    if (charge.interestPercentPerMonth % PERCENT_SCALE !== 0n) throw new PixProviderRefused('the API Pix takes interest with at most 2 decimals');
    valor.juros = { modalidade: 3, valorPerc: formatFixed(charge.interestPercentPerMonth / PERCENT_SCALE, 2) };
  }
  if (charge.discounts.length) valor.desconto = { modalidade: 1, descontoDataFixa: charge.discounts.map((d) => ({ data: d.until, valorPerc: toValor(d.amountCents) })) };
  return valor;
}
