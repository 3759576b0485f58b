import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { SystemClock } from '../../src/clock.js';
import type { Database } from '../../src/db/connection.js';
import { DomainError } from '../../src/domain/errors.js';
import { CardKeyService } from '../../src/modules/cards/keys.js';
import { DataCipher, generateDataKey } from '../../src/security/data-cipher.js';
import { freshDatabase, secondConnection, testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { allValues, currentPublicKey, encryptCard, encryptWith, Recorder, VISA } from './support.js';

const HOUR_MS = 60 * 60 * 1000;
const CARD = { number: VISA, expirationMonth: '12', expirationYear: '2035', securityCode: '123' };

describe(`card keys and encryptedCard (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    // Bearer tokens outlive the wall-clock jumps below (24 h and more).
    t = await testApp({ env: { TOKEN_TTL_SECONDS: String(3 * 24 * 3600) } });
    m = await t.merchant();
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const tokenize = (payload: object, headers = m.headers) => t.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers, payload });

  it('publishes a 2048-bit RSA public key without authentication', async () => {
    const res = await t.inject({ method: 'GET', url: '/gateway/cards/public-key' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ keyId: expect.any(String), algorithm: 'RSA-OAEP-256', publicKey: expect.stringContaining('-----BEGIN PUBLIC KEY-----') });
    const key = createPublicKey(body.publicKey);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // The private key is stored sealed under DATA_KEY, never as PEM.
    const stored = await allValues(t, 'card_keys');
    expect(stored.some((v) => v.includes('PRIVATE KEY'))).toBe(false);
  });

  it('tokenizes a card a client encrypted with the public key', async () => {
    const rec = new Recorder(t);
    const encryptedCard = await encryptCard(t, CARD);
    const res = await rec.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers: m.headers, payload: { encryptedCard } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ brand: 'visa', maskedNumber: '411111******1111' });
    // The CVV inside the encrypted card reaches the payment that uses the token.
    const card = await t.ctx.database.db.transaction().execute((trx) => t.ctx.cards.consumeToken(trx, m.merchantId, res.json().numberToken));
    expect(card).toMatchObject({ pan: VISA, cvv: '123', expMonth: '12', expYear: '2035' });
    for (const body of rec.bodies) expect(body).not.toContain(VISA);
  });

  it('answers every malformed encryptedCard with 400 under its tag, never echoing it', async () => {
    const { publicKey } = await currentPublicKey(t);
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const variants: Record<string, string> = {
      'not base64': '!!!not*base64!!!',
      'too short to be RSA-2048': Buffer.from('hello').toString('base64'),
      'another key': encryptWith(foreign, JSON.stringify(CARD)),
      'not JSON': encryptWith(publicKey, 'number=4111111111111111'),
      'a JSON array': encryptWith(publicKey, JSON.stringify([VISA, '12', '2035'])),
      'number missing': encryptWith(publicKey, JSON.stringify({ expirationMonth: '12', expirationYear: '2035' })),
      'number ill-typed': encryptWith(publicKey, JSON.stringify({ number: 4111111111111111, expirationMonth: '12', expirationYear: '2035' })),
      'securityCode ill-typed': encryptWith(publicKey, JSON.stringify({ ...CARD, securityCode: 123 })),
    };
    for (const [name, encryptedCard] of Object.entries(variants)) {
      const res = await tokenize({ encryptedCard });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().every((e: { tag: string }) => e.tag === 'encryptedCard'), name).toBe(true);
      expect(res.body, name).not.toContain(encryptedCard);
      expect(res.body, name).not.toContain(VISA);
      // The payments module calls the same decryption with the cardInfo tag.
      const error = await t.ctx.cardKeys.decryptCard(encryptedCard).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe('invalid');
      expect((error as DomainError).errors[0].tag).toBe('cardInfo.encryptedCard');
    }
    // Too long: the schema refuses it over HTTP, the service on its own as well.
    expect((await tokenize({ encryptedCard: 'A'.repeat(2049) })).json()[0].tag).toBe('encryptedCard');
    const long = await t.ctx.cardKeys.decryptCard('A'.repeat(2049)).catch((e: DomainError) => e);
    expect(long).toMatchObject({ kind: 'invalid', errors: [{ tag: 'cardInfo.encryptedCard' }] });
    expect((await tokenize({ encryptedCard: '' })).json()[0].tag).toBe('encryptedCard');
  });

  it('checks the decrypted card like a plain one, tagging problems inside encryptedCard', async () => {
    const encryptedCard = await encryptCard(t, { number: '4111111111111112', expirationMonth: '13', expirationYear: '2035' });
    const res = await tokenize({ encryptedCard });
    expect(res.statusCode).toBe(400);
    expect(res.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['encryptedCard.cardNumber', 'encryptedCard.expirationMonth']);
    expect(res.body).not.toContain('4111111111111112');
    // Payments: brand and securityCode beside the encrypted card are checked against it.
    const visa = await encryptCard(t, { number: VISA, expirationMonth: '12', expirationYear: '35' });
    const resolve = (claims: { brand?: string; securityCode?: string }) => t.ctx.cards.paymentCard(t.ctx.database.db, 'any merchant', { encryptedCard: visa, ...claims });
    expect(((await resolve({ brand: 'amex' }).catch((e: DomainError) => e)) as DomainError).errors.map((e) => e.tag)).toEqual(['cardInfo.brand']);
    expect(((await resolve({ securityCode: '1234' }).catch((e: DomainError) => e)) as DomainError).errors.map((e) => e.tag)).toEqual(['cardInfo.securityCode']);
    const ok = await resolve({ brand: 'visa', securityCode: '321' });
    expect(ok).toMatchObject({ pan: VISA, brand: 'visa', expYear: '2035', cvv: '321', bin: '411111', last4: '1111', panLength: 16, source: 'encrypted' });
    expect(ok.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rotates by CLI: the old key decrypts for 24 h of wall time, then no more', async () => {
    const oldKey = await currentPublicKey(t);
    const oldCard = encryptWith(oldKey.publicKey, JSON.stringify(CARD));

    const out: string[] = [];
    const code = await runCli(['keys', 'rotate'], { out: (s) => out.push(s), err: () => {} }, t.ctx);
    expect(code).toBe(0);
    const rotated = JSON.parse(out.join('\n'));
    expect(rotated).toEqual({ keyId: expect.any(String), algorithm: 'RSA-OAEP-256', publicKey: expect.stringContaining('BEGIN PUBLIC KEY') });
    expect(rotated.keyId).not.toBe(oldKey.keyId);
    expect((await currentPublicKey(t)).keyId).toBe(rotated.keyId);
    const current = await t.ctx.database.db.selectFrom('card_keys').select('key_id').where('retired_at', 'is', null).execute();
    expect(current.map((r) => r.key_id)).toEqual([rotated.keyId]);
    const newCard = encryptWith(rotated.publicKey, JSON.stringify(CARD));

    expect((await tokenize({ encryptedCard: oldCard })).statusCode).toBe(201);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start + 23 * HOUR_MS);
    expect((await tokenize({ encryptedCard: oldCard })).statusCode).toBe(201);
    vi.setSystemTime(start + 24 * HOUR_MS + 60_000);
    const expired = await tokenize({ encryptedCard: oldCard });
    expect(expired.statusCode).toBe(400);
    expect(expired.json()[0]).toMatchObject({ tag: 'encryptedCard', description: expect.stringContaining('24 hours') });
    expect((await tokenize({ encryptedCard: newCard })).statusCode).toBe(201);
    // The sandbox clock (business time) does not matter: it is a wall-clock timer.
    vi.useRealTimers();
    expect((await tokenize({ encryptedCard: oldCard })).statusCode).toBe(201);
  });

  it('lists keys rotate in the CLI usage', async () => {
    const err: string[] = [];
    expect(await runCli(['keys', 'explode'], { out: () => {}, err: (s) => err.push(s) }, t.ctx)).toBe(64);
    expect(err.join('\n')).toContain('keys rotate');
  });
});

describe(`card keys across instances (${testDialect})`, () => {
  const cipher = new DataCipher([Buffer.from(generateDataKey(), 'base64')]);
  const clock = new SystemClock();
  let first: Awaited<ReturnType<typeof freshDatabase>>;
  let second: Database;
  beforeAll(async () => {
    first = await freshDatabase();
    // On PostgreSQL a second pool: two instances racing for real. SQLite has one writer.
    second = testDialect === 'postgres' ? await secondConnection(first) : first;
  });
  afterAll(async () => {
    if (second !== first) await second.close();
    await first.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const currentKeys = async () => first.db.selectFrom('card_keys').select('key_id').where('retired_at', 'is', null).execute();

  it('two instances starting together create one current key', async () => {
    const a = new CardKeyService(first, cipher, clock);
    const b = new CardKeyService(second, cipher, clock);
    const [ka, kb] = await Promise.all([a.ensureKey(), b.ensureKey()]);
    expect(ka.keyId).toBe(kb.keyId);
    expect((await currentKeys()).map((r) => r.key_id)).toEqual([ka.keyId]);
    expect(await first.db.selectFrom('card_keys').select('key_id').execute()).toHaveLength(1);
  });

  it('two rotations racing make one new key; the other instance follows within a minute', async () => {
    const a = new CardKeyService(first, cipher, clock);
    const b = new CardKeyService(second, cipher, clock);
    const before = await a.ensureKey();
    await b.ensureKey();
    const [ra, rb] = await Promise.all([a.rotate(), b.rotate()]);
    expect(ra.keyId).toBe(rb.keyId);
    expect(ra.keyId).not.toBe(before.keyId);
    expect((await currentKeys()).map((r) => r.key_id)).toEqual([ra.keyId]);

    // A third instance caches the current key, then another instance rotates.
    const c = new CardKeyService(first, cipher, clock);
    expect((await c.publicKey()).keyId).toBe(ra.keyId);
    await expect(c.decryptCard(encryptWith(ra.publicKey, JSON.stringify(CARD)))).resolves.toMatchObject({ number: VISA });
    const newest = await b.rotate();
    // It decrypts a card made with the new key at once (no key decrypts: it reads the keys again)...
    await expect(c.decryptCard(encryptWith(newest.publicKey, JSON.stringify(CARD)), 'x')).resolves.toMatchObject({ number: VISA });
    // ...cards made with the two previous keys still work (within 24 h)...
    await expect(c.decryptCard(encryptWith(before.publicKey, JSON.stringify(CARD)))).resolves.toMatchObject({ number: VISA });
    // ...and it serves the new public key once its one-minute cache is stale.
    expect((await c.publicKey()).keyId).toBe(ra.keyId);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect((await c.publicKey()).keyId).toBe(newest.keyId);
  });
});
