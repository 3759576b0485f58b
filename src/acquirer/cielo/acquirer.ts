import { createHash } from 'node:crypto';
import type { Acquirer, AuthorizeRequest, AuthorizeResult, CallContext, CancelRequest, CancelResult, LookupRequest, RefundRequest, RefundResult, ZeroAuthRequest, ZeroAuthResult } from '../types.js';
import { AcquirerUnavailable, RETURN_MESSAGES } from '../types.js';
import { CieloHttp, type CieloAnswer, type CieloCredentials } from './http.js';
import { CIELO_BRANDS, CIELO_STATUS, CIELO_VOID_CODES, cieloDeclineCategory, mapDeclineCode } from './mapping.js';
import { replacementOf, storedCredentialFields } from './stored-credentials.js';
import { cieloZeroAuth } from './zero-auth.js';

/** Cielo's production addresses (its reference): the transactional API and the query API. */
export const CIELO_PRODUCTION_API_URL = 'https://api.cieloecommerce.cielo.com.br';
export const CIELO_PRODUCTION_QUERY_URL = 'https://apiquery.cieloecommerce.cielo.com.br';
/** Marks references this connector issued (`cielo:<PaymentId>`), so a cancel finds its way back here. */
export const CIELO_REFERENCE_PREFIX = 'cielo:';

export interface CieloConnection extends CieloCredentials {
  apiUrl: string;
  queryUrl: string;
  /** `sandbox` applies the sandbox's own return codes over the ABECS table (see mapping.ts). */
  environment: 'production' | 'sandbox';
}

/** The fields of Cielo's sale answer (POST /1/sales/, GET /1/sales/{id}) that we read. */
interface CieloPayment {
  PaymentId?: string;
  Status?: number;
  ReturnCode?: string;
  ReturnMessage?: string;
  AuthorizationCode?: string;
  ProofOfSale?: string;
  Tid?: string;
  Amount?: number;
  CapturedAmount?: number;
  /** What has been voided (refunded) of the sale so far, in cents; absent before the first void. */
  VoidedAmount?: number;
  /** The network's reference of the charge, for later merchant-initiated ones. */
  IssuerTransactionId?: string;
  /** Renova Fácil: the issuer's replacement of a card sent on a recurring sale. */
  NewCard?: unknown;
}

/** The fields of a void's answer (PUT /1/sales/{id}/void) that we read. */
interface CieloVoidAnswer {
  Status?: number;
  ReturnCode?: string;
  ReturnMessage?: string;
}

/**
 * The Cielo E-commerce API 3.0 connector, written from Cielo's published reference: a sale is
 * `POST {api}/1/sales/` with `Capture: true` and our payment id as `MerchantOrderId`; a cancel
 * is `PUT {api}/1/sales/{PaymentId}/void?amount=N`, and so is a refund (a partial void, as many as
 * the captured amount allows); a lookup is `GET {query}/1/sales?merchantOrderId=` then
 * `GET {query}/1/sales/{PaymentId}`. Cielo does not deduplicate sales, so the gateway's
 * rule that it never sends one payment twice while a send may still be in flight
 * (`settleWindowMs`, twice the timeout) is what keeps a customer from paying twice.
 */
export class CieloAcquirer implements Acquirer {
  private readonly windowMs: number;

  constructor(
    private readonly connection: CieloConnection,
    private readonly http: CieloHttp,
    timeoutMs: number,
  ) {
    // Twice the timeout: our own request is over by then, and Cielo's query side has caught up.
    this.windowMs = 2 * timeoutMs;
  }

  async settleWindowMs(): Promise<number> {
    return this.windowMs;
  }

