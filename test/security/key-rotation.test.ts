import { spawn } from 'node:child_process';
import { createHmac, hkdfSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoAccount } from '../../src/root/sandbox-secrets.js';
import { runCli } from '../../src/cli.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/root/context.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { buildApp } from '../../src/root/app.js';
import type { App } from '../../src/http/types.js';
import { createLogger } from '../../src/logger.js';
import { signingKeysOf, TokenSigner } from '../../src/modules/auth/tokens.js';
import { cardFingerprint } from '../../src/modules/cards/card-data.js';
import { verify as verifySignature } from '../../src/modules/webhooks/signature.js';
import { DataCipher, generateDataKey, SealedValueError } from '../../src/security/data-cipher.js';
import { CANARY_SETTING } from '../../src/security/keyring.js';
import { reencryptAll, type ReencryptSummary } from '../../src/security/reencrypt.js';
import { SEALED_COLUMNS } from '../../src/root/sealed-columns.js';
import { paymentBody } from '../support/cards.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';
import { LogCapture } from '../support/harness.js';
import { Receiver } from '../webhooks/receiver.js';

/**
 * DATA_KEY rotation end to end (docs/operations.md, "Rotating DATA_KEY"): instances started one
 * after the other on the SAME database (a temp file on SQLite, one schema on PostgreSQL), each
 * with its own keyring, as an operator rolls them.
 */
const ADMIN = 'test-admin-key-0123456789abcdef0123';
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const AMEX = '378282246310005';
const keyIdOf = (key: string) => new DataCipher([Buffer.from(key, 'base64')]).currentKeyId;

/** One database that instances open and close in turn. */
class SharedDatabase {
  private dir?: string;
  private pg?: TestDatabase;
  url = '';

  async create(): Promise<this> {
    if (testDialect === 'postgres') {
      this.pg = await freshDatabase();
      this.url = this.pg.url;
    } else {
      this.dir = mkdtempSync(join(tmpdir(), 'key-rotation-'));
      this.url = `sqlite:${join(this.dir, 'gateway.db')}`;
    }
    return this;
  }

  open(): Promise<Database> {
    return openDatabase(this.url, this.pg ? { schema: this.pg.schema } : {});
  }

