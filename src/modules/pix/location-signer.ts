import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Database } from '../../db/connection.js';
import type { DataCipher } from '../../security/data-cipher.js';

/** The settings row holding the sandbox's signing key, sealed under DATA_KEY like every secret at rest. */
const KEY_SETTING = 'pix_location_signing_key';
/** The API Pix signs location payloads with PS256 (RSASSA-PSS, SHA-256). */
const ALG = 'PS256';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

/**
 * The sandbox PSP's signing key for the payloads served at the locations of dynamic codes
 * (`application/jose`, a compact JWS whose header names the key by `kid` and its JWKS by
 * `jku`, as a bank app reads them). One key per database, so every instance signs with the
 * key the published JWKS holds; created by the first instance, the others read it.
 */
/** An RSA public key as the JWKS publishes it. */
export interface PublicJwk {
  kty: string;
  kid: string;
  alg: string;
  use: string;
  n: string;
  e: string;
}

export class LocationSigner {
  private key?: { privateKey: SigningKey; publicJwk: PublicJwk };

  constructor(
    private readonly database: Database,
    private readonly cipher: DataCipher,
  ) {}

  private async load(): Promise<{ privateKey: SigningKey; publicJwk: PublicJwk }> {
    if (this.key) return this.key;
    const db = this.database.db;
    let row = await db.selectFrom('settings').select('value').where('key', '=', KEY_SETTING).executeTakeFirst();
    if (!row) {
      const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
      const jwk = await exportJWK(privateKey);
      const sealed = this.cipher.encrypt(JSON.stringify(jwk), KEY_SETTING);
      // Two instances starting at once: the first insert wins and both use its key.
      await db.insertInto('settings').values({ key: KEY_SETTING, value: sealed }).onConflict((oc) => oc.column('key').doNothing()).execute();
      row = await db.selectFrom('settings').select('value').where('key', '=', KEY_SETTING).executeTakeFirstOrThrow();
    }
    const jwk = JSON.parse(this.cipher.decrypt(row.value, KEY_SETTING)) as JWK;
    const rsa = { kty: 'RSA', n: jwk.n as string, e: jwk.e as string };
    const publicJwk: PublicJwk = { ...rsa, kid: await calculateJwkThumbprint(rsa), alg: ALG, use: 'sig' };
    this.key = { privateKey: await importJWK(jwk, ALG), publicJwk };
    return this.key;
  }

  /** The published key set (`{keys: [...]}`), public parts only. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    return { keys: [(await this.load()).publicJwk] };
  }

  async sign(payload: object, jku: string): Promise<string> {
    const { privateKey, publicJwk } = await this.load();
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: ALG, kid: publicJwk.kid, jku })
      .sign(privateKey);
  }
}