  async authorize(request: AuthorizeRequest, { idempotencyKey }: CallContext): Promise<AuthorizeResult> {
    const { card } = request;
    const stored = storedCredentialFields(request.initiator);
    const sale = {
      MerchantOrderId: idempotencyKey,
      Customer: { Name: card.holderName },
      Payment: {
        Type: 'CreditCard',
        Amount: request.amount,
        Installments: request.installments,
        Capture: true,
        ...authenticationNode(request.authentication),
        ...stored.payment,
        CreditCard: {
          CardNumber: card.pan,
          Holder: card.holderName,
          ExpirationDate: `${card.expMonth}/${card.expYear}`,
          ...(card.cvv ? { SecurityCode: card.cvv } : {}),
          Brand: CIELO_BRANDS[card.brand],
          ...stored.creditCard,
        },
      },
    };
    const answer = await this.http.call('POST', this.url('api', '/1/sales/'), this.connection, sale);
    if (answer.status >= 500) throw new AcquirerUnavailable(true, `Cielo answered ${answer.status} to the sale`);
    if (answer.status >= 400) return { outcome: 'failed', returnCode: '96', returnMessage: `Cielo refused the sale: ${errorsOf(answer)}` };
    const result = this.toResult(paymentOf(answer));
    if (result === 'pending') throw new AcquirerUnavailable(true, 'Cielo has not decided the sale yet');
    return result;
  }

  async zeroAuth(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    return cieloZeroAuth(this.http, this.url('api', '/1/zeroauth'), this.connection, request);
  }

  async cancel(request: CancelRequest, _context: CallContext): Promise<CancelResult> {
    const paymentId = request.acquirerReference.slice(CIELO_REFERENCE_PREFIX.length);
    const url = this.url('api', `/1/sales/${encodeURIComponent(paymentId)}/void`);
    url.searchParams.set('amount', String(request.amount));
    const answer = await this.http.call('PUT', url, this.connection);
    if (answer.status >= 500) throw new AcquirerUnavailable(true, `Cielo answered ${answer.status} to the void`);
    if (answer.status < 300 && CIELO_STATUS[Number((answer.body as CieloPayment)?.Status)] === 'voided') return { outcome: 'canceled' };
    // A void of a sale voided before (our answer lost, or a retry) is refused: ask what it is now.
    const current = await this.sale(paymentId);
    if (current && CIELO_STATUS[Number(current.Status)] === 'voided') return { outcome: 'canceled' };
    return { outcome: 'failed', returnMessage: `Cielo refused the void: ${errorsOf(answer)}` };
  }

  /**
   * A partial void for the refund's amount. Cielo keeps no key per void, and a void sent twice
   * would refund twice: a lost answer is never sent again, it is looked up (`lookupRefund`).
   * Cielo asks for 5 seconds between two voids of one sale (its balance is updated meanwhile);
   * a void refused for that is a Failed refund the merchant may send again.
   */
  async refund(request: RefundRequest, _context: CallContext): Promise<RefundResult> {
    const paymentId = request.acquirerReference.slice(CIELO_REFERENCE_PREFIX.length);
    const url = this.url('api', `/1/sales/${encodeURIComponent(paymentId)}/void`);
    url.searchParams.set('amount', String(request.amount));
    const answer = await this.http.call('PUT', url, this.connection);
    if (answer.status >= 500) throw new AcquirerUnavailable(true, `Cielo answered ${answer.status} to the void`);
    if (answer.status >= 300) return { outcome: 'failed', returnMessage: `Cielo refused the refund: ${errorsOf(answer)}` };
    const body = (answer.body ?? {}) as CieloVoidAnswer;
    const code = String(body.ReturnCode ?? '').trim();
    const kind = CIELO_VOID_CODES[code] ?? (CIELO_STATUS[Number(body.Status)] === 'voided' ? 'done' : undefined);
    if (kind === 'done') return { outcome: 'refunded' };
    if (kind === 'unknown') throw new AcquirerUnavailable(true, `Cielo answered the void with ReturnCode ${code}: its outcome is read from the sale`);
    return { outcome: 'failed', returnMessage: `Cielo refused the refund: ReturnCode ${code || '-'}${body.ReturnMessage ? ` ${body.ReturnMessage}` : ''}` };
  }