  async drop(): Promise<void> {
    await this.pg?.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Instance {
  ctx: AppContext;
  app: App;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

async function start(shared: SharedDatabase, env: Record<string, string>): Promise<Instance> {
  const database = await shared.open();
  const config = loadConfig({ GATEWAY_MODE: 'sandbox', ADMIN_API_KEY: ADMIN, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'warn', ...env });
  let ctx: AppContext;
  try {
    ctx = await createContext(config, { database, logger: createLogger(config.logLevel, new LogCapture()) });
  } catch (error) {
    await database.close();
    throw error;
  }
  const app = await buildApp(ctx);
  await app.ready();
  return {
    ctx,
    app,
    inject: (options) => app.inject(options),
    async close() {
      await app.close();
      await closeContext(ctx);
    },
  };
}

const admin = { authorization: `Bearer ${ADMIN}` };

async function login(i: Instance, userName: string, password: string, api: 'gateway' | 'integration') {
  const url = api === 'gateway' ? '/gateway/api/auth/token' : '/integration/api/authentication/login';
  const res = await i.inject({ method: 'POST', url, payload: { userName, password } });
  expect(res.statusCode, res.body).toBe(200);
  return { authorization: `Bearer ${res.json().accessToken as string}` };
}

const kidOf = (headers: Record<string, string>) => decodeProtectedHeader(headers.authorization.slice('Bearer '.length)).kid;

async function payWithVault(i: Instance, headers: Record<string, string>, vaultId: string, extra: Record<string, string> = {}) {
  return i.inject({ method: 'POST', url: '/gateway/v1/payments', headers: { ...headers, ...extra }, payload: paymentBody({ vaultId }) });
}

async function runDue(i: Instance) {
  const res = await i.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: admin, payload: { minutes: 0 } });
  expect(res.statusCode, res.body).toBe(200);
}

/** Every sealed value in the database, by where it lives (from the one list reencrypt walks, plus the canary). */
async function sealedValues(db: Database): Promise<{ where: string; value: string }[]> {
  const found: { where: string; value: string }[] = [];
  for (const column of SEALED_COLUMNS) {
    let query = (db.db as any).selectFrom(column.table).select([column.key, column.column]);
    if (column.keyLike) query = query.where(column.key, 'like', column.keyLike);
    for (const row of (await query.execute()) as Record<string, string>[]) {
      let value = row[column.column];
      if (value && column.jsonField) value = JSON.parse(value)[column.jsonField];
      if (value) found.push({ where: `${column.table}.${column.column}:${row[column.key]}`, value });
    }
  }
  const canary = await db.db.selectFrom('settings').select('value').where('key', '=', CANARY_SETTING).executeTakeFirstOrThrow();
  found.push({ where: 'settings.data_key_canary', value: canary.value });
  return found;
}

const keyIdsIn = async (db: Database) => new Set((await sealedValues(db)).map((v) => DataCipher.keyIdOf(v.value)));

async function cli(i: Instance, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, i.ctx);
  return { code, summary: JSON.parse(out.join('\n')) as ReencryptSummary, progress: err.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
}

describe(`DATA_KEY rotation end to end (${testDialect})`, () => {
  const K1 = generateDataKey();
  const K2 = generateDataKey();
  const K3 = generateDataKey();
  const shared = new SharedDatabase();
  const receiver = new Receiver();
  let merchant: { merchantId: string; accountNumber: number; userName: string; password: string };
  let connected: string;
  let gateway1: Record<string, string>;
  let gateway2: Record<string, string>;
  let integration: Record<string, string>;
  let vaultIds: string[];
  let secret: string;
  let demoPassword: string;
  let idempotentPaymentId: string;
  const hookAuth = Buffer.from('shop:hook-pass').toString('base64');

  beforeAll(async () => {
    await shared.create();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await shared.drop();
  });

  it('key 1: vault cards, a numberToken, a webhook subscription, an acquirer key, a blocklisted card, the demo account', async () => {
    const a = await start(shared, { DATA_KEY: K1 });
    try {
      const created = await a.ctx.merchants.create({ name: 'Loja Rotação', documentNumber: '11222333000181' });
      const credential = await a.ctx.merchants.createCredential(created.merchantId, { scopes: ['payments', 'recurrence', 'integration'] });
      merchant = { merchantId: created.merchantId, accountNumber: created.accountNumber, userName: credential.userName, password: credential.password };
      const lifted = await a.inject({
        method: 'PUT',
        url: `/admin/merchants/${merchant.merchantId}/antifraud`,
        headers: admin,
        payload: { velocity: { maxPerCard: 100000, maxPerDocument: 100000, maxPerIp: 100000 } },
      });
      expect(lifted.statusCode, lifted.body).toBe(200);
      gateway1 = await login(a, merchant.userName, merchant.password, 'gateway');
      integration = await login(a, merchant.userName, merchant.password, 'integration');
      expect(kidOf(gateway1)).toBe(keyIdOf(K1));

      vaultIds = [];
      for (const cardNumber of [VISA, MASTERCARD, VISA]) {
        const res = await a.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers: gateway1, payload: { cardNumber, expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA SILVA' } });
        expect(res.statusCode, res.body).toBe(201);
        vaultIds.push(res.json().vaultId);
      }
      const token = await a.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers: gateway1, payload: { cardNumber: MASTERCARD, expirationMonth: '12', expirationYear: '2035' } });
      expect(token.statusCode, token.body).toBe(201);

      const sub = await a.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${merchant.accountNumber}`, headers: integration, payload: { url: receiver.url('/hooks'), basicAuth: hookAuth } });
      expect(sub.statusCode, sub.body).toBe(200);
      secret = sub.json().secret;

      // Another merchant's own Cielo affiliation (its MerchantKey sealed); nothing is charged through it here.
      connected = (await a.ctx.merchants.create({ name: 'Loja Cielo', documentNumber: '11222333000181' })).merchantId;
      const put = await a.inject({ method: 'PUT', url: `/admin/merchants/${connected}/acquirer`, headers: admin, payload: { provider: 'cielo', merchantId: 'cielo-mid', merchantKey: 'SECRETKEY1234', apiUrl: 'http://127.0.0.1:9', queryUrl: 'http://127.0.0.1:9' } });
      expect(put.statusCode, put.body).toBe(200);

      expect((await a.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin, payload: { kind: 'card', value: AMEX } })).statusCode).toBe(201);
      demoPassword = (await ensureDemoAccount(a.ctx.database, a.ctx.merchants, a.ctx.cipher)).password;

      for (const vaultId of vaultIds) expect((await payWithVault(a, gateway1, vaultId)).json().status).toBe('Authorized');
      const first = await payWithVault(a, gateway1, vaultIds[0], { 'idempotency-key': 'rotation-1' });
      expect(first.statusCode, first.body).toBe(201);
      idempotentPaymentId = first.json().paymentId;

      expect(await keyIdsIn(a.ctx.database)).toEqual(new Set([keyIdOf(K1)]));
    } finally {
      await a.close();
    }
  });

  it('key 2 with key 1 previous: every card still pays, old tokens, secrets, fingerprints and idempotency keys still hold', async () => {
    const b = await start(shared, { DATA_KEY: K2, DATA_KEYS_PREVIOUS: K1 });
    try {
      // The token issued under key 1 is still accepted, and pays with every stored card.
      for (const vaultId of vaultIds) {
        const res = await payWithVault(b, gateway1, vaultId);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().status).toBe('Authorized');
      }
      gateway2 = await login(b, merchant.userName, merchant.password, 'gateway');
      expect(kidOf(gateway2)).toBe(keyIdOf(K2));
      expect((await payWithVault(b, gateway2, vaultIds[1])).json().status).toBe('Authorized');

      // The same Idempotency-Key and body replays the first answer (the request hash did not change).
      const replay = await payWithVault(b, gateway1, vaultIds[0], { 'idempotency-key': 'rotation-1' });
      expect(replay.statusCode, replay.body).toBe(201);
      expect(replay.json().paymentId).toBe(idempotentPaymentId);

      // Fingerprints are the same: velocity counts every payment of the card, the blocklist still matches.
      const visa = cardFingerprint(b.ctx.cipher, VISA);
      const visaPayments = await b.ctx.database.db.selectFrom('payments').select('payment_id').where('card_fingerprint', '=', visa).execute();
      expect(visaPayments.length).toBe(2 + 1 + 2); // the two VISA vault cards under key 1, the idempotent payment, the two VISA cards under key 2
      const amex = await b.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers: gateway2, payload: { cardNumber: AMEX, expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA SILVA' } });
      const blocked = await payWithVault(b, gateway2, amex.json().vaultId);
      expect(blocked.json()).toMatchObject({ status: 'Denied', antiFraud: { decision: 'Reject' } });

      // The webhook secret and basic auth sealed under key 1 still sign and authenticate.
      receiver.received.length = 0;
      await runDue(b);
      const hooks = receiver.on('/hooks');
      expect(hooks.length).toBeGreaterThan(0);
      for (const got of hooks) {
        expect(got.headers.authorization).toBe(`Basic ${hookAuth}`);
        expect(verifySignature(secret, String(got.headers['webhook-id']), Number(got.headers['webhook-timestamp']), got.body, String(got.headers['webhook-signature']))).toBe(true);
      }
      const view = await b.inject({ method: 'GET', url: `/admin/merchants/${connected}/acquirer`, headers: admin });
      expect(view.json()).toMatchObject({ merchantKeyLast4: '1234' });
      expect((await ensureDemoAccount(b.ctx.database, b.ctx.merchants, b.ctx.cipher)).password).toBe(demoPassword);

      // New values are sealed under key 2; old ones still name key 1.
      expect(await keyIdsIn(b.ctx.database)).toEqual(new Set([keyIdOf(K1), keyIdOf(K2)]));

      // reencrypt moves every value (in batches of 2), the canary last.
      const run = await cli(b, 'keys', 'reencrypt', '--batch', '2');
      expect(run.code).toBe(0);
      expect(run.summary).toMatchObject({ currentKeyId: keyIdOf(K2), remaining: 0, canary: 'moved', failedKeyIds: {} });
      const moved = Object.fromEntries(run.summary.columns.map((c) => [c.column, c.moved]));
      expect(moved['vault_cards.pan_sealed']).toBe(3);
      expect(moved['card_tokens.pan_sealed']).toBe(1);
      expect(moved['webhook_subscriptions.secret_sealed']).toBe(1);
      expect(moved['webhook_subscriptions.basic_auth_sealed']).toBe(1);
      expect(moved['acquirer_connections.merchant_key_sealed']).toBe(1);
      expect(moved['card_keys.private_sealed']).toBe(1);
      expect(run.progress.filter((p) => p.column === 'vault_cards.pan_sealed').map((p) => p.batch)).toEqual([1, 2]);
      const values = await sealedValues(b.ctx.database);
      expect(values.filter((v) => DataCipher.keyIdOf(v.value) !== keyIdOf(K2))).toEqual([]);
      expect(values.map((v) => v.where)).toEqual(expect.arrayContaining(['settings.value:lookup_key:card-fingerprint', 'settings.value:sandbox_demo_account', 'settings.data_key_canary']));

      // A second run finds nothing to do.
      const again = await cli(b, 'keys', 'reencrypt');
      expect(again.code).toBe(0);
      expect(again.summary.columns.every((c) => c.moved === 0 && c.failed === 0)).toBe(true);
      expect(again.summary.canary).toBe('already current');
    } finally {
      await b.close();
    }
  });

  it('key 2 alone: everything still pays; a token of the removed key 1 is refused (401)', async () => {
    const c = await start(shared, { DATA_KEY: K2 });
    try {
      expect((await c.inject({ method: 'GET', url: '/gateway/v1/vaults/cards/' + vaultIds[0], headers: gateway1 })).statusCode).toBe(401);
      expect((await payWithVault(c, gateway1, vaultIds[0])).statusCode).toBe(401);
      for (const vaultId of vaultIds) {
        const res = await payWithVault(c, gateway2, vaultId);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().status).toBe('Authorized');
      }
      receiver.received.length = 0;
      await runDue(c);
      const [got] = receiver.on('/hooks');
      expect(verifySignature(secret, String(got.headers['webhook-id']), Number(got.headers['webhook-timestamp']), got.body, String(got.headers['webhook-signature']))).toBe(true);
      expect((await c.inject({ method: 'GET', url: `/admin/merchants/${connected}/acquirer`, headers: admin })).json()).toMatchObject({ merchantKeyLast4: '1234' });
      expect((await ensureDemoAccount(c.ctx.database, c.ctx.merchants, c.ctx.cipher)).password).toBe(demoPassword);
      expect(await c.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin, payload: { kind: 'card', value: AMEX } })).toHaveProperty('statusCode', 409);
    } finally {
      await c.close();
    }
  });

  it('a wrong key refuses to start, naming DATA_KEY and DATA_KEYS_PREVIOUS; so does the removed key 1 alone', async () => {
    const envs: Record<string, string>[] = [{ DATA_KEY: K3 }, { DATA_KEY: K1 }, { DATA_KEY: K3, DATA_KEYS_PREVIOUS: K1 }];
    for (const env of envs) {
      const refused = await start(shared, env).then(
        async (i) => {
          await i.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ConfigError);
      const message = (refused as Error).message;
      expect(message).toContain('Refusing to start: DATA_KEY does not open the data in this database');
      expect(message).toContain('DATA_KEYS_PREVIOUS');
      expect(message).toContain(`sealed under data key ${keyIdOf(K2)}`);
      expect(message).not.toContain(K2);
      expect(message).not.toContain(env.DATA_KEY);
    }
  });

  it.runIf(testDialect === 'sqlite')('npm start with a wrong key exits 2 with the message, before listening', async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs'), join(import.meta.dirname, '../../src/server.ts')], {
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: shared.url, DATA_KEY: K3, ADMIN_API_KEY: ADMIN, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, out).toBe(2);
    expect(out).toContain('Refusing to start: DATA_KEY does not open the data in this database');
    expect(out).toContain('A sandbox database first started without DATA_KEY');
    expect(out).not.toContain('ready');
  });
});

describe('token signing keys follow the keyring', () => {
  const [k1, k2] = [generateDataKey(), generateDataKey()];
  const claims = { userName: 'usr_1', merchantId: 'mer_1', accountNumber: 1, scopes: ['payments' as const] };
  const now = new Date();

  it('signs with the current key (kid), verifies by kid among current and previous, refuses a removed or unknown kid', async () => {
    const before = new TokenSigner(signingKeysOf(DataCipher.fromBase64(k1)), 3600);
    const during = new TokenSigner(signingKeysOf(DataCipher.fromBase64(k2, [k1])), 3600);
    const after = new TokenSigner(signingKeysOf(DataCipher.fromBase64(k2)), 3600);
    const old = (await before.issue('gateway', claims, now)).accessToken;
    expect(decodeProtectedHeader(old).kid).toBe(keyIdOf(k1));
    expect(await during.verify('gateway', old, now)).toMatchObject({ merchantId: 'mer_1' });
    expect(await after.verify('gateway', old, now)).toEqual({ refused: 'Invalid token.' });
    const fresh = (await during.issue('gateway', claims, now)).accessToken;
    expect(decodeProtectedHeader(fresh).kid).toBe(keyIdOf(k2));
    expect(await after.verify('gateway', fresh, now)).toMatchObject({ merchantId: 'mer_1' });
    // Signed with key 1's derived key but claiming key 2's id: the signature does not hold.
    const forged = await new SignJWT({ mid: 'mer_1', acct: 1, scope: 'payments' })
      .setProtectedHeader({ alg: 'HS256', kid: keyIdOf(k2) })
      .setIssuer('payment-gateway').setAudience('gateway').setSubject('usr_1').setIssuedAt().setExpirationTime('1h')
      .sign(DataCipher.fromBase64(k1).deriveKey('jwt-signing'));
    expect(await during.verify('gateway', forged, now)).toEqual({ refused: 'Invalid token.' });
    // Expiry still reads as expiry under a previous key.
    expect(await during.verify('gateway', old, new Date(now.getTime() + 7200_000))).toEqual({ refused: 'Token expired.' });
  });

  it('accepts a token from before key ids (no kid) while its key is in the ring', async () => {
    const legacy = await new SignJWT({ mid: 'mer_1', acct: 1, scope: 'payments' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('payment-gateway').setAudience('gateway').setSubject('usr_1').setIssuedAt().setExpirationTime('1h')
      .sign(DataCipher.fromBase64(k1).deriveKey('jwt-signing'));
    expect(await new TokenSigner(signingKeysOf(DataCipher.fromBase64(k2, [k1])), 3600).verify('gateway', legacy, now)).toMatchObject({ merchantId: 'mer_1' });
    expect(await new TokenSigner(signingKeysOf(DataCipher.fromBase64(k2)), 3600).verify('gateway', legacy, now)).toEqual({ refused: 'Invalid token.' });
  });
});

describe(`reencrypt is resumable (${testDialect})`, () => {
  const K1 = generateDataKey();
  const K2 = generateDataKey();
  const shared = new SharedDatabase();
  beforeAll(() => shared.create());
  afterAll(() => shared.drop());

  it('a run killed between batches leaves whole batches moved and the canary where it was; the next run finishes', async () => {
    const a = await start(shared, { DATA_KEY: K1 });
    const created = await a.ctx.merchants.create({ name: 'Loja', documentNumber: '11222333000181' });
    const credential = await a.ctx.merchants.createCredential(created.merchantId, { scopes: ['payments'] });
    const headers = await login(a, credential.userName, credential.password, 'gateway');
    const vaultIds: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await a.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers, payload: { cardNumber: VISA, expirationMonth: '12', expirationYear: '2035', cardholderName: `CARD ${i}` } });
      vaultIds.push(res.json().vaultId);
    }
    await a.close();

    const b = await start(shared, { DATA_KEY: K2, DATA_KEYS_PREVIOUS: K1 });
    const killed = new Error('killed');
    let batches = 0;
    await expect(
      reencryptAll(b.ctx.database, b.ctx.cipher, SEALED_COLUMNS, {
        batch: 3,
        onProgress: () => {
          if (++batches === 2) throw killed;
        },
      }),
    ).rejects.toBe(killed);
    const vaultKeys = async (i: Instance) => (await i.ctx.database.db.selectFrom('vault_cards').select('pan_sealed').execute()).map((r) => DataCipher.keyIdOf(r.pan_sealed));
    expect((await vaultKeys(b)).filter((k) => k === keyIdOf(K2))).toHaveLength(6);
    const canary = async () => DataCipher.keyIdOf((await b.ctx.database.db.selectFrom('settings').select('value').where('key', '=', CANARY_SETTING).executeTakeFirstOrThrow()).value);
    expect(await canary()).toBe(keyIdOf(K1));
    await b.close();

    // Key 1 removed too early: the canary still names it, so the instance refuses to start.
    await expect(start(shared, { DATA_KEY: K2 })).rejects.toBeInstanceOf(ConfigError);

    const c = await start(shared, { DATA_KEY: K2, DATA_KEYS_PREVIOUS: K1 });
    const summary = await reencryptAll(c.ctx.database, c.ctx.cipher, SEALED_COLUMNS, { batch: 3 });
    expect(summary.columns.find((col) => col.column === 'vault_cards.pan_sealed')?.moved).toBe(1);
    expect(summary).toMatchObject({ remaining: 0, canary: 'moved' });
    expect(new Set(await vaultKeys(c))).toEqual(new Set([keyIdOf(K2)]));
    await c.close();

    const d = await start(shared, { DATA_KEY: K2 });
    const pay = await payWithVault(d, await login(d, credential.userName, credential.password, 'gateway'), vaultIds[6]);
    expect(pay.json().status).toBe('Authorized');
    await d.close();
  });

  it('a value under a key outside the ring is counted, never opened nor printed, and keeps the canary', async () => {
    const c = await start(shared, { DATA_KEY: K2 });
    const stranger = new DataCipher([Buffer.from(generateDataKey(), 'base64')]);
    const [row] = await c.ctx.database.db.selectFrom('vault_cards').select('vault_id').limit(1).execute();
    await c.ctx.database.db.updateTable('vault_cards').set({ pan_sealed: stranger.encrypt(VISA, `vault:${row.vault_id}`) }).where('vault_id', '=', row.vault_id).execute();
    const K4 = generateDataKey();
    await c.close();

    const d = await start(shared, { DATA_KEY: K4, DATA_KEYS_PREVIOUS: K2 });
    const out: string[] = [];
    const err: string[] = [];
    expect(await runCli(['keys', 'reencrypt'], { out: (s) => out.push(s), err: (s) => err.push(s) }, d.ctx)).toBe(1);
    const summary = JSON.parse(out.join('\n')) as ReencryptSummary;
    expect(summary.failedKeyIds).toEqual({ [stranger.currentKeyId]: 1 });
    expect(summary).toMatchObject({ remaining: 1, canary: 'kept: values remain under older keys' });
    expect(out.join('\n') + err.join('\n')).not.toContain(VISA);
    expect(() => d.ctx.cipher.decrypt(stranger.encrypt(VISA, 'x'), 'x')).toThrow(SealedValueError);
    expect(() => d.ctx.cipher.decrypt(stranger.encrypt(VISA, 'x'), 'x')).toThrow(new RegExp(`data key ${stranger.currentKeyId}, which is neither DATA_KEY`));
    await d.close();
  });
});

describe(`a database from before the keyring (${testDialect})`, () => {
  const K1 = generateDataKey();
  const shared = new SharedDatabase();
  beforeAll(() => shared.create());
  afterAll(() => shared.drop());

  it('keeps the fingerprints it has (HKDF of its DATA_KEY) and refuses a key that does not open its card key', async () => {
    const a = await start(shared, { DATA_KEY: K1 });
    // As a database written before the canary and the lookup keys existed.
    await a.ctx.database.db.deleteFrom('settings').where((eb) => eb.or([eb('key', '=', CANARY_SETTING), eb('key', 'like', 'lookup_key:%')])).execute();
    await a.close();

    await expect(start(shared, { DATA_KEY: generateDataKey() })).rejects.toThrow(/its card key ck_\w+ is sealed under data key/);

    const b = await start(shared, { DATA_KEY: generateDataKey(), DATA_KEYS_PREVIOUS: K1 });
    const legacyKey = Buffer.from(hkdfSync('sha256', Buffer.from(K1, 'base64'), Buffer.alloc(0), 'card-fingerprint', 32));
    expect(cardFingerprint(b.ctx.cipher, VISA)).toBe(createHmac('sha256', legacyKey).update(VISA).digest('hex'));
    expect(await b.ctx.database.db.selectFrom('settings').select('key').where('key', '=', CANARY_SETTING).executeTakeFirst()).toBeDefined();
    await b.close();
  });
});

describe('DATA_KEYS_PREVIOUS setting', () => {
  it('takes comma-separated base64 keys of 32 bytes and names the setting when one is not', () => {
    const [k1, k2] = [generateDataKey(), generateDataKey()];
    expect(loadConfig({ DATA_KEYS_PREVIOUS: ` ${k1}, ${k2} ` }).dataKeysPrevious).toEqual([k1, k2]);
    expect(loadConfig({}).dataKeysPrevious).toEqual([]);
    expect(() => loadConfig({ DATA_KEYS_PREVIOUS: `${k1},short` })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_KEYS_PREVIOUS: `${k1},short` })).toThrow(/DATA_KEYS_PREVIOUS entry 2 must be 32 bytes/);
    expect(() => loadConfig({ DATA_KEYS_PREVIOUS: `${k1},,${k2}` })).toThrow(/entry 2/);
  });
});
