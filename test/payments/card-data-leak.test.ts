import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { encryptCard, paymentBody, tokenize, vault } from '../support/cards.js';

/**
 * A batch of payments through every card source, then a search for the test PANs and CVVs in
 * every log line, every response and every column of every table. Only the sealed PAN columns
 * may hold card data, and only encrypted.
 */
const PANS = ['4111111111111111', '5555555555554444', '378282246310005', '6362970000457013', '6062825624254001', '4000000000009995'];
const CVVS = ['918', '7364'];

describe(`card data never leaks (${testDialect})`, () => {
  let t: TestApp;
  const responses: string[] = [];
  beforeAll(async () => {
    t = await testApp();
    const m = await t.merchant();
    for (const pan of PANS) {
      const cvv = pan.startsWith('37') ? CVVS[1] : CVVS[0];
      const sources = [
        { numberToken: await tokenize(t, m, pan, { securityCode: cvv }) },
        { vaultId: await vault(t, m, pan), securityCode: cvv },
        { encryptedCard: await encryptCard(t, { number: pan, expirationMonth: '10', expirationYear: '2033', securityCode: cvv }) },
      ];
      for (const cardInfo of sources) {
        const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody(cardInfo) });
        expect(res.statusCode).toBe(201);
        responses.push(res.body);
        responses.push((await t.inject({ method: 'GET', url: `/gateway/v1/payments/${res.json().paymentId}`, headers: m.headers })).body);
      }
      // Error paths echo nothing either.
      responses.push((await t.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers: m.headers, payload: { cardNumber: `${pan.slice(0, -1)}0`, expirationMonth: '12', expirationYear: '2035' } })).body);
    }
  });
  afterAll(() => t.close());

  it('in no response', () => {
    for (const body of responses) for (const secret of [...PANS, ...CVVS.map((c) => `"${c}"`)]) expect(body).not.toContain(secret);
  });

  it('in no log line', () => {
    for (const secret of PANS) expect(t.logs.text).not.toContain(secret);
    for (const cvv of CVVS) expect(t.logs.text).not.toContain(`"${cvv}"`);
  });

  it('in no database column', async () => {
    const tables =
      testDialect === 'postgres'
        ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(t.ctx.database.db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.ctx.database.db)).rows;
    let scanned = 0;
    for (const { name } of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(t.ctx.database.db)).rows;
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          const text = String(value ?? '');
          scanned++;
          for (const pan of PANS) expect(text, `${name}.${column}`).not.toContain(pan);
          for (const cvv of CVVS) expect(text.includes(`"${cvv}"`) || text === cvv, `${name}.${column}`).toBe(false);
        }
      }
    }
    expect(scanned).toBeGreaterThan(100);
  });
});
