import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under DATA_KEY for everything stored encrypted (card numbers, webhook secrets,
 * sandbox demo secrets). Each value names the key that sealed it, so DATA_KEY can rotate:
 * `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export class DataCipher {
  private readonly keys = new Map<string, Buffer>();
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

  static fromBase64(current: string, previous: string[] = []): DataCipher {
    return new DataCipher([current, ...previous].map((k) => Buffer.from(k, 'base64')));
  }

  encrypt(plaintext: string, associatedData = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return ['v1', this.currentKeyId, ...parts].join('.');
  }

  /** `associatedData` binds a ciphertext to its row (a vault id, say) so it cannot be moved. */
  decrypt(sealed: string, associatedData = ''): string {
    const [version, keyId, iv, tag, ciphertext] = sealed.split('.');
    const key = this.keys.get(keyId);
    if (version !== 'v1' || !key || !iv || !tag || ciphertext === undefined) {
      throw new Error('sealed value has an unknown format or key');
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A purpose-bound subkey (JWT signing, fingerprints) derived with HKDF, never the key itself. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.keys.get(this.currentKeyId)!, Buffer.alloc(0), purpose, 32));
  }
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function generateDataKey(): string {
  return randomBytes(32).toString('base64');
}
