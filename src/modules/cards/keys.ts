import { constants, createPrivateKey, generateKeyPair, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { cardKeysRepository as keys, type CardKeyRow } from './repository.js';

const generateKeyPairAsync = promisify(generateKeyPair);

export const CARD_KEY_ALGORITHM = 'RSA-OAEP-256';
/** The seeds' size of encryptedCard. */
export const MAX_ENCRYPTED_CARD_LENGTH = 2048;
/** A retired key keeps decrypting this long (contract section 5): clients cache the public key. */
export const RETIRED_KEY_GRACE_MS = 24 * 60 * 60 * 1000;
/**
 * How long this instance trusts what it read about the keys before reading again. Another
 * instance may rotate: within a minute we serve its new public key and see the old one's
 * retirement time (which decides when it stops decrypting).
 */
const KEY_CACHE_MS = 60 * 1000;
/** RSA-2048: every OAEP ciphertext is exactly 256 bytes. */
const CIPHERTEXT_BYTES = 256;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+$/;
/** Associated data of a sealed private key: bound to its key id (also sealed-columns.ts). */
export const cardKeyAd = (keyId: string) => `card-key:${keyId}`;

export interface CardPublicKey {
  keyId: string;
  algorithm: typeof CARD_KEY_ALGORITHM;
  /** SPKI PEM of a 2048-bit RSA key. */
  publicKey: string;
}

/** The JSON a client encrypts (contract section 5). */
export interface DecryptedCard {
  number: string;
  expirationMonth: string;
  expirationYear: string;
  securityCode?: string;
}

interface UnsealedKey {
  key: KeyObject;
  /** Wall-clock ms at which it was retired; null while current. */
  retiredAt: number | null;
}

/**
 * The RSA keys behind `encryptedCard`. Private keys are stored sealed under DATA_KEY (with the
 * key id as associated data, so a sealed key cannot be swapped onto another row) and unsealed
 * into memory once. Retirement and the 24 h grace run on the wall clock: they are security
 * timers, and advancing the sandbox clock must not expire a key a checkout page holds.
 */
export class CardKeyService {
  private current: { key: CardPublicKey; loadedAt: number } | undefined;
  private readonly unsealed = new Map<string, UnsealedKey>();
  private unsealedLoadedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly database: Database,
    private readonly cipher: DataCipher,
    private readonly clock: Clock,
  ) {}

  /** Creates the first key when there is none; answers the current key. Called at startup. */
  async ensureKey(): Promise<CardPublicKey> {
    const keyId = await keys.currentKeyId(this.database.db);
    return keyId ? this.loadCurrent(keyId) : this.install(null);
  }

  async publicKey(): Promise<CardPublicKey> {
    if (this.current && this.wallMs() - this.current.loadedAt < KEY_CACHE_MS) return this.current.key;
    return this.ensureKey();
  }

  /** Retires the current key (it still decrypts for 24 h) and makes a new one current. */
  async rotate(): Promise<CardPublicKey> {
    const keyId = await keys.currentKeyId(this.database.db);
    return this.install(keyId ?? null);
  }

  /**
   * Decrypts an `encryptedCard` with the current key or one retired less than 24 h ago. Every
   * failure is a 400 under `tag` that says what is wrong without repeating the content.
   */
  async decryptCard(encryptedCard: string, tag = 'cardInfo.encryptedCard'): Promise<DecryptedCard> {
    const bad = (description: string) => invalid(tag, description);
    if (typeof encryptedCard !== 'string' || encryptedCard.length === 0) throw bad(`${tag} must be a non-empty base64 string.`);
    if (encryptedCard.length > MAX_ENCRYPTED_CARD_LENGTH) throw bad(`${tag} must have at most ${MAX_ENCRYPTED_CARD_LENGTH} characters.`);
    if (!BASE64.test(encryptedCard)) throw bad(`${tag} must be base64.`);
    const blob = Buffer.from(encryptedCard, 'base64');
    if (blob.length !== CIPHERTEXT_BYTES) throw bad(`${tag} is not an RSA-OAEP ciphertext of a 2048-bit key (256 bytes once base64-decoded).`);

    if (this.wallMs() - this.unsealedLoadedAt >= KEY_CACHE_MS) await this.reloadKeys();
    let plaintext = this.tryDecrypt(blob);
    if (plaintext === undefined) {
      // Another instance may have rotated since we last looked: read the keys again once.
      await this.reloadKeys();
      plaintext = this.tryDecrypt(blob);
    }
    if (plaintext === undefined) {
      throw bad(`${tag} could not be decrypted. Encrypt with RSA-OAEP (SHA-256) and the key from GET /cards/public-key; a rotated key stops working 24 hours after rotation.`);
    }
    return parseCard(plaintext, tag);
  }

  private tryDecrypt(blob: Buffer): Buffer | undefined {
    const cutoff = this.wallMs() - RETIRED_KEY_GRACE_MS;
    // The current key first: nearly every ciphertext is for it.
    const candidates = [...this.unsealed.values()]
      .filter((k) => k.retiredAt === null || k.retiredAt > cutoff)
      .sort((a, b) => (b.retiredAt ?? Infinity) - (a.retiredAt ?? Infinity));
    for (const { key } of candidates) {
      try {
        return privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, blob);
      } catch {
        // OAEP decoding failed: not this key. Try the next.
      }
    }
    return undefined;
  }

  private async reloadKeys(): Promise<void> {
    const now = this.wallMs();
    const rows = await keys.usable(this.database.db, new Date(now - RETIRED_KEY_GRACE_MS).toISOString());
    const live = new Set<string>();
    for (const row of rows) {
      live.add(row.key_id);
      const retiredAt = row.retired_at === null ? null : Date.parse(row.retired_at);
      const known = this.unsealed.get(row.key_id);
      if (known) known.retiredAt = retiredAt;
      else this.unsealed.set(row.key_id, { key: this.unseal(row), retiredAt });
    }
    // Keys past their grace are dropped from memory too.
    for (const keyId of this.unsealed.keys()) if (!live.has(keyId)) this.unsealed.delete(keyId);
    this.unsealedLoadedAt = now;
  }

  private unseal(row: CardKeyRow): KeyObject {
    return createPrivateKey(this.cipher.decrypt(row.private_sealed, cardKeyAd(row.key_id)));
  }

  private async loadCurrent(keyId: string): Promise<CardPublicKey> {
    const row = await keys.find(this.database.db, keyId);
    if (!row) throw new Error(`card key ${keyId} is named current but does not exist`);
    return this.remember(row.key_id, row.public_pem);
  }

  /**
   * Generates a key and makes it current unless the current key is no longer `expected`.
   * The key pair is generated before the transaction (it takes a while) and thrown away when
   * another instance won the race; the answer is then the winner's key.
   */
  private async install(expected: string | null): Promise<CardPublicKey> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const keyId = `ck_${randomBytes(12).toString('hex')}`;
    const now = this.clock.wallNow().toISOString();
    const won = await this.database.db.transaction().execute(async (trx) => {
      if (!(await keys.claimCurrent(trx, expected, keyId))) return false;
      if (expected !== null) await keys.retire(trx, expected, now);
      await keys.insert(trx, {
        key_id: keyId,
        public_pem: publicKey,
        private_sealed: this.cipher.encrypt(privateKey, cardKeyAd(keyId)),
        created_at: now,
        retired_at: null,
      });
      return true;
    });
    if (!won) return this.ensureKey();
    // Our cached view of the retired key must show its retirement at once.
    if (expected !== null) {
      const old = this.unsealed.get(expected);
      if (old) old.retiredAt = Date.parse(now);
    }
    this.unsealed.set(keyId, { key: createPrivateKey(privateKey), retiredAt: null });
    return this.remember(keyId, publicKey);
  }

  private remember(keyId: string, publicPem: string): CardPublicKey {
    const key: CardPublicKey = { keyId, algorithm: CARD_KEY_ALGORITHM, publicKey: publicPem };
    this.current = { key, loadedAt: this.wallMs() };
    return key;
  }

  private wallMs(): number {
    return this.clock.wallNow().getTime();
  }
}

/** The decrypted JSON, checked for shape only (validateCard checks the values). */
function parseCard(plaintext: Buffer, tag: string): DecryptedCard {
  let value: unknown;
  try {
    value = JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw invalid(tag, `${tag} does not hold card JSON {"number", "expirationMonth", "expirationYear", "securityCode"?}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(tag, `${tag} must hold a JSON object {"number", "expirationMonth", "expirationYear", "securityCode"?}.`);
  }
  const card = value as Record<string, unknown>;
  const problems: ErrorItem[] = [];
  for (const field of ['number', 'expirationMonth', 'expirationYear'] as const) {
    if (typeof card[field] !== 'string' || card[field] === '') problems.push({ tag, description: `${tag}: "${field}" is required and must be a string.` });
  }
  if (card.securityCode !== undefined && typeof card.securityCode !== 'string') {
    problems.push({ tag, description: `${tag}: "securityCode" must be a string when present.` });
  }
  if (problems.length > 0) throw invalid(problems);
  return {
    number: card.number as string,
    expirationMonth: card.expirationMonth as string,
    expirationYear: card.expirationYear as string,
    ...(card.securityCode !== undefined ? { securityCode: card.securityCode as string } : {}),
  };
}
