import { compactVerify, createLocalJWKSet } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { brasiliaDate } from '../../src/domain/brasilia.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { addDays, R } from './support.js';
import { world, type World } from './world.js';
import { CPF, pixAuto } from './pix-automatico-support.js';
import { decodeJourneyThreeCode } from './composite-code.js';

/**
 * Pix Automático in the sandbox: a Pix plan's periods, a subscription awaiting the payer with
 * its journey-3 code, the authorization paying billing 1, and the plan's answer.
 */
describe(`Pix Automático: plans and authorization (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  it('a Monthly Pix plan is accepted and says the API Pix rules it follows; Bimonthly and a Custom other than 7 days are 400 naming planType', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const plan = (await w.api.get(`${R}/plans/${planId}`)).json();
    expect(plan).toMatchObject({ paymentMethod: 'Pix', planType: 'Monthly', pix: { periodicity: 'MENSAL', retryPolicy: 'PERMITE_3R_7D', maxRetries: 3, retryWindowDays: 7, cobrWindowDays: { from: 10, to: 2 } } });
    const weekly = await pix.plan({ planType: 'Custom', interval: 7, installments: 4 });
    expect((await w.api.get(`${R}/plans/${weekly}`)).json().pix.periodicity).toBe('SEMANAL');
    for (const [planType, extra] of [['Bimonthly', {}], ['Custom', { interval: 30, installments: 3 }]] as const) {
      const res = await w.api.post(`${R}/plans`, { name: 'P', description: 'd', amount: 10, planType, paymentMethod: 'Pix', ...extra });
      expect(res.statusCode, res.body).toBe(400);
      expect(JSON.stringify(res.json())).toContain('planType');
    }
    // A card plan keeps its periods.
    expect((await w.api.post(`${R}/plans`, { name: 'C', description: 'd', amount: 10, planType: 'Bimonthly', paymentMethod: 'CreditCard' })).statusCode).toBe(201);
  });

  it('a Pix subscription takes payer (checked), not vaultId; a card plan refuses payer', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const cardPlan = await w.api.plan();
    const tagsOf = async (body: object) => {
      const res = await w.api.post(`${R}/subscriptions`, body);
      expect(res.statusCode, res.body).toBe(400);
      return JSON.stringify(res.json());
    };
    expect(await tagsOf({ planId, orderNumber: 'A', vaultId: w.vaultId, payer: { documentNumber: CPF, name: 'M' } })).toContain('vaultId');
    expect(await tagsOf({ planId, orderNumber: 'A' })).toContain('payer');
    expect(await tagsOf({ planId, orderNumber: 'A', payer: { documentNumber: '12345678900', name: 'M' } })).toContain('payer.documentNumber');
    expect(await tagsOf({ planId: cardPlan, orderNumber: 'A', vaultId: w.vaultId, payer: { documentNumber: CPF, name: 'M' } })).toContain('payer');
    expect((await w.t.ctx.database.db.selectFrom('subscriptions').select('subscription_id').execute()).length).toBe(0);
  });

  it('PendingAuthorization with a journey-3 composite code whose two locations answer the signed charge and recurrence; authorized -> Active, billing 1 Paid with its conciliation record', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan({ trialDays: 3 });
    const subscriptionId = await pix.subscribe(planId);
    const sub = await pix.subscription(subscriptionId);
    expect(sub).toMatchObject({ status: 'PendingAuthorization', vaultId: null, payer: { documentNumber: CPF, name: 'Maria da Silva' } });
    const auth = sub.pixAuthorization;
    expect(auth).toMatchObject({ status: 'CRIADA', recurrenceId: expect.stringMatching(/^RR[0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/) });
    expect(auth.expiresAt).toBe(addDays(sub.createdDate, 3).toISOString());

    // One composite code: the first charge's location (26) and the recurrence's locrec (80).
    const { chargeLocation, recurrenceLocation } = decodeJourneyThreeCode(auth.pixEmv);
    expect(recurrenceLocation).toMatch(/\/pix\/v2\/rec\/[0-9a-f]{32}$/);
    expect(chargeLocation).toMatch(/\/pix\/v2\/[0-9a-f]{32}$/);
    const keys = createLocalJWKSet((await w.t.inject({ method: 'GET', url: '/pix/jwks' })).json());
    const read = async (location: string) => {
      const res = await w.t.inject({ method: 'GET', url: location.slice(location.indexOf('/')) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/jose/);
      return JSON.parse(new TextDecoder().decode((await compactVerify(res.body, keys)).payload));
    };
    const charge = await read(chargeLocation);
    expect(charge).toMatchObject({ txid: chargeLocation.slice(-32), valor: { original: '49.90' }, status: 'ATIVA' });
    expect(await read(recurrenceLocation)).toEqual({
      idRec: auth.recurrenceId,
      calendario: { periodicidade: 'MENSAL', dataInicial: brasiliaDate(new Date(auth.expiresAt)) },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      vinculo: { objeto: 'PIX-1', contrato: 'PIX-1', devedor: { cpf: CPF, nome: 'Maria da Silva' } },
      recebedor: expect.objectContaining({ nome: expect.any(String), ispbParticipante: '00000000' }),
      ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid: charge.txid } },
      status: 'CRIADA',
      atualizacao: [{ status: 'CRIADA', data: expect.any(String) }],
    });
    // Our own reader agrees with pix-utils.
    const ours = parseBrCode(auth.pixEmv);
    expect(ours).toMatchObject({ ok: true, value: { locationUrl: chargeLocation, recurrenceLocationUrl: recurrenceLocation, txid: '***' } });
    expect((await w.t.inject({ method: 'GET', url: '/pix/v2/rec/00000000000000000000000000000000' })).statusCode).toBe(404);

    await pix.payer(auth.recurrenceId, 'authorize');
    const active = await pix.subscription(subscriptionId);
    expect(active).toMatchObject({ status: 'Active', pixAuthorization: { status: 'APROVADA' } });
    const [first, second] = await w.api.billings();
    expect(first).toMatchObject({ installment: 1, status: 'Paid' });
    const detail = await w.api.billing(first.id);
    const chargeId = detail.attemptsHistory[0].paymentId;
    expect(detail.attemptsHistory).toEqual([expect.objectContaining({ returnCode: '00', paymentId: expect.any(String) })]);
    expect(await pix.receivablesOf(chargeId)).toHaveLength(1);
    expect(second).toMatchObject({ installment: 2, status: 'Opened', expireAt: addDays(first.expireAt, 30).toISOString() });
    // Authorized once: a second answer is 409.
    await pix.payer(auth.recurrenceId, 'authorize', 409);
  });

  it('refused -> Canceled with the reason; a code not authorized in time expires -> Canceled', async () => {
    w = await world();
    const pix = pixAuto(w.t, w.m);
    const planId = await pix.plan();
    const refused = await pix.subscribe(planId);
    await pix.payer((await pix.subscription(refused)).pixAuthorization.recurrenceId, 'reject');
    expect(await pix.subscription(refused)).toMatchObject({ status: 'Canceled', canceledReason: expect.stringContaining('refused'), pixAuthorization: { status: 'REJEITADA' } });

    const late = await pix.subscribe(planId, 'PIX-2');
    const { recurrenceId, expiresAt } = (await pix.subscription(late)).pixAuthorization;
    await w.clk.to(addDays(expiresAt, 0.01));
    expect(await pix.subscription(late)).toMatchObject({ status: 'Canceled', canceledReason: expect.stringContaining('expired'), pixAuthorization: { status: 'EXPIRADA' } });
    await pix.payer(recurrenceId, 'authorize', 409);
    const billings = await w.api.billings();
    expect(billings.map((b) => b.status)).toEqual(['Canceled', 'Canceled']);
  });
});
