import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_IDS } from '../../src/http/examples.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { tokenize, vault } from '../support/cards.js';

type Operation = {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
};

/**
 * Every request-body example of the OpenAPI document is accepted by a running
 * sandbox, as a reader pressing "Try it out" would send it (the example ids swapped for real ones).
 */
describe(`the OpenAPI examples are accepted by the sandbox (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let integrationToken: string;
  let operations: { method: string; path: string; op: Operation }[];
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    const login = await t.inject({ method: 'POST', url: '/integration/api/authentication/login', payload: { userName: m.userName, password: m.password } });
    integrationToken = login.json().accessToken;
    await t.inject({ method: 'PUT', url: `/admin/merchants/${m.merchantId}/antifraud`, headers: t.adminHeaders, payload: { velocity: { maxPerCard: 1000, maxPerDocument: 1000, maxPerIp: 1000 } } });
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  afterAll(() => t.close());

  /** Bodies that cannot carry a fixed example, each for its reason. */
  const WITHOUT_EXAMPLE: Record<string, string> = {
    payPaymentLink: 'encryptedCard is sealed with this server\'s public key: the checkout page builds it',
    reviewPayment: 'needs a payment held for review; its two values are in the schema',
    createRefund: 'needs a captured payment of the caller; its one field, amount, is optional',
    createPixRefund: 'needs a paid Pix charge of the caller; both fields are optional',
    sandboxPixInfraction: 'needs a paid Pix charge; both fields are optional',
    registerDispute: 'needs a captured payment (any merchant\'s) and a reason code of its brand',
    resolveDispute: 'needs an open dispute; its one field is won or lost',
    addDisputeEvidence: 'needs an open dispute of the caller; its files are PDF, PNG or JPEG bytes',
    sandboxDisputePayment: 'needs a captured payment and a reason code of its brand',
    setAcquirerConnection: "a merchant's real Cielo credentials",
    applyBankSlipReturns: 'a bank return file (text/plain), made by GET /sandbox/bankslips/returns',
    sandboxPayPixCharge: 'the body is optional',
    sandboxPixRecurrenceOutcome: 'needs a Pix recurrence (a Pix subscription awaiting or authorized); its one field is optional',
  };

  const example = (op: Operation) => {
    const media = Object.values(op.requestBody?.content ?? {})[0];
    return media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
  };

  it('every operation with a JSON body has an example, except the few that cannot (named with why)', () => {
    const missing = operations.filter((o) => o.op.requestBody && example(o.op) === undefined).map((o) => o.op.operationId);
    expect(missing.filter((id) => !(id in WITHOUT_EXAMPLE))).toEqual([]);
  });

  it('each example, sent as "Try it out" would send it, is accepted (2xx)', async () => {
    // Real ids for the example's placeholders and the paths' parameters.
    const plan = async (body: object = {}) =>
      (await t.inject({ method: 'POST', url: '/gateway/v1/recurrences/plans', headers: m.headers, payload: { name: 'P', description: 'P', amount: 49.9, planType: 'Monthly', paymentMethod: 'CreditCard', ...body } })).json() as string;
    const vaultId = await vault(t, m, '4111111111111111');
    const subscribedPlan = await plan();
    const subscription = (await t.inject({ method: 'POST', url: '/gateway/v1/recurrences/subscriptions', headers: m.headers, payload: { planId: subscribedPlan, vaultId, orderNumber: 'S-1' } })).json() as string;
    const freePlan = await plan();
    const params: Record<string, () => Promise<string> | string> = {
      merchantId: () => m.merchantId,
      planId: () => freePlan,
      subscriptionId: () => subscription,
      vaultId: () => vaultId,
      id: async () => {
        // A registered slip of the example's value (the sandbox-pay example pays it).
        const issued = await t.inject({ method: 'POST', url: `/integration/api/billissuer/issue?accountNumber=${m.accountNumber}`, headers: { authorization: `Bearer ${integrationToken}` }, payload: { value: 150.0, dueDate: '2030-12-20', payer: { document: '52998224725', name: 'Maria', streetAndNumber: 'Rua 1', zipCode: '01310100', city: 'Sao Paulo', state: 'SP', neighborhood: 'Centro' } } });
        await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });
        return issued.json().id;
      },
    };
    const ids: Record<string, () => Promise<string> | string> = {
      [EXAMPLE_IDS.merchantId]: () => m.merchantId,
      [EXAMPLE_IDS.userName]: () => m.userName,
      [EXAMPLE_IDS.password]: () => m.password,
      [EXAMPLE_IDS.numberToken]: () => tokenize(t, m, '4111111111111111'),
      [EXAMPLE_IDS.vaultId]: () => vaultId,
      [EXAMPLE_IDS.planId]: () => subscribedPlan,
    };
    const localize = async (value: unknown): Promise<unknown> => {
      if (typeof value === 'string') return ids[value] ? await ids[value]() : value;
      if (Array.isArray(value)) return Promise.all(value.map(localize));
      if (value && typeof value === 'object') return Object.fromEntries(await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await localize(v)])));
      return value;
    };
    // Changes of state last: the swap before the cancel, the clock at the very end.
    const LAST = ['swapSubscriptionVault', 'changeSubscriptionStatus', 'changePlanStatus', 'advanceSandboxClock'];
    const withExamples = operations
      .filter((o) => example(o.op) !== undefined)
      .sort((a, b) => LAST.indexOf(a.op.operationId) - LAST.indexOf(b.op.operationId));
    expect(withExamples.length).toBeGreaterThanOrEqual(25);

    const refused: string[] = [];
    for (const { method, path, op } of withExamples) {
      let url = path;
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) url = url.replace(`{${name}}`, await params[name]());
      const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${p.name === 'accountNumber' ? m.accountNumber : ''}`);
      if (query.length) url += `?${query.join('&')}`;
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const authorization = { gatewayToken: `Bearer ${m.token}`, integrationToken: `Bearer ${integrationToken}`, adminKey: t.adminHeaders.authorization }[scheme ?? ''];
      const res = await t.inject({ method: method as 'POST', url, headers: authorization ? { authorization } : {}, payload: (await localize(example(op))) as object });
      if (res.statusCode >= 300) refused.push(`${op.operationId} ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    }
    expect(refused).toEqual([]);
  }, 120_000);
});
