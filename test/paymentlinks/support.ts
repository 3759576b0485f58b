import type { LightMyRequestResponse } from 'fastify';
import { encryptCard } from '../support/cards.js';
import type { TestApp, TestMerchant } from '../support/harness.js';

export const LINKS = '/gateway/v1/paymentlink';

/** An ISO instant `hours` from the app's business time. */
export function fromNow(t: TestApp, hours: number): string {
  return new Date(t.ctx.clock.now().getTime() + hours * 3_600_000).toISOString();
}

export function linkBody(t: TestApp, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { description: 'Pedido 1001', value: 100, qttyInstallments: 6, expirationDate: fromNow(t, 48), ...overrides };
}

/** Creates a link through the API and answers its view (throws when not 201). */
export async function createLink(t: TestApp, m: TestMerchant, overrides: Record<string, unknown> = {}) {
  const res = await t.inject({ method: 'POST', url: LINKS, headers: m.headers, payload: linkBody(t, overrides) });
  if (res.statusCode !== 201) throw new Error(`create link failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function information(t: TestApp, m: TestMerchant, id: string) {
  const res = await t.inject({ method: 'GET', url: `${LINKS}/information?id=${id}`, headers: m.headers });
  if (res.statusCode !== 200) throw new Error(`information failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** What the checkout page sends, built the way the page builds it (the card encrypted with the public key). */
export async function checkoutBody(t: TestApp, number: string, extra: Record<string, unknown> = {}) {
  const encryptedCard = await encryptCard(t, { number, expirationMonth: '12', expirationYear: '2035', securityCode: number.startsWith('3') ? '1234' : '123' });
  return { encryptedCard, cardholderName: 'MARIA SILVA', installments: 1, ...extra };
}

export async function payLink(
  t: TestApp,
  id: string,
  number: string,
  extra: Record<string, unknown> = {},
  remoteAddress = '203.0.113.10',
): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'POST', url: `/pay/${id}/payments`, payload: await checkoutBody(t, number, extra), remoteAddress });
}
