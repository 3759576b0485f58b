import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../../examples/webhook-receiver.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { basic, deliveries, runDue, subscribed, webhookMerchant } from './support.js';

/** The receiver the README shows, run against real deliveries. */
describe(`the README's webhook receiver (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  /** Subscribes (learning the secret), starts the example receiver, makes one payment, answers the delivery log entry. */
  async function withReceiver(user: string, password: string, secretOf: (secret: string) => string, check: (got: any[]) => void) {
    const m = await webhookMerchant(t);
    const registered = basic('shop', 's3cret');
    // The secret comes back from the subscription; a re-registration keeps it.
    const secret = await subscribed(t, m, 'http://127.0.0.1:9/placeholder', registered);
    const got: any[] = [];
    const server = createReceiver({ secret: secretOf(secret), user, password, onNotification: (n) => got.push(n) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      expect(await subscribed(t, m, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, registered)).toBe(secret);
      const numberToken = await tokenize(t, m, '4111111111111111');
      expect((await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }) })).statusCode).toBe(201);
      await runDue(t);
      await new Promise((r) => setImmediate(r)); // the receiver processes after answering
      check(got);
      const [delivery] = await deliveries(t, m);
      return delivery;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it('accepts a signed delivery with the registered credentials and hands over the notification once', async () => {
    const delivery = await withReceiver('shop', 's3cret', (s) => s, (got) => {
      expect(got).toEqual([expect.objectContaining({ type: 'TransactionStatus', oldValue: '', newValue: 'Authorized' })]);
    });
    expect(delivery.status).toBe('Delivered');
  });

  it('refuses (401, so the gateway retries) a wrong signature or wrong credentials', async () => {
    const badSecret = await withReceiver('shop', 's3cret', () => 'whsec_' + Buffer.alloc(32, 1).toString('base64'), (got) => expect(got).toEqual([]));
    expect(badSecret).toMatchObject({ status: 'Pending', attempts: [expect.objectContaining({ statusCode: 401 })] });
    const badAuth = await withReceiver('shop', 'other', (s) => s, (got) => expect(got).toEqual([]));
    expect(badAuth).toMatchObject({ status: 'Pending', attempts: [expect.objectContaining({ statusCode: 401 })] });
  });

  it('accepts a payment callback (urlCallBack: signed, no basic auth), so it ends Delivered, not Exhausted', async () => {
    const m = await webhookMerchant(t);
    const secret = await subscribed(t, m, 'http://127.0.0.1:9/placeholder', basic('shop', 's3cret'));
    const got: any[] = [];
    const server = createReceiver({ secret, user: 'shop', password: 's3cret', onNotification: (n) => got.push(n) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const urlCallBack = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
      const numberToken = await tokenize(t, m, '4111111111111111');
      const paid = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }, { urlCallBack }) });
      expect(paid.statusCode, paid.body).toBe(201);
      await runDue(t);
      await new Promise((r) => setImmediate(r));
      expect(got).toEqual([expect.objectContaining({ paymentId: paid.json().paymentId, status: 'Authorized' })]);
      const [callback] = await deliveries(t, m, { channel: 'callback' });
      expect(callback).toMatchObject({ status: 'Delivered', attempts: [expect.objectContaining({ statusCode: 200 })] });
      // Unsigned, it is still refused.
      const forged = await fetch(urlCallBack, { method: 'POST', body: JSON.stringify({ paymentId: 'x', status: 'Paid' }) });
      expect(forged.status).toBe(401);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('its signature check is printed in the README as it is in examples/ (the file the README links)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const code = readFileSync(new URL('../../examples/webhook-receiver.ts', import.meta.url), 'utf8');
    const printed = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(printed).toContain('export function verifySignature(');
    expect(code).toContain(printed.trim());
    expect(readme).toContain('](examples/webhook-receiver.ts)');
  });
});