  /**
   * Reads the sale's refunded total (VoidedAmount): this refund was made when it covers what was
   * refunded before plus this amount, and was not when it is exactly what was refunded before.
   * Anything else (a query lagging behind, a void made in Cielo's back office) cannot be told
   * apart: it is reported as no answer, so the refund stays Pending rather than be guessed.
   */
  async lookupRefund(request: RefundRequest, _context: CallContext): Promise<RefundResult | null> {
    const paymentId = request.acquirerReference.slice(CIELO_REFERENCE_PREFIX.length);
    const sale = await this.sale(paymentId);
    if (!sale) throw new AcquirerUnavailable(true, `Cielo's query does not show sale ${paymentId}`);
    const full = sale.CapturedAmount ?? sale.Amount ?? 0;
    const voided = sale.VoidedAmount ?? (CIELO_STATUS[Number(sale.Status)] === 'voided' ? full : 0);
    if (voided >= request.refundedBefore + request.amount) return { outcome: 'refunded' };
    if (voided === request.refundedBefore) return null;
    // Below what was refunded before: a query that has not caught up yet. In between: not ours to guess.
    throw new AcquirerUnavailable(true, `Cielo's VoidedAmount ${voided} is neither ${request.refundedBefore} (refund not made) nor ${request.refundedBefore + request.amount} (made)`);
  }

  async lookup({ idempotencyKey }: LookupRequest): Promise<AuthorizeResult | 'pending' | null> {
    const url = this.url('query', '/1/sales');
    url.searchParams.set('merchantOrderId', idempotencyKey);
    const answer = await this.http.call('GET', url, this.connection);
    // Cielo answers 404 (or an empty list) for an order id it never received.
    if (answer.status === 404) return null;
    if (answer.status >= 300) throw new AcquirerUnavailable(true, `Cielo's query answered ${answer.status}`);
    const found = ((answer.body as { Payments?: { PaymentId?: string }[] })?.Payments ?? []).filter((p) => typeof p.PaymentId === 'string');
    if (found.length === 0) return null;
    const sales = await Promise.all(found.map((p) => this.sale(p.PaymentId!)));
    // One sale per order id is the rule; should there be more, an approval is what was charged.
    const results = sales.filter((s): s is CieloPayment => s !== null).map((s) => this.toResult(s));
    if (results.length === 0) throw new AcquirerUnavailable(true, 'Cielo listed a sale its query could not show');
    return results.find((r) => r !== 'pending' && r.outcome === 'approved') ?? results.find((r) => r === 'pending') ?? results[0];
  }

  private async sale(paymentId: string): Promise<CieloPayment | null> {
    const answer = await this.http.call('GET', this.url('query', `/1/sales/${encodeURIComponent(paymentId)}`), this.connection);
    if (answer.status === 404) return null;
    if (answer.status >= 300) throw new AcquirerUnavailable(true, `Cielo's query answered ${answer.status}`);
    return paymentOf(answer);
  }

  private toResult(payment: CieloPayment): AuthorizeResult | 'pending' {
    const status = CIELO_STATUS[Number(payment.Status)];
    const code = String(payment.ReturnCode ?? '').trim();
    const detail = `Cielo Status ${payment.Status}, ReturnCode ${code || '-'}${payment.ReturnMessage ? ` ${payment.ReturnMessage}` : ''}${payment.ProofOfSale ? `, ProofOfSale ${payment.ProofOfSale}` : ''}${payment.Tid ? `, Tid ${payment.Tid}` : ''}`;
    if (status === undefined || status === 'pending') return 'pending';
    if (!payment.PaymentId) throw new AcquirerUnavailable(true, 'Cielo answered a sale without a PaymentId');
    const acquirerReference = `${CIELO_REFERENCE_PREFIX}${payment.PaymentId}`;
    const nsu = nsuOf(payment.PaymentId);
    if (status === 'approved') {
      const networkReference = typeof payment.IssuerTransactionId === 'string' && payment.IssuerTransactionId.trim() ? payment.IssuerTransactionId.trim() : undefined;
      return { outcome: 'approved', returnCode: '00', returnMessage: `${RETURN_MESSAGES['00']} (${detail})`, authorizationCode: authorizationCodeOf(payment), nsu, acquirerReference, ...(networkReference ? { networkReference } : {}) };
    }
    // A processing failure, a sale voided before we recorded it, or a decline that means the network: nothing charged.
    const mapped = status === 'declined' ? mapDeclineCode(code, this.connection.environment) : 'failed';
    if (mapped === 'failed') return { outcome: 'failed', returnCode: '96', returnMessage: `${RETURN_MESSAGES['96']}: nothing was charged (${detail})`, declineCategory: 'retryable' };
    const newCard = replacementOf(payment.NewCard);
    const declineCategory = cieloDeclineCategory(code, this.connection.environment, mapped);
    return { outcome: 'declined', returnCode: mapped, returnMessage: `${RETURN_MESSAGES[mapped]} (${detail})`, nsu, acquirerReference, declineCategory, ...(newCard ? { newCard } : {}) };
  }

