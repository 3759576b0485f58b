import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { validateCard } from '../../src/modules/cards/card-data.js';
import { CvvStore } from '../../src/modules/cards/cvv-store.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { AMEX, ELO, HIPERCARD, MASTERCARD, tagsOf, VISA } from './support.js';

const MINUTE_MS = 60_000;

describe(`card tokens (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const tokenize = (payload: object, headers: Record<string, string> = m.headers) =>
    t.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers, payload });
  const card = (cardNumber: string, extra: object = {}) => ({ cardNumber, expirationMonth: '12', expirationYear: '2035', ...extra });
  const consume = (merchantId: string, numberToken: string) =>
    t.ctx.database.db.transaction().execute((trx) => t.ctx.cards.consumeToken(trx, merchantId, numberToken));
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as DomainError);

  it('issues an opaque numberToken valid for 10 minutes of wall time', async () => {
    const before = Date.now();
    const res = await tokenize(card(VISA, { securityCode: '737' }));
    const after = Date.now();
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['brand', 'expiresAt', 'maskedNumber', 'numberToken']);
    expect(body.numberToken).toMatch(/^tok_[A-Za-z0-9_-]{32}$/);
    expect(body).toMatchObject({ brand: 'visa', maskedNumber: '411111******1111' });
    const expiresAt = Date.parse(body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 10 * MINUTE_MS);
    expect(expiresAt).toBeLessThanOrEqual(after + 10 * MINUTE_MS);
    expect(body.expiresAt).toMatch(/Z$/);
    expect(res.body).not.toContain(VISA);
    expect(res.body).not.toContain('737');
  });

  it('requires a gateway token with the payments scope', async () => {
    expect((await tokenize(card(VISA), {})).statusCode).toBe(401);
    const recurrenceOnly = await t.merchant({ scopes: ['recurrence'] });
    const res = await tokenize(card(VISA), recurrenceOnly.headers);
    expect(res.statusCode).toBe(403);
    expect(res.json()[0].tag).toBe('insufficient_scope');
  });

  it('is single use, and a payment that rolls back does not use it up', async () => {
    const { numberToken } = (await tokenize(card(MASTERCARD, { securityCode: '123' }))).json();
    const rolledBack = await failure(
      t.ctx.database.db.transaction().execute(async (trx) => {
        const used = await t.ctx.cards.consumeToken(trx, m.merchantId, numberToken);
        expect(used).toMatchObject({ pan: MASTERCARD, brand: 'mastercard', cvv: '123' });
        throw new Error('payment failed');
      }),
    );
    expect((rolledBack as unknown as Error).message).toBe('payment failed');
    // Still usable; its CVV served one attempt and is gone (never stored, kept in memory once).
    const card2 = await consume(m.merchantId, numberToken);
    expect(card2).toMatchObject({ pan: MASTERCARD, brand: 'mastercard', expMonth: '12', expYear: '2035', bin: '555555', last4: '4444', panLength: 16 });
    expect(card2.cvv).toBeUndefined();
    expect(card2.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const again = await failure(consume(m.merchantId, numberToken));
    expect(again).toMatchObject({ kind: 'invalid', errors: [{ tag: 'cardInfo.numberToken', description: expect.stringContaining('already used') }] });
  });

  it('answers another merchant with 404 and leaves the token unused', async () => {
    const { numberToken } = (await tokenize(card(VISA))).json();
    const other = await t.merchant();
    const foreign = await failure(consume(other.merchantId, numberToken));
    expect(foreign).toMatchObject({ kind: 'not_found', errors: [{ tag: 'not_found' }] });
    const unknown = await failure(consume(m.merchantId, 'tok_unknownunknownunknownunknownunkn'));
    expect(unknown).toMatchObject({ kind: 'not_found' });
    const row = await t.ctx.database.db.selectFrom('card_tokens').select('consumed_at').where('number_token', '=', numberToken).executeTakeFirstOrThrow();
    expect(row.consumed_at).toBeNull();
    await expect(consume(m.merchantId, numberToken)).resolves.toMatchObject({ pan: VISA });
  });

  it('expires after 10 minutes (wall clock): 400 with the tag', async () => {
    const { numberToken } = (await tokenize(card(VISA))).json();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start + 10 * MINUTE_MS + 1000);
    const expired = await failure(t.ctx.database.db.transaction().execute((trx) => t.ctx.cards.consumeToken(trx, m.merchantId, numberToken, 'numberToken')));
    expect(expired).toMatchObject({ kind: 'invalid', errors: [{ tag: 'numberToken', description: expect.stringContaining('expired') }] });
  });

  it('rejects each invalid field with its tag, never repeating the number or CVV', async () => {
    const cases: [string, object, string][] = [
      ['Luhn', card('4111111111111112'), 'cardNumber'],
      ['non-digits', card('4111 1111 1111 1111'), 'cardNumber'],
      ['unknown brand', card('6011111111111117'), 'cardNumber'],
      ['brand mismatch', card(VISA, { brand: 'mastercard' }), 'brand'],
      ['unknown brand name', card(VISA, { brand: 'diners' }), 'brand'],
      ['month 13', card(VISA, { expirationMonth: '13' }), 'expirationMonth'],
      ['month 00', card(VISA, { expirationMonth: '00' }), 'expirationMonth'],
      ['year of 3 digits', card(VISA, { expirationYear: '203' }), 'expirationYear'],
      ['expired', card(VISA, { expirationMonth: '01', expirationYear: '2020' }), 'expirationMonth'],
      ['visa CVV of 4', card(VISA, { securityCode: '7377' }), 'securityCode'],
      ['amex CVV of 3', card(AMEX, { securityCode: '737' }), 'securityCode'],
      ['CVV letters', card(VISA, { securityCode: '7a7' }), 'securityCode'],
    ];
    for (const [name, payload, tag] of cases) {
      const res = await tokenize(payload);
      expect(res.statusCode, name).toBe(400);
      expect(tagsOf(res), name).toEqual([tag]);
      for (const secret of ['4111111111111112', VISA, '6011111111111117', '7377', '"737"', '7a7']) expect(res.body, name).not.toContain(secret);
    }
  });

  it('lists every problem of one card at once', async () => {
    const res = await tokenize({ cardNumber: '4111111111111112', expirationMonth: '13', expirationYear: '203', securityCode: 'x' });
    expect(res.statusCode).toBe(400);
    expect(tagsOf(res)).toEqual(['cardNumber', 'expirationMonth', 'expirationYear', 'securityCode']);
  });

  it('accepts the CVV length of each brand and a two-digit year', async () => {
    expect((await tokenize(card(AMEX, { securityCode: '1234' }))).json()).toMatchObject({ brand: 'amex', maskedNumber: '378282*****0005' });
    expect((await tokenize(card(VISA, { securityCode: '123', brand: 'VISA' }))).statusCode).toBe(201);
    const short = (await tokenize(card(VISA, { expirationYear: '35' }))).json();
    await expect(consume(m.merchantId, short.numberToken)).resolves.toMatchObject({ expYear: '2035' });
  });

  it('detects elo and hipercard', async () => {
    expect((await tokenize(card(ELO))).json()).toMatchObject({ brand: 'elo', maskedNumber: '636297******7013' });
    expect((await tokenize(card(HIPERCARD))).json()).toMatchObject({ brand: 'hipercard', maskedNumber: '606282******4001' });
    // An Elo BIN inside Visa's and Mastercard's prefixes is still Elo.
    expect((await tokenize(card('5090000000000000'))).json().brand).toBe('elo');
  });

  it('takes exactly one form of card data', async () => {
    const both = await tokenize({ ...card(VISA), encryptedCard: 'QUJD' });
    expect(both.statusCode).toBe(400);
    expect(tagsOf(both)).toEqual(['encryptedCard']);
    const neither = await tokenize({});
    expect(neither.statusCode).toBe(400);
    expect(tagsOf(neither)).toEqual(['cardNumber', 'expirationMonth', 'expirationYear']);
    const tooLong = await tokenize(card('41111111111111111111'));
    expect(tagsOf(tooLong)).toEqual(['cardNumber']);
  });

  it('replays the answer for the same Idempotency-Key', async () => {
    const headers = { ...m.headers, 'idempotency-key': 'tok-1' };
    const first = await tokenize(card(VISA), headers);
    const second = await tokenize(card(VISA), headers);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().numberToken).toBe(first.json().numberToken);
  });

  it('judges expiry by business time: the sandbox clock can expire a card', async () => {
    const fresh = await testApp();
    try {
      const merchant = await fresh.merchant();
      const now = fresh.ctx.clock.now();
      const month = String(now.getUTCMonth() + 1).padStart(2, '0');
      const payload = { cardNumber: VISA, expirationMonth: month, expirationYear: String(now.getUTCFullYear()) };
      const url = '/gateway/v1/tokens/cards';
      expect((await fresh.inject({ method: 'POST', url, headers: merchant.headers, payload })).statusCode).toBe(201);
      await fresh.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: fresh.adminHeaders, payload: { days: 32 } });
      const expired = await fresh.inject({ method: 'POST', url, headers: merchant.headers, payload });
      expect(expired.statusCode).toBe(400);
      expect(tagsOf(expired)).toEqual(['expirationMonth']);
    } finally {
      await fresh.close();
    }
  });
});

describe('validateCard', () => {
  const now = new Date('2026-03-15T12:00:00Z');

  it('normalises a valid card', () => {
    expect(validateCard({ number: AMEX, expirationMonth: '03', expirationYear: '26', securityCode: '1234', brand: 'amex' }, now, 'cardInfo')).toEqual({
      pan: AMEX, brand: 'amex', expMonth: '03', expYear: '2026', cvv: '1234', bin: '378282', last4: '0005', panLength: 15,
    });
  });

  it('tags problems under the prefix and never includes the PAN or CVV', () => {
    const error = (() => {
      try {
        validateCard({ number: '4111111111111112', expirationMonth: '02', expirationYear: '2026', securityCode: '98765' }, now, 'cardInfo');
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(error?.kind).toBe('invalid');
    expect(error?.errors.map((e) => e.tag)).toEqual(['cardInfo.cardNumber', 'cardInfo.expirationMonth', 'cardInfo.securityCode']);
    expect(JSON.stringify(error?.errors)).not.toMatch(/4111111111111112|98765/);
  });
});

describe('CvvStore', () => {
  it('hands a CVV out once and forgets it when it expires', () => {
    const store = new CvvStore();
    const t0 = new Date('2026-01-01T00:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    store.put('a', '123', at(10 * MINUTE_MS), t0);
    store.put('b', '456', at(11 * MINUTE_MS), at(MINUTE_MS));
    expect(store.take('a', at(1000))).toBe('123');
    expect(store.take('a', at(1000))).toBeUndefined();
    store.put('c', '789', at(30 * MINUTE_MS), at(20 * MINUTE_MS)); // purges b on the way
    expect(store.size).toBe(1);
    expect(store.take('b', at(20 * MINUTE_MS))).toBeUndefined();
    expect(store.take('c', at(31 * MINUTE_MS))).toBeUndefined();
  });
});
