import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A sealed value names a key that is not in the keyring (DATA_KEY, DATA_KEYS_PREVIOUS), or is
 * not a sealed value at all. The message names the key id only (never any of the value): the
 * id is stored in clear in every sealed value anyway. An internal error (500), not a 4xx.
 */
export class SealedValueError extends Error {}

const SEALED_VERSION = 'v1';

/**
 * AES-256-GCM under DATA_KEY for everything stored encrypted (card numbers, webhook secrets,
 * acquirer keys, card RSA private keys, sandbox demo secrets). Each value names the key that
 * sealed it, `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts), and is opened by that key:
 * the keyring is DATA_KEY (seals) plus DATA_KEYS_PREVIOUS (open only), so DATA_KEY rotates
 * without a big-bang re-encryption (`gateway keys reencrypt` moves old values afterwards).
 */
export class DataCipher {
  private readonly keys = new Map<string, Buffer>();
  /** Lookup keys (fingerprints, request hashes) that must not change when DATA_KEY rotates: see `lookupKey`. */
  private readonly lookupKeys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  /** `keys[0]` encrypts; every key decrypts (previous keys kept for rotation). */
  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('DataCipher needs at least one key');
    for (const key of keys) {
      if (key.length !== 32) throw new Error('DATA_KEY must be 32 bytes');
      this.keys.set(keyIdOf(key), key);
    }
    this.currentKeyId = keyIdOf(keys[0]);
  }

  static fromBase64(current: string, previous: readonly string[] = []): DataCipher {
    return new DataCipher([current, ...previous].map((k) => Buffer.from(k, 'base64')));
  }

  /** Ids of the keys in the ring, the current one first. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  hasKey(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /** The key id a sealed value names (its second part), or undefined when it is not one. */
  static keyIdOf(sealed: string): string | undefined {
    const [version, keyId] = sealed.split('.', 2);
    return version === SEALED_VERSION && keyId ? keyId : undefined;
  }

  /** The prefix every value sealed under the current key starts with (`v1.<keyId>.`). */
  get currentPrefix(): string {
    return `${SEALED_VERSION}.${this.currentKeyId}.`;
  }

  /** Seals under the current key (`keyId`: another key of the ring, for the keyring's own bookkeeping only). */
  encrypt(plaintext: string, associatedData = '', keyId = this.currentKeyId): string {
    const key = this.keys.get(keyId);
    if (!key) throw new SealedValueError(`data key ${keyId} is not in the keyring`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return [SEALED_VERSION, keyId, ...parts].join('.');
  }

  /**
   * Opens a value with the key it names. `associatedData` binds a ciphertext to its row (a
   * vault id, say) so it cannot be moved. A key outside the ring, a malformed value or a failed
   * authentication throw a `SealedValueError` that says which, never what the value holds.
   */
  decrypt(sealed: string, associatedData = ''): string {
    const [version, keyId, iv, tag, ciphertext] = sealed.split('.');
    if (version !== SEALED_VERSION || !keyId || !iv || !tag || ciphertext === undefined) {
      throw new SealedValueError('sealed value has an unknown format');
    }
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SealedValueError(
        `sealed value names data key ${keyId}, which is neither DATA_KEY (${this.currentKeyId}) nor in DATA_KEYS_PREVIOUS` +
          ` (${this.keyIds.slice(1).join(', ') || 'empty'}): add the key it was sealed with to DATA_KEYS_PREVIOUS`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(`sealed value under data key ${keyId} did not authenticate (altered, or bound to another row)`);
    }
  }

  /**
   * A purpose-bound subkey derived with HKDF from one key of the ring (the current one by
   * default), never the key itself. For keys that may follow DATA_KEY's rotation (JWT signing,
   * where the token names its key id); lookup values use `lookupKey` instead.
   */
  deriveKey(purpose: string, keyId = this.currentKeyId): Buffer {
    const key = this.keys.get(keyId);
    if (!key) throw new SealedValueError(`data key ${keyId} is not in the keyring`);
    return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));
  }

  /**
   * A key for values compared across time (card fingerprints, idempotency request hashes): it
   * stays the same when DATA_KEY rotates, or velocity counts and blocklists would silently stop
   * matching. Kept sealed in `settings` and installed at start by `openKeyring` (keyring.ts).
   */
  lookupKey(purpose: string): Buffer {
    const key = this.lookupKeys.get(purpose);
    if (!key) throw new Error(`lookup key "${purpose}" is not loaded: open the keyring (openKeyring) first`);
    return key;
  }

  setLookupKey(purpose: string, key: Buffer): void {
    if (key.length !== 32) throw new Error(`lookup key "${purpose}" must be 32 bytes`);
    this.lookupKeys.set(purpose, key);
  }
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function generateDataKey(): string {
  return randomBytes(32).toString('base64');
}