  private url(which: 'api' | 'query', path: string): URL {
    const base = which === 'api' ? this.connection.apiUrl : this.connection.queryUrl;
    return new URL(base.replace(/\/+$/, '') + path);
  }
}

function paymentOf(answer: CieloAnswer): CieloPayment {
  const body = answer.body as { Payment?: CieloPayment } | null;
  if (!body?.Payment) throw new AcquirerUnavailable(true, `Cielo answered ${answer.status} without a Payment`);
  return body.Payment;
}

/** Cielo's error array `[{Code, Message}]`, as one line; never anything we sent. */
function errorsOf(answer: CieloAnswer): string {
  // An array of errors; a refused credential comes as one object (`{"Message": "Merchant not found"}`).
  const body = answer.body as { Code?: unknown; Message?: unknown }[] | { Code?: unknown; Message?: unknown } | null;
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
  const text = list
    .slice(0, 5)
    .map((e) => `${String(e.Code ?? '?')} ${String(e.Message ?? '').slice(0, 200)}`.trim())
    .join('; ');
  return text || `HTTP ${answer.status}`;
}

/**
 * The contract's nsu is a unique numeric string. Cielo's ProofOfSale repeats (per day, per
 * affiliation), so ours is derived from Cielo's PaymentId (a UUID): 18 digits, the same on every
 * lookup of the sale. ProofOfSale and Tid stay in the return message for the merchant's
 * reconciliation with Cielo's own reports.
 */
function nsuOf(paymentId: string): string {
  const digits = BigInt('0x' + createHash('sha256').update(paymentId).digest('hex').slice(0, 16)) % 10n ** 17n;
  return `1${digits.toString().padStart(17, '0')}`;
}

/** Six characters, as the contract's authorizationCode; Cielo's is 6 already. */
function authorizationCodeOf(payment: CieloPayment): string {
  const code = (payment.AuthorizationCode ?? '').replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  return (code || (payment.ProofOfSale ?? '000000')).slice(-6).padStart(6, '0');
}

/**
 * 3-D Secure as Cielo takes it ("Authorization with Authentication", "Data Only"): an
 * authentication, ours or the merchant's, is `Authenticate: true` with the
 * `ExternalAuthentication` node (Eci written as one digit, as Cielo's examples do; Version its
 * major number; ReferenceId the 3DS server's transaction); Data Only is `Authenticate: false`
 * with `DataOnly: true` and no Cavv.
 */
function authenticationNode(auth: AuthorizeRequest['authentication']): Record<string, unknown> {
  if (!auth) return {};
  const eci = auth.eci === undefined ? {} : { Eci: String(Number(auth.eci)) };
  if (auth.dataOnly) return { Authenticate: false, ExternalAuthentication: { ...eci, Version: auth.version ?? '2.2.0', DataOnly: true } };
  return {
    Authenticate: true,
    ExternalAuthentication: {
      ...(auth.cavv ? { Cavv: auth.cavv } : {}),
      ...(auth.xid ? { Xid: auth.xid } : {}),
      ...eci,
      Version: (auth.version ?? '2').split('.')[0],
      ...(auth.referenceId ? { ReferenceId: auth.referenceId } : {}),
    },
  };
}
