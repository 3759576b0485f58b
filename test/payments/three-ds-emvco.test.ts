import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreeDsServerStandIn, STANDIN_OTP } from '../standins/threeds-server.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { DEVICE, field } from '../support/three-ds.js';
import { liftVelocity } from '../recurrence/support.js';

const PAY = '/gateway/v1/payments';
const NOTIFY = '/gateway/v1/3ds/notifications';

/** THREEDS_SERVER=emvco against the stand-in 3DS server (a separate HTTP server speaking EMVCo 3DS 2.2 messages). */
describe(`3-D Secure through an EMVCo 3DS server (stand-in, ${testDialect})`, () => {
  let server: ThreeDsServerStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    server = await new ThreeDsServerStandIn().start();
    t = await testApp({ env: { THREEDS_SERVER: 'emvco', THREEDS_SERVER_URL: server.url, THREEDS_TIMEOUT_MS: '2000' } });
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  const pay = async (pan: string, threeDs: object = {}) =>
    (await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan) }, { threeDs, deviceInfo: DEVICE }) })).json();
  const post = (url: string, fields: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }).then(async (r) => ({ status: r.status, body: await r.text() }));
  /** The buyer's browser at the stand-in's ACS; answers the cres its last page posts to us. */
  async function challenge(acsUrl: string, creq: string, otp: string): Promise<string> {
    const page = await post(acsUrl, { creq });
    expect(page.status).toBe(200);
    const answer = await post(`${acsUrl}/answer`, { creq: field(page.body, 'creq')!, otp });
    expect(answer.body).toContain(`action="${t.ctx.threeDs.notificationUrl}"`);
    return field(answer.body, 'cres')!;
  }
  const notify = (cres: string) => t.inject({ method: 'POST', url: NOTIFY, payload: new URLSearchParams({ cres }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  it('sends an AReq with the browser data and answers Silent, Attempt and Fail from the ARes', async () => {
    const silent = await pay('4000000000001000', { authenticationType: '02' });
    expect(silent).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent', eci: '05', version: '2.2.0', liabilityShift: true } });
    const areq = server.areqs.at(-1)!;
    expect(areq).toMatchObject({ messageType: 'AReq', deviceChannel: '02', threeDSRequestorChallengeInd: '02', purchaseAmount: '10000', purchaseCurrency: '986', browserUserAgent: 'Mozilla/5.0', browserIP: '198.51.100.7', notificationURL: t.ctx.threeDs.notificationUrl });
    expect(areq.acctNumber).toBe('400000******1000');
    expect((await pay('5200000000001013')).threeDs).toMatchObject({ status: 'Attempt', eci: '01', liabilityShift: false });
    const failed = await pay('4000000000001109');
    expect(failed).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail', liabilityShift: false } });
    expect(failed.returnMessage).toMatch(/transStatus N/);
    expect((await pay('4000000000001125')).returnMessage).toMatch(/unavailable/);
  });

  it('a challenge passed at the ACS: the result is the RReq the 3DS server holds, the payment is authorized', async () => {
    const body = await pay('4000000000001091');
    expect(body).toMatchObject({ status: 'PendingAuthentication', threeDs: { status: 'Challenge' } });
    expect(body.threeDs.acsUrl).toBe(`${server.url}/acs/challenge`);
    const cres = await challenge(body.threeDs.acsUrl, body.threeDs.creq, STANDIN_OTP);
    const notified = await notify(cres);
    expect(notified.statusCode).toBe(200);
    expect(notified.body).toContain('Authorized');
    const after = (await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json();
    expect(after).toMatchObject({ status: 'Authorized', threeDs: { status: 'Challenge', eci: '05', liabilityShift: true } });
  });

  it('a challenge failed at the ACS denies the payment; a CRes the 3DS server never saw changes nothing', async () => {
    const body = await pay('4000000000001091');
    // A CRes forged in the browser claims success before the ACS answered: the 3DS server has no result for it.
    const creq = JSON.parse(Buffer.from(body.threeDs.creq, 'base64url').toString()) as Record<string, string>;
    const forged = Buffer.from(JSON.stringify({ messageType: 'CRes', messageVersion: '2.2.0', threeDSServerTransID: creq.threeDSServerTransID, acsTransID: creq.acsTransID, transStatus: 'Y' })).toString('base64url');
    expect((await notify(forged)).statusCode).toBe(400);
    expect((await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json().status).toBe('PendingAuthentication');
    const cres = await challenge(body.threeDs.acsUrl, body.threeDs.creq, '999999');
    expect((await notify(cres)).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json()).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail' } });
  });

  it('the 3DS server down: not authenticated, Denied, nothing charged', async () => {
    server.down = true;
    try {
      const body = await pay('4000000000001000');
      expect(body).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail' } });
      expect(body.returnMessage).toMatch(/did not answer/);
    } finally {
      server.down = false;
    }
  });
});
