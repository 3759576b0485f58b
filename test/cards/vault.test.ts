import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainError } from '../../src/domain/errors.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { allValues, AMEX, ELO, encryptCard, MASTERCARD, Recorder, tagsOf, VISA } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A PAN used only in this file, so the final scan can only find it where this file put it. */
const SECRET_PAN = '4000000000009987';

describe(`card vault (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let rec: Recorder;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    rec = new Recorder(t);
  });
  afterAll(() => t.close());

  const store = (payload: object, headers: Record<string, string> = m.headers) => rec.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers, payload });
  const get = (vaultId: string, headers: Record<string, string> = m.headers) => rec.inject({ method: 'GET', url: `/gateway/v1/vaults/cards/${vaultId}`, headers });
  const remove = (vaultId: string, headers: Record<string, string> = m.headers) => rec.inject({ method: 'DELETE', url: `/gateway/v1/vaults/cards/${vaultId}`, headers });
  const tokenize = async (payload: object) => (await rec.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers: m.headers, payload })).json().numberToken as string;
  const load = (merchantId: string, vaultId: string) => t.ctx.cards.loadVaultCard(t.ctx.database.db, merchantId, vaultId);

  it('stores plain card data (ignoring a CVV) and answers the stored card', async () => {
    const res = await store({ cardNumber: SECRET_PAN, expirationMonth: '07', expirationYear: '33', securityCode: '555', cardholderName: ' MARIA SILVA ' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({ vaultId: expect.stringMatching(UUID), brand: 'visa', maskedNumber: '400000******9987', expirationMonth: '07', expirationYear: '2033', cardholderName: 'MARIA SILVA' });
    expect(body.vaultId).toHaveLength(36);
    const got = await get(body.vaultId);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
    const card = await load(m.merchantId, body.vaultId);
    expect(card).toMatchObject({ pan: SECRET_PAN, brand: 'visa', expMonth: '07', expYear: '2033', cardholderName: 'MARIA SILVA', sandboxReturnCode: null, vaultId: body.vaultId });
    expect(card.cvv).toBeUndefined();
  });

  it('stores a card from an encryptedCard', async () => {
    const encryptedCard = await encryptCard(t, { number: AMEX, expirationMonth: '01', expirationYear: '2031', securityCode: '1234' });
    const res = await store({ encryptedCard, cardholderName: 'JOAO SOUZA' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ brand: 'amex', maskedNumber: '378282*****0005', expirationMonth: '01', expirationYear: '2031' });
    expect((await load(m.merchantId, res.json().vaultId)).pan).toBe(AMEX);
  });

  it('stores a card from a numberToken and uses the token up', async () => {
    const numberToken = await tokenize({ cardNumber: ELO, expirationMonth: '05', expirationYear: '2030', securityCode: '321' });
    const res = await store({ numberToken, cardholderName: 'ANA LIMA' });
    expect(res.statusCode).toBe(201);
    const vaultId = res.json().vaultId;
    expect(res.json()).toMatchObject({ brand: 'elo', maskedNumber: '636297******7013' });
    const stored = await load(m.merchantId, vaultId);
    expect(stored.pan).toBe(ELO);
    // Same card, same fingerprint, whichever way it came in.
    const again = await tokenize({ cardNumber: ELO, expirationMonth: '05', expirationYear: '2030' });
    const viaToken = await t.ctx.database.db.transaction().execute((trx) => t.ctx.cards.consumeToken(trx, m.merchantId, again));
    expect(viaToken.fingerprint).toBe(stored.fingerprint);
    expect((await load(m.merchantId, (await store({ cardNumber: VISA, expirationMonth: '05', expirationYear: '2030', cardholderName: 'X' })).json().vaultId)).fingerprint).not.toBe(stored.fingerprint);

    const reused = await store({ numberToken, cardholderName: 'ANA LIMA' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()[0]).toMatchObject({ tag: 'numberToken', description: expect.stringContaining('already used') });
  });

  it("answers another merchant's token with 404 and does not consume it", async () => {
    const numberToken = await tokenize({ cardNumber: MASTERCARD, expirationMonth: '05', expirationYear: '2030' });
    const other = await t.merchant();
    const foreign = await store({ numberToken, cardholderName: 'ANA LIMA' }, other.headers);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()[0].tag).toBe('not_found');
    expect((await store({ numberToken, cardholderName: 'ANA LIMA' })).statusCode).toBe(201);
  });

  it('requires exactly one source and a cardholderName of 1 to 30 characters', async () => {
    const numberToken = await tokenize({ cardNumber: VISA, expirationMonth: '05', expirationYear: '2030' });
    const two = await store({ numberToken, cardNumber: VISA, expirationMonth: '05', expirationYear: '2030', cardholderName: 'A' });
    expect(two.statusCode).toBe(400);
    expect(tagsOf(two)).toEqual(['numberToken']);
    const none = await store({ cardholderName: 'A' });
    expect(tagsOf(none)).toEqual(['cardNumber', 'expirationMonth', 'expirationYear']);
    const plain = { cardNumber: VISA, expirationMonth: '05', expirationYear: '2030' };
    expect(tagsOf(await store(plain))).toEqual(['cardholderName']);
    expect(tagsOf(await store({ ...plain, cardholderName: 'A'.repeat(31) }))).toEqual(['cardholderName']);
    expect(tagsOf(await store({ ...plain, cardholderName: '   ' }))).toEqual(['cardholderName']);
    expect(tagsOf(await store({ ...plain, cardNumber: '4111111111111112', cardholderName: 'A' }))).toEqual(['cardNumber']);
    // The token survived the refused requests.
    expect((await store({ numberToken, cardholderName: 'A' })).statusCode).toBe(201);
  });

  it('hides other merchants\' cards and deletes softly (404 afterwards)', async () => {
    const vaultId = (await store({ cardNumber: VISA, expirationMonth: '05', expirationYear: '2030', cardholderName: 'PEDRO' })).json().vaultId;
    const other = await t.merchant();
    expect((await get(vaultId, other.headers)).statusCode).toBe(404);
    expect((await remove(vaultId, other.headers)).statusCode).toBe(404);
    expect((await load(other.merchantId, vaultId).catch((e: DomainError) => e)) as DomainError).toMatchObject({ kind: 'not_found', errors: [{ tag: 'not_found' }] });
    expect((await get(vaultId)).statusCode).toBe(200); // untouched by the foreign delete

    const deleted = await remove(vaultId);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ vaultId, deletedAt: expect.stringMatching(/Z$/) });
    expect((await get(vaultId)).statusCode).toBe(404);
    expect((await remove(vaultId)).statusCode).toBe(404);
    expect(await load(m.merchantId, vaultId).catch((e: DomainError) => e.kind)).toBe('not_found');
    const row = await t.ctx.database.db.selectFrom('vault_cards').selectAll().where('vault_id', '=', vaultId).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.pan_sealed).toBe(''); // the card cannot come back
    expect((await get('00000000-0000-0000-0000-000000000000')).statusCode).toBe(404);
    expect((await rec.inject({ method: 'GET', url: `/gateway/v1/vaults/cards/${vaultId}` })).statusCode).toBe(401);
  });

  it('binds each sealed PAN to its row', async () => {
    const a = (await store({ cardNumber: VISA, expirationMonth: '05', expirationYear: '2030', cardholderName: 'A' })).json().vaultId;
    const b = (await store({ cardNumber: MASTERCARD, expirationMonth: '05', expirationYear: '2030', cardholderName: 'B' })).json().vaultId;
    const sealedA = (await t.ctx.database.db.selectFrom('vault_cards').select('pan_sealed').where('vault_id', '=', a).executeTakeFirstOrThrow()).pan_sealed;
    await t.ctx.database.db.updateTable('vault_cards').set({ pan_sealed: sealedA }).where('vault_id', '=', b).execute();
    await expect(load(m.merchantId, b)).rejects.toThrow();
    expect((await load(m.merchantId, a)).pan).toBe(VISA);
  });

  it('documents the card routes in OpenAPI', async () => {
    const paths = Object.keys((await t.inject({ method: 'GET', url: '/openapi.json' })).json().paths);
    for (const path of ['/gateway/cards/public-key', '/gateway/v1/tokens/cards', '/gateway/v1/vaults/cards', '/gateway/v1/vaults/cards/{vaultId}']) {
      expect(paths).toContain(path);
    }
  });

  // Last: scans what every test above stored, answered and logged.
  it('never stores, answers or logs a PAN or CVV in clear', async () => {
    await tokenize({ cardNumber: SECRET_PAN, expirationMonth: '07', expirationYear: '2033', securityCode: '919' });
    const pans = [SECRET_PAN, VISA, MASTERCARD, AMEX, ELO];
    const stored = [...(await allValues(t, 'card_tokens')), ...(await allValues(t, 'vault_cards')), ...(await allValues(t, 'idempotency_keys'))];
    expect(stored.length).toBeGreaterThan(50);
    for (const pan of pans) {
      expect(stored.filter((v) => v.includes(pan)), pan).toEqual([]);
      expect(rec.bodies.filter((b) => b.includes(pan)), pan).toEqual([]);
      expect(t.logs.text, pan).not.toContain(pan);
    }
    // No column holds a CVV: none equals one, and the sealed PAN holds only the PAN.
    for (const cvv of ['555', '1234', '321', '919']) expect(stored).not.toContain(cvv);
    const tokens = await t.ctx.database.db.selectFrom('card_tokens').select(['number_token', 'pan_sealed']).execute();
    for (const row of tokens) expect(t.ctx.cipher.decrypt(row.pan_sealed, `card-token:${row.number_token}`)).toMatch(/^\d{12,19}$/);
    expect(t.logs.lines.length).toBeGreaterThan(10); // the requests above were logged
  });
});
