import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AntiFraudEngine, type AssessmentInput } from '../../src/modules/antifraud/engine.js';
import { ConfiguredIpCountries } from '../../src/modules/antifraud/ip-countries.js';
import { DEFAULT_SETTINGS } from '../../src/modules/antifraud/settings.js';
import type { LogEvent } from 'kysely';
import { freshDatabase, testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { insertPayments, minutesAgo, newMerchant, randomFingerprint } from './support.js';

describe(`anti-fraud engine (${testDialect})`, () => {
  let t: TestApp;
  /** Statements that read the rules' data (the blocklist's EXISTS are in each). */
  let signalStatements = 0;
  const queryLog = (event: LogEvent) => {
    if (event.level === 'query' && /from "antifraud_blocklist"/.test(event.query.sql)) signalStatements++;
  };
  beforeAll(async () => {
    t = await testApp({ database: () => freshDatabase({ queryLog }) });
  });
  afterAll(() => t.close());

  const assess = (input: AssessmentInput) => t.ctx.antifraud.assess(t.ctx.database.db, input);
  /** Unique per call, so tests never share history. */
  const uniqueIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 250)}`;

  it('accepts a payment with no history and no signals', async () => {
    const m = await newMerchant(t.ctx);
    const result = await assess({ merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint() });
    expect(result).toEqual({ decision: 'Accept', score: 0, reasons: [] });
  });

  it('velocity per card fires at maxPerCard payments in the window, not at one less', async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    await insertPayments(t.ctx, DEFAULT_SETTINGS.velocity.maxPerCard - 1, { ...m, cardFingerprint: card });
    expect(await assess({ merchantId: m.merchantId, amount: 1000, cardFingerprint: card })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    await insertPayments(t.ctx, 1, { ...m, cardFingerprint: card });
    expect(await assess({ merchantId: m.merchantId, amount: 1000, cardFingerprint: card })).toEqual({
      decision: 'Review',
      score: 60,
      reasons: ['velocity_card'],
    });
  });

  it("assesses a batch in one statement, each payment as it would be alone: velocity, blocklist, amount and sandbox triggers side by side", async () => {
    const m = await newMerchant(t.ctx);
    const busy = randomFingerprint();
    await insertPayments(t.ctx, DEFAULT_SETTINGS.velocity.maxPerCard, { ...m, cardFingerprint: busy });
    const listedEmail = `listed-${randomBytes(4).toString('hex')}@example.com`;
    await t.ctx.antifraud.blocklist.add({ kind: 'email', value: listedEmail });
    const inputs: AssessmentInput[] = [
      { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint() },
      { merchantId: m.merchantId, amount: 1000, cardFingerprint: busy },
      { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint(), customer: { email: listedEmail } },
      { merchantId: m.merchantId, amount: DEFAULT_SETTINGS.amountLimit + 1, cardFingerprint: randomFingerprint() },
      { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint(), customer: { email: 'someone@review.test' } },
    ];
    const alone = [];
    for (const input of inputs) alone.push(await assess(input));
    expect(alone.map((a) => a.reasons)).toEqual([[], ['velocity_card'], ['blocklist_email'], ['amount_limit'], ['sandbox_review']]);
    signalStatements = 0;
    expect(await t.ctx.antifraud.assessMany(t.ctx.database.db, inputs)).toEqual(alone);
    expect(signalStatements).toBe(1);
  });

  it('velocity per document fires at maxPerDocument, across different cards', async () => {
    const m = await newMerchant(t.ctx);
    const document = '52998224725';
    for (let i = 0; i < DEFAULT_SETTINGS.velocity.maxPerDocument - 1; i++) {
      await insertPayments(t.ctx, 1, { ...m, cardFingerprint: randomFingerprint(), document });
    }
    const input = { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint(), customer: { documentNumber: document } };
    expect((await assess(input)).reasons).toEqual([]);
    await insertPayments(t.ctx, 1, { ...m, cardFingerprint: randomFingerprint(), document });
    expect(await assess(input)).toEqual({ decision: 'Review', score: 60, reasons: ['velocity_document'] });
    // Another document of the same merchant has no history.
    expect((await assess({ ...input, customer: { documentNumber: '11144477735' } })).reasons).toEqual([]);
  });

  it('velocity per IP fires at maxPerIp', async () => {
    const m = await newMerchant(t.ctx);
    const ip = uniqueIp();
    await insertPayments(t.ctx, DEFAULT_SETTINGS.velocity.maxPerIp - 1, { ...m, cardFingerprint: randomFingerprint(), ip });
    const input = { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint(), customer: { ipAddress: ip } };
    expect((await assess(input)).reasons).toEqual([]);
    await insertPayments(t.ctx, 1, { ...m, cardFingerprint: randomFingerprint(), ip });
    expect(await assess(input)).toEqual({ decision: 'Review', score: 60, reasons: ['velocity_ip'] });
  });

  it('counts only payments inside the window of business time', async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    const window = DEFAULT_SETTINGS.velocity.windowMinutes;
    await insertPayments(t.ctx, 10, { ...m, cardFingerprint: card, createdAt: minutesAgo(t.ctx, window + 1) });
    const input = { merchantId: m.merchantId, amount: 1000, cardFingerprint: card };
    expect((await assess(input)).reasons).toEqual([]);
    await insertPayments(t.ctx, 10, { ...m, cardFingerprint: card, createdAt: minutesAgo(t.ctx, window - 2) });
    expect((await assess(input)).reasons).toEqual(['velocity_card']);

    // Moving the sandbox clock (not the wall clock) takes them out of the window.
    const advance = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 3 } });
    expect(advance.statusCode).toBe(200);
    expect((await assess(input)).reasons).toEqual([]);
  });

  it("never counts another merchant's history", async () => {
    const a = await newMerchant(t.ctx);
    const b = await newMerchant(t.ctx);
    const card = randomFingerprint();
    const ip = uniqueIp();
    await insertPayments(t.ctx, 40, { ...b, cardFingerprint: card, document: '52998224725', ip });
    const input = { cardFingerprint: card, amount: 1000, customer: { documentNumber: '52998224725', ipAddress: ip } };
    expect(await assess({ ...input, merchantId: a.merchantId })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    expect((await assess({ ...input, merchantId: b.merchantId })).reasons).toEqual(['velocity_card', 'velocity_document', 'velocity_ip']);
  });

  it('scores an amount above the limit, not one equal to it', async () => {
    const m = await newMerchant(t.ctx);
    const base = { merchantId: m.merchantId, cardFingerprint: randomFingerprint() };
    expect(await assess({ ...base, amount: DEFAULT_SETTINGS.amountLimit })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    expect(await assess({ ...base, amount: DEFAULT_SETTINGS.amountLimit + 1 })).toEqual({ decision: 'Review', score: 50, reasons: ['amount_limit'] });
  });

  it('adds the points of every rule that fires and caps the score at 100', async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    const ip = uniqueIp();
    await insertPayments(t.ctx, 30, { ...m, cardFingerprint: card, document: '52998224725', ip });
    const result = await assess({
      merchantId: m.merchantId,
      amount: DEFAULT_SETTINGS.amountLimit + 1,
      cardFingerprint: card,
      customer: { documentNumber: '52998224725', ipAddress: ip },
    });
    expect(result).toEqual({ decision: 'Reject', score: 100, reasons: ['velocity_card', 'velocity_document', 'velocity_ip', 'amount_limit'] });
  });

  it("decides with each merchant's own thresholds", async () => {
    const strict = await newMerchant(t.ctx);
    const lenient = await newMerchant(t.ctx);
    const card = randomFingerprint();
    await insertPayments(t.ctx, 3, { ...strict, cardFingerprint: card });
    await insertPayments(t.ctx, 3, { ...lenient, cardFingerprint: card });
    await t.ctx.antifraud.settings.put(strict.merchantId, { velocity: { maxPerCard: 3 }, rejectScore: 60, reviewScore: 20 });
    expect(await assess({ merchantId: strict.merchantId, amount: 1000, cardFingerprint: card })).toEqual({
      decision: 'Reject',
      score: 60,
      reasons: ['velocity_card'],
    });
    expect(await assess({ merchantId: lenient.merchantId, amount: 1000, cardFingerprint: card })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    // A lower amount limit only for the strict merchant; with reviewScore 20 it is a Review.
    await t.ctx.antifraud.settings.put(strict.merchantId, { amountLimit: 500 });
    const fresh = randomFingerprint();
    expect(await assess({ merchantId: strict.merchantId, amount: 501, cardFingerprint: fresh })).toEqual({ decision: 'Review', score: 50, reasons: ['amount_limit'] });
    expect(await assess({ merchantId: lenient.merchantId, amount: 501, cardFingerprint: fresh })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
  });


  it('a threshold of 1 fires on the first earlier payment, and the largest threshold only at that many', async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    const ip = uniqueIp();
    const input = { merchantId: m.merchantId, amount: 1000, cardFingerprint: card, customer: { ipAddress: ip } };
    await t.ctx.antifraud.settings.put(m.merchantId, { velocity: { maxPerCard: 1, maxPerIp: 1_000_000 } });
    expect((await assess(input)).reasons).toEqual([]);
    await insertPayments(t.ctx, 1, { ...m, cardFingerprint: card, ip });
    // One payment reaches 1, and is far from 1,000,000.
    expect((await assess(input)).reasons).toEqual(['velocity_card']);
    await t.ctx.antifraud.settings.put(m.merchantId, { velocity: { maxPerCard: 2, maxPerIp: 2 } });
    expect((await assess(input)).reasons).toEqual([]);
    await insertPayments(t.ctx, 1, { ...m, cardFingerprint: card, ip });
    expect((await assess(input)).reasons).toEqual(['velocity_card', 'velocity_ip']);
  });
  it('caches settings per merchant, and a PUT replaces the cached copy at once', async () => {
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    await insertPayments(t.ctx, 2, { ...m, cardFingerprint: card });
    const input = { merchantId: m.merchantId, amount: 1000, cardFingerprint: card };
    expect((await assess(input)).reasons).toEqual([]); // loads the defaults into the cache
    // A change written behind the service's back (another instance) is not seen within the TTL...
    await t.ctx.database.db
      .insertInto('antifraud_settings')
      .values({ merchant_id: m.merchantId, settings: JSON.stringify({ ...DEFAULT_SETTINGS, velocity: { ...DEFAULT_SETTINGS.velocity, maxPerCard: 2 } }), updated_at: new Date().toISOString() })
      .execute();
    expect((await assess(input)).reasons).toEqual([]);
    // ...but a change through the service is.
    await t.ctx.antifraud.settings.put(m.merchantId, { velocity: { maxPerCard: 1 } });
    expect((await assess(input)).reasons).toEqual(['velocity_card']);
  });

  it('sandbox triggers: @review.test holds for review, @reject.test rejects, whatever the history', async () => {
    const m = await newMerchant(t.ctx);
    const base = { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint() };
    expect(await assess({ ...base, customer: { email: 'ana@review.test' } })).toEqual({ decision: 'Review', score: 50, reasons: ['sandbox_review'] });
    expect(await assess({ ...base, customer: { email: 'Ana@REJECT.test' } })).toEqual({ decision: 'Reject', score: 100, reasons: ['sandbox_reject'] });
    expect(await assess({ ...base, customer: { email: 'ana@review.test.example.com' } })).toEqual({ decision: 'Accept', score: 0, reasons: [] });
  });

  it('sandbox triggers do nothing outside sandbox mode', async () => {
    const production = new AntiFraudEngine(t.ctx.database, t.ctx.clock, t.ctx.cipher, t.ctx.ipCountries, { sandbox: false });
    const m = await newMerchant(t.ctx);
    for (const email of ['ana@review.test', 'ana@reject.test']) {
      const result = await production.assess(t.ctx.database.db, { merchantId: m.merchantId, amount: 1000, cardFingerprint: randomFingerprint(), customer: { email } });
      expect(result, email).toEqual({ decision: 'Accept', score: 0, reasons: [] });
    }
  });

  it('production mode wires the engine without sandbox triggers', async () => {
    const prod = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: randomBytes(32).toString('base64') } });
    try {
      const m = await newMerchant(prod.ctx);
      const result = await prod.ctx.antifraud.assess(prod.ctx.database.db, {
        merchantId: m.merchantId,
        amount: 1000,
        cardFingerprint: randomFingerprint(),
        customer: { email: 'ana@reject.test' },
      });
      expect(result.decision).toBe('Accept');
    } finally {
      await prod.close();
    }
  });

  it("runs every query on the caller's transaction, with cold caches (SQLite has one connection)", async () => {
    const engine = new AntiFraudEngine(t.ctx.database, t.ctx.clock, t.ctx.cipher, new ConfiguredIpCountries(t.ctx.database, t.ctx.clock), { sandbox: true });
    const m = await newMerchant(t.ctx);
    const card = randomFingerprint();
    await insertPayments(t.ctx, 10, { ...m, cardFingerprint: card });
    const result = await t.ctx.database.db.transaction().execute((trx) =>
      engine.assess(trx, { merchantId: m.merchantId, amount: 1000, cardFingerprint: card, customer: { ipAddress: '10.9.9.9', country: 'BR', documentNumber: '52998224725', email: 'a@b.test' } }),
    );
    expect(result.reasons).toEqual(['velocity_card']);
  });
});
