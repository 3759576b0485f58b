import { expect } from 'vitest';
import { verify } from '../../src/modules/webhooks/signature.js';
import type { TestApp } from '../support/harness.js';
import type { Received, Receiver } from '../webhooks/receiver.js';
import { deliveries, subscribe, webhookMerchant } from '../webhooks/support.js';

export type EventMerchant = Awaited<ReturnType<typeof webhookMerchant>>;

/** A merchant whose account subscribes to `types` (absent: the default) at `path` of the receiver; answers it with its secret. */
export async function listening(t: TestApp, receiver: Receiver, path: string, types?: string[]): Promise<{ m: EventMerchant; secret: string }> {
  const m = await webhookMerchant(t);
  const res = await subscribe(t, m, types === undefined ? { url: receiver.url(path) } : { url: receiver.url(path), types });
  expect(res.statusCode, res.body).toBe(200);
  return { m, secret: res.json().secret };
}

/** The events a path received, in movement order, as `[type, data]` (conciliation bodies whole). */
export function received(receiver: Receiver, path: string): Received[] {
  return receiver.on(path).sort((a, b) => a.json.movementId - b.json.movementId);
}

export const typesOf = (list: Received[]) => list.map((r) => r.json.type as string);

/** Every delivery arrived signed with the account's secret (Standard Webhooks), body as sent. */
export function expectSigned(list: Received[], secret: string): void {
  expect(list.length).toBeGreaterThan(0);
  for (const got of list) {
    const id = String(got.headers['webhook-id']);
    expect(verify(secret, id, Number(got.headers['webhook-timestamp']), got.body, String(got.headers['webhook-signature']))).toBe(true);
  }
}

/** Each received event is in the account's delivery log, Delivered, with the body as sent. */
export async function expectLogged(t: TestApp, m: EventMerchant, list: Received[]): Promise<void> {
  const log = await deliveries(t, m, { channel: 'webhook' });
  const byId = new Map(log.map((d) => [d.movementId, d]));
  for (const got of list) {
    const entry = byId.get(got.json.movementId);
    expect(entry, `movement ${got.json.movementId} in the log`).toBeDefined();
    expect(entry).toMatchObject({ type: got.json.type, status: 'Delivered', notification: got.json });
  }
}

/** The event body of the catalogue: movementId first, then type, moment and data. */
export function expectEventShape(got: Received): void {
  expect(Object.keys(got.json)).toEqual(['movementId', 'type', 'moment', 'data']);
  expect(got.json.moment).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
}
