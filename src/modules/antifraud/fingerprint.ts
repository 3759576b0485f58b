import { createHmac } from 'node:crypto';
import type { DataCipher } from '../../security/data-cipher.js';

const keys = new WeakMap<DataCipher, Buffer>();

/**
 * The card fingerprint: hex(HMAC-SHA256(deriveKey('card-fingerprint'), pan)). Exactly the card
 * module's definition, so a blocklisted card number matches the `card_fingerprint` of its
 * payments; keyed (not a bare SHA-256) because the PAN space is small enough to brute-force.
 * The derived key is cached per cipher (HKDF per call is wasted work). To be merged with the
 * card module's identical function.
 */
export function cardFingerprint(cipher: DataCipher, pan: string): string {
  let key = keys.get(cipher);
  if (!key) {
    key = cipher.deriveKey('card-fingerprint');
    keys.set(cipher, key);
  }
  return createHmac('sha256', key).update(pan).digest('hex');
}
