import { AcquirerUnavailable, RETURN_MESSAGES, type ReturnCode, type ZeroAuthRequest, type ZeroAuthResult } from '../types.js';
import type { CieloHttp, CieloCredentials } from './http.js';
import { CIELO_BRANDS } from './mapping.js';

/**
 * Cielo's zero auth return codes (Cielo's "Códigos de retorno Zero Auth" table), as data:
 * 00 the card is valid; 57 "Autorizacao negada", the card is not valid for transactions (ours:
 * 14, invalid card); 322 (zero auth not enabled) and 389 (registration restriction) mean Cielo
 * could not check the card, which says nothing of the card (ours: 96).
 */
export const CIELO_ZERO_AUTH_CODES: Record<string, ReturnCode> = {
  '00': '00',
  '0': '00',
  '57': '14',
  '322': '96',
  '323': '96',
  '389': '96',
};

/** The fields of Cielo's zero auth answer that we read. */
interface CieloZeroAuthAnswer {
  Valid?: boolean;
  ReturnCode?: string;
  ReturnMessage?: string;
  IssuerTransactionId?: string;
}

/**
 * `POST {api}/1/zeroauth`: a zero-amount authorization that checks the card with its issuer.
 * `CardOnFile` says the card is being stored for recurring charges when it is.
 */
export async function cieloZeroAuth(http: CieloHttp, url: URL, credentials: CieloCredentials, request: ZeroAuthRequest): Promise<ZeroAuthResult> {
  const { card } = request;
  const body = {
    CardType: 'CreditCard',
    CardNumber: card.pan,
    Holder: card.holderName,
    ExpirationDate: `${card.expMonth}/${card.expYear}`,
    ...(card.cvv ? { SecurityCode: card.cvv } : {}),
    Brand: CIELO_BRANDS[card.brand],
    ...(request.storing ? { CardOnFile: { Usage: 'First', Reason: 'Recurring' } } : {}),
  };
  const answer = await http.call('POST', url, credentials, body);
  if (answer.status >= 500) throw new AcquirerUnavailable(true, `Cielo answered ${answer.status} to the zero auth`);
  if (answer.status >= 400) {
    const errors = Array.isArray(answer.body) ? (answer.body as { Code?: unknown; Message?: unknown }[]) : [];
    const why = errors.map((e) => `${String(e.Code ?? '?')} ${String(e.Message ?? '').slice(0, 200)}`).join('; ') || `HTTP ${answer.status}`;
    return { valid: false, returnCode: '96', returnMessage: `Cielo could not check the card: ${why}` };
  }
  const got = (answer.body ?? {}) as CieloZeroAuthAnswer;
  const cieloCode = String(got.ReturnCode ?? '').trim();
  const mapped = got.Valid === true ? '00' : (CIELO_ZERO_AUTH_CODES[cieloCode] ?? '05');
  const detail = `Cielo ReturnCode ${cieloCode || '-'}${got.ReturnMessage ? ` ${String(got.ReturnMessage).slice(0, 200)}` : ''}`;
  if (mapped === '00') {
    const reference = typeof got.IssuerTransactionId === 'string' && got.IssuerTransactionId.trim() ? got.IssuerTransactionId.trim() : undefined;
    return { valid: true, returnCode: '00', returnMessage: `Card verified (${detail})`, ...(reference ? { networkReference: reference } : {}) };
  }
  return { valid: false, returnCode: mapped, returnMessage: `${RETURN_MESSAGES[mapped]} (${detail})` };
}
