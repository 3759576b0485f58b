import { testApp, type TestApp, type TestAppOptions, type TestMerchant } from '../support/harness.js';
import { vault } from '../support/cards.js';
import { clock, recurrence } from './support.js';

export interface World {
  t: TestApp;
  m: TestMerchant;
  api: ReturnType<typeof recurrence>;
  clk: ReturnType<typeof clock>;
  /** A stored 4111... card of the merchant (approved unless its outcome is forced). */
  vaultId: string;
}

/** A fresh app (its own database and sandbox clock) with a merchant and a stored card. */
export async function world(options: TestAppOptions = {}): Promise<World> {
  const t = await testApp(options);
  const m = await t.merchant();
  return { t, m, api: recurrence(t, m), clk: clock(t), vaultId: await vault(t, m, '4111111111111111') };
}
