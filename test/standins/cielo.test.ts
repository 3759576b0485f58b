import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CieloStandIn, STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY, type CieloStats, type SaleSummary } from './cielo.js';

const AUTH = { MerchantId: STANDIN_MERCHANT_ID, MerchantKey: STANDIN_MERCHANT_KEY };
const APPROVED_CARD = '4551870000000181';
/** An answer's JSON, loosely typed: the tests assert its shape. */
const read = async (res: Response): Promise<any> => res.json();
const CVV = '7319';

function saleRequest(overrides: { card?: string; capture?: boolean; orderId?: string; amount?: number } = {}) {
  return {
    MerchantOrderId: overrides.orderId ?? `order-${Math.random().toString(36).slice(2, 10)}`,
    Customer: { Name: 'Comprador Teste' },
    Payment: {
      Type: 'CreditCard',
      Amount: overrides.amount ?? 15700,
      Installments: 1,
      Capture: overrides.capture ?? true,
      SoftDescriptor: 'LOJA',
      CreditCard: {
        CardNumber: overrides.card ?? APPROVED_CARD,
        Holder: 'Teste Holder',
        ExpirationDate: '12/2099',
        SecurityCode: CVV,
        Brand: 'Visa',
      },
    },
  };
}

describe('Cielo stand-in', () => {
  let cielo: CieloStandIn;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0.9 }).start();
  });
  afterAll(() => cielo.stop());
  beforeEach(() => cielo.reset());

  const api = (path: string, init: RequestInit = {}) =>
    fetch(cielo.apiUrl + path, { ...init, headers: { ...AUTH, 'content-type': 'application/json', ...init.headers } });
  const query = (path: string, init: RequestInit = {}) => fetch(cielo.queryUrl + path, { ...init, headers: { ...AUTH, ...init.headers } });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    api('/1/sales/', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers });
  const sell = async (overrides: Parameters<typeof saleRequest>[0] = {}): Promise<any> => {
    const res = await post(saleRequest(overrides));
    expect(res.status).toBe(201);
    return ((await res.json()) as { Payment: unknown }).Payment;
  };
  const control = (path: string, method = 'GET', body?: unknown) =>
    fetch(`${cielo.apiUrl}/__standin/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const stats = async () => (await (await control('stats')).json()) as CieloStats;

  it('serves the API and the query API on two local ports, with 36-character id and 40-character key', () => {
    expect(cielo.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cielo.queryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cielo.apiUrl).not.toBe(cielo.queryUrl);
    expect(STANDIN_MERCHANT_ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(STANDIN_MERCHANT_KEY).toHaveLength(40);
  });

  it('refuses a request without the right MerchantId and MerchantKey with 401 on both APIs', async () => {
    const body = JSON.stringify(saleRequest());
    for (const headers of <Record<string, string>[]>[{}, { MerchantId: STANDIN_MERCHANT_ID }, { ...AUTH, MerchantKey: 'X'.repeat(40) }, { ...AUTH, MerchantId: crypto.randomUUID() }]) {
      const res = await fetch(`${cielo.apiUrl}/1/sales/`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ Message: 'Merchant not found' });
    }
    expect((await fetch(`${cielo.queryUrl}/1/sales?merchantOrderId=x`)).status).toBe(401);
    expect(cielo.sales()).toEqual([]);
  });

  it('creates a captured sale and answers 201 in Cielo\'s shape, with the card masked and the RequestId recorded', async () => {
    const request = saleRequest({ orderId: 'order-201' });
    const res = await post(request, { RequestId: 'f3c2a64b-96a4-43b5-9afa-af31e23eb5e4' });
    expect(res.status).toBe(201);
    const body = await read(res);
    expect(body).toMatchObject({
      MerchantOrderId: 'order-201',
      Customer: { Name: 'Comprador Teste' },
      Payment: {
        ServiceTaxAmount: 0,
        Installments: 1,
        Interest: 0,
        Capture: true,
        Authenticate: false,
        Recurrent: false,
        CreditCard: { CardNumber: '455187******0181', Holder: 'Teste Holder', ExpirationDate: '12/2099', SaveCard: false, Brand: 'Visa' },
        SoftDescriptor: 'LOJA',
        Provider: 'Simulado',
        Type: 'CreditCard',
        Amount: 15700,
        CapturedAmount: 15700,
        Currency: 'BRL',
        Country: 'BRA',
        ReturnCode: '6',
        ReturnMessage: 'Operation Successful',
        Status: 2,
      },
    });
    const payment = body.Payment;
    expect(payment.PaymentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(payment.ReceivedDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(payment.CapturedDate).toBe(payment.ReceivedDate);
    expect(payment.Tid).toMatch(/^\d{16}$/);
    expect(payment.ProofOfSale).toMatch(/^\d{6}$/);
    expect(payment.AuthorizationCode).toMatch(/^\d{6}$/);
    expect(payment.Links).toEqual([
      { Method: 'GET', Rel: 'self', Href: `${cielo.queryUrl}/1/sales/${payment.PaymentId}` },
      { Method: 'PUT', Rel: 'void', Href: `${cielo.apiUrl}/1/sales/${payment.PaymentId}/void` },
    ]);
    expect(cielo.sales()).toEqual([
      {
        PaymentId: payment.PaymentId,
        MerchantOrderId: 'order-201',
        Amount: 15700,
        Installments: 1,
        Status: 2,
        ReturnCode: '6',
        Brand: 'Visa',
        VoidedAmount: 0,
        ReceivedDate: payment.ReceivedDate,
        requestId: 'f3c2a64b-96a4-43b5-9afa-af31e23eb5e4',
      } satisfies SaleSummary,
    ]);
    expect(cielo.requests().at(-1)).toEqual({ api: 'api', method: 'POST', path: '/1/sales/', requestId: 'f3c2a64b-96a4-43b5-9afa-af31e23eb5e4' });
  });

  it('never keeps or echoes the full card number or the security code', async () => {
    cielo.forceOutcome({ cardNumber: '4000000000000010', returnCode: '51', message: 'Not Authorized' });
    const created = await sell();
    const answers = JSON.stringify([created, await (await query(`/1/sales/${created.PaymentId}`)).json()]);
    expect(answers).not.toContain(APPROVED_CARD);
    expect(answers).not.toContain('"SecurityCode"');
    const everything = inspect(cielo, { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity }) + JSON.stringify(cielo.stats());
    // The inspection does reach the state: the masked number and the forced card's hash are in it.
    expect(everything).toContain('455187******0181');
    expect(everything).toContain(createHash('sha256').update('4000000000000010').digest('hex'));
    expect(everything).not.toContain(APPROVED_CARD);
    expect(everything).not.toContain('4000000000000010');
    expect(everything).not.toMatch(/\b7319\b/);
  });

  it('authorizes only (Status 1, ReturnCode 4) when Capture is false, with capture and void links', async () => {
    const payment = await sell({ capture: false });
    expect(payment).toMatchObject({ Status: 1, ReturnCode: '4', ReturnMessage: 'Operation Successful', Capture: false });
    expect(payment.CapturedAmount).toBeUndefined();
    expect(payment.Links.map((link: { Rel: string }) => link.Rel)).toEqual(['self', 'capture', 'void']);
  });

  it('answers by the card number\'s last digit as Cielo\'s sandbox does', async () => {
    const table: [digit: string, status: number, code: string, message: string][] = [
      ['0', 2, '6', 'Operation Successful'],
      ['1', 2, '6', 'Operation Successful'],
      ['4', 2, '6', 'Operation Successful'],
      ['2', 3, '05', 'Not Authorized'],
      ['3', 3, '57', 'Card Expired'],
      ['5', 3, '78', 'Card Locked'],
      ['6', 3, '99', 'Time Out'],
      ['7', 3, '77', 'Card Canceled'],
      ['8', 3, '70', 'Problems with Creditcard'],
      ['9', 3, '99', 'Time Out'], // random() is 0.9 here: the denied side of the coin
    ];
    for (const [digit, status, code, message] of table) {
      const payment = await sell({ card: `400000000000000${digit}` });
      expect({ digit, Status: payment.Status, ReturnCode: payment.ReturnCode, ReturnMessage: payment.ReturnMessage }).toEqual({
        digit,
        Status: status,
        ReturnCode: code,
        ReturnMessage: message,
      });
      expect(payment.AuthorizationCode === undefined).toBe(status === 3);
      expect(payment.Links).toHaveLength(status === 3 ? 1 : 2);
    }
    const lucky = await new CieloStandIn({ random: () => 0.1 }).start();
    try {
      const res = await fetch(`${lucky.apiUrl}/1/sales`, { method: 'POST', headers: AUTH, body: JSON.stringify(saleRequest({ card: '4000000000000009' })) });
      expect((await read(res)).Payment).toMatchObject({ Status: 2, ReturnCode: '6' });
    } finally {
      await lucky.stop();
    }
  });

  it('refuses invalid sales with 400 and Cielo\'s error codes, recording nothing', async () => {
    const base = saleRequest();
    const withPayment = (payment: object) => ({ ...base, Payment: { ...base.Payment, ...payment } });
    const withCard = (card: object) => withPayment({ CreditCard: { ...base.Payment.CreditCard, ...card } });
    const cases: [name: string, body: unknown, codes: number[]][] = [
      ['malformed JSON', '{"MerchantOrderId": ', [184]],
      ['empty body', '', [184]],
      ['no MerchantOrderId', { ...base, MerchantOrderId: undefined }, [122]],
      ['blank MerchantOrderId', { ...base, MerchantOrderId: '  ' }, [122]],
      ['MerchantOrderId over 50', { ...base, MerchantOrderId: 'x'.repeat(51) }, [107]],
      ['no Payment', { ...base, Payment: undefined }, [119]],
      ['no Type', withPayment({ Type: undefined }), [102]],
      ['debit card', withPayment({ Type: 'DebitCard' }), [173]],
      ['zero Amount', withPayment({ Amount: 0 }), [108]],
      ['negative Amount', withPayment({ Amount: -1 }), [108]],
      ['fractional Amount', withPayment({ Amount: 157.5 }), [108]],
      ['Amount as text', withPayment({ Amount: '15700' }), [108]],
      ['zero Installments', withPayment({ Installments: 0 }), [123]],
      ['13 Installments', withPayment({ Installments: 13 }), [186]],
      ['no CreditCard', withPayment({ CreditCard: undefined }), [124]],
      ['no CardNumber', withCard({ CardNumber: undefined }), [118]],
      ['CardNumber over 19', withCard({ CardNumber: '4'.repeat(20) }), [128]],
      ['CardNumber not digits', withCard({ CardNumber: '4551 8700 0000 0181' }), [213]],
      ['no Holder', withCard({ Holder: '' }), [117]],
      ['no ExpirationDate', withCard({ ExpirationDate: undefined }), [125]],
      ['ExpirationDate format', withCard({ ExpirationDate: '12/30' }), [126]],
      ['ExpirationDate month 13', withCard({ ExpirationDate: '13/2099' }), [126]],
      ['ExpirationDate past', withCard({ ExpirationDate: '01/2020' }), [126]],
      ['SecurityCode too long', withCard({ SecurityCode: '12345' }), [146]],
      ['no Brand', withCard({ Brand: undefined }), [182]],
      ['unknown Brand', withCard({ Brand: 'Maestro' }), [185]],
      ['several at once', { ...withPayment({ Amount: 0, Installments: 0 }), MerchantOrderId: '' }, [122, 108, 123]],
    ];
    for (const [name, body, codes] of cases) {
      const res = await post(body);
      const answer = (await res.json()) as { Code: number; Message: string }[];
      expect({ name, status: res.status, codes: answer.map((error) => error.Code) }).toEqual({ name, status: 400, codes });
      expect(answer.every((error) => typeof error.Message === 'string' && error.Message !== '')).toBe(true);
    }
    expect(cielo.sales()).toEqual([]);
    // Every brand of the credit product is taken, ignoring case; field names bind ignoring case too.
    for (const brand of ['Visa', 'master', 'Amex', 'Elo', 'Hipercard', 'Diners', 'Discover', 'JCB', 'Aura']) {
      expect((await post(withCard({ Brand: brand }))).status).toBe(201);
    }
    expect((await post({ merchantOrderId: 'lower', payment: { type: 'creditcard', amount: 100, installments: 12, creditCard: base.Payment.CreditCard } })).status).toBe(201);
  });

  it('makes two sales of two POSTs with the same MerchantOrderId, and lists both oldest first', async () => {
    const first = await sell({ orderId: 'twice' });
    const second = await sell({ orderId: 'twice' });
    await sell({ orderId: 'once' });
    expect(first.PaymentId).not.toBe(second.PaymentId);
    const res = await query('/1/sales?merchantOrderId=twice');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      Payments: [
        { PaymentId: first.PaymentId, ReceivedDate: first.ReceivedDate },
        { PaymentId: second.PaymentId, ReceivedDate: second.ReceivedDate },
      ],
      ReasonCode: 0,
      ReasonMessage: 'Successful',
    });
    expect(await stats()).toMatchObject({ sales: 3, approved: 3, salesByMerchantOrderId: { twice: 2, once: 1 }, duplicates: { twice: 2 } });
  });

  it('answers 404 with an empty body for an order or a PaymentId it does not know', async () => {
    const none = await query('/1/sales?merchantOrderId=nobody');
    expect(none.status).toBe(404);
    expect(await none.text()).toBe('');
    const unknown = await query(`/1/sales/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect((await query('/1/sales')).status).toBe(400);
  });

  it('shows a sale by PaymentId with its current status', async () => {
    const created = await sell({ capture: false });
    const res = await query(`/1/sales/${created.PaymentId.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect((await read(res)).Payment).toEqual(created);
    await api(`/1/sales/${created.PaymentId}/void`, { method: 'PUT' });
    const voided = (await read(await query(`/1/sales/${created.PaymentId}`))).Payment;
    expect(voided).toMatchObject({ Status: 10, VoidedAmount: 15700 });
    expect(voided.VoidedDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(voided.Links).toHaveLength(1);
  });

  it('voids an approved sale in full once, then refuses with 309', async () => {
    const sale = await sell();
    const res = await api(`/1/sales/${sale.PaymentId}/void`, { method: 'PUT' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      Status: 10,
      ReasonCode: 0,
      ReasonMessage: 'Successful',
      ProviderReturnCode: '9',
      ProviderReturnMessage: 'Operation Successful',
      ReturnCode: '9',
      ReturnMessage: 'Operation Successful',
      Tid: sale.Tid,
      ProofOfSale: sale.ProofOfSale,
      AuthorizationCode: sale.AuthorizationCode,
      Links: [{ Method: 'GET', Rel: 'self', Href: `${cielo.queryUrl}/1/sales/${sale.PaymentId}` }],
    });
    const again = await api(`/1/sales/${sale.PaymentId}/void?amount=15700`, { method: 'PUT' });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual([{ Code: 309, Message: 'Transaction not available to void' }]);
    expect(cielo.sales()[0]).toMatchObject({ Status: 10, VoidedAmount: 15700 });
    expect(await stats()).toMatchObject({ voided: 1, requests: { sale: 1, void: 2 } });
  });

  it('voids part of a captured sale, then the rest; never more than what is left', async () => {
    const sale = await sell({ amount: 10000 });
    const part = await api(`/1/sales/${sale.PaymentId}/void?amount=4000`, { method: 'PUT' });
    expect(part.status).toBe(200);
    expect(await part.json()).toMatchObject({ Status: 2, ReturnCode: '0' });
    expect(cielo.sales()[0]).toMatchObject({ Status: 2, VoidedAmount: 4000 });
    const tooMuch = await api(`/1/sales/${sale.PaymentId}/void?amount=6001`, { method: 'PUT' });
    expect(tooMuch.status).toBe(400);
    expect((await api(`/1/sales/${sale.PaymentId}/void?amount=abc`, { method: 'PUT' })).status).toBe(400);
    const rest = await api(`/1/sales/${sale.PaymentId}/void?amount=6000`, { method: 'PUT' });
    expect(await rest.json()).toMatchObject({ Status: 10, ReturnCode: '9' });
    expect(cielo.sales()[0]).toMatchObject({ Status: 10, VoidedAmount: 10000 });
  });

  it('refuses to void a denied sale (309), part of an uncaptured one (309), or an unknown PaymentId (404)', async () => {
    const denied = await sell({ card: '4000000000000002' });
    const res = await api(`/1/sales/${denied.PaymentId}/void`, { method: 'PUT' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual([{ Code: 309, Message: 'Transaction not available to void' }]);
    const authorized = await sell({ capture: false });
    expect((await api(`/1/sales/${authorized.PaymentId}/void?amount=100`, { method: 'PUT' })).status).toBe(400);
    expect((await api(`/1/sales/${authorized.PaymentId}/void?amount=0`, { method: 'PUT' })).status).toBe(200);
    expect((await api(`/1/sales/${crypto.randomUUID()}/void`, { method: 'PUT' })).status).toBe(404);
  });

  it('captures an authorized sale once (308 after)', async () => {
    const sale = await sell({ capture: false });
    const res = await api(`/1/sales/${sale.PaymentId}/capture?amount=15000`, { method: 'PUT' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ Status: 2, ReturnCode: '6', ReasonCode: 0 });
    expect((await read(await query(`/1/sales/${sale.PaymentId}`))).Payment).toMatchObject({ Status: 2, CapturedAmount: 15000 });
    const again = await api(`/1/sales/${sale.PaymentId}/capture`, { method: 'PUT' });
    expect(await again.json()).toEqual([{ Code: 308, Message: 'Transaction not available to capture' }]);
  });

  it('answers 404 for an unknown route and 405 for a known one with the wrong method, on both ports', async () => {
    expect((await api('/1/nothing')).status).toBe(404);
    expect((await api('/1/sales/')).status).toBe(405);
    expect((await api(`/1/sales/${crypto.randomUUID()}/void`)).status).toBe(405);
    expect((await api(`/1/sales/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await query('/1/sales?merchantOrderId=x', { method: 'POST' })).status).toBe(405);
    expect((await query(`/1/sales/${crypto.randomUUID()}/void`, { method: 'PUT' })).status).toBe(404);
    expect((await query('/__standin/stats')).status).toBe(404);
    expect((await control('nothing')).status).toBe(404);
    expect((await control('stats', 'DELETE')).status).toBe(405);
  });

  describe('faults', () => {
    it('waits latencyMs before every answer, API and query', async () => {
      await control('faults', 'POST', { latencyMs: 120 });
      let started = performance.now();
      await sell();
      expect(performance.now() - started).toBeGreaterThanOrEqual(110);
      started = performance.now();
      await query('/1/sales?merchantOrderId=x');
      expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    });

    it('down: destroys every API and query socket unanswered and records nothing; the controls still answer', async () => {
      await control('faults', 'POST', { down: true });
      await expect(post(saleRequest())).rejects.toThrow();
      await expect(query('/1/sales?merchantOrderId=x')).rejects.toThrow();
      expect(await stats()).toMatchObject({ sales: 0, requests: { sale: 1, query: 1 } });
      expect((await read(await control('faults', 'POST', { down: false }))).faults.down).toBe(false);
      await sell();
    });

    it('dropAfterRecord: records the sale, then closes without an answer', async () => {
      cielo.setFaults({ dropAfterRecord: 1 });
      await expect(post(saleRequest({ orderId: 'lost-answer' }))).rejects.toThrow();
      expect(cielo.sales()).toHaveLength(1);
      expect((await query('/1/sales?merchantOrderId=lost-answer')).status).toBe(200);
      await sell();
      expect(cielo.currentFaults().dropAfterRecord).toBe(0);
    });

    it('dropBeforeRecord: closes without an answer and records nothing', async () => {
      await control('faults', 'POST', { dropBeforeRecord: 2 });
      await expect(post(saleRequest())).rejects.toThrow();
      await expect(post(saleRequest())).rejects.toThrow();
      expect(cielo.sales()).toHaveLength(0);
      await sell();
    });

    it('fail5xxAfterRecord answers 500 with the sale recorded; fail5xxBeforeRecord 503 with nothing recorded', async () => {
      await control('faults', 'POST', { fail5xxAfterRecord: 1 });
      expect((await post(saleRequest())).status).toBe(500);
      expect(cielo.sales()).toHaveLength(1);
      await control('faults', 'POST', { fail5xxBeforeRecord: 1 });
      expect((await post(saleRequest())).status).toBe(503);
      expect(cielo.sales()).toHaveLength(1);
    });

    it('queryDown: only the query API answers 503', async () => {
      await control('faults', 'POST', { queryDown: true });
      const sale = await sell();
      expect((await query(`/1/sales/${sale.PaymentId}`)).status).toBe(503);
      expect((await api(`/1/sales/${sale.PaymentId}/void`, { method: 'PUT' })).status).toBe(200);
    });

    it('hang: records the sale and keeps the socket open without answering', async () => {
      await control('faults', 'POST', { hang: 1 });
      const hung = fetch(`${cielo.apiUrl}/1/sales`, { method: 'POST', headers: AUTH, body: JSON.stringify(saleRequest()), signal: AbortSignal.timeout(200) });
      await expect(hung).rejects.toThrow();
      expect(cielo.sales()).toHaveLength(1);
      await sell();
    });

    it('voidDropAfterRecord applies a partial void and closes unanswered (VoidedAmount shows it); voidDropBeforeRecord applies nothing', async () => {
      const sale = await sell({ amount: 10000 });
      const voidPart = (amount: number) => api(`/1/sales/${sale.PaymentId}/void?amount=${amount}`, { method: 'PUT' });
      await control('faults', 'POST', { voidDropAfterRecord: 1 });
      await expect(voidPart(3000)).rejects.toThrow();
      expect((await read(await query(`/1/sales/${sale.PaymentId}`))).Payment).toMatchObject({ Status: 2, VoidedAmount: 3000 });
      await control('faults', 'POST', { voidDropBeforeRecord: 1 });
      await expect(voidPart(2000)).rejects.toThrow();
      expect(cielo.sales()[0]).toMatchObject({ Status: 2, VoidedAmount: 3000 });
      // Every attempt is counted, answered or not; sales are untouched by void faults.
      expect((await stats()).requests.void).toBe(2);
      expect(await (await voidPart(7000)).json()).toMatchObject({ Status: 10, ReturnCode: '9' });
    });

    it('voidHang: applies the void and keeps the socket open without answering', async () => {
      const sale = await sell({ amount: 10000 });
      await control('faults', 'POST', { voidHang: 1 });
      const hung = fetch(`${cielo.apiUrl}/1/sales/${sale.PaymentId}/void?amount=2500`, { method: 'PUT', headers: AUTH, signal: AbortSignal.timeout(200) });
      await expect(hung).rejects.toThrow();
      expect(cielo.sales()[0]).toMatchObject({ Status: 2, VoidedAmount: 2500 });
    });

    it('refuses an unknown or mistyped fault', async () => {
      expect((await control('faults', 'POST', { dropAfter: 1 })).status).toBe(400);
      expect((await control('faults', 'POST', { down: 'yes' })).status).toBe(400);
      expect((await control('faults', 'POST', { hang: -1 })).status).toBe(400);
    });
  });

  describe('forced outcomes', () => {
    it('forces a card\'s outcome (matched by number) until cleared, over the digit table', async () => {
      const res = await control('outcomes', 'POST', { cardNumber: APPROVED_CARD, returnCode: '51', status: 3, message: 'Not Authorized' });
      expect(res.status).toBe(204);
      for (let i = 0; i < 2; i += 1) expect(await sell()).toMatchObject({ Status: 3, ReturnCode: '51', ReturnMessage: 'Not Authorized' });
      expect(await sell({ card: '4000000000000000' })).toMatchObject({ Status: 2 });
      expect((await control('outcomes', 'DELETE')).status).toBe(204);
      expect(await sell()).toMatchObject({ Status: 2, ReturnCode: '6' });
    });

    it('forces the next N sales, in the order given, then the table again', async () => {
      await control('outcomes', 'POST', { next: 2, returnCode: '41', status: 3, message: 'Lost Card' });
      cielo.forceOutcome({ returnCode: '00', status: 2, message: 'Forced approval' });
      expect((await sell()).ReturnCode).toBe('41');
      expect((await sell({ card: '4000000000000002' })).ReturnCode).toBe('41');
      const approved = await sell({ card: '4000000000000002' });
      expect(approved).toMatchObject({ Status: 2, ReturnCode: '00', ReturnMessage: 'Forced approval' });
      expect(approved.AuthorizationCode).toMatch(/^\d{6}$/);
      expect((await sell({ card: '4000000000000002' })).ReturnCode).toBe('05');
    });

    it('applies a card\'s outcome only `next` times when given, and refuses a bad one', async () => {
      cielo.forceOutcome({ cardNumber: APPROVED_CARD, next: 1, returnCode: '43', message: 'Stolen Card' });
      expect(await sell()).toMatchObject({ Status: 3, ReturnCode: '43' });
      expect(await sell()).toMatchObject({ Status: 2 });
      expect((await control('outcomes', 'POST', { returnCode: '', message: 'x' })).status).toBe(400);
      expect((await control('outcomes', 'POST', { cardNumber: 'abc', returnCode: '51', message: 'x' })).status).toBe(400);
    });
  });

  it('lists sales and stats over HTTP, and reset clears sales, faults and outcomes', async () => {
    const sale = await sell({ orderId: 'listed' });
    await sell({ orderId: 'listed', card: '4000000000000002' });
    await api(`/1/sales/${sale.PaymentId}/void`, { method: 'PUT' });
    await query('/1/sales?merchantOrderId=listed');
    await query(`/1/sales/${sale.PaymentId}`);
    const { sales } = (await (await control('sales')).json()) as { sales: SaleSummary[] };
    expect(sales.map((s) => [s.MerchantOrderId, s.Status, s.ReturnCode])).toEqual([
      ['listed', 10, '6'],
      ['listed', 3, '05'],
    ]);
    expect(await stats()).toEqual({
      sales: 2,
      approved: 1,
      voided: 1,
      salesByMerchantOrderId: { listed: 2 },
      duplicates: { listed: 2 },
      requests: { sale: 2, void: 1, capture: 0, query: 1, get: 1 },
    });
    cielo.setFaults({ hang: 3, latencyMs: 5 });
    cielo.forceOutcome({ next: 5, returnCode: '51', message: 'x' });
    expect((await control('reset', 'POST')).status).toBe(204);
    expect(cielo.sales()).toEqual([]);
    expect(cielo.currentFaults()).toMatchObject({ hang: 0, latencyMs: 0 });
    expect(await sell()).toMatchObject({ Status: 2 });
  });

  it('runs as its own process and prints where it listens', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/standins/cielo.ts', '--port', '0', '--merchant-id', STANDIN_MERCHANT_ID, '--merchant-key', 'K'.repeat(40)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const match = /^cielo stand-in listening api=(http:\/\/127\.0\.0\.1:\d+) query=(http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      expect(match).not.toBeNull();
      const res = await fetch(`${match![1]}/1/sales`, { method: 'POST', headers: { MerchantId: STANDIN_MERCHANT_ID, MerchantKey: 'K'.repeat(40) }, body: JSON.stringify(saleRequest()) });
      expect(res.status).toBe(201);
      expect((await fetch(`${match![2]}/1/sales?merchantOrderId=x`, { headers: AUTH })).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
