import { constants, publicEncrypt } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../support/harness.js';

export const VISA = '4111111111111111';
export const MASTERCARD = '5555555555554444';
export const AMEX = '378282246310005';
export const ELO = '6362970000457013';
export const HIPERCARD = '6062825624254001';

/** RSA-OAEP-256 as a client does it: SHA-256 for OAEP and (Node's default) MGF1. */
export function encryptWith(publicKey: string, plaintext: string): string {
  return publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(plaintext, 'utf8')).toString('base64');
}

export async function currentPublicKey(t: TestApp): Promise<{ keyId: string; algorithm: string; publicKey: string }> {
  return (await t.inject({ method: 'GET', url: '/gateway/cards/public-key' })).json();
}

export async function encryptCard(t: TestApp, card: Record<string, unknown>): Promise<string> {
  return encryptWith((await currentPublicKey(t)).publicKey, JSON.stringify(card));
}

/** Records every response body, so a test can prove a PAN never left the service. */
export class Recorder {
  readonly bodies: string[] = [];
  constructor(private readonly t: TestApp) {}
  async inject(options: InjectOptions): Promise<LightMyRequestResponse> {
    const res = await this.t.inject(options);
    this.bodies.push(res.body);
    return res;
  }
}

export const tagsOf = (res: LightMyRequestResponse): string[] => (res.json() as { tag: string }[]).map((e) => e.tag).sort();

/** Every value of every row of a table, as text (for scanning for clear card data). */
export async function allValues(t: TestApp, table: 'card_tokens' | 'vault_cards' | 'idempotency_keys' | 'card_keys' | 'settings'): Promise<string[]> {
  const rows = (await t.ctx.database.db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
  return rows.flatMap((row) => Object.values(row).map((v) => String(v)));
}
