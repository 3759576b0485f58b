import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { validateSale } from '../standins/cielo-protocol.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, tokenize } from '../support/cards.js';
import { DEVICE, field, form } from '../support/three-ds.js';
import { liftVelocity } from '../recurrence/support.js';
import { SANDBOX_OTP } from '../../src/threeds/sandbox/server.js';

const PAY = '/gateway/v1/payments';
/** A Visa card Cielo's sandbox approves (its last digit). */
const APPROVED = cardNumber('4532', { last: 1 });
const CAVV = 'AAABB2gHA1B5EFNjWQcDAAAAAAA=';

/** ACQUIRER=cielo: the authentication reaches Cielo as `Authenticate: true` + `ExternalAuthentication`, Data Only as `DataOnly`; the stand-in checks them. */
describe(`3-D Secure through the Cielo stand-in (${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({ env: gatewayEnvFor(cielo, 2000) });
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterEach(() => cielo.reset());
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  const pay = async (pan: string, extra: Record<string, unknown>) =>
    (await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan, { securityCode: '123' }) }, extra) })).json();
  const saleOf = (paymentId: string) => cielo.sales().find((s) => s.MerchantOrderId === paymentId);

  it('a frictionless authentication: Authenticate true, Cavv, Eci, Version, ReferenceId = the 3DS transaction', async () => {
    const body = await pay('4000000000001000', { threeDs: {}, deviceInfo: DEVICE });
    expect(body).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent', eci: '05', liabilityShift: true } });
    const auth = saleOf(body.paymentId)!.Authentication!;
    expect(auth).toMatchObject({ authenticate: true, dataOnly: false, eci: '5', version: '2', referenceId: body.threeDs.transactionId });
    expect(auth.cavv).toMatch(/^[A-Za-z0-9+/]{27}=$/);
  });

  it('an external authentication reaches Cielo as it was given', async () => {
    const body = await pay(APPROVED, { threeDs: { external: { cavv: CAVV, eci: '06', version: '2.1.0', xid: 'Uk5ZanBHcWw2RjRCbEN5dGtiMTB=', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } } });
    expect(body).toMatchObject({ status: 'Authorized', threeDs: { status: 'Attempt', eci: '06', liabilityShift: true } });
    expect(saleOf(body.paymentId)!.Authentication).toMatchObject({ authenticate: true, cavv: CAVV, eci: '6', version: '2', xid: 'Uk5ZanBHcWw2RjRCbEN5dGtiMTB=', referenceId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' });
  });

  it('dataOnly: Authenticate false, DataOnly true, no Cavv', async () => {
    const body = await pay(APPROVED, { threeDs: { dataOnly: true } });
    expect(body).toMatchObject({ status: 'Authorized', threeDs: { liabilityShift: false } });
    expect(saleOf(body.paymentId)!.Authentication).toMatchObject({ authenticate: false, dataOnly: true, cavv: undefined, eci: '7' });
  });

  it('a passed challenge is authorized at Cielo with its authentication; a failed one never reaches Cielo', async () => {
    const body = await pay('4000000000001091', { threeDs: {}, deviceInfo: DEVICE });
    expect(body.status).toBe('PendingAuthentication');
    expect(saleOf(body.paymentId)).toBeUndefined();
    const acs = new URL(body.threeDs.acsUrl).pathname;
    const page = await t.inject({ method: 'POST', url: acs, ...form({ creq: body.threeDs.creq }) });
    const answer = await t.inject({ method: 'POST', url: `${acs}/answer`, ...form({ creq: field(page.body, 'creq')!, otp: SANDBOX_OTP }) });
    expect((await t.inject({ method: 'POST', url: '/gateway/v1/3ds/notifications', ...form({ cres: field(answer.body, 'cres')! }) })).statusCode).toBe(200);
    expect(saleOf(body.paymentId)!.Authentication).toMatchObject({ authenticate: true, eci: '5', referenceId: body.threeDs.transactionId });
    const failed = await pay('4000000000001109', { threeDs: {}, deviceInfo: DEVICE });
    expect(failed.status).toBe('Denied');
    expect(saleOf(failed.paymentId)).toBeUndefined();
  });

  it('a sale without threeDs carries no authentication', async () => {
    const body = await pay(APPROVED, {});
    expect(saleOf(body.paymentId)!.Authentication).toBeUndefined();
  });

  it('the stand-in refuses a malformed ExternalAuthentication node as Cielo would', () => {
    const base = { MerchantOrderId: 'o1', Payment: { Type: 'CreditCard', Amount: 100, Installments: 1, CreditCard: { CardNumber: '4532000000000001', Holder: 'A', ExpirationDate: '12/2035', Brand: 'Visa' } } };
    const sale = (payment: object) => validateSale({ ...base, Payment: { ...base.Payment, ...payment } }, new Date());
    expect(sale({ Authenticate: true }).ok).toBe(false);
    expect(sale({ Authenticate: true, ExternalAuthentication: { Cavv: 'x', Eci: '5', Version: '2' } }).ok).toBe(false);
    expect(sale({ Authenticate: true, ExternalAuthentication: { Cavv: CAVV, Eci: '5', Version: '2', DataOnly: true } }).ok).toBe(false);
    expect(sale({ Authenticate: true, ExternalAuthentication: { Cavv: CAVV, Eci: '5', Version: '2' } }).ok).toBe(true);
    expect(sale({ Authenticate: false, ExternalAuthentication: { Eci: '4', Version: '2.2.0', DataOnly: true } }).ok).toBe(true);
  });
});
