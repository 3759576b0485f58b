import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { DataCipher } from '../../security/data-cipher.js';
import type { Scope } from '../merchants/service.js';

/** Which API issued a token: a token is accepted only by that API. */
export type ApiName = 'gateway' | 'integration';

export interface TokenClaims {
  userName: string;
  merchantId: string;
  accountNumber: number;
  scopes: Scope[];
}

const ISSUER = 'payment-gateway';
const PURPOSE = 'jwt-signing';

/** HS256 keys by `kid`: one derived from each key of the DATA_KEY ring, the current one signs. */
export interface SigningKeys {
  currentKid: string;
  byKid: ReadonlyMap<string, Uint8Array>;
}

/**
 * Signing keys follow DATA_KEY's rotation: a token names (`kid`, the data key's id) the key
 * it was signed with, so tokens issued before a rotation stay valid until they expire while
 * that key is in DATA_KEYS_PREVIOUS, and are refused once it leaves.
 */
export function signingKeysOf(cipher: DataCipher): SigningKeys {
  return { currentKid: cipher.currentKeyId, byKid: new Map(cipher.keyIds.map((id) => [id, cipher.deriveKey(PURPOSE, id)])) };
}

/** Verified tokens kept (FIFO beyond this): about 4 MB at most. */
const VERIFIED_CACHE_SIZE = 10_000;

export class TokenSigner {
  /**
   * Tokens already verified, by API and token text, with their expiry. A token's text is its
   * signature: the same text verifies the same way while the process's keys stand (they change
   * only with a restart), so each request after the first skips the HMAC (WebCrypto's async
   * verify is a job on the thread pool for every request); the expiry is still checked on every
   * use.
   */
  private readonly verifiedCache = new Map<string, { claims: TokenClaims; expiresAtMs: number }>();

  constructor(private readonly keys: SigningKeys, private readonly ttlSeconds: number) {}

  async issue(api: ApiName, claims: TokenClaims, wallNow: Date) {
    const iat = Math.floor(wallNow.getTime() / 1000);
    const exp = iat + this.ttlSeconds;
    const accessToken = await new SignJWT({ mid: claims.merchantId, acct: claims.accountNumber, scope: claims.scopes.join(' ') })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.keys.currentKid })
      .setIssuer(ISSUER)
      .setAudience(api)
      .setSubject(claims.userName)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.keys.byKid.get(this.keys.currentKid)!);
    return { accessToken, created: new Date(iat * 1000), expiration: new Date(exp * 1000) };
  }

  /** Claims of a valid token for `api`, or the reason it is refused. */
  async verify(api: ApiName, token: string, wallNow: Date): Promise<TokenClaims | { refused: string }> {
    const cacheKey = `${api}\n${token}`;
    const known = this.verifiedCache.get(cacheKey);
    if (known) {
      if (wallNow.getTime() < known.expiresAtMs) return known.claims;
      this.verifiedCache.delete(cacheKey);
      return { refused: 'Token expired.' };
    }
    try {
      const payload = await this.verified(api, token, wallNow);
      if (!payload) return { refused: 'Invalid token.' };
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || typeof payload.scope !== 'string' || typeof payload.exp !== 'number') {
        return { refused: 'Invalid token.' };
      }
      const claims: TokenClaims = {
        userName: payload.sub,
        merchantId: payload.mid,
        accountNumber: Number(payload.acct),
        scopes: payload.scope.split(' ').filter(Boolean) as Scope[],
      };
      if (this.verifiedCache.size >= VERIFIED_CACHE_SIZE) this.verifiedCache.delete(this.verifiedCache.keys().next().value!);
      this.verifiedCache.set(cacheKey, { claims, expiresAtMs: payload.exp * 1000 });
      return claims;
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { refused: 'Token expired.' };
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
        return { refused: `Token was not issued by the ${api} API.` };
      }
      return { refused: 'Invalid token.' };
    }
  }

  /**
   * The payload of a token signed by the key its `kid` names (undefined: no such key in the
   * ring). A token without `kid` was issued before keys had ids, under the key current then:
   * each key of the ring is tried (tokens live at most TOKEN_TTL_SECONDS, so this ends soon).
   */
  private async verified(api: ApiName, token: string, wallNow: Date): Promise<JWTPayload | undefined> {
    const { kid } = decodeProtectedHeader(token);
    const keys = kid === undefined ? [...this.keys.byKid.values()] : [this.keys.byKid.get(kid)].filter((k) => k !== undefined);
    const options = { issuer: ISSUER, audience: api, algorithms: ['HS256'], currentDate: wallNow };
    for (const [i, key] of keys.entries()) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        // Signatures are checked before claims: another key may still be the one.
        if (error instanceof errors.JWSSignatureVerificationFailed && i < keys.length - 1) continue;
        throw error;
      }
    }
    return undefined;
  }
}
