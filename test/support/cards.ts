import { constants, publicEncrypt } from 'node:crypto';
import { luhnValid } from '../../src/domain/cards.js';
import type { TestApp, TestMerchant } from './harness.js';

/** Test helpers that go through HTTP like an integrator: tokenize, vault, encrypt. */
export async function tokenize(t: TestApp, m: TestMerchant, cardNumber: string, extra: Record<string, string> = {}): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/gateway/v1/tokens/cards',
    headers: m.headers,
    payload: { cardNumber, expirationMonth: '12', expirationYear: '2035', ...extra },
  });
  if (res.statusCode !== 201) throw new Error(`tokenize failed: ${res.statusCode} ${res.body}`);
  return res.json().numberToken;
}

export async function vault(t: TestApp, m: TestMerchant, cardNumber: string, cardholderName = 'MARIA SILVA'): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/gateway/v1/vaults/cards',
    headers: m.headers,
    payload: { cardNumber, expirationMonth: '12', expirationYear: '2035', cardholderName },
  });
  if (res.statusCode !== 201) throw new Error(`vault failed: ${res.statusCode} ${res.body}`);
  return res.json().vaultId;
}

export async function encryptCard(t: TestApp, card: Record<string, string>): Promise<string> {
  const { publicKey } = (await t.inject({ method: 'GET', url: '/gateway/cards/public-key' })).json();
  return publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(JSON.stringify(card))).toString('base64');
}

export const GUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

/** A valid payment body around one card source; override any part. */
export function paymentBody(cardInfo: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  return {
    payment: { transactionType: 'credit', amount: 10000, productType: 'avista', installments: 1 },
    sellerInfo: { codeAntiFraud: GUID },
    cardInfo: { cardholderName: 'MARIA SILVA', ...cardInfo },
    customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'maria@example.com', ipAddress: '198.51.100.7', country: 'BR' },
    referenceTransaction: 'order-1',
    ...overrides,
  };
}

/**
 * A Luhn-valid card number of `length` digits starting with `prefix` and, when `last` is given,
 * ending in that digit (Cielo's sandbox decides by it). Amex (34, 37) is 15 digits by default.
 */
export function cardNumber(prefix: string, options: { length?: number; last?: number } = {}): string {
  const length = options.length ?? (/^3[47]/.test(prefix) ? 15 : 16);
  const tail = options.last === undefined ? '' : String(options.last);
  for (let n = 0; ; n++) {
    const pan = `${prefix}${String(n).padStart(length - prefix.length - tail.length, '0')}${tail}`;
    if (luhnValid(pan)) return pan;
  }
}
