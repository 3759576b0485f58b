import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../src/clock.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { createLink, fromNow, information, linkBody, LINKS, payLink } from './support.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe(`payment links API (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let other: TestMerchant;
  beforeAll(async () => {
    t = await testApp({ env: { PUBLIC_URL: 'https://pay.example.com' } });
    m = await t.merchant();
    other = await t.merchant();
  });
  afterAll(() => t.close());

  const create = (payload: object, headers = m.headers) => t.inject({ method: 'POST', url: LINKS, headers, payload });
  const deactivate = (id: string, headers = m.headers) => t.inject({ method: 'POST', url: `${LINKS}/${id}/deactivate`, headers });
  const advance = (payload: object) => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload });
  const pendingExpiryJobs = (id: string) =>
    t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `paymentlink.expire:${id}`).where('status', '=', 'pending').execute();

  describe('create', () => {
    it('answers 201 with every seed field, the seller from the merchant and link = PUBLIC_URL/pay/{id}', async () => {
      const expirationDate = fromNow(t, 72);
      const res = await create(linkBody(t, { description: 'Camiseta azul', value: 1234.56, qttyInstallments: 10, qttyInstallmentsIntFree: 3, installmentsFee: 2.4999, expirationDate, message: 'Obrigado!' }));
      expect(res.statusCode).toBe(201);
      const link = res.json();
      expect(link).toEqual({
        id: expect.stringMatching(GUID),
        sellerDocumentNumber: '11222333000181',
        sellerName: 'Loja Teste',
        description: 'Camiseta azul',
        value: 1234.56,
        qttyInstallments: 10,
        qttyInstallmentsCustom: null,
        qttyInstallmentsIntFree: 3,
        installmentsFee: 2.4999,
        operationDate: expect.any(String),
        expirationDate,
        link: `https://pay.example.com/pay/${link.id}`,
        message: 'Obrigado!',
        status: 1,
        statusFormat: 'Em Aberto',
        paymentDate: null,
        paymentValue: null,
        paymentQttyInstallments: null,
        paymentAuthorizationCode: null,
        paymentResultId: null,
        history: [{ id: expect.any(String), idPaymentLink: link.id, reason: 'Link de pagamento criado.', historyDate: link.operationDate, status: 1, statusFormat: 'Em Aberto' }],
      });
      expect(Date.parse(link.operationDate)).toBeLessThanOrEqual(t.ctx.clock.now().getTime());
      expect(await information(t, m, link.id)).toEqual(link);
      expect(await pendingExpiryJobs(link.id)).toHaveLength(1);
    });

    it('takes an explicit list of installment counts', async () => {
      const link = await createLink(t, m, { qttyInstallments: undefined, qttyInstallmentsCustom: [10, 1, 3] });
      expect(link).toMatchObject({ qttyInstallments: null, qttyInstallmentsCustom: [10, 1, 3], qttyInstallmentsIntFree: 10, installmentsFee: 0 });
    });

    it('defaults the interest-free count to all installments without a fee, and to 1 with one', async () => {
      expect(await createLink(t, m, { qttyInstallments: 6 })).toMatchObject({ qttyInstallmentsIntFree: 6, installmentsFee: 0 });
      expect(await createLink(t, m, { qttyInstallments: 6, installmentsFee: '1.99' })).toMatchObject({ qttyInstallmentsIntFree: 1, installmentsFee: 1.99 });
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['both qttyInstallments and qttyInstallmentsCustom', { qttyInstallments: 3, qttyInstallmentsCustom: [1, 2] }, 'qttyInstallmentsCustom'],
      ['neither qttyInstallments nor qttyInstallmentsCustom', { qttyInstallments: undefined }, 'qttyInstallments'],
      ['an interest-free count of 0', { qttyInstallmentsIntFree: 0 }, 'qttyInstallmentsIntFree'],
      ['an interest-free count above qttyInstallments', { qttyInstallments: 6, qttyInstallmentsIntFree: 7 }, 'qttyInstallmentsIntFree'],
      ['an interest-free count above the largest custom count', { qttyInstallments: undefined, qttyInstallmentsCustom: [2, 4], qttyInstallmentsIntFree: 5 }, 'qttyInstallmentsIntFree'],
      ['value 0', { value: 0 }, 'value'],
      ['a negative value', { value: -10 }, 'value'],
      ['a value with 3 decimals', { value: 10.001 }, 'value'],
      ['a value that is not a number', { value: 'dez' }, 'value'],
      ['a value above 99999999.99', { value: 100_000_000 }, 'value'],
      ['a value too small for its installments', { value: 0.05, qttyInstallments: 12 }, 'value'],
      ['a fee above 100 %', { installmentsFee: 101 }, 'installmentsFee'],
      ['a fee with 5 decimals', { installmentsFee: 1.23456 }, 'installmentsFee'],
      ['an expiration in the past', { expirationDate: '2020-01-01T00:00:00Z' }, 'expirationDate'],
      ['an expiration without a zone', { expirationDate: '2099-01-01T00:00:00' }, 'expirationDate'],
      ['an expiration that is not a date', { expirationDate: 'amanhã' }, 'expirationDate'],
      ['13 installments', { qttyInstallments: 13 }, 'qttyInstallments'],
      ['a repeated custom count', { qttyInstallments: undefined, qttyInstallmentsCustom: [2, 2] }, 'qttyInstallmentsCustom'],
      ['a custom count of 0', { qttyInstallments: undefined, qttyInstallmentsCustom: [0, 2] }, 'qttyInstallmentsCustom[0]'],
      ['no description', { description: undefined }, 'description'],
      ['a description over 255 characters', { description: 'x'.repeat(256) }, 'description'],
      ['a message over 500 characters', { message: 'x'.repeat(501) }, 'message'],
    ];
    for (const [what, overrides, tag] of invalid) {
      it(`rejects ${what} (400 ${tag})`, async () => {
        const res = await create(linkBody(t, overrides));
        expect(res.statusCode).toBe(400);
        expect(res.json()).toContainEqual({ tag, description: expect.any(String) });
      });
    }

    it('lists every problem in one answer', async () => {
      const res = await create(linkBody(t, { value: 0, qttyInstallmentsCustom: [1], expirationDate: '2020-01-01T00:00:00Z', installmentsFee: 200 }));
      expect(res.statusCode).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['expirationDate', 'installmentsFee', 'qttyInstallmentsCustom', 'value']);
    });

    it('needs a gateway token with the payments scope', async () => {
      expect((await create(linkBody(t), {})).statusCode).toBe(401);
      const recurrenceOnly = await t.merchant({ scopes: ['recurrence'] });
      expect((await create(linkBody(t), recurrenceOnly.headers)).statusCode).toBe(403);
    });

    it('replays the first answer for the same Idempotency-Key', async () => {
      const payload = linkBody(t, { description: 'idempotente' });
      const headers = { ...m.headers, 'idempotency-key': `link-${randomUUID()}` };
      const first = await create(payload, headers);
      const second = await create(payload, headers);
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json().id).toBe(first.json().id);
    });
  });

  describe('information', () => {
    const get = (query: string, headers = m.headers) => t.inject({ method: 'GET', url: `${LINKS}/information${query}`, headers });

    it('answers 400 for a missing or malformed id', async () => {
      for (const query of ['', '?id=', '?id=123', '?id=not-a-guid-at-all-not-a-guid-at-all']) {
        const res = await get(query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()[0].tag).toBe('query.id');
      }
    });

    it('answers 404 for an unknown id and for another merchant\'s link', async () => {
      expect((await get(`?id=${randomUUID()}`)).json()).toEqual([{ tag: 'not_found', description: 'Payment link not found.' }]);
      const theirs = await createLink(t, other);
      expect((await get(`?id=${theirs.id}`)).statusCode).toBe(404);
      expect((await get(`?id=${theirs.id}`, other.headers)).statusCode).toBe(200);
    });
  });

  describe('deactivate', () => {
    it('moves an open link to 9 Desativado with a history entry; the checkout then says why', async () => {
      const link = await createLink(t, m);
      const res = await deactivate(link.id);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ status: 9, statusFormat: 'Desativado' });
      expect(body.history.map((h: { status: number; statusFormat: string; reason: string }) => [h.status, h.statusFormat, h.reason])).toEqual([
        [1, 'Em Aberto', 'Link de pagamento criado.'],
        [9, 'Desativado', 'Desativado pelo vendedor.'],
      ]);
      expect(await pendingExpiryJobs(link.id)).toHaveLength(0);

      const pay = await payLink(t, link.id, '4111111111111111');
      expect(pay.statusCode).toBe(409);
      expect(pay.json()[0].tag).toBe('link_deactivated');
      const page = await t.inject({ method: 'GET', url: `/pay/${link.id}` });
      expect(page.body).toContain('Este link foi desativado');
      expect(page.body).not.toContain('<form');
    });

    it('is 409 for a link that is not open, 404 for another merchant\'s, 400 for a malformed id', async () => {
      const link = await createLink(t, m);
      await deactivate(link.id);
      const again = await deactivate(link.id);
      expect(again.statusCode).toBe(409);
      expect(again.json()[0].tag).toBe('invalid_state');

      const paid = await createLink(t, m);
      expect((await payLink(t, paid.id, '4111111111111111')).json()).toMatchObject({ paid: true });
      expect((await deactivate(paid.id)).statusCode).toBe(409);

      const theirs = await createLink(t, other);
      expect((await deactivate(theirs.id)).statusCode).toBe(404);
      expect((await information(t, other, theirs.id)).status).toBe(1);
      const malformed = await deactivate('123');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()[0].tag).toBe('path.id');
    });
  });

  describe('expiry', () => {
    it('a job expires the link at expirationDate: 3 Expirado, history dated at that instant', async () => {
      const expirationDate = fromNow(t, 1);
      const link = await createLink(t, m, { expirationDate });
      expect((await advance({ minutes: 59 })).statusCode).toBe(200);
      expect((await information(t, m, link.id)).status).toBe(1);
      await advance({ minutes: 2 });
      const info = await information(t, m, link.id);
      expect(info).toMatchObject({ status: 3, statusFormat: 'Expirado' });
      expect(info.history.slice(1)).toEqual([
        { id: expect.any(String), idPaymentLink: link.id, reason: `Prazo para pagamento encerrado em ${expirationDate}.`, historyDate: expirationDate, status: 3, statusFormat: 'Expirado' },
      ]);
      const pay = await payLink(t, link.id, '4111111111111111');
      expect(pay.statusCode).toBe(409);
      expect(pay.json()[0].tag).toBe('link_expired');
      expect((await deactivate(link.id)).statusCode).toBe(409);
    });

    it('a read after expirationDate expires the link even before its job runs, and the job adds nothing', async () => {
      const link = await createLink(t, m, { expirationDate: fromNow(t, 1) });
      // Move business time without running jobs (as if no worker had got to it yet).
      (t.ctx.clock as VirtualClock).moveTo(new Date(Date.parse(link.expirationDate) + 60_000));
      const info = await information(t, m, link.id);
      expect(info).toMatchObject({ status: 3, statusFormat: 'Expirado' });
      await advance({ minutes: 1 });
      const after = await information(t, m, link.id);
      expect(after.history.filter((h: { status: number }) => h.status === 3)).toHaveLength(1);
    });

    it('waits for a payment that is being processed at expirationDate, then expires the link', async () => {
      const link = await createLink(t, m, { expirationDate: fromNow(t, 1) });
      const hold = (claim_id: string | null, claimed_until: string | null) =>
        t.ctx.database.db.updateTable('payment_links').set({ claim_id, claimed_until }).where('id', '=', link.id).execute();
      await hold(randomUUID(), new Date(Date.now() + 60_000).toISOString());
      await advance({ hours: 1, minutes: 1 });
      expect((await information(t, m, link.id)).status).toBe(1);
      await hold(null, null);
      await advance({ minutes: 2 });
      expect((await information(t, m, link.id)).status).toBe(3);
    });
  });

  it('is documented in /openapi.json', async () => {
    const paths = Object.keys((await t.inject({ method: 'GET', url: '/openapi.json' })).json().paths);
    expect(paths).toEqual(expect.arrayContaining(['/gateway/v1/paymentlink', '/gateway/v1/paymentlink/information', '/gateway/v1/paymentlink/{id}/deactivate', '/pay/{id}/payments']));
    expect(paths).not.toContain('/pay/{id}');
  });
});
